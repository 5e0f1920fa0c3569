"""ember.distributed basics compared with torch.distributed: names, Backend, ReduceOp,
error types, HashStore/PrefixStore semantics, uninitialised-group errors."""
import datetime

import pytest
import torch.distributed as tdist

import ember.distributed as edist


def test_backend_and_reduceop():
    for n in ['GLOO', 'mpi', 'Nccl', 'custom']:
        assert edist.Backend(n) == tdist.Backend(n)
    # torch's own test utilities register a 'fake' backend (hpu -> fake) when another test
    # imports them; that registration is process state of torch, not part of its defaults.
    assert edist.Backend.backend_list == tdist.Backend.backend_list
    assert edist.Backend.default_device_backend_map == {
        k: v for k, v in tdist.Backend.default_device_backend_map.items() if v != 'fake'}
    for name in ['SUM', 'AVG', 'PRODUCT', 'MIN', 'MAX', 'BAND', 'BOR', 'BXOR', 'PREMUL_SUM']:
        e, t = getattr(edist.ReduceOp, name), getattr(tdist.ReduceOp, name)
        assert str(e) == str(t) and repr(e) == repr(t) and int(e) == int(t)
        assert edist.ReduceOp(e) == e
    assert edist._make_nccl_premul_sum(2.0) == edist.ReduceOp.PREMUL_SUM
    with pytest.raises(TypeError):
        edist.ReduceOp(3)


def test_error_types():
    for n in ['DistError', 'DistBackendError', 'DistNetworkError', 'DistStoreError']:
        e, t = getattr(edist, n), getattr(tdist, n)
        assert [c.__name__ for c in e.__mro__[:-1]] == [c.__name__ for c in t.__mro__[:-1]]
    assert edist.default_pg_timeout == tdist.default_pg_timeout
    assert edist.is_available() and edist.is_nccl_available() is False


def test_uninitialised():
    assert edist.is_initialized() == tdist.is_initialized() is False
    for f in ['get_rank', 'get_world_size', 'get_backend']:
        with pytest.raises(ValueError) as te:
            getattr(tdist, f)()
        with pytest.raises(ValueError) as ee:
            getattr(edist, f)()
        assert str(ee.value) == str(te.value)


def _script(D):
    out = []
    s = D.HashStore()
    s.set('a', 'b')
    out.append(s.get('a'))
    out.append(s.add('c', 3))
    out.append(s.add('c', -1))
    out.append(s.num_keys())
    out.append(s.compare_set('a', 'b', 'z'))
    out.append(s.compare_set('a', 'q', 'y'))
    out.append(s.compare_set('x', 'e', 'd'))
    out.append(s.check(['x']))
    out.append(s.compare_set('x', '', 'd'))
    out.append(s.delete_key('x'))
    out.append(s.delete_key('x'))
    s.set('k', b'v')
    s.append('k', 'w')
    out.append(s.get('k'))
    out.append(s.multi_get(['k', 'a']))
    out.append(s.timeout)
    p = D.PrefixStore('pre', s)
    p.set('a', '1')
    out.append(s.get('pre/a'))
    out.append(p.get('a'))
    out.append(p.check(['a', 'b']))
    out.append(p.underlying_store is s)
    s.set_timeout(datetime.timedelta(seconds=0.05))
    s.queue_push('q', 'a')
    s.queue_push('q', b'b')
    out += [s.queue_len('q'), s.queue_pop('q'), s.num_keys(), s.check(['q']), sorted(s.list_keys()),
            sorted(p.list_keys()), p.queue_len('q')]
    for call in [lambda: s.wait(['missing'], datetime.timedelta(seconds=0.05)),
                 lambda: s.add('k', 1), lambda: s.queue_pop('z', block=False),
                 lambda: s.queue_pop('z')]:
        try:
            call()
            out.append(None)
        except Exception as e:
            out.append(type(e).__name__)
    return out


def test_hashstore_prefixstore():
    assert _script(edist) == _script(tdist)


_OPTS = ['AllreduceOptions', 'AllreduceCoalescedOptions', 'BroadcastOptions', 'ReduceOptions',
         'AllToAllOptions', 'BarrierOptions', 'GatherOptions', 'ScatterOptions',
         'ReduceScatterOptions']


def _opts(D):
    out = {}
    for c in _OPTS:
        o = getattr(D, c)()
        out[c] = {k: (str(getattr(o, k).op) if k == 'reduceOp' else getattr(o, k))
                  for k in dir(o) if not k.startswith('_')}
    return out


def test_option_classes_like_torch():
    assert _opts(edist) == _opts(tdist)
    o = edist.BroadcastOptions()
    o.rootRank = 3
    assert o.rootRank == 3


def test_debug_level_backends_and_queries(monkeypatch):
    for D in (edist, tdist):
        assert [m for m in D.DebugLevel.__members__] == ['OFF', 'INFO', 'DETAIL']
    assert str(edist.DebugLevel.INFO) == str(tdist.DebugLevel.INFO)
    assert edist.get_debug_level() == edist.DebugLevel.OFF
    edist.set_debug_level(edist.DebugLevel.DETAIL)
    assert edist.get_debug_level() == edist.DebugLevel.DETAIL
    monkeypatch.setenv('TORCH_DISTRIBUTED_DEBUG', 'info')
    edist.set_debug_level_from_env()
    assert edist.get_debug_level() == edist.DebugLevel.INFO
    monkeypatch.setenv('TORCH_DISTRIBUTED_DEBUG', 'bad')
    msgs = []
    for D in (edist, tdist):
        with pytest.raises(ValueError) as e:
            D.set_debug_level_from_env()
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]
    edist.set_debug_level(edist.DebugLevel.OFF)
    with pytest.raises(TypeError):
        edist.set_debug_level(1)
    for b in ['cpu:gloo,cuda:nccl', 'gloo', 'undefined']:
        assert edist.BackendConfig(b).get_device_backend_map() == \
            tdist.BackendConfig(b).get_device_backend_map()
        assert repr(edist.BackendConfig(b)) == repr(tdist.BackendConfig(b))
    for b in ['gloo', 'nccl', 'foo', 'cpu:gloo,cuda:nccl']:
        assert edist.is_backend_available(b) == tdist.is_backend_available(b)
    assert edist.is_backend_available('mpi')   # NOTE: ember's MPI engine is always there
    for dev in ['cpu', 'cuda', 'cuda:1']:
        assert edist.get_default_backend_for_device(dev) == tdist.get_default_backend_for_device(dev)
    for op in ['SUM', 'AVG', 'PREMUL_SUM', 'MAX', 'MIN', 'PRODUCT', 'BAND', 'BOR', 'BXOR']:
        assert edist.supports_complex(getattr(edist.ReduceOp, op)) == \
            tdist.supports_complex(getattr(tdist.ReduceOp, op))
    assert [m for m in edist.BuiltinCommHookType.__members__] == \
        [m for m in tdist.BuiltinCommHookType.__members__]
    monkeypatch.delenv('LOCAL_RANK', raising=False)
    assert edist.get_node_local_rank(fallback_rank=3) == 3
    msgs = []
    for D in (edist, tdist):
        with pytest.raises(RuntimeError) as e:
            D.get_node_local_rank()
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]
    monkeypatch.setenv('LOCAL_RANK', '1')
    assert edist.get_node_local_rank() == 1
    assert edist.timedelta is datetime.timedelta and edist.log.name == 'ember.distributed'


def test_rendezvous_handlers(tmp_path):
    import itertools
    store, rank, ws = next(edist.rendezvous('tcp://127.0.0.1:0?rank=0&world_size=1'))
    assert isinstance(store, edist.TCPStore) and (rank, ws) == (0, 1)
    store.set('k', 'v')
    assert store.get('k') == b'v'
    store, rank, ws = next(edist.rendezvous(f'file://{tmp_path}/f', rank=0, world_size=1))
    assert isinstance(store, edist.FileStore) and (rank, ws) == (0, 1)
    msgs = []
    for D in (edist, tdist):
        with pytest.raises(RuntimeError) as e:
            next(D.rendezvous('foo://x'))
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]
    calls = []

    def handler(url, **kw):
        calls.append(url)
        yield edist.HashStore(), 0, 1
    edist.register_rendezvous_handler('mine', handler)
    assert next(edist.rendezvous('mine://a', rank=0, world_size=1))[1:] == (0, 1)
    assert calls == ['mine://a?rank=0&world_size=1']
    with pytest.raises(RuntimeError, match='already registered'):
        edist.register_rendezvous_handler('mine', handler)
    with edist.record_comm('phase'):
        pass
    del itertools


def test_future_semantics():
    F = edist.Future
    f = F()
    assert not f.done()
    seen = []
    f.add_done_callback(lambda x: seen.append(x.value()))
    chained = f.then(lambda x: x.value() * 2).then(lambda x: x.value() + 1)
    f.set_result(5)
    assert f.done() and f.wait() == 5 and seen == [5] and chained.wait() == 11
    with pytest.raises(RuntimeError):
        f.set_result(6)
    g = F()
    bad = g.then(lambda x: x.value())
    g.set_exception(ValueError('boom'))
    with pytest.raises(ValueError, match='boom'):
        g.wait()
    # the chained future holds a RuntimeError naming the callback's error, as torch's
    with pytest.raises(RuntimeError, match='error when running the callback: ValueError: boom'):
        bad.wait()
    import torch
    tg = torch.futures.Future()
    tbad = tg.then(lambda x: x.value())
    tg.set_exception(ValueError('boom'))
    with pytest.raises(RuntimeError, match='error when running the callback: ValueError: boom'):
        tbad.wait()
    t = torch.futures.Future()
    tc = t.then(lambda x: x.value() * 2).then(lambda x: x.value() + 1)
    t.set_result(5)
    assert tc.wait() == 11
    w = edist.Work()
    assert w.is_completed() and w.wait() and w.get_future().wait() == []


def test_device_mesh_module():
    """``distributed.device_mesh`` is a module of its own with torch's public names, the
    same objects as ``distributed.DeviceMesh``/``init_device_mesh``."""
    import torch.distributed.device_mesh as tdm
    import ember.distributed as edist
    import ember.distributed.device_mesh as edm
    assert sorted(edm.__all__) == sorted(tdm.__all__)
    assert edm.DeviceMesh is edist.DeviceMesh and edm.init_device_mesh is edist.init_device_mesh
