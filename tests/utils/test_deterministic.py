"""Deterministic mode's filling of uninitialized memory (``use_deterministic_algorithms``,
``utils.deterministic.fill_uninitialized_memory``), compared with torch."""
import pytest
import torch

import ember
import ember.utils.deterministic  # noqa: F401
from oracle import run_both, errors_both


@pytest.fixture
def deterministic():
    """Deterministic mode on in both libraries for the test; every setting restored."""
    saved = [(m.are_deterministic_algorithms_enabled(),
              m.is_deterministic_algorithms_warn_only_enabled(),
              m.utils.deterministic.fill_uninitialized_memory) for m in (ember, torch)]
    for m in (ember, torch):
        m.use_deterministic_algorithms(True)
    yield
    for m, (on, warn, fill) in zip((ember, torch), saved):
        m.use_deterministic_algorithms(on, warn_only=warn)
        m.utils.deterministic.fill_uninitialized_memory = fill


DTYPES = ['float32', 'float64', 'float16', 'bfloat16', 'complex64', 'complex128', 'int8',
          'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32', 'bool']


def _vals(t):
    if t.is_complex():
        return t.real.float(), t.imag.float()
    return t.float() if t.dtype in (torch.bfloat16, ember.bfloat16) else t


@pytest.mark.parametrize('dtype', DTYPES)
def test_empty_factories_filled(deterministic, dtype):
    def f(m):
        d = getattr(m, dtype)
        return [_vals(t) for t in (
            m.empty(2, 3, dtype=d), m.empty(size=(2,), dtype=d),
            m.empty_like(m.ones(3, dtype=d)), m.empty_strided((2, 2), (1, 2), dtype=d),
            m.ones(1, dtype=d).new_empty(2), m.ones(1, dtype=d).new_empty_strided((2,), (1,)),
            m.empty_permuted((2, 3), (1, 0), dtype=d))]
    run_both(f)


def test_legacy_constructors_filled(deterministic):
    run_both(lambda m: (m.Tensor(3), m.FloatTensor(2), m.LongTensor(2)))


@pytest.mark.parametrize('dtype', ['float32', 'int32', 'complex64', 'bool'])
def test_resize_fills_new_memory_only(deterministic, dtype):
    def f(m):
        d = getattr(m, dtype)
        x = m.ones(2, dtype=d)
        x.resize_(5)
        y = m.ones(2, dtype=d)
        y.resize_(1)
        y.resize_(3)          # within the old storage: the old values stay
        z = m.ones(2, dtype=d)
        z.resize_(3, 2)
        return [_vals(t) for t in (x, y, z)]
    run_both(f)


def test_fill_flag_off(deterministic):
    # torch's memory is then garbage (NaN by chance): only the flag is compared with torch
    def f(m):
        m.utils.deterministic.fill_uninitialized_memory = False
        return m.utils.deterministic.fill_uninitialized_memory
    run_both(f)
    a = ember.empty(4)
    x = ember.ones(2)
    x.resize_(3)
    assert not a.isnan().any() and not x.isnan().any()
    ember.utils.deterministic.fill_uninitialized_memory = True
    assert ember.empty(2).isnan().all()


def test_not_filled_outside_deterministic_mode():
    assert not ember.are_deterministic_algorithms_enabled()
    assert not ember.empty(8).isnan().any()
    assert ember.utils.deterministic.fill_uninitialized_memory is True


def test_fill_flag_type_error(deterministic):
    def f(m):
        m.utils.deterministic.fill_uninitialized_memory = 1
    errors_both(f, 'expected a bool, but got int')


@pytest.mark.parametrize('dtype', ['bits8', 'bits16', 'float4_e2m1fn_x2', 'float8_e8m0fnu'])
def test_other_dtypes(deterministic, dtype):
    d = getattr(torch, dtype)
    try:
        torch.empty(2, dtype=d)
    except NotImplementedError as e:
        errors_both(lambda m: m.empty(2, dtype=getattr(m, dtype)), str(e))
    else:
        run_both(lambda m: m.empty(2, dtype=getattr(m, dtype)).float())
