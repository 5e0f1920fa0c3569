"""ember.func.rearrange vs torch.func.rearrange (values, shapes, errors)."""
import numpy as np
import pytest
import torch

import ember

X = np.arange(120.).reshape(2, 3, 4, 5)

CASES = [
    ('a b c d -> d a b c', {}), ('a b c d -> a (b c d)', {}), ('a b c d -> (a b) (c d)', {}),
    ('a b (c1 c2) d -> a b c1 c2 d', {'c1': 2}), ('a b (c1 c2) d -> c2 a b c1 d', {'c2': 4}),
    ('... d -> d ...', {}), ('a ... -> (...) a', {}), ('a b ... -> b a ...', {}),
    ('a b c d -> a b c d 1', {}), ('a b c d -> a () b c d', {}), ('a b c d -> a b c d', {}),
    ('(a1 a2) b c d -> a2 (a1 b) c d', {'a1': 1}), ('a b c d -> (d c) (b a)', {}),
]


@pytest.mark.parametrize('pattern,kw', CASES)
def test_rearrange_matches_torch(pattern, kw):
    t = torch.func.rearrange(torch.tensor(X), pattern, **kw)
    e = ember.func.rearrange(ember.tensor(X), pattern, **kw)
    assert tuple(e.shape) == tuple(t.shape)
    np.testing.assert_array_equal(e.numpy(), t.numpy())


def test_rearrange_of_a_list_and_gradient():
    xs = [np.ones((2, 3)) * i for i in range(4)]
    t = torch.func.rearrange([torch.tensor(a) for a in xs], 'n a b -> a (n b)')
    e = ember.func.rearrange([ember.tensor(a) for a in xs], 'n a b -> a (n b)')
    np.testing.assert_array_equal(e.numpy(), t.numpy())
    g = np.random.default_rng(0).standard_normal((4, 5, 6))
    grads = []
    for m in (torch, ember):
        x = m.tensor(np.arange(120.).reshape(2, 3, 4, 5), requires_grad=True)
        m.func.rearrange(x, 'a b c d -> c (d a) b').backward(m.tensor(g.reshape(4, 10, 3)))
        grads.append(x.grad.numpy())
    np.testing.assert_array_equal(grads[0], grads[1])


@pytest.mark.parametrize('pattern,kw', [
    ('a b -> a b', {}), ('a b c d -> a b c', {}), ('a b c d -> a b c d e', {}),
    ('a a c d -> a c d', {}), ('a (b c) d e -> a b c d e', {}),
])
def test_rearrange_errors_like_torch(pattern, kw):
    with pytest.raises(Exception) as te:
        torch.func.rearrange(torch.tensor(X), pattern, **kw)
    with pytest.raises(Exception) as ee:
        ember.func.rearrange(ember.tensor(X), pattern, **kw)
    assert type(ee.value).__name__ == type(te.value).__name__
    if isinstance(te.value, ValueError):
        assert str(ee.value).split(':')[0] == str(te.value).split(':')[0]
