"""ember/_ops/activation.py against torch: what the op database does not cover."""
import numpy as np

from oracle import check, check_error


def test_silu_complex():
    # torch computes silu of complex inputs, without autograd (issue 21)
    rng = np.random.default_rng(2)
    z = rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))
    check(lambda m, x: (m.nn.functional.silu(x), m.nn.functional.silu(x.clone(), inplace=True)),
          [z])
    check_error(lambda m: m.nn.functional.silu(m.tensor(z, requires_grad=True)),
                match='silu does not support automatic differentiation for outputs with complex')
