"""nn.utils.fusion vs torch: fuse_conv_bn_eval / fuse_conv_bn_weights (incl. transposed
convolutions), fuse_linear_bn_eval / fuse_linear_bn_weights, eval-only errors."""
import numpy as np
import pytest
import torch

import ember
from ._common import both, close


def _bn(lib, bn_cls, c, dtype):
    bn = getattr(lib.nn, bn_cls)(c, dtype=dtype)
    g = np.random.default_rng(3)
    with lib.no_grad():
        bn.running_mean.copy_(lib.from_numpy(g.standard_normal(c)))
        bn.running_var.copy_(lib.from_numpy(g.uniform(0.5, 2, c)))
        bn.weight.copy_(lib.from_numpy(g.standard_normal(c)))
        bn.bias.copy_(lib.from_numpy(g.standard_normal(c)))
    return bn


@pytest.mark.parametrize('conv,bn,transpose,xshape', [
    ('Conv2d', 'BatchNorm2d', False, (2, 3, 6, 6)),
    ('Conv1d', 'BatchNorm1d', False, (2, 3, 7)),
    ('ConvTranspose2d', 'BatchNorm2d', True, (2, 3, 4, 4)),
    ('Conv3d', 'BatchNorm3d', False, (1, 3, 4, 4, 4)),
])
@pytest.mark.parametrize('bias', [True, False])
@pytest.mark.parametrize('dtype', ['float32', 'float64'])
def test_fuse_conv_bn_eval(conv, bn, transpose, xshape, bias, dtype):
    x = np.random.default_rng(0).standard_normal(xshape)

    def f(lib):
        dt = getattr(lib, dtype)
        c = getattr(lib.nn, conv)(3, 5, 3, bias=bias, dtype=dt).eval()
        b = _bn(lib, bn, 5, dt).eval()
        fused = lib.nn.utils.fuse_conv_bn_eval(c, b, transpose=transpose)
        xx = lib.from_numpy(x).to(dt)
        assert fused is not c and type(fused) is type(c)
        return fused(xx), b(c(xx)), fused.weight, fused.bias, fused.weight.requires_grad
    t, e = both(f)
    tol = 1e-4 if dtype == 'float32' else 1e-10
    close(t, e, rtol=tol, atol=tol)
    close(e[0], e[1], rtol=tol, atol=tol)


@pytest.mark.parametrize('bn_features', [4, 1])
def test_fuse_linear_bn_eval(bn_features):
    x = np.random.default_rng(0).standard_normal((3, 6)).astype(np.float32)

    def f(lib):
        lin = lib.nn.Linear(6, 4).eval()
        b = _bn(lib, 'BatchNorm1d', bn_features, lib.float32).eval()
        fused = lib.nn.utils.fuse_linear_bn_eval(lin, b)
        return fused(lib.from_numpy(x)), fused.weight, fused.bias
    t, e = both(f)
    close(t, e, rtol=1e-5, atol=1e-5)


def test_fuse_weights_functions_and_dtypes():
    def f(lib):
        g = np.random.default_rng(5)
        w = lib.from_numpy(g.standard_normal((4, 2, 3, 3)).astype(np.float32))
        rm = lib.from_numpy(g.standard_normal(4))
        rv = lib.from_numpy(g.uniform(1, 2, 4))
        out1 = lib.nn.utils.fuse_conv_bn_weights(w, None, rm, rv, 1e-5, None, None)
        out2 = lib.nn.utils.fuse_conv_bn_weights(w.transpose(0, 1), None, rm, rv, 1e-5,
                                                 rv, rm, transpose=True)
        lw = lib.from_numpy(g.standard_normal((4, 3)))
        out3 = lib.nn.utils.fuse_linear_bn_weights(lw, None, rm, rv, 1e-3, rv, rm)
        return [o for pair in (out1, out2, out3) for o in pair], [
            type(o).__name__ for pair in (out1, out2, out3) for o in pair]
    t, e = both(f)
    close(t[0], e[0], rtol=1e-6, atol=1e-6)
    assert t[1] == e[1]


def test_fusion_training_mode_errors():
    def conv_train(lib):
        lib.nn.utils.fuse_conv_bn_eval(lib.nn.Conv2d(1, 2, 1), lib.nn.BatchNorm2d(2).eval())

    def bn_train(lib):
        lib.nn.utils.fuse_linear_bn_eval(lib.nn.Linear(1, 2).eval(), lib.nn.BatchNorm1d(2))

    def mismatch(lib):
        lib.nn.utils.fuse_linear_bn_eval(lib.nn.Linear(1, 2).eval(),
                                         lib.nn.BatchNorm1d(3).eval())

    def no_stats(lib):
        lib.nn.utils.fuse_conv_bn_eval(lib.nn.Conv2d(1, 2, 1).eval(),
                                       lib.nn.BatchNorm2d(2, track_running_stats=False).eval())
    for fn, match in ((conv_train, 'Fusion only for eval!'), (bn_train, 'Fusion only for eval!'),
                      (mismatch, 'linear.out_features=2 and bn.num_features=3'),
                      (no_stats, 'must not be None')):
        msgs = []
        for lib in (torch, ember):
            with pytest.raises(AssertionError) as info:
                fn(lib)
            msgs.append(str(info.value))
        assert msgs[0] == msgs[1] and match in msgs[1]
