"""PixelShuffle / PixelUnshuffle vs torch: repr, outputs and input gradients (float32 /
float64, batched, unbatched, extra batch dims), round trip, grad_fn names, errors."""
import numpy as np
import pytest

import ember
from oracle import errors_both, rand
from _util import pair, run_both


@pytest.mark.parametrize('r,shape', [(2, (2, 8, 3, 4)), (3, (9, 2, 2)), (2, (2, 3, 4, 2, 2)),
                                     (1, (2, 3, 2, 2))])
@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_pixel_shuffle_vs_torch(r, shape, dtype):
    e, t = pair(lambda nn: nn.PixelShuffle(r))
    assert repr(e) == repr(t) and e.upscale_factor == t.upscale_factor
    ye, yt = run_both(e, t, rand(*shape, dtype=dtype, seed=r))
    assert type(ye.grad_fn).__name__ == type(yt.grad_fn).__name__ == 'PixelShuffleBackward0'


@pytest.mark.parametrize('r,shape', [(2, (2, 3, 4, 6)), (3, (2, 6, 9)), (2, (2, 3, 1, 4, 2))])
@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_pixel_unshuffle_vs_torch(r, shape, dtype):
    e, t = pair(lambda nn: nn.PixelUnshuffle(r))
    assert repr(e) == repr(t) and e.downscale_factor == t.downscale_factor
    ye, yt = run_both(e, t, rand(*shape, dtype=dtype, seed=r))
    assert type(ye.grad_fn).__name__ == type(yt.grad_fn).__name__ == 'PixelUnshuffleBackward0'


def test_round_trip_and_double_backward():
    x = ember.randn(2, 8, 3, 5, dtype=ember.float64, requires_grad=True)
    y = ember.nn.PixelUnshuffle(2)(ember.nn.PixelShuffle(2)(x))
    assert ember.equal(y, x)
    assert ember.autograd.gradgradcheck(lambda x: ember.pixel_shuffle(x, 2) ** 2, (x,))
    assert ember.nn.PixelShuffle.__module__ == 'ember.nn.modules.pixelshuffle'


@pytest.mark.parametrize('case', [('PixelShuffle', 2, (2, 6, 3, 3)), ('PixelShuffle', 2, (8, 3)),
                                  ('PixelShuffle', 0, (2, 8, 3, 3)),
                                  ('PixelUnshuffle', 2, (2, 2, 5, 6)),
                                  ('PixelUnshuffle', -1, (2, 2, 4, 4))])
def test_errors(case):
    cls, r, shape = case
    x = rand(*shape, seed=0)
    errors_both(lambda m: getattr(m.nn, cls)(r)(m.from_numpy(x)))
