"""ember.backends.quantized (the quantized engine switch) against torch.backends.quantized."""
import pytest
import torch

import ember
from tests.oracle import errors_both


@pytest.fixture(autouse=True)
def _restore_engines():
    te, ee = torch.backends.quantized.engine, ember.backends.quantized.engine
    yield
    torch.backends.quantized.engine = te
    ember.backends.quantized.engine = ee


def test_default_and_supported():
    assert ember.backends.quantized.engine == torch.backends.quantized.engine == 'x86'
    assert ember.backends.quantized.supported_engines == \
        torch.backends.quantized.supported_engines
    import ember.backends.quantized as q
    assert q is ember.backends.quantized


@pytest.mark.parametrize('name', ['qnnpack', 'fbgemm', 'onednn', 'x86'])
def test_set(name):
    torch.backends.quantized.engine = name
    ember.backends.quantized.engine = name
    assert ember.backends.quantized.engine == torch.backends.quantized.engine == name


@pytest.mark.parametrize('bad,match', [('foo', 'foo is not a valid value for quantized engine'),
                                       ('none', 'quantized engine NoQEngine is not supported'),
                                       ('', 'quantized engine NoQEngine is not supported'),
                                       (None, 'quantized engine NoQEngine is not supported')])
def test_bad_engine(bad, match):
    def fn(m):
        m.backends.quantized.engine = bad
    errors_both(fn, match)
    assert ember.backends.quantized.engine == 'x86'


def test_supported_is_read_only():
    def fn(m):
        m.backends.quantized.supported_engines = ['x86']
    errors_both(fn, 'Assignment not supported')


def test_engine_drives_choose_qparams_reduce_range():
    x = [-1.0, 3.0]
    for name in ('qnnpack', 'x86'):
        torch.backends.quantized.engine = name
        ember.backends.quantized.engine = name
        assert ember._choose_qparams_per_tensor(ember.tensor(x), True) == \
            torch._choose_qparams_per_tensor(torch.tensor(x), True)
