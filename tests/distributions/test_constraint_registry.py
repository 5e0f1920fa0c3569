"""biject_to / transform_to against torch's."""
import numpy as np
import pytest
import torch

import ember
from ._part1_util import assert_same, errors_same
from .test_constraints import _c

SPECS = ['real', 'positive', 'nonnegative', ('greater_than', 1.5), ('greater_than_eq', -1.0),
         ('less_than', 2.0), 'unit_interval', ('interval', -1.0, 3.0),
         ('half_open_interval', 0.0, 2.0), 'simplex', 'real_vector', 'lower_cholesky',
         'positive_definite', 'positive_semidefinite', 'corr_cholesky',
         ('independent', 'positive', 1), ('cat', ['positive', 'real'], -1, [1, 2]),
         ('stack', ['positive', ('interval', 0.0, 1.0)], -1)]


def _x(c, R):
    if c.event_dim == 2 or repr(c).startswith(('LowerCholesky', 'PositiveDefinite',
                                               'PositiveSemidefinite')):
        return R.randn(2, 3, 3)
    if repr(c).startswith('CorrCholesky'):
        return R.randn(2, 3)
    if repr(c).startswith('Stack'):
        return R.randn(2, 2)
    return R.randn(2, 3)


@pytest.mark.parametrize('registry', ['biject_to', 'transform_to'])
@pytest.mark.parametrize('spec', SPECS, ids=[str(s) for s in SPECS])
def test_registry(registry, spec):
    ce, ct = _c(ember, spec), _c(torch, spec)
    re_, rt = getattr(ember.distributions, registry), getattr(torch.distributions, registry)
    try:
        tt = rt(ct)
    except NotImplementedError as exc:
        with pytest.raises(NotImplementedError) as ee:
            re_(ce)
        assert str(ee.value) == str(exc)
        return
    te = re_(ce)
    assert repr(te) == repr(tt)
    x = _x(ct, np.random.RandomState(0))
    ye, yt = te(ember.tensor(x)), tt(torch.tensor(x))
    assert_same(ye, yt, rtol=1e-9, atol=1e-12)
    assert bool(ce.check(ye).all())
    if registry == 'biject_to' or tt.bijective:
        assert_same(te.log_abs_det_jacobian(ember.tensor(x), ye),
                    tt.log_abs_det_jacobian(torch.tensor(x), yt), rtol=1e-9, atol=1e-12)


def test_register_and_errors():
    from ember.distributions.constraint_registry import ConstraintRegistry
    reg = ConstraintRegistry()
    EC = ember.distributions.constraints

    @reg.register(EC.positive)
    def f(c):
        return ember.distributions.transforms.ExpTransform()
    assert isinstance(reg(EC.greater_than(3.0)), ember.distributions.transforms.ExpTransform)
    em, tm = errors_same(lambda: reg.register(int, f),
                         lambda: torch.distributions.constraint_registry.ConstraintRegistry()
                         .register(int, f), exc=TypeError)
    assert em == tm
    em, tm = errors_same(lambda: reg(EC.real),
                         lambda: torch.distributions.constraint_registry.ConstraintRegistry()(
                             torch.distributions.constraints.real), exc=NotImplementedError)
    assert em == tm
