"""Anomaly detection against torch (ember/autograd/anomaly_mode.py and the engine's
checks): NaN gradients name the backward function and report the forward op's traceback,
check_nan=False, set_detect_anomaly, the state functions, and the in-place hint."""
import warnings

import numpy as np
import pytest
import torch

import ember


def both_raise(fn, match):
    out = []
    for m in (torch, ember):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            with pytest.raises(RuntimeError) as ei:
                fn(m)
        out.append((str(ei.value), [str(x.message) for x in w]))
        assert match in str(ei.value), (m.__name__, str(ei.value))
    return out


def nan_sqrt(m):
    with m.autograd.detect_anomaly():
        a = m.zeros(2, requires_grad=True)
        b = a.sqrt()    # the forward op of the NaN gradient: 0 * inf
        (b * 0).sum().backward()


def nan_div(m):
    with m.autograd.detect_anomaly():
        a = m.tensor([0., 1.], requires_grad=True)
        (a / a).sum().backward()


@pytest.mark.parametrize('fn,name,idx', [(nan_sqrt, 'SqrtBackward0', 0),
                                         (nan_div, 'DivBackward0', 1)])
def test_nan_gradient_detected(fn, name, idx):
    (mt, wt), (me, we) = both_raise(fn, f"Function '{name}' returned nan values in its "
                                        f"{idx}th output.")
    assert mt == me
    for ws in (wt, we):
        assert any("Anomaly Detection has been enabled" in x for x in ws)
        trace = [x for x in ws if x.startswith(f"Error detected in {name}. Traceback of forward "
                                               "call that caused the error:")]
        assert trace, ws
    # ember's traceback points at the user's forward line, not at ember internals
    tr = [x for x in we if x.startswith("Error detected")][0]
    assert 'test_anomaly_mode.py' in tr
    assert '/ember/' not in tr


def test_without_anomaly_mode_nan_propagates():
    for m in (torch, ember):
        a = m.zeros(2, requires_grad=True)
        (a.sqrt() * 0).sum().backward()
        assert np.isnan(a.grad.numpy()).all()


def test_check_nan_false():
    for m in (torch, ember):
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            with m.autograd.detect_anomaly(check_nan=False):
                assert m.is_anomaly_enabled() and not m.is_anomaly_check_nan_enabled()
                a = m.zeros(2, requires_grad=True)
                (a.sqrt() * 0).sum().backward()
        assert np.isnan(a.grad.numpy()).all()
        assert not m.is_anomaly_enabled() and m.is_anomaly_check_nan_enabled()


def test_set_detect_anomaly_and_state():
    for m in (torch, ember):
        assert not m.is_anomaly_enabled()
        with m.autograd.set_detect_anomaly(True):
            assert m.is_anomaly_enabled()
        assert not m.is_anomaly_enabled()
        m.autograd.set_detect_anomaly(True)
        assert m.is_anomaly_enabled()
        m.autograd.set_detect_anomaly(False)
        assert not m.is_anomaly_enabled()
        m.set_anomaly_enabled(True, check_nan=False)
        assert m.is_anomaly_enabled() and not m.is_anomaly_check_nan_enabled()
        m.set_anomaly_enabled(False)
        assert not m.is_anomaly_enabled() and m.is_anomaly_check_nan_enabled()


def test_backward_error_reports_forward_trace():
    def fn(m):
        class Boom(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                raise ValueError("boom")
        with m.autograd.detect_anomaly():
            Boom.apply(m.ones(2, requires_grad=True)).sum().backward()
    for m in (torch, ember):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            with pytest.raises(ValueError, match="boom"):
                fn(m)
        assert any(str(x.message).startswith("Error detected in BoomBackward.") for x in w)


def test_inplace_error_hint_under_anomaly_mode():
    def fn(m):
        with m.autograd.detect_anomaly():
            a = m.ones(2, requires_grad=True)
            b = a * 1
            c = b * b
            b.add_(1)
            c.sum().backward()
    (mt, _), (me, _) = both_raise(fn, "Hint: the backtrace further above shows the operation "
                                      "that failed to compute its gradient.")
    assert mt == me


def test_no_nan_no_error():
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        with ember.autograd.detect_anomaly():
            a = ember.ones(2, requires_grad=True)
            (a.sqrt() * a).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), [1.5, 1.5])
