"""nn.utils.parameters_to_vector / vector_to_parameters vs torch."""
import numpy as np
import pytest
import torch

import ember
from ._common import both, close


def test_parameters_to_vector_values_and_grad():
    def f(lib):
        net = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.Conv1d(2, 2, 2))
        vec = lib.nn.utils.parameters_to_vector(net.parameters())
        w = lib.arange(vec.numel(), dtype=vec.dtype)
        (vec * w).sum().backward()
        return vec, [p.grad for p in net.parameters()], type(vec.grad_fn).__name__
    t, e = both(f)
    close(t[:2], e[:2])
    assert t[2] == e[2] == 'CatBackward0'


def test_vector_to_parameters_views():
    def f(lib):
        net = lib.nn.Linear(3, 2)
        vec = lib.arange(8.)
        lib.nn.utils.vector_to_parameters(vec, net.parameters())
        vec[0] = 100.           # the parameters view the vector
        return net.weight, net.bias, isinstance(net.weight, lib.nn.Parameter)
    t, e = both(f)
    close(t[:2], e[:2], exact=True)
    assert e[2] and t[2]
    assert float(e[0][0, 0]) == 100.


@pytest.mark.parametrize('bad', [[1.0, 2.0], 3, np.zeros(3)])
def test_vector_to_parameters_type_error(bad):
    msgs = []
    for lib in (torch, ember):
        with pytest.raises(TypeError) as info:
            lib.nn.utils.vector_to_parameters(bad, lib.nn.Linear(1, 1).parameters())
        msgs.append(str(info.value))
    assert msgs[0] == msgs[1]
