"""``ember.nn.modules``: every layer lives where torch's does (``ember.nn.modules.<file>``,
the same ``__qualname__``), resolves under torch's import path, and a whole model pickled
by ember loads in torch (and back) with the same outputs."""
import importlib
import io

import numpy as np
import pytest
import torch

import ember

LAYERS = [n for n in ember.nn.modules.__all__ if n != 'LazyModuleMixin']


@pytest.mark.parametrize('name', LAYERS)
def test_layer_module_path_matches_torch(name):
    e, t = getattr(ember.nn, name), getattr(torch.nn, name)
    if name == 'LinearCrossEntropyOptions':
        # NOTE: torch keeps this options class in its own private module
        assert e.__module__ == 'ember.nn.modules.loss'
        return
    assert e.__module__ == 'ember' + t.__module__[5:]
    assert e.__qualname__ == t.__qualname__
    # torch's import path, with ember's root, resolves to the same class
    assert getattr(importlib.import_module(e.__module__), name) is e


def test_modules_namespace_exports_only_layers():
    assert 'utils' not in ember.nn.modules.__all__
    assert ember.nn.utils.__name__ == 'ember.nn.utils'
    assert set(LAYERS) <= set(dir(ember.nn))


def _model(m):
    nn = m.nn
    return nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2), nn.ReLU(), nn.MaxPool2d(1),
                         nn.Flatten(), nn.Linear(18, 4), nn.Dropout(0.1), nn.LayerNorm(4))


def test_whole_model_pickled_by_ember_loads_in_torch_and_back():
    ember.manual_seed(0)
    m = _model(ember).eval()
    b = io.BytesIO()
    ember.save(m, b)
    b.seek(0)
    t = torch.load(b, weights_only=False)
    assert type(t) is torch.nn.Sequential and type(t[0]) is torch.nn.Conv2d
    assert repr(t) == repr(m)
    x = np.random.default_rng(0).random((2, 1, 5, 5)).astype(np.float32)
    np.testing.assert_allclose(t(torch.from_numpy(x)).detach().numpy(),
                               m(ember.from_numpy(x)).detach().numpy(), rtol=1e-5, atol=1e-6)
    b = io.BytesIO()
    torch.save(t, b)
    b.seek(0)
    e = ember.load(b, weights_only=False)
    assert type(e) is ember.nn.Sequential and type(e[5]) is ember.nn.Linear
    np.testing.assert_allclose(e(ember.from_numpy(x)).detach().numpy(),
                               t(torch.from_numpy(x)).detach().numpy(), rtol=1e-5, atol=1e-6)


def test_recurrent_model_pickled_by_ember_runs_in_torch():
    ember.manual_seed(0)
    lstm = ember.nn.LSTM(3, 4, num_layers=2)
    b = io.BytesIO()
    ember.save(lstm, b)
    b.seek(0)
    t = torch.load(b, weights_only=False)
    x = np.random.default_rng(1).random((5, 2, 3)).astype(np.float32)
    np.testing.assert_allclose(t(torch.from_numpy(x))[0].detach().numpy(),
                               lstm(ember.from_numpy(x))[0].detach().numpy(), rtol=1e-5,
                               atol=1e-6)
