"""Top-level switches and small namespaces vs torch 2.13: threads, determinism, default
device, float32 matmul precision, legacy storage classes, ember.functional, ember.version,
ember.accelerator, ember.cpu."""
import warnings

import pytest
import torch

import ember


def test_num_threads():
    old = ember.get_num_threads()
    try:
        ember.set_num_threads(1)
        assert ember.get_num_threads() == 1
    finally:
        ember.set_num_threads(old)
    assert isinstance(ember.get_num_interop_threads(), int)
    for m in (torch, ember):
        with pytest.raises(RuntimeError, match="set_num_threads expects a positive integer"):
            m.set_num_threads(0)
        with pytest.raises(RuntimeError, match="set_num_threads expects an int, but got float"):
            m.set_num_threads(1.5)


def test_set_num_threads_limits_blas():
    from threadpoolctl import threadpool_info
    old = ember.get_num_threads()
    try:
        ember.set_num_threads(1)
        blas = [i for i in threadpool_info() if i['user_api'] == 'blas']
        assert all(i['num_threads'] == 1 for i in blas)
    finally:
        ember.set_num_threads(old)


def test_deterministic_like_torch():
    for m in (torch, ember):
        try:
            assert m.are_deterministic_algorithms_enabled() is False
            m.use_deterministic_algorithms(True, warn_only=True)
            assert m.are_deterministic_algorithms_enabled()
            assert m.is_deterministic_algorithms_warn_only_enabled()
            assert m.get_deterministic_debug_mode() == 1
            m.set_deterministic_debug_mode('error')
            assert m.get_deterministic_debug_mode() == 2
            with pytest.raises(RuntimeError, match="invalid value of debug_mode"):
                m.set_deterministic_debug_mode(5)
            with pytest.raises(RuntimeError, match="expected one of `default`"):
                m.set_deterministic_debug_mode('x')
            with pytest.raises(TypeError):
                m.use_deterministic_algorithms(1)
        finally:
            m.use_deterministic_algorithms(False)


def test_matmul_precision_like_torch():
    for m in (torch, ember):
        assert m.get_float32_matmul_precision() == 'highest'
        with pytest.warns(UserWarning, match="is not one of 'highest', 'high', or 'medium'"):
            m.set_float32_matmul_precision('x')
        assert m.get_float32_matmul_precision() == 'highest'
        m.set_float32_matmul_precision('medium')
        assert m.get_float32_matmul_precision() == 'medium'
        m.set_float32_matmul_precision('highest')


def test_default_device():
    for m in (torch, ember):
        assert m.get_default_device() == m.device('cpu')
        try:
            m.set_default_device('meta')
            assert m.get_default_device() == m.device('meta')
            assert m.ones(2).device.type == 'meta'
            assert m.zeros(2, device='cpu').device.type == 'cpu'
        finally:
            m.set_default_device(None)
        assert m.get_default_device() == m.device('cpu')
        assert m.ones(2).device.type == 'cpu'


def test_warn_always():
    for m in (torch, ember):
        m.set_warn_always(True)
        assert m.is_warn_always_enabled()
        m.set_warn_always(False)
        assert not m.is_warn_always_enabled()


STORAGES = ['FloatStorage', 'DoubleStorage', 'HalfStorage', 'BFloat16Storage', 'LongStorage',
            'IntStorage', 'ShortStorage', 'CharStorage', 'ByteStorage', 'BoolStorage',
            'ComplexFloatStorage', 'ComplexDoubleStorage']


@pytest.mark.parametrize('name', STORAGES)
def test_legacy_storage_classes_like_torch(name):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        T, E = getattr(torch, name), getattr(ember, name)
        assert str(E.dtype) == str(T.dtype)
        t, e = T(3), E(3)
        assert e.size() == t.size() == 3 and str(e.dtype) == str(t.dtype)
        assert isinstance(e, ember.TypedStorage) and isinstance(e, E)
        assert ember.is_storage(e)
        if name not in ('BoolStorage', 'ComplexFloatStorage', 'ComplexDoubleStorage'):
            assert E([1, 2]).tolist() == T([1, 2]).tolist()


def test_storage_isinstance_by_dtype_like_torch():
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        for m in (torch, ember):
            s = m.ones(2).storage()
            assert isinstance(s, m.FloatStorage)
            assert not isinstance(s, m.LongStorage)
            assert repr(m.FloatStorage([1, 2])) .endswith(
                "[torch.storage.TypedStorage(dtype=torch.float32, device=cpu) of size 2]")


def test_functional_module():
    import ember.functional as EF
    import torch.functional as TF
    for n in ['einsum', 'meshgrid', 'split', 'norm', 'unique', 'broadcast_tensors',
              'broadcast_shapes', 'tensordot', 'block_diag', 'atleast_1d', 'chain_matmul',
              'cartesian_prod', 'unique_consecutive']:
        assert getattr(EF, n) is getattr(ember, n)
        assert hasattr(TF, n)
    assert EF.broadcast_shapes((2, 1), (3,)) == TF.broadcast_shapes((2, 1), (3,))
    with pytest.raises(AttributeError):
        EF.nope


def test_version_module():
    import ember.version
    assert ember.version.cuda is None and torch.version.cuda is None
    assert ember.version.hip is None and ember.version.debug is False
    assert ember.version.__version__ == ember.__version__
    assert ember.version.torch_version == torch.__version__.split('+')[0]
    assert isinstance(ember.version.git_version, str)


ACCEL = ['is_available()', 'current_accelerator()', 'device_count()']
ACCEL_RAISE = ['current_device_index()', 'synchronize()', 'empty_cache()',
               'memory_allocated()', 'set_device_index(0)', 'get_memory_info()',
               'max_memory_allocated()', 'memory_stats()', 'reset_peak_memory_stats()']


@pytest.mark.skipif(ember.cuda.is_available(), reason="no-accelerator answers")
def test_accelerator_like_torch():
    for src in ACCEL:
        assert eval('ember.accelerator.' + src) == eval('torch.accelerator.' + src)
    for src in ACCEL_RAISE:
        for m in (torch, ember):
            with pytest.raises(RuntimeError, match="Cannot access accelerator device when none"):
                eval('m.accelerator.' + src)
    with ember.accelerator.device_index(None):
        pass


def test_cpu_module_like_torch():
    for src in ['is_available()', 'device_count()', 'current_device()', 'synchronize()',
                'is_initialized()']:
        assert eval('ember.cpu.' + src) == eval('torch.cpu.' + src)
    ember.cpu.Stream().synchronize()
    with ember.cpu.stream(ember.cpu.current_stream()):
        pass


def test_top_level_names_present():
    for n in ['get_num_threads', 'set_num_threads', 'use_deterministic_algorithms',
              'set_default_device', 'get_default_device', 'set_float32_matmul_precision',
              'autocast', 'is_autocast_enabled', 'get_autocast_dtype', 'set_autocast_enabled',
              'FloatStorage', 'cuda', 'backends', 'accelerator', 'amp', 'functional', 'version',
              'cpu']:
        assert hasattr(ember, n) and hasattr(torch, n), n
