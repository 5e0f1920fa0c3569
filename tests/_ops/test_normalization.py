"""ember/_ops/normalization.py against torch: degenerate inputs of batch_norm."""
import numpy as np
import pytest

import ember
from oracle import check_error, run_both


@pytest.mark.parametrize('shape,c,training', [
    ((0,), 0, True), ((0,), 2, True), ((0,), 2, False), ((0, 3), 3, True), ((0, 3), 2, True),
    ((0, 3, 2), 3, False), ((2, 0), 0, True), ((2, 0), 3, True)])
def test_batch_norm_empty_input_keeps_running_stats(shape, c, training):
    # torch returns input * weight[0] + bias[0] for an empty input and leaves the running
    # statistics alone (issue 21)
    def f(m):
        rm, rv = m.zeros(c, dtype=m.float64) + 0.5, m.ones(c, dtype=m.float64) * 2
        r = m.nn.functional.batch_norm(m.zeros(shape, dtype=m.float64), rm, rv,
                                       training=training)
        r2 = m.batch_norm(m.zeros(shape, dtype=m.float64), None, None, rm, rv, training,
                          0.1, 1e-5, False)
        return r, r2, rm, rv
    run_both(f)


def test_batch_norm_one_dim_input_errors():
    f = lambda m, c: m.nn.functional.batch_norm(m.zeros(3), m.zeros(c), m.ones(c))  # noqa: E731
    check_error(lambda m: f(m, 3), match='running_mean should contain 0 elements not 3')
    check_error(lambda m: f(m, 0), match='Dimension out of range')
    check_error(lambda m: m.native_batch_norm(m.ones(3), None, None, None, None, True, 0.1,
                                              1e-5), match='Dimension out of range')
    check_error(lambda m: m.nn.functional.batch_norm(m.zeros(()), None, None, training=True),
                match='index out of range')


def test_local_response_norm_integer_input_truncates_the_window_mean():
    # torch averages with avg_pool, which truncates for integer inputs (issue 21)
    from oracle import check
    x = np.arange(36, dtype=np.int64).reshape(1, 6, 6)
    check(lambda m, a: (m.nn.functional.local_response_norm(a, 2, alpha=3e-5, beta=0.5),
                        m.nn.functional.local_response_norm(a, 3, alpha=3e-2, beta=0.5, k=2.)),
          [x], rtol=1e-5, atol=1e-6)


# ------------------------------------------------------------------ _native_batch_norm_legit
@pytest.mark.parametrize('training', [True, False])
@pytest.mark.parametrize('stats', [True, False])
def test_native_batch_norm_legit(training, stats):
    import torch

    from oracle import check, gradcheck_ember
    if not stats and not training:
        return      # torch has no evaluation without running statistics (it crashes)
    rng = np.random.default_rng(3)
    x, w, b = rng.standard_normal((4, 3, 5)), rng.standard_normal(3), rng.standard_normal(3)
    rm, rv = rng.standard_normal(3), rng.uniform(0.5, 2, 3)

    def f(m, x, w, b, rm, rv):
        if stats:
            r = m._native_batch_norm_legit(x, w, b, rm, rv, training, 0.3, 1e-5)
            return r + (rm, rv)             # the running statistics, updated in place
        return m._native_batch_norm_legit(x, w, b, training, 0.3, 1e-5)

    re, rt = check(lambda m, x, w, b: f(m, x, w, b, m.tensor(rm), m.tensor(rv)), [x, w, b],
                   grad=True)
    name = 'NativeBatchNormLegitBackward0' if stats else 'NativeBatchNormLegitBackward1'
    assert re[0].grad_fn.name() == rt[0].grad_fn.name() == name
    gradcheck_ember(lambda m, x, w, b: f(m, x, w, b, m.tensor(rm), m.tensor(rv))[0], [x, w, b])
    assert torch.is_tensor(rt[0])


@pytest.mark.parametrize('rs', [None, 'float32', 'float16'])
@pytest.mark.parametrize('training', [True, False])
def test_native_batch_norm_half_statistics(rs, training):
    # half input: the saved statistics have the running statistics' dtype (else the input's),
    # and torch normalises with the statistics rounded to it
    from oracle import run_both
    if rs is None and not training:
        return
    x = (np.random.default_rng(0).standard_normal((5, 5, 5)) * 3).astype(np.float16)
    w = np.random.default_rng(1).standard_normal(5).astype(np.float16)

    def f(m):
        st = (m.zeros(5, dtype=getattr(m, rs)), m.ones(5, dtype=getattr(m, rs))) if rs else \
            (None, None)
        wt = m.tensor(w).to(st[0].dtype) if rs else m.tensor(w)
        return m.native_batch_norm(m.tensor(x), wt, wt, *st, training, 0.5, 0.6)
    run_both(f, rtol=1e-6, atol=0)      # float32 statistics: within an ulp; half: exact


def test_batch_norm_with_update():
    from oracle import check, gradcheck_ember
    rng = np.random.default_rng(5)
    x, w, b = rng.standard_normal((4, 3, 2)), rng.standard_normal(3), rng.standard_normal(3)
    rm, rv = rng.standard_normal(3), rng.uniform(0.5, 2, 3)

    def f(m, x, w, b):
        st = (m.tensor(rm), m.tensor(rv))
        return m.ops.aten._batch_norm_with_update(x, w, b, *st, 0.3, 1e-5) + st

    re, rt = check(f, [x, w, b], grad=True)
    assert re[0].grad_fn.name() == rt[0].grad_fn.name() == 'BatchNormWithUpdateBackward0'
    assert re[3].dtype == ember.uint8 and tuple(re[3].shape) == (0,)
    gradcheck_ember(lambda m, x, w, b: f(m, x, w, b)[0], [x, w, b])


def test_rms_norm_complex():
    from oracle import check, gradcheck_ember
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 3, 4)) + 1j * rng.standard_normal((2, 3, 4))
    w = rng.standard_normal(4) + 1j * rng.standard_normal(4)
    check(lambda m, t, v: (m.nn.functional.rms_norm(t, (4,), v, eps=0.5),
                           m.nn.functional.rms_norm(t, (3, 4))), [x, w], grad=True)
    gradcheck_ember(lambda m, t, v: m.nn.functional.rms_norm(t, (4,), v, eps=0.5), [x, w])
