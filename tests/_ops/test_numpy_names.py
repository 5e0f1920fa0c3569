"""PyTorch's argument parser takes NumPy's keyword names (``axis`` for ``dim``, ``keepdims``
for ``keepdim``, ``x`` for ``input``) on ops with a ``dim``: ember's registry does the same
(ember/_ops/_util.py, ``_numpy_names``)."""
import numpy as np
import pytest
import torch

import ember

CALLS = {
    'sum_axis': lambda L, x: x.sum(axis=1),
    'sum_keepdims': lambda L, x: x.sum(axis=1, keepdims=True),
    'all': lambda L, x: L.all(x > 0, axis=-1, keepdims=True),
    'cat': lambda L, x: L.cat([x, x], axis=1),
    'softmax': lambda L, x: L.softmax(x, axis=1),
    'method_softmax': lambda L, x: x.softmax(axis=0),
    'mean': lambda L, x: L.mean(x, axis=0, keepdims=True),
    'max': lambda L, x: x.max(axis=0).values,
    'argmax': lambda L, x: x.argmax(axis=1, keepdims=True),
    'squeeze': lambda L, x: x.unsqueeze(0).squeeze(axis=0),
    'input_as_x': lambda L, x: L.sum(x=x, axis=0),
}


@pytest.mark.parametrize('name', sorted(CALLS))
def test_numpy_keyword_names(name):
    a = np.arange(6, dtype=np.float32).reshape(2, 3) - 2
    t = CALLS[name](torch, torch.from_numpy(a))
    e = CALLS[name](ember, ember.tensor(a))
    assert tuple(e.shape) == tuple(t.shape) and str(e.dtype) == str(t.dtype)
    np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=1e-6)


def test_both_names_refused_as_torch():
    for L in (torch, ember):
        with pytest.raises(TypeError, match="sum\\(\\) got an unexpected keyword argument 'axis'"):
            L.ones(2, 3).sum(dim=1, axis=1)


def test_identity_kept():
    assert ember.sum is ember.Tensor.sum and ember.add is ember.Tensor.add
