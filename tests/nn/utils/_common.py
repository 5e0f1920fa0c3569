"""Helpers shared by the nn.utils tests: run the same code on ember and torch after the
same seed, compare tensors, build the LeNet5 of the pruning text."""
import importlib

import numpy as np
import torch

import ember


def sub(lib, name):
    """``lib.nn.utils.<name>`` (torch does not import every submodule eagerly)."""
    return importlib.import_module(f'{lib.__name__}.nn.utils.{name}')


def both(fn, seed=0):
    """``fn(torch)`` and ``fn(ember)``, each after ``manual_seed(seed)``."""
    torch.manual_seed(seed)
    t = fn(torch)
    ember.manual_seed(seed)
    e = fn(ember)
    return t, e


def arr(x):
    if x is None:
        return None
    from oracle import to_np
    return to_np(x)


def close(t, e, rtol=1e-5, atol=1e-6, exact=False):
    """Compare (nested lists/tuples/dicts of) tensors from torch (``t``) and ember
    (``e``): shapes, dtypes and values."""
    if isinstance(t, dict):
        assert list(t) == list(e)
        for k in t:
            close(t[k], e[k], rtol, atol, exact)
        return
    if isinstance(t, (list, tuple)):
        assert len(t) == len(e)
        for a, b in zip(t, e):
            close(a, b, rtol, atol, exact)
        return
    if t is None or e is None:
        assert t is None and e is None
        return
    if not hasattr(t, 'detach'):
        assert t == e
        return
    assert str(t.dtype).split('.')[-1] == str(e.dtype).split('.')[-1], (t.dtype, e.dtype)
    assert tuple(t.shape) == tuple(e.shape)
    if exact:
        np.testing.assert_array_equal(arr(e), arr(t))
    else:
        np.testing.assert_allclose(arr(e), arr(t), rtol=rtol, atol=atol)


def to_torch(x):
    """An ember tensor as a torch tensor (same values)."""
    return torch.from_numpy(arr(x).copy())


def to_ember(x):
    return ember.from_numpy(arr(x).copy())


def lenet(lib):
    """The LeNet5 of the pruning chapter (on torch or ember)."""
    nn, F = lib.nn, lib.nn.functional

    class LeNet5(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(3, 6, 5)
            self.conv2 = nn.Conv2d(6, 16, 5)
            self.fc1 = nn.Linear(16 * 5 * 5, 120)
            self.fc2 = nn.Linear(120, 84)
            self.fc3 = nn.Linear(84, 10)

        def forward(self, x):
            x = F.max_pool2d(F.relu(self.conv1(x)), (2, 2))
            x = F.max_pool2d(F.relu(self.conv2(x)), 2)
            x = x.view(-1, int(x.nelement() / x.shape[0]))
            x = F.relu(self.fc1(x))
            x = F.relu(self.fc2(x))
            x = self.fc3(x)
            return x

    return LeNet5()


def raises_both(fn, exc, match=None):
    """``fn(torch)`` and ``fn(ember)`` raise the same exception type (and, when given,
    both messages contain ``match``)."""
    import pytest
    msgs = []
    for lib in (torch, ember):
        with pytest.raises(exc) as info:
            fn(lib)
        msgs.append(str(info.value))
        if match is not None:
            assert match in str(info.value), (lib.__name__, str(info.value))
    return msgs
