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
    for call in [lambda: s.wait(['missing'], datetime.timedelta(seconds=0.05)),
                 lambda: s.add('k', 1)]:
        try:
            call()
            out.append(None)
        except Exception as e:
            out.append(type(e).__name__)
    return out


def test_hashstore_prefixstore():
    assert _script(edist) == _script(tdist)
