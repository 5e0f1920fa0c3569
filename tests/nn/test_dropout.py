"""Dropout layers vs torch: after the same manual_seed the outputs and input gradients are
identical (the masks are PyTorch's draws), in place and not, batched and unbatched,
float32 and float64; eval mode is the identity; p validation, repr, warnings, errors."""
import warnings

import numpy as np
import pytest
import torch

import ember
from oracle import rand, errors_both

LAYERS = {  # name -> (input shapes, kwargs-accepting-inplace)
    'Dropout': [(4, 5), (3,), (2, 3, 4), ()],
    'Dropout1d': [(2, 3, 4), (3, 4)],
    'Dropout2d': [(2, 3, 4, 4), (2, 3, 4)],
    'Dropout3d': [(2, 3, 2, 2, 2), (3, 2, 2, 2)],
    'AlphaDropout': [(4, 5), (3,)],
    'FeatureAlphaDropout': [(2, 3, 4), (2, 3, 2, 2)],
}
INPLACE_USED = ('Dropout', 'Dropout1d', 'Dropout2d', 'Dropout3d')


def _run(m, layer, x, train=True, inplace=False, seed=3):
    mod = getattr(m.nn, layer)(p=0.4, inplace=inplace)
    mod.train(train)
    m.manual_seed(seed)
    leaf = m.from_numpy(x.copy()).requires_grad_(True)
    inp = leaf.clone() if inplace else leaf
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        y = mod(inp)
    g = m.from_numpy(np.random.default_rng(0).standard_normal(tuple(y.shape)).astype(x.dtype))
    y.backward(g)
    return mod, inp, y, leaf.grad


@pytest.mark.parametrize('layer', sorted(LAYERS))
@pytest.mark.parametrize('dtype', [np.float32, np.float64])
@pytest.mark.parametrize('inplace', [False, True])
def test_same_seed_same_output(layer, dtype, inplace):
    for shape in LAYERS[layer]:
        x = rand(*shape, dtype=dtype, seed=1)
        _, _, yt, gt = _run(torch, layer, x, inplace=inplace)
        _, ie, ye, ge = _run(ember, layer, x, inplace=inplace)
        np.testing.assert_array_equal(ye.detach().numpy(), yt.detach().numpy())
        np.testing.assert_array_equal(ge.numpy(), gt.numpy())
        assert ye.grad_fn.name() == yt.grad_fn.name()
        assert str(ye.dtype) == str(yt.dtype)
        if inplace and layer in INPLACE_USED and shape:
            assert ye._version > 0 and ie.data_ptr() == ye.data_ptr()


@pytest.mark.parametrize('layer', sorted(LAYERS))
def test_eval_is_identity(layer):
    x = rand(*LAYERS[layer][0], seed=2)
    mod, inp, y, g = _run(ember, layer, x, train=False)
    assert y is inp
    np.testing.assert_array_equal(g.numpy(), np.random.default_rng(0).standard_normal(
        x.shape).astype(np.float32))


def test_masks_drop_whole_channels():
    ember.manual_seed(0)
    y = ember.nn.Dropout2d(0.5)(ember.ones(4, 8, 3, 3))
    per_channel = y.reshape(4, 8, -1)
    assert bool(((per_channel == per_channel[..., :1]).all()))
    assert set(np.unique(y.numpy()).tolist()) <= {0.0, 2.0}


def test_repeated_calls_follow_torch_stream():
    x = rand(6, 7, seed=4)
    outs = []
    for m in (torch, ember):
        m.manual_seed(11)
        d = m.nn.Dropout(0.5)
        xx = m.from_numpy(x.copy())
        outs.append([d(xx).numpy() for _ in range(3)] + [m.rand(3).numpy()])
    for a, b in zip(*outs):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize('layer', sorted(LAYERS))
def test_p_validation_and_repr(layer):
    for p in (-0.1, 1.5):
        ee, et = errors_both(lambda m: getattr(m.nn, layer)(p=p), match='dropout probability')
        assert str(ee) == str(et)
    for kw in ({}, dict(p=0.2, inplace=True), dict(p=1)):
        assert repr(getattr(ember.nn, layer)(**kw)) == repr(getattr(torch.nn, layer)(**kw))
    assert getattr(ember.nn, layer).__constants__ == ['p', 'inplace']
    assert getattr(ember.nn, layer).__module__ == 'ember.nn.modules.dropout'
    assert list(getattr(ember.nn, layer)().state_dict()) == []


def test_p_edge_values():
    x = rand(3, 4, seed=5)
    for m in (torch, ember):
        pass
    for p in (0.0, 1.0):
        res = []
        for m in (torch, ember):
            m.manual_seed(0)
            xx = m.from_numpy(x.copy())
            res.append(m.nn.Dropout(p)(xx).numpy())
        np.testing.assert_array_equal(res[0], res[1])
    xe = ember.from_numpy(x.copy())
    assert ember.nn.functional.dropout(xe, 0.0) is xe
    nan = ember.tensor([float('nan'), 1.])
    assert ember.nn.functional.dropout(nan, 1.0).isnan().tolist() == [True, False]


def test_functional_errors_and_warnings():
    errors_both(lambda m: m.nn.functional.dropout(m.ones(2), 1.5), match='but got 1.5')
    ee, et = errors_both(lambda m: m.dropout(m.ones(2), 2.0, True))
    assert str(ee) == str(et)
    errors_both(lambda m: m.nn.functional.dropout1d(m.ones(2, 2, 2, 2)),
                match='Expected 2D or 3D input, but received a 4D input')
    errors_both(lambda m: m.feature_dropout(m.ones(3), 0.5, True),
                match='Feature dropout requires at least 2 dimensions')
    errors_both(lambda m: m.nn.functional.dropout(m.arange(4), 0.5),
                match="can't be cast to the desired output type Long")
    errors_both(lambda m: m.nn.functional.dropout([1., 2.], 0.5))
    for args, match in (((0.5, 1), "argument 'train' (position 3) must be bool, not int"),
                        ((0.5, None), "must be bool, not NoneType"),
                        (('a', True), "argument 'p' (position 2) must be float, not str")):
        ee, et = errors_both(lambda m: m.dropout(m.ones(3), *args), match)
        assert str(ee) == str(et)
    for fn, shape, n in (('dropout2d', (2, 3), 1), ('dropout2d', (2, 3, 4), 1),
                         ('dropout3d', (2, 3), 1), ('dropout2d', (2, 3, 4, 5, 6), 1)):
        msgs = []
        for m in (torch, ember):
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter('always')
                getattr(m.nn.functional, fn)(m.ones(*shape), 0.5)
            msgs.append([str(x.message) for x in w])
        assert msgs[0] == msgs[1] and len(msgs[0]) == n


def test_alpha_dropout_keeps_statistics():
    # bit-identical to torch above; here only that the scaling keeps mean 0 / std 1
    ember.manual_seed(0)
    x = ember.randn(200000)
    y = ember.nn.functional.alpha_dropout(x, 0.3, training=True)
    assert abs(float(y.mean())) < 0.02 and abs(float(y.std()) - 1) < 0.02
