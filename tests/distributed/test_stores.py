"""TCPStore and FileStore compared with PyTorch's (same calls, same results, same errors and
messages), FileStore sharing a file with a PyTorch FileStore, both used by several processes
at once, and both as ``store=`` / ``file://`` rendezvous of init_process_group (2 ranks).
Every multi-process part is bounded by a timeout."""
import datetime
import os
import re
import subprocess
import sys
import tempfile

import pytest
import torch.distributed as tdist

import ember.distributed as edist
from tests.distributed.test_collectives import check_ok

TMO = datetime.timedelta(seconds=0.3)


def _errs(calls):
    out = []
    for f in calls:
        try:
            out.append(('ok', f()))
        except Exception as e:
            out.append((type(e).__name__, re.sub(r'port: \d+', 'port: P', str(e))))
    return out


def _common(st, queues):
    out = [st.num_keys()]
    st.set('a', 'b')
    out += [st.get('a'), st.add('c', 3), st.add('c', -1), st.num_keys(), st.check(['a', 'zz'])]
    out += [st.compare_set('a', 'b', 'q'), st.compare_set('x', 'y', 'z'),
            st.compare_set('x', '', 'z'), st.delete_key('x'), st.delete_key('x'), st.num_keys()]
    st.append('a', 'w')
    out.append(st.get('a'))
    st.multi_set(['m1', 'm2'], ['1', b'2'])
    out.append(st.multi_get(['m1', 'm2']))
    if queues:
        st.queue_push('q', 'x1')
        st.queue_push('q', b'x2')
        out += [st.queue_len('q'), st.queue_pop('q'), st.queue_len('q'), st.queue_pop('q')]
    out += _errs([lambda: st.get('missing'), lambda: st.wait(['a', 'm9']),
                  lambda: st.wait(['m3'], datetime.timedelta(seconds=0.1)),
                  lambda: st.queue_pop('q', block=False)])
    out.append(st.timeout)
    return out


def _tcp_script(D):
    s = D.TCPStore('127.0.0.1', 0, 1, True, timeout=TMO)
    c = D.TCPStore('127.0.0.1', s.port, None, False, timeout=TMO)
    out = _common(s, True)
    out += [sorted(s.list_keys()), c.get('a'), c.num_keys(), s.host, c.port == s.port]
    out += _errs([lambda: D.TCPStore('127.0.0.1', s.port, None, True),
                  lambda: D.TCPStore('127.0.0.1', 1, 2, False, timeout=TMO)])
    p = D.PrefixStore('pre', c)
    p.set('k', 'v')
    out += [s.get('pre/k'), p.add('n', 2), s.check(['pre/n'])]
    cl = s.clone()
    out += _errs([lambda: cl.add('a', 1)])     # not an integer
    return out


def test_tcpstore_like_torch():
    assert _tcp_script(edist) == _tcp_script(tdist)


def _file_script(D):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, 'store')
        f = D.FileStore(path, 1)
        f.set_timeout(TMO)
        out = _common(f, False)
        out += _errs([lambda: f.queue_push('q', 'x'), lambda: f.queue_len('q')])
        out.append(f.path == path)
        out += _errs([lambda: f.add('a', 1)])
        del f
        out.append(os.path.exists(path))   # the last user removes the file
    return out


def test_filestore_like_torch():
    assert _file_script(edist) == _file_script(tdist)


def test_filestore_shares_a_file_with_torch():
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, 'store')
        e, t = edist.FileStore(path, 2), tdist.FileStore(path, 2)
        e.set('from_ember', 'x')
        t.set('from_torch', b'y')
        assert t.get('from_ember') == b'x' and e.get('from_torch') == b'y'
        assert e.add('n', 2) == 2 and t.add('n', 3) == 5 and e.add('n', 0) == 5
        t.delete_key('from_ember')
        assert not e.check(['from_ember']) and e.num_keys() == t.num_keys()
        assert sorted(e.list_keys()) == ['from_torch', 'n']
        del e, t
        assert not os.path.exists(path)


ADDER = r'''
import sys, ember.distributed as dist
kind, where, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
if kind == 'file':
    s = dist.FileStore(where, -1)
else:
    s = dist.TCPStore('127.0.0.1', int(where), 3, False)
s.wait(['go'])
for _ in range(n):
    s.add('count', 1)
s.set('done' + sys.argv[4], '1')
'''


@pytest.mark.parametrize('kind', ['file', 'tcp'])
def test_stores_across_processes(kind):
    import threading
    from tests.distributed.test_collectives import _free_port
    procs = []
    try:
        if kind == 'file':
            s = edist.FileStore(os.path.join(tempfile.mkdtemp(), 'store'), -1)
            where = s.path
        else:
            where, box = str(_free_port()), {}
            # the master's constructor returns once its 3 users (itself included) have joined
            th = threading.Thread(target=lambda: box.setdefault('s', edist.TCPStore(
                '127.0.0.1', int(where), 3, True, timeout=datetime.timedelta(seconds=30))))
            th.start()
        procs = [subprocess.Popen([sys.executable, '-c', ADDER, kind, where, '200', str(i)])
                 for i in range(2)]
        if kind == 'tcp':
            th.join(60)
            s = box['s']
            assert s.add('init/', 0) == 3
        s.set('go', '1')
        s.wait(['done0', 'done1'], datetime.timedelta(seconds=60))
        assert s.add('count', 0) == 400
        for p in procs:
            assert p.wait(timeout=60) == 0
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()


RDZV = r'''
import os, sys, datetime, numpy as np
import ember, ember.distributed as dist
r, n, how, where = int(os.environ['RANK']), 2, sys.argv[1], sys.argv[2]
if how == 'tcp':
    st = dist.TCPStore('127.0.0.1', int(where), n, r == 0, timeout=datetime.timedelta(seconds=30))
    dist.init_process_group('gloo', store=st, rank=r, world_size=n)
else:
    dist.init_process_group('gloo', init_method='file://' + where, rank=r, world_size=n)
t = ember.ones(3) * (r + 1)
dist.all_reduce(t)
assert t.tolist() == [3., 3., 3.] and dist.get_rank() == r and dist.get_world_size() == n
print('ok', r, flush=True)
'''


@pytest.mark.skipif(not edist.is_mpi_available(), reason='mpi4py not installed')
@pytest.mark.parametrize('how', ['tcp', 'file'])
def test_init_process_group_through_store(how):
    from tests.distributed.test_collectives import _free_port
    where = str(_free_port()) if how == 'tcp' else os.path.join(tempfile.mkdtemp(), 'rdzv')
    env = dict(os.environ, OMP_NUM_THREADS='1')
    env.pop('MASTER_ADDR', None)
    procs = [subprocess.Popen([sys.executable, '-c', RDZV, how, where], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=dict(env, RANK=str(r)))
             for r in range(2)]
    try:
        outs = [p.communicate(timeout=60) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    check_ok([(p.returncode, o, e) for p, (o, e) in zip(procs, outs)])


def test_store_argument_errors():
    with pytest.raises(AssertionError, match='Cannot specify both init_method and store.'):
        edist.init_process_group('gloo', init_method='env://', store=edist.HashStore(),
                                 rank=0, world_size=1)
    with pytest.raises(AssertionError, match='world_size must be positive if using store'):
        edist.init_process_group('gloo', store=edist.HashStore(), rank=0)
    assert not edist.is_initialized()
