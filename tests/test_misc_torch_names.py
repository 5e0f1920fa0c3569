"""Assorted torch.* names (range, frombuffer, from_file, typename, Stream/Event/Future,
set_default_tensor_type, compile, Sym*, Tag, empty_permuted...) against torch."""
import array
import threading
import warnings

import numpy as np
import pytest
import torch

import ember
from oracle import assert_same


def _outcome(m, f):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        try:
            return ('ok', f(m))
        except Exception as e:
            return (type(e).__name__, str(e))


def _check(f):
    t, e = _outcome(torch, f), _outcome(ember, f)
    assert e[0] == t[0], (e, t)
    if t[0] == 'ok':
        if isinstance(t[1], torch.Tensor) or isinstance(t[1], (list, tuple)) and any(
                isinstance(v, torch.Tensor) for v in t[1]):
            assert_same(e[1], t[1])
        else:
            assert repr(e[1]) == repr(t[1])
    else:
        assert e[1] == t[1]


RANGE = [
    lambda m: m.range(1, 4), lambda m: m.range(1, 4, 0.5), lambda m: m.range(0, 3, dtype=m.int64),
    lambda m: m.range(4, 1, -1), lambda m: m.range(0, 1, 0.3), lambda m: m.range(-2.5, 2.5),
    lambda m: m.range(0, 10, 3, dtype=m.int32), lambda m: m.range(1, 1),
    lambda m: m.range(m.tensor(1), m.tensor(3.)), lambda m: m.range(1, 4, dtype=m.float64),
    lambda m: m.range(0, 1, 0.1), lambda m: m.range(1, 0), lambda m: m.range(1, 2, 0),
    lambda m: m.range(3), lambda m: m.range(0, 2, requires_grad=True).requires_grad,
    lambda m: m.range(0, 2, out=m.empty(3)),
]


@pytest.mark.parametrize('i', range(len(RANGE)))
def test_range(i):
    _check(RANGE[i])


def test_range_warns():
    with pytest.warns(UserWarning, match='torch.range is deprecated'):
        ember.range(0, 2)


def test_frombuffer():
    for m in (torch, ember):
        b = bytearray(np.arange(6, dtype=np.int32).tobytes())
        t = m.frombuffer(b, dtype=m.int32)
        assert t.tolist() == list(range(6))
        t[0] = 42
        assert np.frombuffer(b, np.int32)[0] == 42          # shares the buffer
        t2 = m.frombuffer(b, dtype=m.int16, count=3, offset=4)
        assert t2.tolist() == [1, 0, 2]
        b[4] = 7
        assert t2[0].item() == 7
        a = array.array('d', [1.5, 2.5])
        assert m.frombuffer(a, dtype=m.float64).tolist() == [1.5, 2.5]
        assert m.frombuffer(b, dtype=m.float32, requires_grad=True).requires_grad
    for f in (lambda m: m.frombuffer(bytearray(6), dtype=m.int32),
              lambda m: m.frombuffer(bytearray(8), dtype=m.int32, offset=8),
              lambda m: m.frombuffer(bytearray(8), dtype=m.int32, count=3),
              lambda m: m.frombuffer(bytearray(0), dtype=m.int32),
              lambda m: m.frombuffer(bytearray(8), dtype=m.int32, count=0),
              lambda m: m.frombuffer(bytearray(8), dtype=m.int32, offset=-1)):
        _check(f)


def test_from_file(tmp_path):
    p = str(tmp_path / 'x.bin')
    np.arange(5, dtype=np.float32).tofile(p)
    _check(lambda m: m.from_file(p, size=5))
    _check(lambda m: m.from_file(p, size=3, dtype=m.float32))
    _check(lambda m: m.from_file(p, size=2, dtype=m.float64))
    _check(lambda m: m.from_file(p, size=9))
    _check(lambda m: m.from_file(str(tmp_path / 'missing.bin'), size=2))
    for m in (torch, ember):
        q = str(tmp_path / f'shared_{m.__name__}.bin')
        np.arange(4, dtype=np.float64).tofile(q)
        t = m.from_file(q, shared=True, size=4, dtype=m.float64)
        t[1] = 10.
        del t
        assert np.fromfile(q, np.float64).tolist() == [0., 10., 2., 3.]
        r = str(tmp_path / f'new_{m.__name__}.bin')
        t = m.from_file(r, shared=True, size=3, dtype=m.int32)   # created, zero-filled
        assert t.tolist() == [0, 0, 0]


def test_small_functions():
    for f in (lambda m: m.get_device(m.ones(1)), lambda m: m.init_num_threads(),
              lambda m: [m.is_signed(m.ones(1)), m.is_signed(m.ones(1, dtype=m.uint8)),
                         m.is_signed(m.ones(1, dtype=m.bool))],
              lambda m: m.get_device_module().__name__.split('.')[-1],
              lambda m: m.get_device_module('cpu').__name__.split('.')[-1],
              lambda m: m.get_device_module(m.device('cpu')).__name__.split('.')[-1],
              lambda m: m.get_device_module('cuda').__name__.split('.')[-1],
              lambda m: m.get_device_module(3),
              lambda m: m.thread_safe_generator(),
              lambda m: repr(m.strided), lambda m: type(m.strided) is m.layout,
              lambda m: m.ones(2).layout is m.strided,
              lambda m: [m.is_nonzero(m.tensor([2])), m.is_inference(m.ones(1))],
              lambda m: m.is_nonzero(m.tensor([])), lambda m: m.is_nonzero(m.ones(3)),
              lambda m: m.as_strided_(m.arange(6.), (2, 2), (1, 2), 1),
              lambda m: m.resize_as_(m.arange(6.), m.ones(2, 3)),
              lambda m: m.set_flush_denormal(1)):
        _check(f)


def test_set_flush_denormal_note():
    # NOTE: unlike PyTorch, ember cannot flush denormals (NumPy has no switch): False
    assert ember.set_flush_denormal(True) is False
    assert ember.tensor([1e-320], dtype=ember.float64).item() == 1e-320


@pytest.mark.parametrize('obj', ['tensor', 'long', 'grad', 'int', 'linear', 'param', 'str',
                                 'cls', 'fn'])
def test_typename(obj):
    def f(m):
        o = {'tensor': lambda: m.ones(1), 'long': lambda: m.ones(1, dtype=m.int64),
             'grad': lambda: m.ones(1, requires_grad=True), 'int': lambda: 3,
             'linear': lambda: m.nn.Linear(1, 1), 'param': lambda: m.nn.Parameter(m.ones(1)),
             'str': lambda: 'x', 'cls': lambda: m.nn.Linear, 'fn': lambda: np.add}[obj]()
        return m.typename(o).replace('ember', 'torch')
    _check(f)


def test_set_default_tensor_type():
    try:
        for m in (torch, ember):
            with pytest.warns(UserWarning, match='set_default_tensor_type'):
                m.set_default_tensor_type(m.DoubleTensor)
            assert m.get_default_dtype() == m.float64 and m.tensor([1.]).dtype == m.float64
            m.set_default_tensor_type('torch.FloatTensor')
            assert m.get_default_dtype() == m.float32
        for f in (lambda m: m.set_default_tensor_type('torch.IntTensor'),
                  lambda m: m.set_default_tensor_type(m.IntTensor),
                  lambda m: m.set_default_tensor_type(3),
                  lambda m: m.set_default_tensor_type(m.float64)):
            _check(f)
    finally:
        torch.set_default_dtype(torch.float32)
        ember.set_default_dtype(ember.float32)


def test_aliases_and_compile():
    assert ember.vmap is ember.func.vmap
    assert ember.GradScaler is ember.amp.GradScaler
    x = np.random.default_rng(0).standard_normal((3, 2)).astype(np.float32)
    out = []
    for m in (torch, ember):
        f = m.vmap(lambda r: (r * r).sum())
        out.append(f(m.tensor(x)))
    assert_same(out[1], out[0])
    # a module comes back wrapped (tests/compiler/test_compiler.py), a function too
    lin = ember.nn.Linear(2, 2)
    assert ember.compile(lin, disable=True) is lin
    g = ember.compile(lambda t: t * 2)
    assert g(ember.ones(2)).tolist() == torch.compile(lambda t: t * 2, backend='eager')(
        torch.ones(2)).tolist()

    @ember.compile(mode='reduce-overhead')
    def h(t):
        return t + 1
    assert h(ember.zeros(1)).item() == 1.0
    _check(lambda m: m.compile(lambda t: t, mode='default', options={}))


def test_stream_and_event():
    for m in (torch, ember):
        s = m.Stream()
        assert repr(s) == 'torch.Stream device_type=cpu, device_index=-1, stream_id=0'
        assert s.query() is True and s.synchronize() is None
        assert (s.device_type, s.device_index, s.stream_id) == (0, -1, 0)
        assert str(s.device) == 'cpu' and s == m.Stream('cpu')
        with s:
            pass
        e = m.Event()
        assert repr(e) == 'torch.Event device_type=cpu, device_index=-1, event_flag=0, event_id=0'
        assert repr(m.Event('cpu', enable_timing=True)).endswith('event_flag=1, event_id=0')
        assert e.query() is True and e.synchronize() is None and e.wait() is None
    for f in (lambda m: m.Stream().record_event(), lambda m: m.Stream().wait_stream(m.Stream()),
              lambda m: m.Event().record(), lambda m: m.Event().elapsed_time(m.Event()),
              lambda m: m.ones(2).record_stream(m.Stream())[:0]):
        t, e = _outcome(torch, f), _outcome(ember, f)
        assert e[0] == t[0] and t[1].startswith(e[1][:40]), (e, t)


def test_future():
    for m, F in ((torch, torch.futures.Future), (ember, ember.Future)):
        f = F()
        assert not f.done()
        g = f.then(lambda fut: fut.wait() * 2)
        seen = []
        f.add_done_callback(lambda fut, seen=seen: seen.append(fut.value()))
        threading.Timer(0.01, lambda: f.set_result(21)).start()
        assert f.wait() == 21 and g.wait() == 42 and f.done()
        late = F()
        late.set_result(5)
        late.add_done_callback(lambda fut, seen=seen: seen.append(fut.value()))   # at once
        assert seen[-1] == 5 and seen.count(21) <= 1
        with pytest.raises(RuntimeError):
            f.set_result(1)
        h = F()
        h.set_exception(ValueError('boom'))
        with pytest.raises(ValueError, match='boom'):
            h.wait()
        k = F().then(lambda fut: 1 / 0)
        assert not k.done()
        r = F()
        chained = r.then(lambda fut: 1 / 0)
        r.set_result(0)
        with pytest.raises(RuntimeError, match='Got the following error when running the '
                           'callback: ZeroDivisionError: division by zero'):
            chained.wait()
        with pytest.raises(RuntimeError):
            F().value()


def test_errors_and_symbolic_numbers_and_tag():
    for n in ('OutOfMemoryError', 'AcceleratorError'):
        assert [c.__name__ for c in getattr(ember, n).__mro__] == \
            [c.__name__ for c in getattr(torch, n).__mro__]
        with pytest.raises(RuntimeError):
            raise getattr(ember, n)('x')
    # NOTE: ember's Sym* wrap a concrete value (no tracing compiler)
    a, b, c = ember.SymInt(3), ember.SymFloat(1.5), ember.SymBool(True)
    assert a + 1 == 4 and 2 * a == 6 and a // 2 == 1 and -a == -3 and int(a) == 3 and a == 3
    assert b * 2 == 3.0 and float(b) == 1.5 and not b.is_integer() and a < 4
    assert bool(c) is True and list(range(5))[ember.SymInt(2)] == 2
    assert [t.name for t in ember.Tag] == list(torch.Tag.__members__)


@pytest.mark.parametrize('args', [((2, 3, 4, 5), (0, 2, 3, 1)), ((2, 3), (1, 0)), ((2, 3), (1, 1)),
                                  ((2, 3), (0,)), ((), ()), ((2, 3), (1, 2)), ((2, 0, 3), (2, 0, 1)),
                                  ((4, 1, 3), (2, 1, 0))])
def test_empty_permuted(args):
    _check(lambda m: (m.empty_permuted(*args).shape, m.empty_permuted(*args).stride()))
    _check(lambda m: m.empty_permuted(*args, dtype=m.int64, requires_grad=False).dtype)


def test_frombuffer_readonly_note():
    data = np.arange(3, dtype=np.int32).tobytes()
    with pytest.warns(UserWarning, match='not writable'):
        t = torch.frombuffer(data, dtype=torch.int32)
    with pytest.warns(UserWarning, match='not writable'):
        e = ember.frombuffer(data, dtype=ember.int32)
    assert e.tolist() == t.tolist()
    e[0] = 7   # NOTE: ember copies a read-only buffer
    assert data[:4] == b'\x00\x00\x00\x00'


def test_math_constants_like_torch():
    import math
    for n in ('pi', 'e', 'inf'):
        assert getattr(ember, n) == getattr(torch, n)
    assert math.isnan(ember.nan) and math.isnan(torch.nan)
    assert ember.newaxis is torch.newaxis is None
    assert ember.ones(3)[ember.newaxis].shape == torch.ones(3)[torch.newaxis].shape
