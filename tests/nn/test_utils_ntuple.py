"""``ember.nn.modules.utils``: the layers' size helpers behave as torch.nn.modules.utils'."""
import pytest
import torch
import torch.nn.modules.utils as TU

import ember
import ember.nn.modules.utils as EU


@pytest.mark.parametrize('name', ['_single', '_pair', '_triple', '_quadruple'])
@pytest.mark.parametrize('value', [3, (1, 2), [4, 5, 6], 2.5, 'ab', range(3)])
def test_ntuple_helpers(name, value):
    assert getattr(EU, name)(value) == getattr(TU, name)(value)


def test_ntuple_reads_tensors_as_iterables():
    # a 0-dim tensor is iterable but cannot be iterated: torch's TypeError, both
    for U, m in ((EU, ember), (TU, torch)):
        with pytest.raises(TypeError, match='iteration over a 0-d tensor'):
            U._pair(m.tensor(3))
        assert U._pair(m.tensor([1, 2]))[1].item() == 2


def test_reverse_repeat_and_list_with_default():
    assert EU._reverse_repeat_tuple((1, 2), 2) == TU._reverse_repeat_tuple((1, 2), 2)
    assert EU._list_with_default([None, 3], [1, 2, 5, 7]) == \
        TU._list_with_default([None, 3], [1, 2, 5, 7])
    assert EU._list_with_default(4, [1, 2]) == TU._list_with_default(4, [1, 2])
    with pytest.raises(ValueError, match='Input dimension should be at least 3'):
        EU._list_with_default([None, 3], [1, 2])
    with pytest.raises(ValueError, match='Input dimension should be at least 3'):
        TU._list_with_default([None, 3], [1, 2])
