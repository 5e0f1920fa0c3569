"""The fake CUDA backend (ember/_backend/fake_cuda.py): its own refusals and round trips,
and ember on ``device='cuda'`` through it: a sample of every op-database entry (float32)
and a small nn training step, each compared with the same computation on the CPU.

Switching it on is process-wide (``EMBER_FAKE_CUDA=1`` is read where ember decides CUDA
availability), so the ember-on-cuda tests run in a child process
(``test_device_suite_in_a_child_process``); this process leaves them out.
"""
import copy
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import ember
from ember._backend import fake_cuda as fc

from _side_by_side import run_side_by_side

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(HERE)
ON = fc.enabled() and ember.cuda.is_available()
cp = fc.cupy

# Op-database entries (their first float32 sample) that fail on the fake CUDA device, with
# the reason. The xfail is strict: fix an op, and its entry must go (this list only shrinks).
_HOST = 'calls NumPy on device data (np.asarray of a device array)'
_NO_DEFAULT_DEVICE = "ignores the default device: makes a CPU tensor under set_default_device('cuda')"
KNOWN_FAILING = {
    'tril_indices': _NO_DEFAULT_DEVICE,
    'triu_indices': _NO_DEFAULT_DEVICE,
    'fft.fftfreq': _NO_DEFAULT_DEVICE,
    'fft.rfftfreq': _NO_DEFAULT_DEVICE,
    'where:scalars': 'two Python scalars become CPU tensors, so xp is numpy for a cuda '
                     'condition (_ops/indexing.py where)',
    'histogram': _HOST + ' (_ops/reduction.py _local_bins)',
    'histogram.method': _HOST + ' (_ops/reduction.py _local_bins)',
    'histogramdd': _HOST + ' (_ops/reduction.py _local_bins)',
    'linalg.ldl_factor': _HOST + ' (_ops/ldl.py _bk_factor)',
    'linalg.ldl_factor_ex': _HOST + ' (_ops/ldl.py _bk_factor)',
    'linalg.ldl_solve': _HOST + ' (_ops/ldl.py _bk_factor)',
    'linalg.ldl_solve:errors': _HOST + ' (_ops/ldl.py _bk_factor)',
    'special.ndtri': 'xp.errstate: CuPy has only cupyx.errstate (_ops/_special.py ndtri)',
}


# ------------------------------------------------------------------ the fake module itself
def test_namespace_is_cupy14s():
    want = fc.names()
    assert len(want) == len(set(want)) > 450
    public = sorted(n for n in vars(cp) if not n.startswith('_'))
    assert public == sorted(want)
    assert not hasattr(cp, 'errstate')     # CuPy has only cupyx.errstate
    assert not hasattr(cp, 'float128') and not hasattr(cp, 'bfloat16')
    assert cp.ndarray is fc.ndarray and not issubclass(fc.ndarray, np.ndarray)
    assert cp.float32 is np.float32 and cp.pi == np.pi and cp.newaxis is None


def test_implicit_host_conversion_is_refused():
    a = cp.arange(4.)
    with pytest.raises(TypeError, match='Implicit conversion to a NumPy array is not allowed'):
        np.asarray(a)
    with pytest.raises(TypeError, match='Implicit conversion'):
        np.array([a, a])
    with pytest.raises(fc.FakeCudaError, match='numpy.exp called on a'):
        np.exp(a)
    with pytest.raises(fc.FakeCudaError, match='sum'):
        np.sum(a)
    with pytest.raises(fc.FakeCudaError):
        np.concatenate([a, a])
    with pytest.raises(fc.FakeCudaError):
        np.add.reduce(a)
    with pytest.raises(fc.FakeCudaError):
        np.result_type(a)
    # CuPy refuses host arrays in device computations, and a host array filled in by slicing
    with pytest.raises(TypeError, match='Unsupported type'):
        a + np.ones(4)
    with pytest.raises(TypeError, match='Unsupported type'):
        np.ones(4) + a
    with pytest.raises(TypeError, match='Unsupported type'):
        cp.maximum(a, np.ones(4))
    with pytest.raises(ValueError, match='non-scalar numpy.ndarray cannot be used for fill'):
        a[...] = np.ones(4)
    with pytest.raises(TypeError, match="Unsupported type <class 'list'>"):
        a + [1., 2., 3., 4.]
    with pytest.raises(TypeError, match="Unsupported type <class 'list'>"):
        cp.add(a, [1., 2., 3., 4.])
    # host index arrays are copied to the device, as CuPy does
    assert a.take(np.array([1, 3])).get().tolist() == [1., 3.]
    assert cp.take(a, np.array([2])).get().tolist() == [2.]
    with pytest.raises(ValueError, match='Unsupported dtype'):
        cp.asarray(np.zeros(2, dtype=np.longdouble))
    import ml_dtypes
    with pytest.raises(ValueError, match='Unsupported dtype'):
        cp.asarray(np.zeros(2, dtype=ml_dtypes.float8_e4m3fn))
    # CuPy 14 computes on ml_dtypes' bfloat16 (its ufuncs have bfloat16 loops)
    assert cp.asarray(np.ones(2, dtype=ml_dtypes.bfloat16)).sum().get() == 2
    with pytest.raises(TypeError):
        [1, 2, 3][cp.asarray(1)]            # no __index__, as cupy.ndarray
    assert not hasattr(a.flags, 'writeable')


def test_cupy_semantics_and_round_trips():
    h = np.arange(6.).reshape(2, 3)
    a = cp.asarray(h)
    assert type(a) is fc.ndarray and a.device.id == 0 and a.shape == (2, 3)
    assert a.dtype == np.float64 and a.strides == (24, 8) and a.ndim == 2 and a.size == 6
    assert a.itemsize == 8 and a.nbytes == 48 and a.flags.c_contiguous
    g = a.get()
    assert type(g) is np.ndarray and np.array_equal(g, h) and g is not h
    assert np.array_equal(cp.asnumpy(a), h) and cp.get_array_module(a) is cp
    assert cp.get_array_module(h) is np
    for r in (a.sum(), a[0, 1], a.max(), cp.exp(a), a.T, a.reshape(3, 2), a.astype(np.float32),
              a[:, 1], a[h > 2], a[np.array([1, 0])], a + 1, 2. * a, np.float32(2) * a, -a,
              a @ a.T, a == a, cp.concatenate([a, a]), cp.add.reduce(a, axis=0), a.copy(),
              a.view(np.int64), a.transpose(1, 0), a.real, a.imag, cp.linalg.norm(a),
              cp.lib.stride_tricks.as_strided(a, (3,), (8,)), cp.where(a > 2, a, 0)):
        assert type(r) is fc.ndarray, r
    assert a.sum().ndim == 0 and float(a.sum()) == 15.0 and a[1, 2].item() == 5.0
    v = a[0]            # views share memory, as on the device
    v[...] = 7
    assert a.get()[0].tolist() == [7., 7., 7.]
    a[1, 1] = cp.asarray(9.)
    a[np.array([0]), 0] = np.array([4.])    # advanced indexing copies host values
    assert a.get().tolist() == [[4., 7., 7.], [3., 9., 5.]]
    b = a.copy()
    b += 1
    assert b.get()[0, 0] == 5. and a.get()[0, 0] == 4.
    z = cp.zeros(3, dtype=np.float32)
    cp.add.at(z, cp.asarray([0, 0, 2]), 1.)
    assert z.get().tolist() == [2., 0., 1.] and z.dtype == np.float32
    out = cp.empty(3)
    assert cp.multiply(cp.ones(3), 2, out=out) is out and out.get().tolist() == [2.] * 3
    m = cp.ndarray((2,), np.float64, memptr=a.data + 8, strides=(24,))   # a view by pointer
    assert m.get().tolist() == [7., 9.]
    m[0] = 8.
    assert a.get()[0, 1] == 8.
    a[0, 1] = 7.
    import pickle
    assert pickle.loads(pickle.dumps(a)).get().tolist() == a.get().tolist()
    assert '9.' in repr(a) and len(a) == 2 and [r.get().tolist() for r in a][1][1] == 9.
    cp.random.seed(0)
    r = cp.random.random((2, 2), dtype=np.float32)
    assert type(r) is fc.ndarray and r.dtype == np.float32
    assert cp.cuda.runtime.getDeviceCount() == 1 and cp.get_default_memory_pool().used_bytes() == 0
    with pytest.raises(NotImplementedError, match='not emulated'):
        cp.ElementwiseKernel('T x', 'T y', 'y = x', 'k')


def test_import_ember_does_not_load_it():
    code = ("import sys, ember; import ember.cuda; print('ember._backend.fake_cuda' in "
            "sys.modules, ember.cuda.is_available())")
    env = {k: v for k, v in os.environ.items() if k != 'EMBER_FAKE_CUDA'}
    r = subprocess.run([sys.executable, '-c', code], env=env, capture_output=True, text=True,
                       timeout=120)
    assert r.stdout.split() == ['False', 'False'], r.stderr[-2000:]


# ------------------------------------------------------------------ ember on 'cuda'
# these run in the child process of test_device_suite_in_a_child_process (with
# EMBER_FAKE_CUDA=1); tests/_backend/conftest.py leaves them out of this process
needs_device = pytest.mark.fake_cuda_device


@needs_device
def test_ember_cuda_on_the_fake_device():
    assert ember.cuda.is_available() and ember.cuda.device_count() == 1
    x = ember.randn(3, 4)
    for y in (x.cuda(), x.to('cuda'), x.to(ember.device('cuda', 0)),
              ember.tensor(x.tolist(), device='cuda'), x.to('cuda:0', copy=True)):
        assert y.device == ember.device('cuda', 0) and y.is_cuda
        assert type(y._data) is fc.ndarray
        assert y.cpu().equal(x) and type(y.cpu()._data) is np.ndarray
    for t in (ember.zeros(2, device='cuda'), ember.arange(3, device='cuda'),
              ember.randn(2, device='cuda'), ember.empty(2, 2, device='cuda'),
              ember.full((2,), 3., device='cuda')):
        assert type(t._data) is fc.ndarray and t.device.type == 'cuda'
    ember.cuda.synchronize()
    with pytest.raises(TypeError, match='Implicit conversion'):
        np.asarray(x.cuda()._data)
    with pytest.raises(TypeError, match="can't convert cuda:0 device type tensor to numpy"):
        x.cuda().numpy()
    assert ember.cuda.memory_allocated() == 0 and ember.cuda.get_device_capability() == (9, 0)
    e1, e2 = ember.cuda.Event(enable_timing=True), ember.cuda.Event(enable_timing=True)
    e1.record()
    with ember.cuda.stream(ember.cuda.Stream()):
        ember.ones(2, device='cuda')
    e2.record()
    e2.synchronize()
    assert e1.elapsed_time(e2) >= 0
    # checkpoints of cuda tensors load back onto the device, views sharing one storage
    import io
    v = ember.arange(6., device='cuda').view(2, 3)[:, 1:]
    buf = io.BytesIO()
    ember.save({'v': v, 't': v.t()}, buf)
    buf.seek(0)
    d = ember.load(buf)
    assert d['v'].device.type == 'cuda' and type(d['v']._data) is fc.ndarray
    d['v'][0, 0] = 100.
    assert d['t'].cpu().tolist() == [[100., 4.], [2., 5.]]
    buf.seek(0)
    assert ember.load(buf, map_location='cpu')['v'].tolist() == [[1., 2.], [4., 5.]]


def _sample_params():
    """Each op-database entry's first sample (float32 where the entry has it), or its first
    N samples with ``EMBER_FAKE_CUDA_SAMPLES=N`` (``all``: every sample; too slow for CI,
    the known failures are then not strict, since other samples of an entry may pass)."""
    sys.path.insert(0, TESTS)
    from _ops import opdb
    n = os.environ.get('EMBER_FAKE_CUDA_SAMPLES', '1')
    n = None if n == 'all' else int(n)
    out = []
    for op in opdb.OPS:
        dt = 'float32' if 'float32' in op.dtypes else op.dtypes[0]
        samples = list(op.samples(opdb.Maker(dt, opdb.seed_of(op.name, dt))))[:n]
        for i, s in enumerate(samples):
            marks = ()
            if op.name in KNOWN_FAILING:
                marks = pytest.mark.xfail(strict=n == 1, reason=KNOWN_FAILING[op.name])
            out.append(pytest.param(op, dt, s, id=f'{op.name}-{dt}-{i}', marks=marks))
    return out


def _tensors(x):
    if isinstance(x, (tuple, list)):
        return [t for v in x for t in _tensors(v)]
    return [x] if isinstance(x, ember.Tensor) else []


def _run(op, s, device):
    """Forward and (for float dtypes) backward of sample ``s`` with its tensors on
    ``device``; returns (outputs, gradients) or raises."""
    sys.path.insert(0, TESTS)
    from _ops.test_opdb import _bind
    f, args = _bind(op, s)
    ins = []
    for a in args:
        if isinstance(a, np.ndarray):
            t = ember.from_numpy(a.copy()).to(device)
            if op.grad and s.grad and a.dtype.kind == 'f':
                t.requires_grad_(True)
            ins.append(t)
        else:
            ins.append(a)
    ember.manual_seed(0)
    prev = ember.get_default_device()
    ember.set_default_device(device)   # tensors the sample itself makes go there too
    try:
        out = f(ember, *ins)
    finally:
        ember.set_default_device(prev)
    outs = [o for o in _tensors(out) if o.requires_grad]
    leaves = [t for t in ins if isinstance(t, ember.Tensor) and t.requires_grad]
    grads = []
    if outs and leaves:
        rng = np.random.default_rng(0)
        ups = [ember.from_numpy(rng.standard_normal(tuple(o.shape)).astype(
            'float32' if o.dtype != ember.float64 else 'float64')).to(o.dtype).to(device)
            for o in outs]
        grads = ember.autograd.grad(outs, leaves, ups, allow_unused=True)
    return out, grads


def _compare(c, d, what):
    tc, td = _tensors(c), _tensors(d)
    assert len(tc) == len(td), f"{what}: {len(td)} tensors on cuda, {len(tc)} on cpu"
    for i, (a, b) in enumerate(zip(tc, td)):
        assert b.device.type == 'cuda', f"{what}[{i}]: the result left the device ({b.device})"
        assert type(b._data) is fc.ndarray, \
            f"{what}[{i}]: a cuda tensor holds a {type(b._data).__name__}"
        assert a.dtype == b.dtype and tuple(a.shape) == tuple(b.shape), \
            f"{what}[{i}]: {b.dtype}{tuple(b.shape)} on cuda, {a.dtype}{tuple(a.shape)} on cpu"
        np.testing.assert_allclose(b.detach().cpu().numpy(), a.detach().numpy(), rtol=1e-5,
                                   atol=1e-6, equal_nan=True, err_msg=f"{what}[{i}]")
    if not tc:
        assert type(c) is type(d) and (c == d or c != c), f"{what}: {d!r} on cuda, {c!r} on cpu"


@needs_device
@pytest.mark.filterwarnings('ignore')
@pytest.mark.parametrize('op,dtype,s', _sample_params() if ON else [])
def test_op_on_cuda_matches_cpu(op, dtype, s):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        try:
            c = _run(op, s, 'cpu')
        except Exception as e:  # noqa: BLE001 - the same error type is expected on cuda
            with pytest.raises(type(e)):
                _run(op, s, 'cuda')
            return
        d = _run(op, s, 'cuda')
    _compare(c[0], d[0], 'output')
    _compare(list(c[1]), list(d[1]), 'grad')


@needs_device
def test_nn_training_step_on_cuda_matches_cpu():
    nn = ember.nn
    ember.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(),
                          nn.MaxPool2d(2), nn.Flatten(), nn.Linear(4 * 4 * 4, 10))
    gpu = copy.deepcopy(model).cuda()
    assert all(type(p._data) is fc.ndarray for p in gpu.parameters())
    assert all(type(b._data) is fc.ndarray for b in gpu.buffers())
    rng = np.random.default_rng(0)
    x = ember.from_numpy(rng.standard_normal((8, 1, 8, 8)).astype('float32'))
    y = ember.from_numpy(rng.integers(0, 10, 8))
    loss_fn = nn.CrossEntropyLoss()
    for opt_cls, kw in ((ember.optim.SGD, dict(lr=0.1, momentum=0.9)),
                        (ember.optim.Adam, dict(lr=1e-2))):
        runs = []
        for m, dev in ((model, 'cpu'), (gpu, 'cuda')):
            opt = opt_cls(m.parameters(), **kw)
            losses = []
            for _ in range(2):
                opt.zero_grad()
                loss = loss_fn(m(x.to(dev)), y.to(dev))
                loss.backward()
                opt.step()
                losses.append(loss.item())
            runs.append(losses)
        np.testing.assert_allclose(runs[1], runs[0], rtol=1e-5)
        for (n, p), q in zip(model.state_dict().items(), gpu.state_dict().values()):
            assert q.device.type == 'cuda' and type(q._data) is fc.ndarray, n
            np.testing.assert_allclose(q.cpu().numpy(), p.numpy(), rtol=1e-5, atol=1e-6,
                                       err_msg=n)


def _nn_cases():
    nn = ember.nn
    rng = np.random.default_rng(0)

    def t(*shape):
        return ember.from_numpy(rng.standard_normal(shape).astype('float32'))

    def idx(high, shape):
        return ember.from_numpy(rng.integers(0, high, shape))
    return {
        'LSTM': (lambda: nn.LSTM(4, 5, 2, batch_first=True), lambda: (t(2, 3, 4),)),
        'GRU': (lambda: nn.GRU(4, 5), lambda: (t(3, 2, 4),)),
        'RNN-bidirectional': (lambda: nn.RNN(4, 5, bidirectional=True), lambda: (t(3, 2, 4),)),
        'TransformerEncoder': (lambda: nn.TransformerEncoder(
            nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0), 2), lambda: (t(5, 2, 8),)),
        'Transformer': (lambda: nn.Transformer(8, 2, 1, 1, 16, dropout=0.0),
                        lambda: (t(5, 2, 8), t(4, 2, 8))),
        'MultiheadAttention': (lambda: nn.MultiheadAttention(8, 2),
                               lambda: (t(5, 2, 8), t(5, 2, 8), t(5, 2, 8))),
        'Embedding': (lambda: nn.Embedding(10, 3), lambda: (idx(10, (2, 2)),)),
        'EmbeddingBag': (lambda: nn.EmbeddingBag(10, 3), lambda: (idx(10, (2, 2)),)),
        'LayerNorm': (lambda: nn.LayerNorm(4), lambda: (t(2, 3, 4),)),
        'GroupNorm': (lambda: nn.GroupNorm(2, 4), lambda: (t(2, 4, 3, 3),)),
        'InstanceNorm2d': (lambda: nn.InstanceNorm2d(4, affine=True), lambda: (t(2, 4, 3, 3),)),
        'BatchNorm1d-eval': (lambda: nn.BatchNorm1d(3).eval(), lambda: (t(4, 3),)),
        'ConvTranspose2d': (lambda: nn.ConvTranspose2d(2, 3, 3, stride=2), lambda: (t(1, 2, 4, 4),)),
        'Conv1d-dilated': (lambda: nn.Conv1d(2, 3, 3, dilation=2), lambda: (t(1, 2, 9),)),
        'Conv3d': (lambda: nn.Conv3d(2, 3, 2), lambda: (t(1, 2, 3, 3, 3),)),
        'AvgPool2d': (lambda: nn.AvgPool2d(2), lambda: (t(1, 2, 4, 4),)),
        'AdaptiveAvgPool2d': (lambda: nn.AdaptiveAvgPool2d(3), lambda: (t(1, 2, 5, 5),)),
        'AdaptiveMaxPool2d': (lambda: nn.AdaptiveMaxPool2d(3), lambda: (t(1, 2, 5, 5),)),
        'MaxPool1d': (lambda: nn.MaxPool1d(2), lambda: (t(1, 2, 6),)),
        'Upsample-bilinear': (lambda: nn.Upsample(scale_factor=2, mode='bilinear'),
                              lambda: (t(1, 2, 3, 3),)),
        'PixelShuffle': (lambda: nn.PixelShuffle(2), lambda: (t(1, 4, 2, 2),)),
        'Dropout': (lambda: nn.Dropout(0.5), lambda: (t(4, 4),)),
        'AlphaDropout': (lambda: nn.AlphaDropout(0.5), lambda: (t(4, 4),)),
        'RReLU': (lambda: nn.RReLU(), lambda: (t(4, 4),)),
        'PReLU': (lambda: nn.PReLU(), lambda: (t(4, 4),)),
        'Bilinear': (lambda: nn.Bilinear(3, 4, 2), lambda: (t(2, 3), t(2, 4))),
        'Unfold': (lambda: nn.Unfold(2), lambda: (t(1, 2, 3, 3),)),
        'Fold': (lambda: nn.Fold((3, 3), 2), lambda: (t(1, 8, 4),)),
        'ReflectionPad2d': (lambda: nn.ReflectionPad2d(1), lambda: (t(1, 1, 3, 3),)),
        'Softmax2d': (lambda: nn.Softmax2d(), lambda: (t(1, 2, 3, 3),)),
        'CosineSimilarity': (lambda: nn.CosineSimilarity(), lambda: (t(2, 3), t(2, 3))),
        'CTCLoss': (lambda: nn.CTCLoss(), lambda: (t(6, 2, 5).log_softmax(2), idx(4, (2, 2)) + 1,
                                                   ember.tensor([6, 6]), ember.tensor([2, 2]))),
        'NLLLoss-2d': (lambda: nn.NLLLoss(), lambda: (t(2, 3, 4, 4).log_softmax(1),
                                                      idx(3, (2, 4, 4)))),
        'KLDivLoss': (lambda: nn.KLDivLoss(reduction='batchmean'),
                      lambda: (t(2, 3).log_softmax(1), t(2, 3).softmax(1))),
        'AdaptiveLogSoftmaxWithLoss': (lambda: nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4]),
                                       lambda: (t(3, 8), ember.tensor([1, 5, 9]))),
    }


def _module_outputs(r):
    if isinstance(r, (tuple, list)):
        return [o for v in r for o in _module_outputs(v)]
    if hasattr(r, 'loss') and hasattr(r, 'output'):    # AdaptiveLogSoftmaxWithLoss
        return [r.output, r.loss]
    return [r] if isinstance(r, ember.Tensor) else []


@needs_device
@pytest.mark.filterwarnings('ignore')
@pytest.mark.parametrize('name', sorted(_nn_cases()))
def test_nn_module_on_cuda_matches_cpu(name):
    """Forward and backward of a module on 'cuda' equal the CPU's: outputs, parameter and
    input gradients."""
    make, inputs = _nn_cases()[name]
    ember.manual_seed(0)
    m = make()
    args = inputs()
    res = []
    for mod, dev in ((m, 'cpu'), (copy.deepcopy(m).to('cuda'), 'cuda')):
        a = [x.detach().clone().to(dev).requires_grad_(x.is_floating_point()) for x in args]
        ember.manual_seed(1)   # dropout masks: the same stream on both devices
        outs = _module_outputs(mod(*a))
        assert all(o.device.type == dev for o in outs), name
        sum((o * (i + 1)).sum() for i, o in enumerate(outs) if o.is_floating_point()).backward()
        res.append([o.detach().cpu().numpy() for o in outs] +
                   [p.grad.cpu().numpy() for p in mod.parameters()] +
                   [x.grad.cpu().numpy() for x in a if x.grad is not None])
    assert len(res[0]) == len(res[1])
    for i, (c, d) in enumerate(zip(*res)):
        np.testing.assert_allclose(d, c, rtol=1e-4, atol=1e-5, err_msg=f'{name}[{i}]')


@needs_device
def test_digits_example_on_cuda(tmp_path):
    """``examples/train_digits.py --device cuda`` trains end to end on the device (data,
    model, optimizer, checkpoint, plot). Its numbers are not the CPU run's: dropout draws
    from the CUDA generator, a stream of its own (as in PyTorch), so only the scale of the
    loss is compared."""
    import importlib.util
    path = os.path.join(TESTS, '..', 'examples', 'train_digits.py')
    spec = importlib.util.spec_from_file_location('train_digits', path)
    ex = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ex)
    runs = {}
    for dev in ('cpu', 'cuda'):
        out = str(tmp_path / dev)
        ex.main(['--epochs', '1', '--out', out, '--no-progress', '--device', dev])
        ckpt = ember.load(os.path.join(out, 'checkpoint.pt'), weights_only=False)
        runs[dev] = ckpt['history']['train_loss'][0]
        w = next(iter(ckpt['model'].values()))    # saved from the device, loaded back there
        assert w.device.type == dev and (dev == 'cpu' or type(w._data) is fc.ndarray)
    assert abs(runs['cuda'] - runs['cpu']) < 0.05, runs


# ------------------------------------------------------------------ the child process
def test_device_suite_in_a_child_process():
    """The ember-on-cuda tests above, in a fresh process with ``EMBER_FAKE_CUDA=1`` (the
    CUDA device's module is process-wide state)."""
    if ON:
        pytest.skip('already on the fake CUDA device: the tests above run directly')
    env = dict(os.environ, EMBER_FAKE_CUDA='1', OMP_NUM_THREADS='1')
    # two one-thread children side by side: the op-database sample, and the rest
    groups = [('test_op_on_cuda_matches_cpu',),
              ('test_ember_cuda_on_the_fake_device', 'test_nn_module_on_cuda_matches_cpu',
               'test_digits_example_on_cuda', 'test_nn_training_step_on_cuda_matches_cpu')]
    runs = run_side_by_side(
        [[sys.executable, '-m', 'pytest', '-q', '-p', 'no:cacheprovider', '-p', 'no:randomly',
          '--tb=line'] + [f'{__file__}::{t}' for t in tests] for tests in groups],
        timeout=900, cwd=TESTS, env=env)
    for r in runs:
        assert r.returncode == 0, r.stdout[-8000:] + r.stderr[-2000:]
        assert ' passed' in r.stdout and ' skipped' not in r.stdout, r.stdout[-2000:]
