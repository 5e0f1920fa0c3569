"""The ``_foreach_*`` ops (ember/_ops/foreach.py) against torch's: every op and argument
form (number, list of numbers, list of tensors, 0-dim tensor, alpha, 1-D value tensors),
in-place forms returning their list, errors, promotion, and gradients."""
import numpy as np
import pytest
import torch

import ember

UNARY = ['abs', 'acos', 'asin', 'atan', 'ceil', 'cos', 'cosh', 'erf', 'erfc', 'exp', 'expm1',
         'floor', 'frac', 'lgamma', 'log', 'log10', 'log1p', 'log2', 'neg', 'reciprocal',
         'round', 'rsqrt', 'sigmoid', 'sign', 'sin', 'sinh', 'sqrt', 'tan', 'tanh', 'trunc']
BINARY = ['add', 'sub', 'mul', 'div', 'clamp_min', 'clamp_max', 'maximum', 'minimum', 'pow']
OTHERS = {'int': 2, 'float': 0.5, 'scalars': [1, 2.5], 'tensors': 'TL', 'zero-dim': 'T0',
          'bad-type': 'bad', 'short-scalars': [1], 'short-tensors': 'TS'}


def _inputs(m, grad=False):
    return [m.tensor([0.25, -0.5, 0.75], requires_grad=grad), m.tensor([0.5], requires_grad=grad)]


def _other(m, o):
    if not isinstance(o, str):
        return o
    return {'TL': [m.tensor([2., 3., 0.5]), m.tensor([-4.])], 'T0': m.tensor(2.),
            'TS': [m.tensor([2., 3., 0.5])], 'bad': 'bad'}[o]


def _outcome(fn, m, grad=False):
    b = _inputs(m, grad)
    try:
        r = fn(m, b)
    except Exception as e:      # the class must agree
        return type(e).__name__
    if isinstance(r, list):
        assert r is b, 'an in-place foreach op returns the list it was given'
        kind = 'list'
    else:
        assert isinstance(r, tuple)
        kind = 'tuple'
    return kind, [(str(x.dtype), x.detach().numpy().tolist()) for x in r]


def _same(fn, grad=False):
    t, e = _outcome(fn, torch, grad), _outcome(fn, ember, grad)
    if isinstance(t, str) or isinstance(e, str):
        assert t == e, (t, e)
        return
    assert t[0] == e[0]
    for (dt, vt), (de, ve) in zip(t[1], e[1]):
        assert dt == de.replace('ember', 'torch')
        np.testing.assert_allclose(np.array(ve, dtype=float), np.array(vt, dtype=float),
                                   rtol=1e-6, atol=1e-7, equal_nan=True)


@pytest.mark.parametrize('op', UNARY)
def test_unary(op):
    _same(lambda m, b: getattr(m, f'_foreach_{op}')(b))
    _same(lambda m, b: getattr(m, f'_foreach_{op}_')(b))


@pytest.mark.parametrize('other', list(OTHERS))
@pytest.mark.parametrize('op', BINARY)
def test_binary(op, other):
    o = OTHERS[other]
    _same(lambda m, b: getattr(m, f'_foreach_{op}')(b, _other(m, o)))
    _same(lambda m, b: getattr(m, f'_foreach_{op}_')(b, _other(m, o)))


def test_alpha_and_number_bases():
    _same(lambda m, b: m._foreach_add(b, _other(m, 'TL'), alpha=2))
    _same(lambda m, b: m._foreach_sub_(b, _other(m, 'TL'), alpha=-0.5))
    _same(lambda m, b: m._foreach_add(b, m.tensor(2.), alpha=3))
    _same(lambda m, b: m._foreach_mul(b, 2, alpha=2))          # refused: no alpha for mul
    _same(lambda m, b: m._foreach_pow(2, b))
    _same(lambda m, b: m._foreach_pow(b, m.tensor(2.)))


@pytest.mark.parametrize('value', [1, 2.5, [1, 2], 'T', [1, 2, 3]])
@pytest.mark.parametrize('op', ['addcmul', 'addcdiv'])
def test_addcmul_addcdiv(op, value):
    def v(m):
        return m.tensor([1., 2.]) if value == 'T' else value
    _same(lambda m, b: getattr(m, f'_foreach_{op}')(b, b, _other(m, 'TL'), v(m)))
    _same(lambda m, b: getattr(m, f'_foreach_{op}_')(b, _other(m, 'TL'), b, v(m)))


@pytest.mark.parametrize('weight', [0.5, [0.5, 0.2], 'TL'])
def test_lerp(weight):
    def w(m):
        return [m.tensor(0.5), m.tensor([0.1])] if weight == 'TL' else weight
    _same(lambda m, b: m._foreach_lerp(b, [x * 2 for x in b], w(m)))
    _same(lambda m, b: m._foreach_lerp_(b, [x.detach() * 2 for x in b], w(m)))


def test_reductions_and_copies():
    for o in (2, 1, 0, 3, float('inf'), float('-inf')):
        _same(lambda m, b: m._foreach_norm(b, o))
    _same(lambda m, b: m._foreach_norm(b, dtype=m.float64))
    _same(lambda m, b: m._foreach_max(b))
    _same(lambda m, b: m._foreach_max([m.tensor([1, 5]), m.zeros(0)]))
    _same(lambda m, b: m._foreach_powsum(b, 3))
    _same(lambda m, b: m._foreach_clone(b))
    _same(lambda m, b: m._foreach_zero_(b))
    _same(lambda m, b: m._foreach_copy_(b, [m.tensor([5, 6, 7]), m.tensor([7])]))
    _same(lambda m, b: m._foreach_mm([m.ones(2, 3)], [m.arange(6.).view(3, 2)]))


def test_errors_and_promotion():
    _same(lambda m, b: m._foreach_add([], 1))
    _same(lambda m, b: m._foreach_exp(b[0]))
    _same(lambda m, b: m._foreach_exp([b[0], 3]))
    _same(lambda m, b: m._foreach_add([m.tensor([1])], 1.5))
    _same(lambda m, b: m._foreach_exp([m.tensor([1])]))
    _same(lambda m, b: m._foreach_neg([m.tensor([True])]))
    _same(lambda m, b: m._foreach_add(b, m.ones(2)))
    _same(lambda m, b: m._foreach_add_(b, 1), grad=True)     # leaves that require grad
    with pytest.raises(RuntimeError, match='same number of tensors, got 2 and 1'):
        ember._foreach_add(_inputs(ember), _other(ember, 'TS'))


def test_gradients_as_torch_and_gradcheck():
    grads = []
    for m in (torch, ember):
        b = _inputs(m, True)
        r = m._foreach_mul(m._foreach_exp(b), m._foreach_addcmul(b, b, b, value=0.5))
        n = m._foreach_norm(r)
        (r[0].sum() + 2 * r[1].sum() + n[0]).backward()
        grads.append([x.grad.numpy() for x in b])
    for a, b in zip(grads[1], grads[0]):
        np.testing.assert_allclose(a, b, rtol=1e-5)
    x = [ember.tensor([0.3, 0.7], dtype=ember.float64, requires_grad=True),
         ember.tensor([1.2], dtype=ember.float64, requires_grad=True)]

    def f(a, c):
        r = ember._foreach_lerp(ember._foreach_sigmoid([a, c]), [c * 2, a.sum().view(1)], 0.3)
        return tuple(ember._foreach_pow(r, 2))
    assert ember.autograd.gradcheck(f, tuple(x))


def test_sgd_momentum_step_with_foreach_equals_torch():
    # the shape of the optimizers' foreach path: buf = momentum * buf + grad; p -= lr * buf
    out = []
    for m in (torch, ember):
        g = m.Generator().manual_seed(0)
        ps = [m.randn(3, 4, generator=g), m.randn(5, generator=g)]
        gs = [m.randn(3, 4, generator=g), m.randn(5, generator=g)]
        bufs = m._foreach_clone(gs)
        for _ in range(3):
            m._foreach_mul_(bufs, 0.9)
            m._foreach_add_(bufs, gs)
            m._foreach_add_(ps, bufs, alpha=-0.1)
        out.append([p.numpy() for p in ps])
    for a, b in zip(out[1], out[0]):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)
