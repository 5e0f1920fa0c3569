"""ember/_ops/dropout.py against torch: what the op database does not cover."""
import numpy as np
import pytest

import ember
from oracle import check, errors_both, gradcheck_ember


@pytest.mark.parametrize('shape,scale', [((5, 5, 5), 2.0), ((5,), 0.0), ((), 1.0)])
def test_native_dropout_backward(shape, scale):
    rng = np.random.default_rng(0)
    g, mask = np.asarray(rng.standard_normal(shape)), np.asarray(rng.uniform(size=shape) < 0.5)
    check(lambda m, g, k: m.ops.aten.native_dropout_backward(g, k, scale), [g, mask],
          grad=True)
    # a float mask, an integer gradient (promoted as torch promotes), half precision
    check(lambda m, g, k: (m.ops.aten.native_dropout_backward(g, k.double(), scale),
                           m.ops.aten.native_dropout_backward((g * 4).long(), k, scale),
                           m.ops.aten.native_dropout_backward(g.half(), k, 1 / 3)), [g, mask])
    gradcheck_ember(lambda m, g: m.ops.aten.native_dropout_backward(g, m.tensor(mask), scale),
                    [g])
    t = ember.tensor(g, requires_grad=True)
    r = ember.ops.aten.native_dropout_backward(t, ember.tensor(mask), scale)
    assert r.grad_fn.name() == 'NativeDropoutBackwardBackward0'


def test_native_dropout_backward_errors():
    errors_both(lambda m: m.ops.aten.native_dropout_backward(m.ones(3), m.tensor([True, False]),
                                                             2.0),
                'The size of tensor a (3) must match the size of tensor b (2)')
