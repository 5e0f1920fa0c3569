"""ember/_ops/distance.py against torch: what the op database does not cover."""
import numpy as np
import pytest

from oracle import check, gradcheck_ember


def test_dist_cosine_similarity_bfloat16():
    # bfloat16 is floating point here too (norms accumulated in float32, as torch)
    x = np.linspace(-2, 3, 12).reshape(3, 4)
    y = np.cos(np.arange(12.)).reshape(3, 4)
    check(lambda m, a, b: (m.dist(a.bfloat16(), b.bfloat16()), m.dist(a.bfloat16(), b.bfloat16(), 1),
                           m.nn.functional.cosine_similarity(a.bfloat16(), b.bfloat16())),
          [x, y], rtol=0, atol=0)


@pytest.mark.parametrize('p', [2, 1, 3.5, float('inf'), -float('inf')])
def test_dist_complex(p):
    # the norm of complex differences is real; gradients through the moduli
    rng = np.random.default_rng(0)
    a = rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))
    b = rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))
    check(lambda m, x, y: m.dist(x, y, p), [a, b], grad=True)
    check(lambda m, x, y: m.dist(x, y, p), [a.astype(np.complex64), b.astype(np.complex64)],
          rtol=1e-6, atol=1e-6)
    gradcheck_ember(lambda m, x: m.dist(x, m.tensor(b), p), [a])


def test_dist_float16_accumulates_in_float32():
    x = np.linspace(-8, 8, 125).reshape(5, 5, 5)
    check(lambda m, a: (m.dist(a.half(), (a * 0.3).half(), 4), m.dist(a.half(), a[0, 0].half(), 3)),
          [x], rtol=1e-3, atol=1e-3)
