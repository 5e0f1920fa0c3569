"""ChannelShuffle vs torch: repr, outputs and input gradients (float32/float64, 3-5 dims),
the inverse shuffle, grad_fn name, errors."""
import numpy as np
import pytest
import torch

import ember
from oracle import errors_both, rand
from _util import pair, run_both


@pytest.mark.parametrize('g,shape', [(2, (2, 4, 3)), (3, (2, 6, 3, 2)), (2, (1, 6, 2, 2, 2)),
                                     (6, (2, 6, 3))])
@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_channel_shuffle_vs_torch(g, shape, dtype):
    e, t = pair(lambda nn: nn.ChannelShuffle(g))
    assert repr(e) == repr(t) and e.groups == t.groups
    ye, yt = run_both(e, t, rand(*shape, dtype=dtype, seed=g))
    assert type(ye.grad_fn).__name__ == type(yt.grad_fn).__name__


def test_inverse_and_module():
    x = ember.randn(2, 6, 4)
    y = ember.nn.ChannelShuffle(3)(x)
    assert ember.equal(ember.nn.ChannelShuffle(2)(y), x)
    assert ember.nn.ChannelShuffle.__module__ == 'ember.nn.modules.channelshuffle'
    assert ember.nn.ChannelShuffle.__constants__ == torch.nn.ChannelShuffle.__constants__


@pytest.mark.parametrize('g,shape', [(4, (2, 6, 3)), (0, (2, 6, 3)), (2, (2, 6))])
def test_errors(g, shape):
    x = rand(*shape, seed=0)
    errors_both(lambda m: m.nn.ChannelShuffle(g)(m.from_numpy(x)))
