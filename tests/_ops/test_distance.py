"""ember/_ops/distance.py against torch: what the op database does not cover."""
import numpy as np

from oracle import check


def test_dist_cosine_similarity_bfloat16():
    # bfloat16 is floating point here too (norms accumulated in float32, as torch)
    x = np.linspace(-2, 3, 12).reshape(3, 4)
    y = np.cos(np.arange(12.)).reshape(3, 4)
    check(lambda m, a, b: (m.dist(a.bfloat16(), b.bfloat16()), m.dist(a.bfloat16(), b.bfloat16(), 1),
                           m.nn.functional.cosine_similarity(a.bfloat16(), b.bfloat16())),
          [x, y], rtol=0, atol=0)
