"""ember.cuda on a machine without CUDA answers as torch 2.13 (CPU build) does: values of
the queries that work without a GPU, and the exception types of those that need one."""
import warnings

import pytest
import torch

import ember

pytestmark = pytest.mark.skipif(ember.cuda.is_available(), reason="these check the no-GPU answers")

VALUE_CALLS = [
    'is_available()', 'device_count()', 'is_initialized()', 'manual_seed(1)',
    'manual_seed_all(1)', 'seed()', 'seed_all()', 'empty_cache()', 'memory_allocated()',
    'max_memory_allocated()', 'memory_reserved()', 'max_memory_reserved()',
    'memory_allocated(0)', 'max_memory_allocated("cuda:0")', 'memory_stats()',
    'memory_stats_as_nested_dict()', 'is_bf16_supported()', 'is_tf32_supported()',
    'get_arch_list()', 'get_gencode_flags()', 'get_rng_state_all()', 'set_rng_state_all([])',
    'set_stream(None)', 'has_half', 'has_magma', 'default_generators',
]

RAISING_CALLS = [
    'initial_seed()', 'synchronize()', 'mem_get_info()', 'current_device()',
    'get_device_name()', 'get_device_capability()', 'get_device_properties(0)', 'init()',
    'ipc_collect()', 'get_rng_state()', 'current_stream()', 'default_stream()', 'Stream()',
    'Event()', 'set_per_process_memory_fraction(0.5)', 'get_per_process_memory_fraction()',
    'get_sync_debug_mode()', 'set_sync_debug_mode(0)', 'can_device_access_peer(0, 0)',
    'is_current_stream_capturing()', 'FloatTensor(2)', 'LongTensor([1])', 'FloatStorage(2)',
]


def _eval(m, src):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        return eval('m.cuda.' + src)


@pytest.mark.parametrize('src', VALUE_CALLS)
def test_values_like_torch(src):
    want = _eval(torch, src)
    got = _eval(ember, src)
    assert got == want and type(got) is type(want)


@pytest.mark.parametrize('src', RAISING_CALLS)
def test_errors_like_torch(src):
    with pytest.raises(Exception) as want:
        _eval(torch, src)
    with pytest.raises(Exception) as got:
        _eval(ember, src)
    assert got.type is want.type, (got.value, want.value)
    assert str(got.value).split('.')[0] in str(want.value) or str(want.value) in str(got.value)


def test_context_managers_without_cuda():
    for m in (torch, ember):
        with m.cuda.device(-1):
            pass
        with m.cuda.device_of(m.ones(1)):
            pass
        with m.cuda.stream(None):
            pass
        with pytest.raises(RuntimeError, match="compiled without CUDA"):
            with m.cuda.device(0):
                pass


def test_names_of_torch_cuda_that_scripts_use():
    for n in ['is_available', 'device_count', 'manual_seed', 'manual_seed_all', 'synchronize',
              'empty_cache', 'memory_allocated', 'max_memory_allocated', 'memory_reserved',
              'reset_peak_memory_stats', 'get_device_name', 'amp', 'Stream', 'Event',
              'FloatTensor', 'LongTensor', 'HalfTensor', 'BoolTensor', 'FloatStorage']:
        assert hasattr(ember.cuda, n), n
    for n in ['autocast', 'GradScaler', 'custom_fwd', 'custom_bwd']:
        assert hasattr(ember.cuda.amp, n), n


def test_legacy_cuda_types_isinstance():
    assert not isinstance(ember.ones(2), ember.cuda.FloatTensor)
    assert not isinstance(torch.ones(2), torch.cuda.FloatTensor)


def test_cuda_tensor_creation_still_errors():
    with pytest.raises((AssertionError, RuntimeError)):
        ember.ones(2, device='cuda')
