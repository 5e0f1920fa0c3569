"""``ember.cond`` against ``torch.cond`` (eager): Python and tensor predicates, nested
operands, gradients through the taken branch, and the errors torch's tracing raises for bad
predicates, operands and branch outputs."""
import warnings

import numpy as np
import pytest
import torch

import ember

pytestmark = pytest.mark.filterwarnings('ignore')


@pytest.fixture(autouse=True)
def _restore_torch_validate_args():
    """torch.cond with a tensor predicate runs dynamo, which turns torch's default
    distribution argument validation off and leaves it so; later oracle tests compare
    ember's default with torch's."""
    old = torch.distributions.Distribution._validate_args
    yield
    torch.distributions.Distribution._validate_args = old


def _both(fn):
    """Run ``fn(m)`` for both libraries; returns (ember result or exception, torch's)."""
    out = []
    for m in (ember, torch):
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            try:
                out.append(fn(m))
            except Exception as e:  # noqa: BLE001 - the type is compared
                out.append(e)
    return out


def _np(t):
    return t.detach().numpy()


X = np.array([0.5, -1.25, 2.0], np.float32)


@pytest.mark.parametrize('pred', [True, False, 1, 0.0])
def test_python_pred(pred):
    e, t = _both(lambda m: m.cond(pred, lambda a: a.sin(), lambda a: a.cos(),
                                  (m.tensor(X),)))
    np.testing.assert_allclose(_np(e), _np(t), rtol=1e-6)


@pytest.mark.parametrize('val', [[True], [False], [2.5], [0], [[1]]])
def test_tensor_pred_and_grad(val):
    def f(m):
        x = m.tensor(X, requires_grad=True)
        y = m.tensor(2.0, requires_grad=True)
        p = m.tensor(val[0] if not isinstance(val[0], list) else val[0])
        out = m.cond(p, lambda a, b: (a.sin() * b, a.sum()), lambda a, b: (a.exp() - b, a.max()),
                     (x, y))
        g = np.array([0.3, -1.0, 2.0], np.float32)
        (out[0] * m.tensor(g)).sum().add(out[1] * 3).backward()
        return out, x.grad, y.grad
    e, t = _both(f)
    assert isinstance(e[0], tuple) and len(e[0]) == 2
    for a, b in zip(list(e[0]) + [e[1], e[2]], list(t[0]) + [t[1], t[2]]):
        assert a.dtype == ember.float32 and tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(_np(a), _np(b), rtol=1e-5)


def test_nested_operands():
    def f(m):
        x = m.tensor(X)
        return m.cond(m.tensor(False), lambda d: [d['k'][0] + 1], lambda d: [d['k'][0] * 2],
                      ({'k': (x,)},))
    e, t = _both(f)
    assert isinstance(e, list) and len(e) == 1
    np.testing.assert_allclose(_np(e[0]), _np(t[0]))


def test_python_pred_unpacks_a_tensor_operand():
    # no checks with a Python predicate: operands are unpacked as given
    e, t = _both(lambda m: m.cond(True, lambda a: a, lambda a: a, m.tensor(X)))
    assert type(e) is type(t) is TypeError


_ERR = [
    ('two-element pred', lambda m, x: m.cond(m.tensor([True, False]), lambda a: a.sin(),
                                             lambda a: a.cos(), (x,)), 'single-element'),
    ('str pred', lambda m, x: m.cond('a', lambda a: a.sin(), lambda a: a.cos(), (x,)),
     'bool or tensor'),
    ('non-callable', lambda m, x: m.cond(m.tensor(True), 1, lambda a: a.cos(), (x,)),
     'callable'),
    ('dict operands', lambda m, x: m.cond(m.tensor(True), lambda a: a.sin(), lambda a: a.cos(),
                                          {'a': x}), 'tensor leaves'),
    ('int operand', lambda m, x: m.cond(m.tensor(True), lambda a, b: a * b, lambda a, b: a + b,
                                        (x, 2)), 'tensor leaves'),
    ('tensor operands', lambda m, x: m.cond(m.tensor(True), lambda a: a, lambda a: a, x),
     'tensor leaves'),
    ('returns operand', lambda m, x: m.cond(m.tensor(True), lambda a: a, lambda a: a.cos(),
                                            (x,)), 'aliasing'),
    ('returns view (other branch)', lambda m, x: m.cond(m.tensor(True), lambda a: a.sin(),
                                                        lambda a: a[1:], (x,)), 'aliasing'),
    ('mutates operand (other branch)', lambda m, x: m.cond(
        m.tensor(False), lambda a: a.add_(1), lambda a: a.cos(), (x,)), 'mutation'),
    ('returns None', lambda m, x: m.cond(m.tensor(True), lambda a: None, lambda a: None, (x,)),
     'unsupported branch return type'),
    ('dtype mismatch', lambda m, x: m.cond(m.tensor(True), lambda a: a.sin(),
                                           lambda a: a.double(), (x,)), None),
    ('ndim mismatch', lambda m, x: m.cond(m.tensor(True), lambda a: a.sin(),
                                          lambda a: a.unsqueeze(0), (x,)), None),
    ('structure mismatch', lambda m, x: m.cond(m.tensor(True), lambda a: a.sin(),
                                               lambda a: (a.sin(), a.cos()), (x,)), None),
]


@pytest.mark.parametrize('name,fn,phrase', _ERR, ids=[e[0] for e in _ERR])
def test_errors(name, fn, phrase):
    e, t = _both(lambda m: fn(m, m.tensor(X)))
    assert isinstance(t, Exception), t
    assert isinstance(e, Exception), f'ember did not raise; torch: {t!r}'
    assert isinstance(e, RuntimeError) == isinstance(t, RuntimeError), (e, t)
    assert isinstance(e, TypeError) == isinstance(t, TypeError), (e, t)
    if phrase:
        assert phrase in str(e) and phrase in str(t)


def test_different_sizes_allowed_and_other_branch_leaves_no_trace():
    ember.manual_seed(0)
    x = ember.tensor(X)
    out = ember.cond(ember.tensor(True), lambda a: a[:2] * 2, lambda a: a + ember.rand(3), (x,))
    np.testing.assert_allclose(out.numpy(), X[:2] * 2)
    ember.manual_seed(0)
    r = ember.rand(3)          # the untaken branch's draw did not move the generator
    torch.manual_seed(0)
    np.testing.assert_allclose(r.numpy(), torch.rand(3).numpy())
    assert x._version == 0
