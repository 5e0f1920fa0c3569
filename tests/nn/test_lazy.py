"""LazyModuleMixin: inference of shapes on the first call, class switch, state_dict
loading into uninitialized modules, errors."""
import pytest
import torch

import ember
from ember import nn


def test_lazy_in_sequential_and_optimizer_after_init():
    net = nn.Sequential(nn.LazyLinear(8), nn.ReLU(), nn.LazyLinear(2))
    assert net[0].has_uninitialized_params()
    out = net(ember.randn(4, 5))
    assert out.shape == (4, 2)
    assert type(net[0]) is nn.Linear and type(net[2]) is nn.Linear
    assert [tuple(p.shape) for p in net.parameters()] == [(8, 5), (8,), (2, 8), (2,)]
    assert not net[0].has_uninitialized_params() if hasattr(net[0], 'has_uninitialized_params') else True
    opt = ember.optim.SGD(net.parameters(), lr=0.1)
    net(ember.randn(4, 5)).sum().backward()
    opt.step()


def test_lazy_repr_matches_torch():
    for name, args in [('LazyLinear', (3,)), ('LazyConv2d', (4, 3)), ('LazyBatchNorm1d', ())]:
        assert repr(getattr(nn, name)(*args)) == repr(getattr(torch.nn, name)(*args))


def test_lazy_load_state_dict_materializes():
    src = nn.Linear(6, 3)
    m = nn.LazyLinear(3)
    r = m.load_state_dict(src.state_dict())
    assert repr(r) == '<All keys matched successfully>'
    assert m.weight.shape == (3, 6) and ember.equal(m.weight, src.weight)
    y = m(ember.ones(2, 6))
    assert type(m) is nn.Linear
    assert ember.allclose(y, src(ember.ones(2, 6)))


def test_lazy_state_dict_before_init():
    m = nn.LazyLinear(3)
    sd = m.state_dict()
    assert list(sd) == ['weight', 'bias']
    assert isinstance(sd['weight'], nn.UninitializedParameter)


def test_lazy_bad_input_shape_raises():
    m = nn.LazyConv2d(4, 3, groups=2)
    with pytest.raises(ValueError, match='in_channels must be divisible by groups'):
        m(ember.randn(1, 3, 5, 5))


def test_lazy_dtype_kwargs():
    m = nn.LazyLinear(2, dtype=ember.float64)
    m(ember.ones(1, 3, dtype=ember.float64))
    assert m.weight.dtype == ember.float64 and m.bias.dtype == ember.float64


def test_custom_lazy_module():
    class LazyScale(nn.modules.lazy.LazyModuleMixin, nn.Module):
        def __init__(self):
            super().__init__()
            self.scale = nn.UninitializedParameter()

        def initialize_parameters(self, x):
            self.scale.materialize(x.shape[-1:])
            with ember.no_grad():
                self.scale.fill_(2.)

        def forward(self, x):
            return x * self.scale
    m = LazyScale()
    y = m(ember.ones(2, 3))
    assert y.tolist() == [[2.] * 3] * 2 and m.scale.shape == (3,)
    assert type(m) is LazyScale   # no cls_to_become
    m(ember.ones(2, 3))           # the hook ran once and is gone
