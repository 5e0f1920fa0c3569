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


@pytest.mark.parametrize('shape', [(0, 3), (3, 0), (0, 0), (2, 0, 3), (2, 3, 0)])
@pytest.mark.parametrize('ord', [float('inf'), 1, 2, -1, -2, float('-inf'), 'fro', 'nuc'])
def test_matrix_norm_empty(shape, ord):
    # torch: the largest of no norms is 0; the smallest of none is amin's error
    res = []
    for m in (torch, ember):
        try:
            r = (m.linalg.matrix_norm(m.zeros(shape), ord),
                 m.linalg.matrix_norm(m.zeros(shape, dtype=m.complex64), ord, keepdim=True))
            res.append([(tuple(t.shape), str(t.dtype), t.tolist()) for t in r])
        except IndexError as e:
            res.append(('IndexError', 'amin()' in str(e)))
    assert res[0] == res[1]
