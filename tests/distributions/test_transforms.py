"""ember.distributions.transforms against torch.distributions.transforms."""
import numpy as np
import pytest
import torch

import ember
from ._part1_util import assert_same, compare_grads, errors_same

ET = ember.distributions.transforms
TT = torch.distributions.transforms


def _mk(mod, spec):
    """Build a transform from a spec on module ``mod`` (ember or torch)."""
    T = mod.distributions.transforms
    kind = spec[0]
    if kind == 'affine':
        return T.AffineTransform(spec[1], spec[2], event_dim=spec[3] if len(spec) > 3 else 0)
    if kind == 'affine_t':
        return T.AffineTransform(mod.tensor(spec[1]), mod.tensor(spec[2]))
    if kind == 'power':
        return T.PowerTransform(mod.tensor(spec[1]))
    if kind == 'compose':
        return T.ComposeTransform([_mk(mod, s) for s in spec[1]])
    if kind == 'indep':
        return T.IndependentTransform(_mk(mod, spec[1]), spec[2])
    if kind == 'reshape':
        return T.ReshapeTransform(spec[1], spec[2])
    if kind == 'cat':
        return T.CatTransform([_mk(mod, s) for s in spec[1]], dim=spec[2], lengths=spec[3])
    if kind == 'stack':
        return T.StackTransform([_mk(mod, s) for s in spec[1]], dim=spec[2])
    if kind == 'inv':
        return _mk(mod, spec[1]).inv
    if kind == 'identity':
        return T.identity_transform
    if kind == 'cdf':
        return T.CumulativeDistributionTransform(mod.distributions.Normal(0.5, 2.0))
    return getattr(T, kind)()


R = np.random.RandomState(0)
CASES = [  # (spec, input array x in the domain)
    (('ExpTransform',), R.randn(3, 4)),
    (('SigmoidTransform',), R.randn(3, 4) * 3),
    (('TanhTransform',), R.randn(3, 4)),
    (('SoftplusTransform',), R.randn(3, 4)),
    (('AbsTransform',), R.randn(3, 4)),
    (('affine', 1.5, -2.0), R.randn(3, 4)),
    (('affine', 0.5, 3.0, 1), R.randn(3, 4)),
    (('affine_t', R.randn(4), R.rand(4) + 0.5), R.randn(3, 4)),
    (('power', R.rand(4) + 0.5), R.rand(3, 4) + 0.2),
    (('StickBreakingTransform',), R.randn(3, 4)),
    (('SoftmaxTransform',), R.randn(3, 4)),
    (('LowerCholeskyTransform',), R.randn(2, 3, 3)),
    (('PositiveDefiniteTransform',), R.randn(2, 3, 3)),
    (('CorrCholeskyTransform',), R.randn(2, 6)),
    (('compose', [('ExpTransform',), ('affine', 1.0, 2.0)]), R.randn(3, 4)),
    (('compose', [('affine', 0.0, 1.0), ('StickBreakingTransform',)]), R.randn(3, 4)),
    (('compose', []), R.randn(3, 4)),
    (('identity',), R.randn(3)),
    (('indep', ('ExpTransform',), 1), R.randn(3, 4)),
    (('reshape', (4,), (2, 2)), R.randn(3, 4)),
    (('cat', [('ExpTransform',), ('affine', 1.0, 3.0)], 1, [1, 3]), R.randn(3, 4)),
    (('cat', [('ExpTransform',), ('TanhTransform',)], 0, [1, 2]), R.randn(3, 4)),
    (('stack', [('ExpTransform',), ('SigmoidTransform',)], 1), R.randn(3, 2)),
    (('inv', ('SigmoidTransform',)), R.rand(3, 4) * 0.9 + 0.05),
    (('cdf',), R.randn(3, 4)),
]
IDS = [f"{i}-{c[0][0]}" for i, c in enumerate(CASES)]


@pytest.mark.parametrize('spec,x', CASES, ids=IDS)
@pytest.mark.parametrize('dt', ['float32', 'float64'])
def test_forward_inverse_ladj(spec, x, dt):
    te, tt = _mk(ember, spec), _mk(torch, spec)
    assert repr(te) == repr(tt)
    assert te.bijective == tt.bijective
    assert repr(te.domain) == repr(tt.domain)
    assert repr(te.codomain) == repr(tt.codomain)
    x = x.astype(dt)
    xe = ember.tensor(x, requires_grad=True)
    xt = torch.tensor(x, requires_grad=True)
    tol = dict(rtol=2e-5, atol=1e-6) if dt == 'float32' else dict(rtol=1e-9, atol=1e-12)
    ye, yt = te(xe), tt(xt)
    assert_same(ye, yt, **tol, path='forward')
    compare_grads(ye, yt, [xe], [xt], **tol)
    assert tuple(te.forward_shape(xe.shape)) == tuple(tt.forward_shape(xt.shape))
    assert tuple(te.inverse_shape(ye.shape)) == tuple(tt.inverse_shape(yt.shape))
    y = yt.detach().numpy()
    ye2, yt2 = ember.tensor(y, requires_grad=True), torch.tensor(y, requires_grad=True)
    xe2, xt2 = te.inv(ye2), tt.inv(yt2)
    assert_same(xe2, xt2, **tol, path='inverse')
    if tt.bijective:
        le, lt = te.log_abs_det_jacobian(xe, ye), tt.log_abs_det_jacobian(xt, yt)
        assert_same(le, lt, **tol, path='log_abs_det_jacobian')
        compare_grads(le, lt, [xe], [xt], **tol)
        ile = te.inv.log_abs_det_jacobian(ye, xe)
        assert_same(ile, tt.inv.log_abs_det_jacobian(yt, xt), **tol, path='inv ladj')


def test_sign():
    for spec in [('ExpTransform',), ('SigmoidTransform',), ('TanhTransform',),
                 ('affine', 1.0, -2.0), ('affine', 1.0, 2.0),
                 ('compose', [('ExpTransform',), ('affine', 0.0, -1.0)]),
                 ('inv', ('affine', 0.0, -3.0))]:
        assert _mk(ember, spec).sign == _mk(torch, spec).sign
    assert_same(_mk(ember, ('power', np.array([2.0, -1.0]))).sign,
                _mk(torch, ('power', np.array([2.0, -1.0]))).sign)
    with pytest.raises(NotImplementedError):
        ET.AbsTransform().sign
    with pytest.raises(NotImplementedError):
        TT.AbsTransform().sign


def test_inv_identity_and_equality():
    t = ET.ExpTransform()
    assert t.inv.inv is t
    assert t.inv is t.inv
    assert t == ET.ExpTransform() and t != ET.SigmoidTransform()
    assert ET.AffineTransform(1.0, 2.0) == ET.AffineTransform(1.0, 2.0)
    assert ET.AffineTransform(1.0, 2.0) != ET.AffineTransform(1.0, 3.0)
    assert ET.PowerTransform(ember.tensor(2.0)) == ET.PowerTransform(ember.tensor(2.0))
    assert ET.ExpTransform().inv == ET.ExpTransform().inv
    c = ET.ComposeTransform([ET.ExpTransform(), ET.AffineTransform(0.0, 2.0)])
    assert c.inv.inv is c
    assert c == ET.ComposeTransform([ET.ExpTransform(), ET.AffineTransform(0.0, 2.0)])
    assert repr(c.inv) == repr(_mk(torch, ('compose', [('ExpTransform',),
                                                       ('affine', 0.0, 2.0)])).inv)
    assert repr(ET.ExpTransform().inv) == repr(TT.ExpTransform().inv) == \
        '_InverseTransform(ExpTransform())'


def test_cache():
    x = ember.randn(3)
    t = ET.ExpTransform(cache_size=1)
    y = t(x)
    assert t.inv(y) is x
    assert t(x) is y
    t0 = ET.ExpTransform()
    assert t0.inv(t0(x)) is not x
    assert t0.with_cache(1)._cache_size == 1
    assert t0.with_cache(0) is t0
    c = ET.ComposeTransform([ET.ExpTransform(), ET.AffineTransform(1.0, 2.0)], cache_size=1)
    assert all(p._cache_size == 1 for p in c.parts)
    assert c.inv(c(x)) is x
    assert ET.IndependentTransform(ET.ExpTransform(), 1).with_cache()._cache_size == 1
    assert ET.AffineTransform(1.0, 2.0).with_cache().loc == 1.0
    em, tm = errors_same(lambda: ET.ExpTransform(cache_size=2),
                         lambda: TT.ExpTransform(cache_size=2))
    assert em == tm


def test_with_cache_not_implemented_for_custom_init():
    class MyT(ET.Transform):
        def __init__(self, a):
            super().__init__()
            self.a = a
    with pytest.raises(NotImplementedError, match="with_cache is not implemented"):
        MyT(1).with_cache(1)


def test_shape_errors():
    pairs = [
        (lambda T: T.ReshapeTransform((4,), (3,)), None),
        (lambda T: T.ReshapeTransform((4,), (2, 2)).forward_shape((3, 5)), None),
        (lambda T: T.ReshapeTransform((4,), (2, 2)).forward_shape(()), None),
        (lambda T: T.ReshapeTransform((4,), (2, 2)).inverse_shape((3, 5)), None),
        (lambda T: T.CorrCholeskyTransform().forward_shape((4,)), None),
        (lambda T: T.CorrCholeskyTransform().forward_shape(()), None),
        (lambda T: T.CorrCholeskyTransform().inverse_shape((3, 4)), None),
        (lambda T: T.CorrCholeskyTransform().inverse_shape((3,)), None),
        (lambda T: T.StickBreakingTransform().forward_shape(()), None),
        (lambda T: T.SoftmaxTransform().inverse_shape(()), None),
        (lambda T: T.ExpTransform().event_dim, None),
    ]
    for f, _ in pairs[:-1]:
        em, tm = errors_same(lambda: f(ET), lambda: f(TT))
        assert em == tm
    assert ET.ExpTransform().event_dim == 0
    em, tm = errors_same(lambda: ET.CorrCholeskyTransform().event_dim,
                         lambda: TT.CorrCholeskyTransform().event_dim)
    assert em == tm
    em, tm = errors_same(
        lambda: ET.IndependentTransform(ET.ExpTransform(), 2)(ember.zeros(3)),
        lambda: TT.IndependentTransform(TT.ExpTransform(), 2)(torch.zeros(3)))
    assert em == tm
    for T, m in ((ET, ember), (TT, torch)):
        with pytest.raises(AssertionError):
            T.CatTransform([T.ExpTransform()], dim=0, lengths=[2])(m.zeros(3))
        with pytest.raises(AssertionError):
            T.StackTransform([T.ExpTransform()], dim=0)(m.zeros(3))
        with pytest.raises(AssertionError):
            T.CatTransform([1])


def test_compose_domain_event_dims():
    for parts in ([('ExpTransform',), ('StickBreakingTransform',)],
                  [('StickBreakingTransform',), ('ExpTransform',)],
                  [('reshape', (4,), (2, 2)), ('ExpTransform',)],
                  [('ExpTransform',), ('reshape', (4,), (2, 2))]):
        ce, ct = _mk(ember, ('compose', parts)), _mk(torch, ('compose', parts))
        assert repr(ce.domain) == repr(ct.domain)
        assert repr(ce.codomain) == repr(ct.codomain)
        assert ce.domain.event_dim == ct.domain.event_dim
        assert ce.codomain.event_dim == ct.codomain.event_dim


def test_all_names():
    assert sorted(ET.__all__) == sorted(TT.__all__)
    for n in ET.__all__:
        assert hasattr(ember.distributions, n)
