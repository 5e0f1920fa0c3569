"""ember/_ops/conv.py against torch: what the op database does not cover."""
import numpy as np
import pytest

from oracle import check, check_error, gradcheck_ember


def _c(rng, *shape):
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


@pytest.mark.parametrize('fn,xs,ws,kw', [
    ('conv1d', (2, 4, 7), (6, 2, 3), dict(stride=2, padding=1, groups=2)),
    ('conv2d', (1, 2, 5, 5), (3, 2, 3, 3), dict(padding='same', dilation=2)),
    ('conv3d', (1, 2, 4, 4, 4), (2, 2, 2, 2, 2), dict(stride=(1, 2, 1))),
    ('conv_transpose1d', (2, 4, 5), (4, 3, 3), dict(stride=2, output_padding=1)),
    ('conv_transpose2d', (1, 2, 4, 4), (2, 3, 3, 3), dict(stride=2, padding=1)),
    ('conv_transpose3d', (1, 2, 3, 3, 3), (2, 2, 2, 2, 2), dict(stride=2)),
])
def test_conv_complex_grad(fn, xs, ws, kw):
    # bilinear in (input, weight): each gradient takes the other operand conjugated
    rng = np.random.default_rng(len(xs))
    x, w, b = _c(rng, *xs), _c(rng, *ws), _c(rng, ws[0] if 'transpose' not in fn else ws[1])
    check(lambda m, a, c, d: getattr(m.nn.functional, fn)(a, c, d, **kw), [x, w, b], grad=True)
    gradcheck_ember(lambda m, a, c: getattr(m.nn.functional, fn)(a, c, **kw),
                    [x[:1, ..., :3] if fn.endswith('1d') else x[:1], w])


def test_same_padding_strided_error():
    check_error(lambda m, x, w: m.nn.functional.conv3d(x, w, stride=2, padding='same'),
                [np.zeros((1, 2, 4, 4, 4)), np.zeros((2, 2, 3, 3, 3))],
                "padding='same' is not supported for strided convolutions")
