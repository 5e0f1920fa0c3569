"""nn.utils.memory_format vs torch: convert_conv2d_weight_memory_format and
convert_conv3d_weight_memory_format (strides, is_contiguous, same Parameter objects)."""
import numpy as np
import pytest
import torch

import ember
from ._common import both, close


def _net(lib):
    return lib.nn.Sequential(lib.nn.Conv2d(3, 4, 3), lib.nn.ReLU(),
                             lib.nn.Sequential(lib.nn.ConvTranspose2d(4, 2, 2)),
                             lib.nn.Conv3d(2, 3, 2), lib.nn.Linear(3, 3))


@pytest.mark.parametrize('fmt', ['channels_last', 'contiguous_format'])
def test_conv2d(fmt):
    def f(lib):
        net = _net(lib)
        ids = [id(p) for p in net.parameters()]
        out = lib.nn.utils.convert_conv2d_weight_memory_format(net, getattr(lib, fmt))
        assert out is net and ids == [id(p) for p in net.parameters()]
        return ([p.stride() for p in net.parameters()],
                [net[0].weight.is_contiguous(memory_format=getattr(lib, fmt)),
                 net[2][0].weight.is_contiguous(memory_format=lib.channels_last),
                 net[0].weight.is_contiguous()],
                net[0].weight, net[2][0].weight)
    t, e = both(f)
    assert t[0] == e[0] and t[1] == e[1]
    close(t[2:], e[2:], exact=True)


def test_conv3d_and_forward_unchanged():
    x = np.random.default_rng(0).standard_normal((1, 2, 3, 4, 4)).astype(np.float32)

    def f(lib):
        net = _net(lib)
        conv = net[3]
        before = conv(lib.from_numpy(x))
        lib.nn.utils.convert_conv3d_weight_memory_format(net, lib.channels_last_3d)
        after = conv(lib.from_numpy(x))
        return ([p.stride() for p in net.parameters()],
                conv.weight.is_contiguous(memory_format=lib.channels_last_3d), before, after)
    t, e = both(f)
    assert t[0] == e[0] and t[1] == e[1] is True
    close(t[2:], e[2:], rtol=1e-5, atol=1e-5)
    close(e[2], e[3], rtol=1e-6, atol=1e-6)
