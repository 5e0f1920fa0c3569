"""``ember.linalg.vector_norm``'s gradient where it has no slope, against torch: for
``ord < 1`` elements equal to 0 and a zero norm give 0, not NaN."""
import pytest
import torch

import ember


@pytest.mark.parametrize('ord', [0.5, -1.0, -0.5, 0.25, 1.5, 3.0])
@pytest.mark.parametrize('dim', [None, 1])
def test_vector_norm_grad_with_zeros(ord, dim):
    vals = [[0., 1., -2., 0.], [1., 2., 3., 4.], [0., 0., 0., 0.]]
    up = [[0.3, -1.2, 2.0], 1.7][dim is None]
    got = []
    for mod in (torch, ember):
        x = mod.tensor(vals, requires_grad=True)
        n = mod.linalg.vector_norm(x, ord, dim=dim)
        n.backward(mod.tensor(up))
        got.append(x.grad.tolist())
    assert not any(v != v for row in got[1] for v in row)       # no NaN
    for r_e, r_t in zip(got[1], got[0]):
        assert r_e == pytest.approx(r_t, rel=1e-5, abs=1e-6)


def test_vector_norm_gradcheck_general_p():
    x = ember.tensor([[0.5, -1.0, 2.0], [1.5, 0.7, -0.3]], dtype=ember.float64,
                     requires_grad=True)
    for p in (0.5, 3.0, -1.0):
        assert ember.autograd.gradcheck(lambda t: ember.linalg.vector_norm(t, p, dim=1), (x,))
