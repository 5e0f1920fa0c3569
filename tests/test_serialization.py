"""ember.save / ember.load against PyTorch 2.13's own torch.save / torch.load, both ways."""
import collections
import copy
import io
import os
import pickle
import re
import struct
import zipfile

import numpy as np
import pytest
import torch

import ember
import ember.nn.parameter
from ember import serialization as S

EP = ember.nn.parameter.Parameter

DTYPES = ['float32', 'float64', 'float16', 'bfloat16', 'complex64', 'complex128', 'bool',
          'uint8', 'int8', 'int16', 'int32', 'int64', 'uint16', 'uint32', 'uint64']


# ------------------------------------------------------------------ helpers
def np_of(t):
    """Values of an ember or torch tensor as numpy (bfloat16 compared via its bits)."""
    if isinstance(t, torch.Tensor):
        t = t.detach()
        if t.dtype == torch.bfloat16:
            return t.view(torch.int16).numpy()
        return t.numpy()
    if t.dtype is ember.bfloat16:
        return t.detach().numpy().view(np.int16)
    return t.detach().numpy()


def sample(m, dt):
    """A deterministic tensor of dtype ``dt`` built by module ``m`` (ember or torch)."""
    a = (np.arange(24) % 7 - 2).reshape(2, 3, 4)
    if dt == 'bool':
        a = a > 0
    elif dt.startswith('complex'):
        a = a + 0.5j * a[::-1]
    elif dt.startswith('uint'):
        a = np.abs(a)
    if dt in ('uint16', 'uint32', 'uint64'):
        # torch can't build these from numpy/lists everywhere: go through int64
        return m.tensor(a.tolist(), dtype=m.int64).to(getattr(m, dt))
    return m.tensor(a.tolist(), dtype=getattr(m, dt))


def zoo(m, dt='float32'):
    """Tensors of one storage and some loners: views, non-contiguous, 0-dim, empty."""
    base = sample(m, dt)
    return collections.OrderedDict([
        ('base', base),
        ('t', base.transpose(0, 2)),           # non-contiguous view
        ('row', base[1, 2]),                    # view with an offset
        ('step', base[:, :, ::2]),              # strided view
        ('scalar', base[1, 1, 1]),              # 0-dim view
        ('lone0d', sample(m, dt)[0, 0, 0].clone()),
        ('empty', m.zeros(0, 3, dtype=getattr(m, dt))),
        ('expanded', sample(m, dt)[0, :1].expand(3, 4)),   # stride 0
    ])


def same_tensor(e, t):
    """ember tensor ``e`` equals torch tensor ``t``: values, dtype, shape, strides, offset."""
    assert str(e.dtype) == str(t.dtype)
    assert tuple(e.shape) == tuple(t.shape)
    assert tuple(e.stride()) == tuple(t.stride())
    assert e.storage_offset() == t.storage_offset()
    assert e.requires_grad == t.requires_grad
    np.testing.assert_array_equal(np_of(e), np_of(t))


def shares(a, b):
    """Whether two tensors (same library) share one storage."""
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


def ember_to_torch(obj, **kw):
    buf = io.BytesIO()
    ember.save(obj, buf)
    buf.seek(0)
    return torch.load(buf, weights_only=True, **kw)


def torch_to_ember(obj, **kw):
    buf = io.BytesIO()
    torch.save(obj, buf)
    buf.seek(0)
    return ember.load(buf, **kw)


# ------------------------------------------------------------------ both directions, every dtype
@pytest.mark.parametrize('dt', DTYPES)
def test_ember_save_torch_load(dt):
    src = zoo(ember, dt)
    out = ember_to_torch(src)
    assert type(out) is collections.OrderedDict and list(out) == list(src)
    for k in src:
        same_tensor(src[k], out[k])
    for k in ('t', 'row', 'step', 'scalar'):
        assert shares(out['base'], out[k])
    assert not shares(out['base'], out['lone0d'])
    out['base'][1, 2, 0] = 1   # still one storage after load
    assert out['row'][0].item() == 1


@pytest.mark.parametrize('dt', DTYPES)
def test_torch_save_ember_load(dt):
    src = zoo(torch, dt)
    out = torch_to_ember(src)
    assert type(out) is collections.OrderedDict and list(out) == list(src)
    for k in src:
        same_tensor(out[k], src[k])
    for k in ('t', 'row', 'step', 'scalar'):
        assert out['base'].untyped_storage() is out[k].untyped_storage()
    assert out['base'].untyped_storage() is not out['lone0d'].untyped_storage()
    out['base'][1, 2, 0] = 1
    assert out['row'][0].item() == 1
    assert out['base']._data.flags.writeable


@pytest.mark.parametrize('dt', ['float32', 'bfloat16', 'uint16', 'bool'])
def test_round_trip_ember(dt):
    src = zoo(ember, dt)
    buf = io.BytesIO()
    ember.save(src, buf)
    buf.seek(0)
    out = ember.load(buf)
    for k in src:
        assert out[k].dtype is src[k].dtype and out[k].shape == src[k].shape
        assert out[k].stride() == src[k].stride()
        np.testing.assert_array_equal(np_of(out[k]), np_of(src[k]))
    assert out['t'].untyped_storage() is out['base'].untyped_storage()


def test_pickle_bytes_match_torch():
    def pkl(m, save):
        x = m.arange(12, dtype=m.float32).reshape(3, 4)
        P = torch.nn.Parameter if m is torch else EP
        sd = collections.OrderedDict(a=x, b=x.t(), c=x[1], p=P(m.ones(2)), s=m.tensor(3.5),
                                     d=m.zeros(2, dtype=m.bfloat16))
        buf = io.BytesIO()
        save(sd, buf)
        return zipfile.ZipFile(buf).read('archive/data.pkl')
    assert pkl(ember, ember.save) == pkl(torch, torch.save)


def test_archive_layout():
    buf = io.BytesIO()
    x = ember.arange(10.)
    ember.save({'x': x, 'y': ember.ones(3, dtype=ember.int64)}, buf)
    raw = buf.getvalue()
    z = zipfile.ZipFile(io.BytesIO(raw))
    names = z.namelist()
    assert names == ['archive/data.pkl', 'archive/.format_version', 'archive/.storage_alignment',
                     'archive/byteorder', 'archive/data/0', 'archive/data/1', 'archive/version',
                     'archive/.data/serialization_id']
    assert z.read('archive/version') == b'3\n'
    assert z.read('archive/byteorder') == b'little'
    assert z.read('archive/.storage_alignment') == b'64'
    assert np.frombuffer(z.read('archive/data/0'), np.float32).tolist() == list(range(10))
    for info in z.infolist():
        assert info.compress_type == zipfile.ZIP_STORED
        nl, el = struct.unpack('<HH', raw[info.header_offset + 26:info.header_offset + 30])
        assert (info.header_offset + 30 + nl + el) % 64 == 0, info.filename


def test_archive_name_from_path(tmp_path):
    p = tmp_path / 'model.ckpt.pt'
    ember.save(ember.ones(2), p)
    assert zipfile.ZipFile(p).namelist()[0] == 'model.ckpt/data.pkl'
    # torch's archive renamed on disk keeps its inner folder name; ember finds it
    torch.save(torch.ones(2), tmp_path / 'a.pt')
    os.rename(tmp_path / 'a.pt', tmp_path / 'b.pt')
    assert ember.load(tmp_path / 'b.pt').tolist() == [1.0, 1.0]


# ------------------------------------------------------------------ objects
def test_nested_checkpoint_both_ways():
    def ckpt(m):
        w = m.arange(6.).reshape(2, 3)
        return {'epoch': 3, 'lr': 1e-3, 'name': 'run-1', 'none': None, 'flags': [True, False],
                'tup': (1, 2.5, 'x'), 'big': 2 ** 70, 'neg': -5, 'cplx': 1 + 2j,
                'nested': {'a': [w, {'b': (w[0], w.t())}]},
                'od': collections.OrderedDict(z=1, a=2), 'set': {1, 2}, 'bytes': b'\x00ab',
                'dtype': m.float16, 'shape': m.Size([2, 3])}
    for out, src in ((ember_to_torch(ckpt(ember)), ckpt(ember)),
                     (torch_to_ember(ckpt(torch)), ckpt(torch))):
        for k in ('epoch', 'lr', 'name', 'none', 'flags', 'tup', 'big', 'neg', 'cplx', 'set', 'bytes'):
            assert out[k] == src[k] and type(out[k]) is type(src[k])
        assert list(out['od'].items()) == [('z', 1), ('a', 2)]
        assert type(out['od']) is collections.OrderedDict
        assert str(out['dtype']) == 'torch.float16'
        assert tuple(out['shape']) == (2, 3) and repr(out['shape']) == 'torch.Size([2, 3])'
        w = out['nested']['a'][0]
        b0, bt = out['nested']['a'][1]['b']
        np.testing.assert_array_equal(np_of(bt), np_of(w).T)
        assert b0.untyped_storage().data_ptr() == w.untyped_storage().data_ptr()
    assert torch_to_ember({'d': torch.float16})['d'] is ember.float16
    assert ember_to_torch({'d': ember.int64, 'v': ember.device('cpu')})['d'] is torch.int64
    assert torch_to_ember({'v': torch.device('cpu')})['v'] == ember.device('cpu')


def test_parameters_both_ways():
    p = EP(ember.arange(4.).reshape(2, 2))
    q = EP(ember.ones(3), requires_grad=False)
    out = ember_to_torch({'p': p, 'q': q, 'pt': p.t()})
    assert type(out['p']) is torch.nn.Parameter and out['p'].requires_grad
    assert type(out['q']) is torch.nn.Parameter and not out['q'].requires_grad
    np.testing.assert_array_equal(out['p'].detach().numpy(), np_of(p))
    assert shares(out['p'], out['pt'])

    tp = torch.nn.Parameter(torch.arange(4.).reshape(2, 2))
    back = torch_to_ember({'p': tp, 'q': torch.nn.Parameter(torch.ones(3), requires_grad=False)})
    assert type(back['p']) is EP and back['p'].requires_grad
    assert type(back['q']) is EP and not back['q'].requires_grad
    np.testing.assert_array_equal(np_of(back['p']), tp.detach().numpy())


def test_parameter_with_attributes_and_tensor_attributes():
    tp = torch.nn.Parameter(torch.ones(2))
    tp.tag = 'w'
    tt = torch.zeros(2)
    tt.note = 7
    out = torch_to_ember({'p': tp, 't': tt})
    assert type(out['p']) is EP and out['p'].tag == 'w'
    assert out['t'].note == 7 and type(out['t']) is ember.Tensor
    ep = EP(ember.ones(2))
    ep.tag = 'w'
    et = ember.zeros(2)
    et.note = 7
    back = ember_to_torch({'p': ep, 't': et})
    assert back['p'].tag == 'w' and back['t'].note == 7 and type(back['p']) is torch.nn.Parameter


def _optim_state(m):
    """An optimizer-style state dict (what Adam's ``state_dict()`` returns), built by hand."""
    return {'state': {0: {'step': m.tensor(3.), 'exp_avg': m.arange(6.).reshape(3, 2) / 7,
                          'exp_avg_sq': m.ones(3, 2) * 0.25},
                      1: {'step': m.tensor(3.), 'exp_avg': m.zeros(4), 'exp_avg_sq': m.zeros(4)}},
            'param_groups': [{'lr': 0.1, 'betas': (0.9, 0.999), 'eps': 1e-8, 'weight_decay': 0,
                              'amsgrad': False, 'maximize': False, 'foreach': None,
                              'capturable': False, 'differentiable': False, 'fused': None,
                              'decoupled_weight_decay': False, 'params': [0, 1]}]}


def test_optimizer_state_dict_both_ways():
    sd = _optim_state(torch)
    out = torch_to_ember(sd)
    assert out['param_groups'] == sd['param_groups']
    for i in (0, 1):
        for k in ('exp_avg', 'exp_avg_sq', 'step'):
            same_tensor(out['state'][i][k], sd['state'][i][k])
    back = ember_to_torch(_optim_state(ember))
    assert back['param_groups'] == sd['param_groups'] and list(back['state']) == [0, 1]
    for i in (0, 1):
        for k in ('exp_avg', 'exp_avg_sq', 'step'):
            same_tensor(_optim_state(ember)['state'][i][k], back['state'][i][k])
            np.testing.assert_array_equal(back['state'][i][k].numpy(), sd['state'][i][k].numpy())


class Holder:
    """An arbitrary picklable object (module scope so pickle can find it)."""

    def __init__(self, w, meta):
        self.w = w
        self.meta = meta


def test_arbitrary_objects_weights_only_false(tmp_path):
    h = Holder(ember.arange(3.), {'k': [1, 2]})
    ember.save({'h': h}, tmp_path / 'h.pt')
    with pytest.raises(pickle.UnpicklingError, match='Weights only load failed'):
        ember.load(tmp_path / 'h.pt')
    out = ember.load(tmp_path / 'h.pt', weights_only=False)
    assert isinstance(out['h'], Holder) and out['h'].meta == {'k': [1, 2]}
    assert out['h'].w.tolist() == [0., 1., 2.]
    # a torch-saved object holding torch tensors: torch names map to ember
    torch.save(Holder(torch.ones(2), None), tmp_path / 't.pt')
    out = ember.load(tmp_path / 't.pt', weights_only=False)
    assert isinstance(out.w, ember.Tensor) and out.w.tolist() == [1., 1.]


def test_tensor_subclass_round_trip():
    # the subclass is made here, not at import: a live Tensor subclass switches every op to
    # the observing bindings, which would change what the other tests run through
    global SubT

    class SubT(ember.Tensor):
        pass
    SubT.__qualname__ = 'SubT'    # pickled by name, as a module-level class
    try:
        x = ember.arange(3.).as_subclass(SubT)
        buf = io.BytesIO()
        ember.save(x, buf)
        buf.seek(0)
        y = ember.load(buf, weights_only=False)
        assert type(y) is SubT and y.tolist() == [0., 1., 2.]
    finally:
        del SubT


# ------------------------------------------------------------------ files, map_location
def test_paths_and_file_objects(tmp_path):
    x = ember.arange(5)
    ember.save(x, str(tmp_path / 'a.pt'))
    ember.save(x, tmp_path / 'b.pt')
    with open(tmp_path / 'c.pt', 'wb') as f:
        ember.save(x, f)
    for n in ('a.pt', 'b.pt', 'c.pt'):
        assert ember.load(str(tmp_path / n)).tolist() == list(range(5))
        assert ember.load(tmp_path / n).tolist() == list(range(5))
        with open(tmp_path / n, 'rb') as f:
            assert ember.load(f).tolist() == list(range(5))
        assert torch.load(tmp_path / n).tolist() == list(range(5))
    with pytest.raises(RuntimeError, match='Parent directory'):
        ember.save(x, tmp_path / 'missing' / 'x.pt')
    with pytest.raises(FileNotFoundError):
        ember.load(tmp_path / 'nope.pt')


def _save_tagged(obj, location, monkeypatch):
    monkeypatch.setattr(S, '_location', lambda st: location)
    buf = io.BytesIO()
    ember.save(obj, buf)
    monkeypatch.undo()
    buf.seek(0)
    return buf


def test_map_location_variants(monkeypatch):
    x = ember.arange(4.)
    for ml in ('cpu', ember.device('cpu'), {'cuda:0': 'cpu'}, {'cuda:0': ember.device('cpu')}):
        buf = _save_tagged({'x': x}, 'cuda:0', monkeypatch)
        out = ember.load(buf, map_location=ml)
        assert out['x'].device == ember.device('cpu') and out['x'].tolist() == [0., 1., 2., 3.]
    seen = []

    def fn(storage, loc):
        seen.append((type(storage).__name__, loc, storage.nbytes()))
        return storage

    out = ember.load(_save_tagged({'x': x, 'v': x[1:], 'y': ember.ones(2)}, 'cuda:0', monkeypatch),
                     map_location=fn)
    assert seen == [('UntypedStorage', 'cuda:0', 16), ('UntypedStorage', 'cuda:0', 8)]
    assert out['v'].untyped_storage() is out['x'].untyped_storage()
    # a callable returning None falls back to the default (cpu here)
    out = ember.load(_save_tagged({'x': x}, 'cpu', monkeypatch), map_location=lambda s, l: None)
    assert out['x'].tolist() == [0., 1., 2., 3.]
    # torch sees the same tags: an ember file tagged cuda:0 maps to cpu in torch too
    buf = _save_tagged({'x': x}, 'cuda:0', monkeypatch)
    assert torch.load(buf, map_location={'cuda:0': 'cpu'})['x'].tolist() == [0., 1., 2., 3.]


def test_map_location_cuda(monkeypatch):
    try:
        import cupy  # noqa: F401
        has_gpu = cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:
        has_gpu = False
    for ml in (None, 'cuda:0'):
        buf = _save_tagged(ember.ones(2), 'cuda:0' if ml is None else 'cpu', monkeypatch)
        if has_gpu:
            out = ember.load(buf, map_location=ml)
            assert out.device.type == 'cuda' and out.tolist() == [1., 1.]
        else:
            with pytest.raises(RuntimeError, match='CUDA'):
                ember.load(buf, map_location=ml)


def test_mmap(tmp_path):
    ember.save({'w': ember.arange(8.), 'v': ember.arange(3)}, tmp_path / 'm.pt')
    out = ember.load(tmp_path / 'm.pt', mmap=True)
    assert out['w'].tolist() == list(map(float, range(8))) and out['v'].tolist() == [0, 1, 2]
    out['w'][0] = 5   # copy-on-write: the file is unchanged
    assert ember.load(tmp_path / 'm.pt')['w'][0].item() == 0
    with pytest.raises(ValueError, match='file path'):
        ember.load(io.BytesIO(b'PK'), mmap=True)


# ------------------------------------------------------------------ weights_only
class Evil:
    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return (os.system, (f'touch {self.path}',))


def _evil_file(tmp_path):
    marker = tmp_path / 'pwned'
    p = tmp_path / 'evil.pt'
    ember.save({'w': ember.ones(2), 'x': Evil(marker)}, p)
    return p, marker


def test_malicious_pickle_refused(tmp_path):
    p, marker = _evil_file(tmp_path)
    with pytest.raises(pickle.UnpicklingError, match='Weights only load failed') as ei:
        ember.load(p)
    assert 'system' in str(ei.value) and 'add_safe_globals' in str(ei.value)
    assert not marker.exists()
    with pytest.raises(pickle.UnpicklingError, match='Weights only load failed'):
        ember.load(p, weights_only=True)
    assert not marker.exists()
    # torch agrees the file is unsafe
    with pytest.raises(pickle.UnpicklingError, match='Weights only load failed'):
        torch.load(p, weights_only=True)
    assert not marker.exists()
    # the test can fail: the same file does run code without weights_only
    ember.load(p, weights_only=False)
    assert marker.exists()


def test_malicious_raw_pickle_in_torch_file(tmp_path):
    marker = tmp_path / 'pwned2'
    torch.save({'x': Evil(marker)}, tmp_path / 'e.pt')
    with pytest.raises(pickle.UnpicklingError, match='Weights only load failed'):
        ember.load(tmp_path / 'e.pt')
    assert not marker.exists()
    assert S.get_unsafe_globals_in_checkpoint(tmp_path / 'e.pt') == ['posix.system']


def test_pickle_module_with_weights_only():
    buf = io.BytesIO()
    ember.save(1, buf)
    buf.seek(0)
    with pytest.raises(RuntimeError, match='pickle_module'):
        ember.load(buf, pickle_module=pickle, weights_only=True)
    buf.seek(0)
    assert ember.load(buf, pickle_module=pickle, weights_only=False) == 1


class Config:
    def __init__(self, n):
        self.n = n


def test_safe_globals(tmp_path):
    p = tmp_path / 'c.pt'
    ember.save({'cfg': Config(3), 'w': ember.ones(1)}, p)
    S.clear_safe_globals()
    try:
        with pytest.raises(pickle.UnpicklingError, match=r'GLOBAL test_serialization.Config'):
            ember.load(p)
        assert S.get_unsafe_globals_in_checkpoint(p) == ['test_serialization.Config']
        with S.safe_globals([Config]):
            assert S.get_safe_globals() == [Config]
            assert ember.load(p)['cfg'].n == 3
        assert S.get_safe_globals() == []
        with pytest.raises(pickle.UnpicklingError):
            ember.load(p)
        S.add_safe_globals([(Config, 'test_serialization.Config')])
        assert ember.load(p)['cfg'].n == 3
        assert S.get_unsafe_globals_in_checkpoint(p) == []
        S.clear_safe_globals()
        assert S.get_safe_globals() == []
        S.add_safe_globals([Config])
        assert ember.load(p)['cfg'].n == 3
    finally:
        S.clear_safe_globals()


@pytest.mark.parametrize('prefix', ['TORCH', 'EMBER'])
def test_force_env_vars(tmp_path, monkeypatch, prefix):
    p, marker = _evil_file(tmp_path)
    cfg = tmp_path / 'cfg.pt'
    ember.save(Config(4), cfg)
    monkeypatch.setenv(f'{prefix}_FORCE_WEIGHTS_ONLY_LOAD', '1')
    with pytest.raises(pickle.UnpicklingError, match='Weights only load failed'):
        ember.load(p, weights_only=False)
    assert not marker.exists()
    monkeypatch.delenv(f'{prefix}_FORCE_WEIGHTS_ONLY_LOAD')
    monkeypatch.setenv(f'{prefix}_FORCE_NO_WEIGHTS_ONLY_LOAD', 'true')
    with pytest.warns(UserWarning, match='FORCE_NO_WEIGHTS_ONLY_LOAD'):
        assert ember.load(cfg).n == 4          # not set explicitly: forced off
    with pytest.raises(pickle.UnpicklingError):
        ember.load(cfg, weights_only=True)     # explicit True wins
    monkeypatch.setenv(f'{prefix}_FORCE_WEIGHTS_ONLY_LOAD', 'yes')
    with pytest.raises(RuntimeError, match='Only one of'):
        ember.load(cfg)


# ------------------------------------------------------------------ reliability
def test_failed_save_keeps_old_file(tmp_path, monkeypatch):
    p = tmp_path / 'ckpt.pt'
    ember.save({'w': ember.arange(4.)}, p)
    before = p.read_bytes()
    real = S._write_record
    calls = []

    def flaky(zf, name, data):
        calls.append(name)
        if name.endswith('data/1'):
            raise OSError('disk full')
        return real(zf, name, data)

    monkeypatch.setattr(S, '_write_record', flaky)
    with pytest.raises(OSError, match='disk full'):
        ember.save({'w': ember.zeros(4), 'v': ember.zeros(2)}, p)
    assert any(n.endswith('data/0') for n in calls)    # failed midway, after a storage
    monkeypatch.undo()
    assert p.read_bytes() == before
    assert ember.load(p)['w'].tolist() == [0., 1., 2., 3.]
    assert sorted(os.listdir(tmp_path)) == ['ckpt.pt']

    class Unpicklable:
        def __reduce__(self):
            raise TypeError('nope')

    with pytest.raises(TypeError, match='nope'):
        ember.save([ember.ones(3), Unpicklable()], p)
    assert p.read_bytes() == before and sorted(os.listdir(tmp_path)) == ['ckpt.pt']


def test_truncated_and_corrupt_files(tmp_path):
    p = tmp_path / 'good.pt'
    ember.save({'w': ember.arange(100.)}, p)
    raw = p.read_bytes()
    for n in (len(raw) - 10, len(raw) // 2, 10):
        bad = tmp_path / f'trunc{n}.pt'
        bad.write_bytes(raw[:n])
        with pytest.raises(RuntimeError, match=f'trunc{n}.pt'):
            ember.load(bad)
    # flip a byte inside the storage data: CRC check catches it
    info = zipfile.ZipFile(p).getinfo('good/data/0')
    nl, el = struct.unpack('<HH', raw[info.header_offset + 26:info.header_offset + 30])
    pos = info.header_offset + 30 + nl + el + 17
    bad = tmp_path / 'flip.pt'
    bad.write_bytes(raw[:pos] + bytes([raw[pos] ^ 0xFF]) + raw[pos + 1:])
    with pytest.raises(RuntimeError, match='flip.pt.*CRC'):
        ember.load(bad)
    for name, data in (('garbage.pt', b'this is not a checkpoint'), ('empty.pt', b'')):
        (tmp_path / name).write_bytes(data)
        with pytest.raises(RuntimeError, match=name):
            ember.load(tmp_path / name)


# ------------------------------------------------------------------ legacy format
def test_legacy_format_both_ways(tmp_path):
    src = zoo(torch, 'float32')
    src['i'] = torch.arange(5, dtype=torch.int16)
    torch.save(src, tmp_path / 'old.pt', _use_new_zipfile_serialization=False)
    out = ember.load(tmp_path / 'old.pt')
    for k in src:
        same_tensor(out[k], src[k])
    assert out['t'].untyped_storage() is out['base'].untyped_storage()
    esrc = zoo(ember, 'float64')
    ember.save(esrc, tmp_path / 'old2.pt', _use_new_zipfile_serialization=False)
    assert not zipfile.is_zipfile(tmp_path / 'old2.pt')
    back = torch.load(tmp_path / 'old2.pt', weights_only=True)
    for k in esrc:
        same_tensor(esrc[k], back[k])
    assert shares(back['base'], back['t'])
    again = ember.load(tmp_path / 'old2.pt')
    assert again['row'].tolist() == esrc['row'].tolist()


# ------------------------------------------------------------------ plain pickle / copy
def test_plain_pickle_and_copy():
    x = ember.arange(6.).reshape(2, 3)
    x.tag = 'a'
    v = x.t()
    p = EP(ember.ones(2))
    a, b, q = pickle.loads(pickle.dumps((x, v, p)))
    assert a.tolist() == x.tolist() and b.tolist() == v.tolist() and b.stride() == (1, 3)
    assert a.untyped_storage() is b.untyped_storage() and a.tag == 'a'
    assert type(q) is EP and q.requires_grad
    c = copy.copy(x)
    c[0, 0] = 9
    assert x[0, 0].item() == 9      # copy.copy shares memory, like torch
    cp = copy.copy(p)
    assert type(cp) is EP and cp.data_ptr() == p.data_ptr()
    y = ember.arange(3., requires_grad=True)
    assert pickle.loads(pickle.dumps(y)).requires_grad


def test_views_of_one_storage_as_different_dtypes_refused():
    x = ember.zeros(4)
    with pytest.raises(RuntimeError, match='view the same data as different types'):
        ember.save([x, x.view(ember.int32)], io.BytesIO())
    t = torch.zeros(4)
    with pytest.raises(RuntimeError, match='view the same data as different types'):
        torch.save([t, t.view(torch.int32)], io.BytesIO())


def test_storage_is_written_once():
    big = ember.zeros(1000)
    buf = io.BytesIO()
    ember.save([big[i:i + 10] for i in range(0, 1000, 10)], buf)
    z = zipfile.ZipFile(buf)
    assert [n for n in z.namelist() if '/data/' in n] == ['archive/data/0']
    assert len(buf.getvalue()) < 4000 + 2 * 4000


def test_pickle_protocol_4():
    buf = io.BytesIO()
    ember.save({'x': ember.arange(3)}, buf, pickle_protocol=4)
    buf.seek(0)
    # (torch's own weights-only unpickler refuses protocol 4's FRAME opcode)
    out = torch.load(buf, weights_only=False)
    assert out['x'].tolist() == [0, 1, 2]
    buf.seek(0)
    assert ember.load(buf)['x'].tolist() == [0, 1, 2]


def test_namespace():
    assert ember.save is S.save and ember.load is S.load
    assert callable(ember.serialization.add_safe_globals)
    for f in (S.save, S.load, S.add_safe_globals, S.get_safe_globals, S.clear_safe_globals,
              S.safe_globals, S.get_unsafe_globals_in_checkpoint):
        assert f.__doc__


def test_torch_conj_and_neg_bits_are_materialised():
    z = torch.tensor([1 + 2j, 3 - 1j])
    out = torch_to_ember({'c': z.conj(), 'z': z})
    assert out['c'].tolist() == [1 - 2j, 3 + 1j]
    assert out['z'].tolist() == [1 + 2j, 3 - 1j]
    assert torch_to_ember(z.conj().imag).tolist() == [-2.0, 1.0]


@pytest.mark.parametrize('legacy', [False, True])
@pytest.mark.parametrize('weights_only', [True, False])
def test_neg_and_conj_bits_in_both_formats(legacy, weights_only):
    """In the legacy format the storage bytes follow the pickle: the negated copy is made
    from them once they are read."""
    z = torch.tensor([1 + 2j, 3 - 1j, -2 + 0.5j])
    w = torch.tensor([1., 2., 5.])._neg_view()
    obj = {'c': z.conj(), 'c1': z.conj()[1:], 'n': w, 'n2': w[::2], 'plain': torch.tensor([7.])}
    buf = io.BytesIO()
    torch.save(obj, buf, _use_new_zipfile_serialization=not legacy)
    out = ember.load(io.BytesIO(buf.getvalue()), weights_only=weights_only)
    ref = torch.load(io.BytesIO(buf.getvalue()), weights_only=weights_only)
    for k in obj:
        assert out[k].tolist() == ref[k].resolve_conj().resolve_neg().tolist(), k


def test_modules_and_state_dicts():
    m = ember.nn.Sequential(ember.nn.Linear(3, 2), ember.nn.ReLU())
    x = ember.arange(6.).reshape(2, 3)
    # whole ember module (weights_only=False)
    buf = io.BytesIO()
    ember.save(m, buf)
    buf.seek(0)
    m2 = ember.load(buf, weights_only=False)
    assert type(m2) is type(m) and type(m2[0].weight) is EP
    assert m2(x).tolist() == m(x).tolist()
    # ember state_dict -> torch module
    t = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.ReLU())
    t.load_state_dict(ember_to_torch(m.state_dict()))
    np.testing.assert_allclose(t(torch.arange(6.).reshape(2, 3)).detach().numpy(), m(x).detach().numpy(),
                               rtol=1e-5, atol=1e-6)
    # torch state_dict and whole torch module -> ember
    e = ember.nn.Sequential(ember.nn.Linear(3, 2), ember.nn.ReLU())
    e.load_state_dict(torch_to_ember(t.state_dict()))
    assert e(x).tolist() == m(x).tolist()
    tm = torch_to_ember(t, weights_only=False)
    assert isinstance(tm, ember.nn.Sequential) and isinstance(tm[0].weight, EP)
    np.testing.assert_allclose(tm(x).detach().numpy(), m(x).detach().numpy(), rtol=1e-5, atol=1e-6)


def test_zip64_entries_stay_aligned(monkeypatch):
    # pretend the zip64 limit is tiny, so storages get zip64 headers as >4 GB ones would
    monkeypatch.setattr(zipfile, 'ZIP64_LIMIT', 200)
    sd = {'a': ember.arange(100.), 'b': ember.arange(3), 'c': ember.ones(70, dtype=ember.float64)}
    buf = io.BytesIO()
    ember.save(sd, buf)
    raw = buf.getvalue()
    monkeypatch.undo()
    z = zipfile.ZipFile(io.BytesIO(raw))
    n64 = 0
    for info in z.infolist():
        o = info.header_offset
        nl, el = struct.unpack('<HH', raw[o + 26:o + 30])
        assert (o + 30 + nl + el) % 64 == 0, info.filename
        n64 += b'\x01\x00\x10\x00' in raw[o + 30 + nl:o + 30 + nl + el]   # zip64 extra field
    assert n64 >= 2
    out = torch.load(io.BytesIO(raw), weights_only=True)
    assert out['a'].tolist() == sd['a'].tolist() and out['c'].tolist() == [1.0] * 70
    back = ember.load(io.BytesIO(raw))
    assert back['a'].tolist() == sd['a'].tolist() and back['b'].tolist() == [0, 1, 2]


# ------------------------------------------------------------------ atomic save under SIGKILL
def _open_fds():
    return set(os.listdir('/proc/self/fd'))


def _tmp_files(folder):
    return sorted(n for n in os.listdir(folder) if n.endswith('.tmp'))


def _wait_release_threads():
    import threading
    for t in threading.enumerate():
        if t.name == 'ember-save-release':
            t.join(5)


_SAVER = r'''
import sys, ember
path = sys.argv[1]
sd = {f"w{i}": ember.full((1 << 19,), float(i)) for i in range(8)}   # 16 MB
print("ready", flush=True)
while True:
    ember.save(sd, path)
'''


def _check_ckpt(p):
    out = ember.load(p)
    assert sorted(out) == [f'w{i}' for i in range(8)] or sorted(out) == ['old']
    if 'w3' in out:
        assert out['w3'][::4096].tolist() == [3.0] * 128


def test_killed_save_never_damages_checkpoint(tmp_path):
    import random
    import signal
    import subprocess
    import sys
    import time
    p = tmp_path / 'ckpt.pt'
    ember.save({'old': ember.arange(3.)}, p)
    # a real `python -c` process saving in a loop, killed with SIGKILL at a random moment
    proc = subprocess.Popen([sys.executable, '-c', _SAVER, str(p)], stdout=subprocess.PIPE,
                            cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    assert proc.stdout.readline().strip() == b'ready'
    time.sleep(random.uniform(0.05, 0.3))
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    _check_ckpt(p)
    # more kills, from forked children (no interpreter start-up): each child signals just
    # before a save and is killed while that save is (most likely) writing
    rng = random.Random(0)
    sd = {f"w{i}": ember.full((1 << 19,), float(i)) for i in range(8)}
    left = 0
    killed = {proc.pid}
    for _ in range(8):
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:   # child
            try:
                os.close(r)
                while True:
                    os.write(w, b'.')
                    ember.save(sd, p)
            finally:
                os._exit(0)
        os.close(w)
        os.read(r, 1)
        time.sleep(rng.uniform(0.0, 0.03))
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)   # reaped: the pid no longer exists
        killed.add(pid)
        os.close(r)
        _check_ckpt(p)
        tmps = _tmp_files(tmp_path)
        left = max(left, len(tmps))
        # whatever is left is clearly named after the checkpoint and the dead process
        for n in tmps:
            m = re.fullmatch(r'\.ckpt\.pt\.(\d+)-([0-9a-f]{8})\.[0-9a-f]{8}\.tmp', n)
            assert m and int(m.group(1)) in killed and m.group(2) == S._host_tag(), n
        assert [n for n in os.listdir(tmp_path) if not n.endswith('.tmp')] == ['ckpt.pt']
    assert left >= 1            # the kills did land in the middle of a save
    # the next save to that name removes the leftovers of dead processes
    ember.save({'new': ember.ones(2)}, p)
    assert os.listdir(tmp_path) == ['ckpt.pt']
    assert ember.load(p)['new'].tolist() == [1.0, 1.0]
    # torch reads what the killed processes left
    assert torch.load(p, weights_only=True)['new'].tolist() == [1.0, 1.0]


def test_stale_tmp_of_live_process_or_other_file_is_kept(tmp_path):
    p = tmp_path / 'a.pt'
    live = tmp_path / f'.a.pt.{os.getppid()}-{S._host_tag()}.0011aabb.tmp'   # our parent: alive
    other_host = tmp_path / '.a.pt.999999999-00000000.0011aabb.tmp'
    other_file = tmp_path / '.b.pt.999999999-00000000.0011aabb.tmp'
    for f in (live, other_host, other_file):
        f.write_bytes(b'x')
    ember.save(ember.ones(1), p)
    assert sorted(os.listdir(tmp_path)) == sorted(['a.pt', live.name, other_host.name,
                                                   other_file.name])


# ------------------------------------------------------------------ release of the replaced file
_EXIT_SAVER = r'''
import atexit, sys, ember
path = sys.argv[1]
ember.save({"w": ember.full((1 << 20,), 1.0)}, path)
ember.save({"w": ember.full((1 << 20,), 2.0)}, path)     # replaces: background close
atexit.register(lambda: ember.save({"w": ember.full((1 << 20,), 3.0)}, path))
'''


def test_program_ending_right_after_save(tmp_path):
    import subprocess
    import sys
    p = tmp_path / 'x.pt'
    ember.save({'w': ember.zeros(1)}, p)
    r = subprocess.run([sys.executable, '-c', _EXIT_SAVER, str(p)], capture_output=True,
                       cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    assert r.returncode == 0, r.stderr.decode()
    assert r.stderr == b''
    assert os.listdir(tmp_path) == ['x.pt']
    w = ember.load(p)['w']
    assert w.shape == (1 << 20,) and w[::1024].tolist() == [3.0] * 1024


def test_replaced_file_descriptor_is_released(tmp_path, monkeypatch):
    import threading
    p = tmp_path / 'x.pt'
    ember.save(ember.zeros(1000), p)
    _wait_release_threads()
    with open(p, 'rb') as reader:          # a reader of the old file keeps reading it
        before = _open_fds()
        for i in range(5):
            ember.save(ember.full((1000,), float(i)), p)
        _wait_release_threads()
        assert _open_fds() == before
        assert ember.load(reader).tolist() == [0.0] * 1000
    assert ember.load(p).tolist() == [4.0] * 1000
    # when no thread can be started (interpreter shutdown), the descriptor is closed at once
    def no_threads(self):
        raise RuntimeError("can't create new thread at interpreter shutdown")
    monkeypatch.setattr(threading.Thread, 'start', no_threads)
    before = _open_fds()
    ember.save(ember.ones(3), p)
    assert _open_fds() == before
    assert ember.load(p).tolist() == [1.0, 1.0, 1.0]
    assert os.listdir(tmp_path) == ['x.pt']


# ------------------------------------------------------------------ memory: no extra copy of the data
def test_save_and_load_hold_no_extra_copy(tmp_path):
    import tracemalloc
    mb = 2 ** 20
    sd = {f'w{i}': ember.full((mb // 4,), float(i)) for i in range(24)}   # 24 MB
    nbytes = 24 * mb
    p = tmp_path / 'big.pt'
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        ember.save(sd, p)
        save_extra = tracemalloc.get_traced_memory()[1] - base
        del sd
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        out = ember.load(p)
        cur, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert save_extra < 0.05 * nbytes, save_extra          # streamed: no copy of the tensors
    assert cur - base >= nbytes                             # the loaded tensors themselves...
    assert peak - base < 1.05 * nbytes, peak - base         # ...and nothing more
    assert out['w7'][::4096].tolist() == [7.0] * 64


# ------------------------------------------------------------------ whole models under weights_only
class TinyNet(ember.nn.Module):
    """A user model: its class, and the layer classes it holds, are allow-listed to load."""

    def __init__(self):
        super().__init__()
        self.fc = ember.nn.Linear(3, 2)
        self.drop = ember.nn.Dropout(0.25)

    def forward(self, x):
        return self.drop(self.fc(x))


class TorchTinyNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(3, 2)
        self.drop = torch.nn.Dropout(0.25)

    def forward(self, x):
        return self.drop(self.fc(x))


def test_whole_model_loads_with_allowlisted_classes(tmp_path):
    """pytorch/examples' word_language_model: torch.save(model), then torch.load(f,
    weights_only=True) inside safe_globals([...the model's classes...])."""
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    # a bare Linear saved by ember and by torch
    lin = ember.nn.Linear(3, 2)
    tlin = torch.nn.Linear(3, 2)
    ember.save(lin, tmp_path / 'e.pt')
    torch.save(tlin, tmp_path / 't.pt')
    with pytest.raises(pickle.UnpicklingError, match='add_safe_globals'):
        ember.load(tmp_path / 't.pt')
    with torch.serialization.safe_globals([torch.nn.Linear]):
        t_from_e = torch.load(tmp_path / 'e.pt', weights_only=True)     # torch reads ember's file
    with S.safe_globals([ember.nn.Linear]):
        e_from_e = ember.load(tmp_path / 'e.pt', weights_only=True)
        e_from_t = ember.load(tmp_path / 't.pt', weights_only=True)
    assert S.get_safe_globals() == []
    for m, ref in ((e_from_e, lin(ember.tensor(x))), (e_from_t, tlin(torch.tensor(x)))):
        assert type(m) is ember.nn.Linear and type(m.weight) is EP and m.weight.requires_grad
        np.testing.assert_allclose(m(ember.tensor(x)).detach().numpy(), np_of(ref), rtol=1e-6)
    np.testing.assert_allclose(t_from_e(torch.tensor(x)).detach().numpy(),
                               lin(ember.tensor(x)).detach().numpy(), rtol=1e-6)
    # a user model: ember's own file, and torch's file of the torch twin (its name mapped)
    net, tnet = TinyNet().eval(), TorchTinyNet().eval()
    ember.save(net, tmp_path / 'net.pt')
    torch.save(tnet, tmp_path / 'tnet.pt')
    with S.safe_globals([TinyNet, ember.nn.Linear, ember.nn.Dropout,
                         (TinyNet, f'{TorchTinyNet.__module__}.TorchTinyNet')]):
        e_net = ember.load(tmp_path / 'net.pt')
        t_net = ember.load(tmp_path / 'tnet.pt')
    for m, ref in ((e_net, net(ember.tensor(x))), (t_net, tnet(torch.tensor(x)))):
        assert type(m) is TinyNet and not m.training and m.drop.p == 0.25
        assert [n for n, _ in m.named_parameters()] == ['fc.weight', 'fc.bias']
        np.testing.assert_allclose(m(ember.tensor(x)).detach().numpy(), np_of(ref), rtol=1e-6)


# ------------------------------------------------------------------ restored tensor attributes
def _state_file(tmp_path, state, param=False):
    t = (torch.nn.Parameter if param else (lambda v: v))(torch.arange(4.))
    for k, v in state.items():
        t.__dict__[k] = v           # torch keeps any name in the instance dict
    p = tmp_path / 'state.pt'
    torch.save(t, p)
    return p


@pytest.mark.parametrize('param', [False, True])
def test_tensor_state_goes_through_allow_list(tmp_path, param):
    # a user attribute is restored, as torch restores it
    p = _state_file(tmp_path, {'tag': 'x'}, param)
    assert torch.load(p).tag == 'x' and ember.load(p).tag == 'x'
    # torch keeps a private name as an inert attribute: ember ignores it (it would be its
    # own state: _grad_dtype would change every later gradient's dtype)
    p = _state_file(tmp_path, {'_grad_dtype': torch.float16, '_eoff_': 3}, param)
    assert torch.load(p)._grad_dtype is torch.float16
    e = ember.load(p)
    assert '_grad_dtype' not in e.__dict__ and e.grad_dtype is ember.float32
    if param:
        (e * 2).sum().backward()
        assert e.grad.dtype is ember.float32
    # read-only attributes: torch refuses them, so does ember
    for k in ('is_sparse', 'layout', 'is_nested', 'is_quantized'):
        p = _state_file(tmp_path, {k: True}, param)
        with pytest.raises(AttributeError, match=f"'{k}'.*not writable"):
            torch.load(p)
        with pytest.raises(AttributeError, match=f"'{k}'.*defines it") as ei:
            ember.load(p)
        assert isinstance(ei.value, pickle.UnpicklingError)


# ------------------------------------------------------------------ mmap, map_location
def test_mmap_checks_crc(tmp_path):
    p = tmp_path / 'good.pt'
    ember.save({'w': ember.arange(100.)}, p)
    raw = p.read_bytes()
    info = zipfile.ZipFile(p).getinfo('good/data/0')
    nl, el = struct.unpack('<HH', raw[info.header_offset + 26:info.header_offset + 30])
    pos = info.header_offset + 30 + nl + el + 17
    bad = tmp_path / 'flip.pt'
    bad.write_bytes(raw[:pos] + bytes([raw[pos] ^ 0xFF]) + raw[pos + 1:])
    assert ember.load(p, mmap=True)['w'].tolist() == list(range(100))
    for mm in (False, True):
        with pytest.raises(RuntimeError, match='flip.pt.*CRC'):
            ember.load(bad, mmap=mm)


class _MapError(Exception):
    pass


@pytest.mark.parametrize('legacy', [False, True])
@pytest.mark.parametrize('weights_only', [True, False])
def test_map_location_error_passes_through(tmp_path, legacy, weights_only):
    p = tmp_path / 'x.pt'
    ember.save({'w': ember.ones(2)}, p, _use_new_zipfile_serialization=not legacy)
    for exc in (_MapError('mine'), ValueError('bad location'), RuntimeError('no device')):
        def fn(storage, loc):
            raise exc
        with pytest.raises(type(exc)) as ei:
            ember.load(p, map_location=fn, weights_only=weights_only)
        assert ei.value is exc
        with pytest.raises(type(exc)) as ti:
            torch.load(p, map_location=fn, weights_only=weights_only)
        assert ti.value is exc


# ------------------------------------------------------------------ the load's step budget
def _steps_used(monkeypatch, src):
    used = []
    real = S._SafeUnpickler.load

    def load(self):
        start = self.budget
        out = real(self)
        used.append(start - self.budget)
        return out
    monkeypatch.setattr(S._SafeUnpickler, 'load', load)
    out = ember.load(src)
    monkeypatch.undo()
    return out, sum(used)


def test_ordinary_checkpoints_use_a_fraction_of_the_step_budget(monkeypatch, tmp_path):
    """The bound (8 steps a byte of the file) leaves room: ordinary checkpoints, even ones
    made of nothing but small objects, use at most one step a byte."""
    net = torch.nn.Sequential(*[torch.nn.Linear(4, 4) for _ in range(30)])
    opt = torch.optim.Adam(net.parameters())
    net(torch.ones(1, 4)).sum().backward()
    opt.step()
    objs = {'state_dict': net.state_dict(), 'optimizer': opt.state_dict(),
            'python': [{'k': (i, float(i), str(i), None, [True])} for i in range(1000)],
            'int_keys': {i: frozenset([i, -i]) for i in range(1000)}}
    for name, obj in objs.items():
        p = tmp_path / f'{name}.pt'
        torch.save(obj, p)
        n = p.stat().st_size
        out, used = _steps_used(monkeypatch, p)
        assert 0 < used <= n, (name, used, n)
        assert used < S._step_budget(n) / 2
    assert out[5] == frozenset([5, -5])


def test_deflated_checkpoint_loads_as_in_torch(tmp_path):
    """PyTorch reads deflated records (a checkpoint recompressed by a zip tool): so does ember."""
    sd = {'w': torch.arange(1000.).reshape(10, 100), 'b': torch.zeros(3000), 'n': 7}
    p, q = tmp_path / 'plain.pt', tmp_path / 'deflated.pt'
    torch.save(sd, p)
    with zipfile.ZipFile(p) as zin, zipfile.ZipFile(q, 'w', zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            zout.writestr(info.filename, zin.read(info.filename))
    assert q.stat().st_size < p.stat().st_size
    t, e = torch.load(q), ember.load(q)
    assert e['n'] == t['n'] == 7
    for k in ('w', 'b'):
        np.testing.assert_array_equal(e[k].numpy(), t[k].numpy())


def test_whole_model_with_functions_both_ways(tmp_path):
    """A model holding a function (TransformerEncoderLayer's activation F.relu): ember writes
    it under torch's public name (torch.nn.functional.relu), and a torch file's name finds
    ember's function where the user allowed it."""
    torch.manual_seed(0)
    tm = torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0).eval()
    em = ember.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0).eval()
    torch.save(tm, tmp_path / 't.pt')
    ember.save(em, tmp_path / 'e.pt')
    names = ['torch.nn.modules.transformer.TransformerEncoderLayer',
             'torch.nn.modules.activation.MultiheadAttention',
             'torch.nn.modules.linear.NonDynamicallyQuantizableLinear', 'torch.nn.modules.linear.Linear',
             'torch.nn.modules.dropout.Dropout', 'torch.nn.modules.normalization.LayerNorm',
             'torch.nn.functional.relu']
    assert S.get_unsafe_globals_in_checkpoint(tmp_path / 'e.pt') == names
    assert sorted(torch.serialization.get_unsafe_globals_in_checkpoint(tmp_path / 'e.pt')) == sorted(names)
    nn_, F = ember.nn, ember.nn.functional
    allow = [nn_.TransformerEncoderLayer, nn_.MultiheadAttention, nn_.modules.linear.NonDynamicallyQuantizableLinear,
             nn_.Linear, nn_.Dropout, nn_.LayerNorm, F.relu]
    with S.safe_globals(allow):
        assert S.get_unsafe_globals_in_checkpoint(tmp_path / 't.pt') == []
        e_from_t = ember.load(tmp_path / 't.pt').eval()
    tallow = [torch.nn.TransformerEncoderLayer, torch.nn.MultiheadAttention,
              torch.nn.modules.linear.NonDynamicallyQuantizableLinear, torch.nn.Linear, torch.nn.Dropout,
              torch.nn.LayerNorm, torch.nn.functional.relu]
    with torch.serialization.safe_globals(tallow):
        t_from_e = torch.load(tmp_path / 'e.pt').eval()
    x = np.random.default_rng(0).random((2, 5, 8), dtype=np.float32)
    np.testing.assert_allclose(e_from_t(ember.tensor(x)).detach().numpy(),
                               tm(torch.tensor(x)).detach().numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(t_from_e(torch.tensor(x)).detach().numpy(),
                               em(ember.tensor(x)).detach().numpy(), rtol=1e-5, atol=1e-5)
    assert e_from_t.activation is F.relu


class TorchRNNModel(torch.nn.Module):
    """pytorch/examples' word_language_model, in small: encoder, LSTM, decoder."""

    def __init__(self):
        super().__init__()
        self.drop = torch.nn.Dropout(0.2)
        self.encoder = torch.nn.Embedding(20, 6)
        self.rnn = torch.nn.LSTM(6, 5, 2, dropout=0.2)
        self.decoder = torch.nn.Linear(5, 20)

    def forward(self, x, hidden):
        out, hidden = self.rnn(self.drop(self.encoder(x)), hidden)
        return self.decoder(self.drop(out)), hidden


class RNNModel(ember.nn.Module):
    def __init__(self):
        super().__init__()
        self.drop = ember.nn.Dropout(0.2)
        self.encoder = ember.nn.Embedding(20, 6)
        self.rnn = ember.nn.LSTM(6, 5, 2, dropout=0.2)
        self.decoder = ember.nn.Linear(5, 20)

    def forward(self, x, hidden):
        out, hidden = self.rnn(self.drop(self.encoder(x)), hidden)
        return self.decoder(self.drop(out)), hidden


def test_word_language_model_checkpoint(tmp_path):
    torch.manual_seed(0)
    tm = TorchRNNModel().eval()
    torch.save(tm, tmp_path / 'model.pt')
    nn_ = ember.nn
    with S.safe_globals([(RNNModel, f'{TorchRNNModel.__module__}.TorchRNNModel'), nn_.Dropout, nn_.Embedding,
                         nn_.LSTM, nn_.Linear]):
        m = ember.load(tmp_path / 'model.pt').eval()
    assert type(m) is RNNModel and type(m.rnn) is nn_.LSTM
    idx = np.array([[1, 4], [7, 19], [3, 0]])
    h = np.zeros((2, 2, 5), np.float32)
    out_t, (ht, ct) = tm(torch.tensor(idx), (torch.tensor(h), torch.tensor(h)))
    out_e, (he, ce) = m(ember.tensor(idx), (ember.tensor(h), ember.tensor(h)))
    for a, b in ((out_e, out_t), (he, ht), (ce, ct)):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-5, atol=1e-6)
