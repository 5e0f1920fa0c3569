"""nn.Parameter, nn.Buffer, nn.UninitializedParameter/UninitializedBuffer vs torch."""
import copy
import pickle

import numpy as np
import pytest
import torch

import ember
from ember import nn
from oracle import check_error


@pytest.mark.parametrize('make', [
    lambda m: m.nn.Parameter(m.tensor([1., 2.])),
    lambda m: m.nn.Parameter(m.tensor([1, 2]), requires_grad=False),
    lambda m: m.nn.Parameter(),
    lambda m: m.nn.Parameter(m.ones(2, 2, dtype=m.float64)),
    lambda m: m.nn.Parameter(m.zeros(2, 3), requires_grad=False),
])
def test_repr_identical_to_torch(make):
    e, t = make(ember), make(torch)
    assert repr(e) == repr(t)
    assert str(e) == str(t)
    assert repr(e).startswith('Parameter containing:\n')


def test_parameter_basics():
    data = ember.zeros(3)
    p = nn.Parameter(data)
    assert isinstance(p, ember.Tensor) and isinstance(p, nn.Parameter)
    assert type(p) is nn.Parameter
    assert p.requires_grad and p.is_leaf and p.grad_fn is None
    p.data[0] = 5            # shares memory with the given tensor
    assert data[0].item() == 5
    assert not isinstance(ember.ones(1), nn.Parameter)
    # results of ops are plain tensors
    assert type(p * 2) is ember.Tensor
    assert type(p.detach()) is ember.Tensor
    assert type(p.clone()) is ember.Tensor
    assert type(p.data) is ember.Tensor
    # from a tensor that requires grad: a leaf
    q = nn.Parameter(ember.ones(2, requires_grad=True) * 3)
    assert q.is_leaf and q.grad_fn is None and q.tolist() == [3., 3.]


def test_parameter_errors():
    check_error(lambda m: m.nn.Parameter(m.tensor([1, 2])),
                match='Only Tensors of floating point and complex dtype can require gradients')
    with pytest.raises((TypeError, AttributeError)):
        nn.Parameter([1., 2.])


def test_parameter_deepcopy_and_pickle():
    p = nn.Parameter(ember.tensor([1., 2.]))
    p.grad = ember.tensor([0.5, 0.5])
    q = copy.deepcopy(p)
    assert type(q) is nn.Parameter and q is not p and q.requires_grad
    assert ember.equal(q, p) and ember.equal(q.grad, p.grad)
    q.data[0] = 9
    assert p[0].item() == 1.
    r = copy.deepcopy(nn.Parameter(ember.ones(1), requires_grad=False))
    assert not r.requires_grad
    s = pickle.loads(pickle.dumps(p))
    assert type(s) is nn.Parameter and ember.equal(s, p) and s.requires_grad
    # shared references stay shared in a deep copy
    pair = copy.deepcopy([p, p])
    assert pair[0] is pair[1]


def test_parameter_in_module_and_grad():
    lin = nn.Linear(2, 1)
    assert all(type(p) is nn.Parameter for p in lin.parameters())
    lin(ember.ones(3, 2)).sum().backward()
    assert lin.weight.grad.tolist() == [[3., 3.]] and lin.bias.grad.tolist() == [3.]


def test_buffer():
    b = nn.Buffer(ember.ones(2))
    assert isinstance(b, nn.Buffer) and isinstance(b, ember.Tensor)
    assert not isinstance(ember.ones(2), nn.Buffer)
    assert repr(b) == repr(torch.nn.Buffer(torch.ones(2)))
    assert not b.requires_grad

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Buffer(ember.ones(2))
            self.b = nn.Buffer(ember.zeros(1), persistent=False)
    m = M()
    assert [n for n, _ in m.named_buffers()] == ['a', 'b']
    assert list(m.state_dict()) == ['a']


def test_uninitialized_parameter():
    u = nn.UninitializedParameter()
    t = torch.nn.UninitializedParameter()
    assert repr(u) == repr(t) == '<UninitializedParameter>'
    assert isinstance(u, nn.Parameter) and u.requires_grad
    check_error(lambda m: m.nn.UninitializedParameter().shape,
                match="Can't access the shape of an uninitialized parameter or buffer")
    u.materialize((2, 3))
    assert type(u) is nn.Parameter and u.shape == (2, 3) and u.requires_grad
    u2 = nn.UninitializedParameter(requires_grad=False, dtype=ember.float64)
    u2.materialize(4)
    assert u2.shape == (4,) and u2.dtype == ember.float64 and not u2.requires_grad
    assert nn.parameter.is_lazy(nn.UninitializedParameter())
    assert not nn.parameter.is_lazy(nn.Parameter(ember.ones(1)))


def test_uninitialized_buffer():
    u = nn.UninitializedBuffer()
    assert repr(u) == repr(torch.nn.UninitializedBuffer())
    assert isinstance(u, nn.UninitializedBuffer) and not u.requires_grad
    u.materialize(3)
    assert type(u) is ember.Tensor and u.shape == (3,)
    u = nn.UninitializedBuffer(dtype=ember.float16)
    u.materialize((1, 2))
    assert u.dtype == ember.float16
