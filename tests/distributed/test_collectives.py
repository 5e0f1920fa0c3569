"""Collectives on ranks started independently (RANK/WORLD_SIZE/MASTER_ADDR/MASTER_PORT, the
PMI rendezvous): every collective, dtype and ReduceOp against NumPy references, PyTorch's
in-place semantics, return values and errors (as torch's gloo backend gives them), and
``async_op=True`` Work/Future. One 2-rank and one 4-rank run, each bounded by a timeout."""
import os
import socket
import subprocess
import sys

import pytest

import ember.distributed as edist

COMMON = r'''
import numpy as np
import ember
import ember.distributed as dist
dist.init_process_group('gloo')
r, n = dist.get_rank(), dist.get_world_size()

def err(f):
    try:
        f()
    except Exception as e:
        return type(e).__name__, str(e)
    return None
'''

TWO = COMMON + r'''
assert dist.is_initialized() and dist.get_backend() == 'gloo' and n == 2
base = [np.array([1, 5, -3, 7, 2, 9]), np.array([4, 2, 6, -1, 3, 8])]
FN = {'SUM': np.add, 'PRODUCT': np.multiply, 'MIN': np.minimum, 'MAX': np.maximum,
      'AVG': np.add, 'BAND': np.bitwise_and, 'BOR': np.bitwise_or, 'BXOR': np.bitwise_xor}
for dt in ['float32', 'float64', 'int32', 'int64', 'int16', 'int8', 'uint8', 'float16',
           'bfloat16']:
    for op in FN:
        if op in ('BAND', 'BOR', 'BXOR') and 'float' in dt:
            continue
        arrs = [np.abs(b) for b in base] if dt == 'uint8' else base
        edt = getattr(ember, dt)
        ref = FN[op](arrs[0].astype(np.float64), arrs[1].astype(np.float64)) \
            if 'float' in dt else FN[op](arrs[0].astype(dt), arrs[1].astype(dt))
        if op == 'AVG':
            ref = ref / 2 if 'float' in dt else np.trunc(ref / 2)
        for async_op in (False, True):
            t = ember.tensor(arrs[r].tolist(), dtype=edt)
            w = dist.all_reduce(t, op=getattr(dist.ReduceOp, op), async_op=async_op)
            if async_op:
                assert isinstance(w, dist.Work) and w.wait() is True and w.is_completed()
            else:
                assert w is None
            assert t.dtype == edt, (dt, op)
            np.testing.assert_array_equal(t.float().numpy(), ref.astype(np.float32), err_msg=f'{dt} {op}')
# bool: SUM is OR, PRODUCT is AND (as torch's gloo)
bb = [np.array([True, False, True, False]), np.array([True, True, False, False])]
for op, f in [('SUM', np.logical_or), ('PRODUCT', np.logical_and), ('MIN', np.logical_and),
              ('MAX', np.logical_or), ('BXOR', np.logical_xor), ('BAND', np.logical_and)]:
    t = ember.tensor(bb[r])
    dist.all_reduce(t, getattr(dist.ReduceOp, op))
    assert t.dtype == ember.bool and np.array_equal(t.numpy(), f(*bb)), op
# complex: SUM/AVG; MAX raises torch's ValueError before anything is sent
cv = [np.array([1 + 2j, -3j]), np.array([0.5 - 1j, 2 + 2j])]
for dt in (ember.complex64, ember.complex128):
    t = ember.tensor(cv[r], dtype=dt)
    dist.all_reduce(t)
    np.testing.assert_allclose(t.numpy(), cv[0] + cv[1])
    t = ember.tensor(cv[r], dtype=dt)
    dist.all_reduce(t, dist.ReduceOp.AVG)
    np.testing.assert_allclose(t.numpy(), (cv[0] + cv[1]) / 2)
assert err(lambda: dist.all_reduce(ember.tensor(cv[r]), dist.ReduceOp.MAX)) == (
    'ValueError', 'all_reduce does not support RedOpType.MAX on complex tensors')
assert err(lambda: dist.all_reduce(ember.ones(2), dist.ReduceOp.BAND)) == (
    'RuntimeError', 'Cannot use ReduceOp.BAND with non-integral dtype')
# PREMUL_SUM with a Python factor and a tensor factor
t = ember.tensor([1., 2.]) * (r + 1)
dist.all_reduce(t, dist._make_nccl_premul_sum(0.5))
assert np.array_equal(t.numpy(), [1.5, 3.])
t = ember.tensor([1., 2.]) * (r + 1)
dist.all_reduce(t, dist._make_nccl_premul_sum(ember.tensor(2.)))
assert np.array_equal(t.numpy(), [6., 12.])
# non-contiguous views are reduced in place through the base
m = ember.arange(12.).reshape(3, 4) * (r + 1)
v = m.t()
ver = v._version
dist.all_reduce(v)
assert np.array_equal(m.numpy(), np.arange(12.).reshape(3, 4) * 3) and v._version > ver
m = ember.arange(12.).reshape(3, 4) * (r + 1)
w = dist.all_reduce(m[:, 1], op=dist.ReduceOp.MAX, async_op=True)
w.wait()
assert np.array_equal(m[:, 1].numpy(), np.array([1., 5, 9]) * 2) and m[0, 0].item() == 0
# 0-d and empty tensors
s0 = ember.tensor(float(r + 1)); dist.all_reduce(s0); assert s0.item() == 3.0 and s0.dim() == 0
e0 = ember.zeros(0, 3); dist.all_reduce(e0); assert e0.shape == (0, 3)

# ---- async Work and Future
t = ember.ones(4) * (r + 1)
w = dist.all_reduce(t, async_op=True)
fut = w.get_future()
ch = fut.then(lambda f: f.value()[0] * 10)
assert ch.wait().tolist() == [30.] * 4
assert fut.done() and fut.value()[0] is t and w.is_success() and w.exception() is None
assert w.result()[0] is t and t.tolist() == [3.] * 4
seen = []
w2 = dist.all_reduce(ember.ones(1), async_op=True)
f2 = w2.get_future()
f2.add_done_callback(lambda f: seen.append(f.value()[0].item()))
while not w2.is_completed():
    pass
assert seen == [2.0]
b = ember.full((5,), float(r))
w = dist.broadcast(b, src=1, async_op=True)
assert w.get_future().wait()[0] is b and b.tolist() == [1.] * 5
outs = [ember.zeros(3) for _ in range(2)]
w = dist.all_gather(outs, ember.ones(3) * r, async_op=True)
v = w.get_future().wait()     # as torch: the list's own tensors
assert v[0] is outs[0] and v[1] is outs[1] and [o.tolist() for o in outs] == [[0.] * 3, [1.] * 3]
big = ember.zeros(6)
w = dist.all_gather_into_tensor(big, ember.ones(3) * (r + 1), async_op=True)
v = w.get_future().wait()     # as torch: the output's piece of each rank
assert big.tolist() == [1.] * 3 + [2.] * 3 and [x.tolist() for x in v] == [[1.] * 3, [2.] * 3]
assert v[0]._base is big or v[0].data_ptr() == big.data_ptr()
# several in flight at once, completed out of order
ts = [ember.full((1000,), float(i + r)) for i in range(4)]
ws = [dist.all_reduce(x, async_op=True) for x in ts]
for k in (3, 1, 0, 2):
    ws[k].wait()
assert [x[0].item() for x in ts] == [2 * i + 1 for i in range(4)]
# an error inside then() is held by the chained future (a RuntimeError naming it, as torch)
bad = dist.all_reduce(ember.ones(1), async_op=True).get_future().then(lambda f: 1 / 0)
e = err(bad.wait)
assert e[0] == 'RuntimeError' and 'ZeroDivisionError: division by zero' in e[1], e
f = dist.Future(); c2 = f.then(lambda q: q.value() + 1); f.set_result(1); assert c2.wait() == 2

# ---- broadcast of every dtype, non-contiguous target
for dt in [ember.bool, ember.uint8, ember.int8, ember.int64, ember.float16, ember.bfloat16,
           ember.float64, ember.complex64]:
    src = (ember.arange(6) % 2 == 0) if dt == ember.bool else ember.arange(6).to(dt)
    t = src.clone() if r == 0 else ember.zeros(6, dtype=dt)
    dist.broadcast(t, src=0)
    assert t.dtype == dt and ember.equal(t, src), dt
mm = ember.zeros(3, 4)
target = mm.t()
if r == 0:
    target.copy_(ember.arange(12.).reshape(4, 3))
dist.broadcast(target, 0)
assert np.array_equal(mm.numpy(), np.arange(12.).reshape(4, 3).T)
assert err(lambda: dist.broadcast(ember.ones(1))) == ('ValueError', 'Must specify global_rank or group_rank')
assert err(lambda: dist.broadcast(ember.ones(1), 5)) == ('RuntimeError', 'ProcessGroupGloo::broadcast: invalid root rank: 5')

# ---- reduce: only dst gets the result, the others keep their input
x = ember.tensor([1., 2.]) * (r + 1)
assert dist.reduce(x, dst=0) is None
assert x.tolist() == ([3., 6.] if r == 0 else [2., 4.])
x = ember.tensor([3, 8], dtype=ember.int32) * (r + 1)
w = dist.reduce(x, dst=1, op=dist.ReduceOp.MAX, async_op=True); w.wait()
assert x.tolist() == ([3, 8] if r == 0 else [6, 16])
x = ember.tensor([1.5, 2.5], dtype=ember.bfloat16) * (r + 1)
dist.reduce(x, 1, dist.ReduceOp.AVG)
assert x.float().tolist() == ([1.5, 2.5] if r == 0 else [2.25, 3.75])

# ---- all_gather: list of different dtypes raises; a wrong-length list raises
outs = [ember.zeros(2, 3, dtype=ember.int16) for _ in range(2)]
x = ember.arange(6, dtype=ember.int16).reshape(3, 2).t() + 10 * r    # non-contiguous input
dist.all_gather(outs, x)
assert all(np.array_equal(outs[k].numpy(), np.arange(6).reshape(3, 2).T + 10 * k) for k in range(2))
assert err(lambda: dist.all_gather([ember.zeros(1)], ember.ones(1))) == (
    'RuntimeError', 'ProcessGroupGloo::allgather: invalid output tensor list at index 0 (expected length 2, got 1)')
assert err(lambda: dist.all_gather([ember.zeros(1), ember.zeros(1, dtype=ember.int64)], ember.ones(1))) == (
    'ValueError', 'Invalid usage of tensors with different dtypesFound torch.float32 and  torch.int64')
assert err(lambda: dist.all_reduce([ember.ones(1)]))[0] == 'TypeError'
big = ember.zeros(2, 2, 3, dtype=ember.complex64)
dist.all_gather_into_tensor(big, (ember.ones(2, 3) * (r + 1j)).to(ember.complex64))
assert np.array_equal(big.numpy(), np.stack([np.ones((2, 3)) * 1j, np.ones((2, 3)) * (1 + 1j)]))
# all_gather with different sizes per rank
outs = [ember.zeros(1), ember.zeros(3)]
dist.all_gather(outs, ember.ones(1 + 2 * r) * (r + 1))
assert outs[0].tolist() == [1.] and outs[1].tolist() == [2.] * 3

# ---- gather / scatter
g = [ember.zeros(2) for _ in range(2)] if r == 0 else None
assert dist.gather(ember.ones(2) * (r + 5), g) is None    # dst defaults to 0
if r == 0:
    assert [x.tolist() for x in g] == [[5., 5.], [6., 6.]]
g = [ember.zeros(2, dtype=ember.float16) for _ in range(2)] if r == 1 else None
w = dist.gather(ember.ones(2, dtype=ember.float16) * r, g, dst=1, async_op=True); w.wait()
if r == 1:
    assert [x.tolist() for x in g] == [[0., 0.], [1., 1.]]
msg = err(lambda: dist.gather(ember.ones(1), [ember.zeros(1)] * 2 if r == 1 else None))
assert msg == ('ValueError', 'Argument ``gather_list`` must be specified on destination rank.'
               if r == 0 else 'Argument ``gather_list`` must NOT be specified on non-destination ranks.')
o = ember.zeros(3)
dist.scatter(o, [ember.full((3,), 7.), ember.full((3,), 8.)] if r == 0 else None, src=0)
assert o.tolist() == [7. + r] * 3
o = ember.zeros(2, 2).t()
w = dist.scatter(o, [ember.arange(4.).reshape(2, 2) + 10 * k for k in range(2)] if r == 1 else None,
                 src=1, async_op=True)
w.wait()
assert np.array_equal(o.numpy(), np.arange(4.).reshape(2, 2) + 10 * r)
if r == 0:   # raised before anything is sent (rank 1 does not take part)
    assert err(lambda: dist.scatter(ember.zeros(1), None, src=0)) == (
        'ValueError', 'Argument ``scatter_list`` must be specified on source rank.')

# ---- reduce_scatter / reduce_scatter_tensor
o = ember.zeros(2)
dist.reduce_scatter(o, [ember.ones(2) * (r + 1), ember.ones(2) * (r + 1) * 10])
assert o.tolist() == ([3., 3.] if r == 0 else [30., 30.])
o = ember.zeros(2, dtype=ember.int64)
w = dist.reduce_scatter_tensor(o, ember.arange(4) * (r + 1), op=dist.ReduceOp.MAX, async_op=True)
w.wait()
assert o.tolist() == ([0, 2] if r == 0 else [4, 6])
o = ember.zeros(3, dtype=ember.float16)
dist.reduce_scatter_tensor(o, (ember.arange(6.) * (r + 1)).half().reshape(2, 3), op=dist.ReduceOp.AVG)
assert o.float().tolist() == ([0., 1.5, 3.] if r == 0 else [4.5, 6., 7.5])

# ---- all_to_all_single (equal and uneven splits) and all_to_all
out = ember.zeros(4)
dist.all_to_all_single(out, ember.arange(4.) + 4 * r)
assert out.tolist() == ([0., 1., 4., 5.] if r == 0 else [2., 3., 6., 7.])
ins = [ember.arange(3.) + 10, ember.arange(5.) + 20][r].reshape(-1, 1).expand(-1, 2)
insplit = [[1, 2], [3, 2]][r]
outsplit = [[1, 3], [2, 2]][r]
out = ember.zeros(sum(outsplit), 2)
w = dist.all_to_all_single(out, ins, outsplit, insplit, async_op=True); w.wait()
ref = [[10, 20, 21, 22], [11, 12, 23, 24]][r]
assert out[:, 0].tolist() == ref and out[:, 1].tolist() == ref
assert err(lambda: dist.all_to_all_single(ember.zeros(3), ember.ones(3))) == (
    'RuntimeError', "Tensor's dim 0 does not divide equally across group size")
assert err(lambda: dist.all_to_all_single(ember.zeros(3), ember.ones(3), [1, 2], [1, 1])) == (
    'RuntimeError', "Split sizes doesn't match total dim 0 size")
outs = [ember.zeros(1 + k, dtype=ember.int32) for k in range(2)] if r == 0 else [ember.zeros(1, dtype=ember.int32), ember.zeros(2, dtype=ember.int32)]
insl = [ember.full((1,), 100 * r, dtype=ember.int32), ember.full((1 + r,), 100 * r + 1, dtype=ember.int32)] if r == 0 else \
       [ember.full((2,), 100 * r, dtype=ember.int32), ember.full((2,), 100 * r + 1, dtype=ember.int32)]
dist.all_to_all(outs, insl)
assert [o.tolist() for o in outs] == ([[0], [100, 100]] if r == 0 else [[1], [101, 101]])

# ---- coalesced
a, b2 = ember.ones(2), ember.ones(3) * 2
dist.all_reduce_coalesced([a, b2])
assert a.tolist() == [2., 2.] and b2.tolist() == [4.] * 3
ol = [[ember.zeros(1), ember.zeros(1)]]
dist.all_gather_coalesced(ol, [ember.ones(1) * r])
assert [x.item() for x in ol[0]] == [0., 1.]

# ---- barrier (sync, async, timeout) and destroy
dist.barrier()
w = dist.barrier(async_op=True); w.wait()
import datetime
dist.barrier(timeout=datetime.timedelta(seconds=10))
dist.destroy_process_group()
assert not dist.is_initialized() and dist.group.WORLD is None
dist.init_process_group('gloo')      # again: MPI stays up, the groups are new
t = ember.ones(1); dist.all_reduce(t); assert t.item() == 2. and dist.get_pg_count() == 1
dist.destroy_process_group()
print('ok', r, flush=True)
'''

FOUR = COMMON + r'''
assert n == 4
for dt in ['float32', 'int64', 'float16']:
    for op, f in [('SUM', np.sum), ('PRODUCT', np.prod), ('MIN', np.min), ('MAX', np.max)]:
        vals = np.array([[1, 2, -3], [2, -1, 4], [3, 3, 1], [-2, 5, 2]])
        t = ember.tensor(vals[r].tolist(), dtype=getattr(ember, dt))
        dist.all_reduce(t, getattr(dist.ReduceOp, op))
        assert np.array_equal(t.float().numpy(), f(vals, axis=0).astype(np.float32)), (dt, op)
t = ember.ones(3) * r
dist.all_reduce(t, dist.ReduceOp.AVG); assert t.tolist() == [1.5] * 3
x = ember.ones(2) * (r + 1)
dist.reduce(x, dst=2)
assert x.tolist() == ([10., 10.] if r == 2 else [r + 1.] * 2)
b = ember.full((2,), float(r)); dist.broadcast(b, 3); assert b.tolist() == [3., 3.]
# uneven all_to_all_single: rank i sends (j + 1) rows to rank j
ins = ember.cat([ember.full((j + 1,), float(10 * r + j)) for j in range(4)])
out = ember.zeros(4 * (r + 1))
dist.all_to_all_single(out, ins, [r + 1] * 4, [j + 1 for j in range(4)])
assert out.tolist() == sum([[10. * s + r] * (r + 1) for s in range(4)], [])
o = ember.zeros(2)
dist.reduce_scatter_tensor(o, ember.arange(8.) * (r + 1))
assert o.tolist() == [10. * (2 * r), 10. * (2 * r + 1)]
outs = [ember.zeros(1) for _ in range(4)]
dist.all_gather(outs, ember.tensor([float(r * r)]))
assert [x.item() for x in outs] == [0., 1., 4., 9.]
dist.barrier()
print('ok', r, flush=True)
'''


# The same program on torch (gloo) and on ember: every collective's results, return values,
# dtypes and shapes are recorded per rank and compared (torch as the oracle).
ORACLE = r'''
import json, sys, warnings
warnings.filterwarnings('ignore')
lib = __import__(sys.argv[1])
dist = lib.distributed
dist.init_process_group('gloo')
r, n = dist.get_rank(), dist.get_world_size()
out = []

def rec(name, v):
    if isinstance(v, lib.Tensor):
        v = [str(v.dtype), list(v.shape), v.to(lib.complex128).view(lib.float64).tolist()
             if v.is_complex() else v.tolist()]
    elif isinstance(v, (list, tuple)):
        return [rec(f'{name}[{i}]', x) for i, x in enumerate(v)] and None
    elif isinstance(v, dict):
        v = {k: (rec(name + '.' + k, x) or 'T') if isinstance(x, lib.Tensor) else x for k, x in v.items()}
    out.append([name, v])

vals = [[1, 5, -3, 7], [4, 2, 6, -1]]
for dt in ['float32', 'float64', 'int64', 'int32', 'int8', 'uint8', 'float16', 'bfloat16']:  # gloo: no int16
    for op in ['SUM', 'PRODUCT', 'MIN', 'MAX'] + (['BAND', 'BOR', 'BXOR'] if 'int' in dt else []):
        t = lib.tensor([abs(x) for x in vals[r]] if dt == 'uint8' else vals[r]).to(getattr(lib, dt))
        rec(f'ar {dt} {op}', dist.all_reduce(t, getattr(dist.ReduceOp, op)))
        rec(f'ar {dt} {op} t', t)
for op in ['SUM', 'PRODUCT', 'MIN', 'MAX', 'BAND', 'BOR', 'BXOR']:
    t = lib.tensor([[True, False, True, False], [True, True, False, False]][r])
    dist.all_reduce(t, getattr(dist.ReduceOp, op)); rec(f'ar bool {op}', t)
t = lib.tensor([[1 + 2j, -3j], [0.5 - 1j, 2 + 2j]][r]); dist.all_reduce(t); rec('ar complex', t)
m = lib.arange(12.).reshape(3, 4) * (r + 1); dist.all_reduce(m.t()); rec('ar noncontig', m)
w = dist.all_reduce(lib.ones(2) * r, async_op=True); rec('ar work', [w.wait(), w.is_completed(), w.is_success()])
rec('ar fut', w.get_future().wait())
b = lib.arange(6.).reshape(2, 3) * (r + 1); rec('bc', dist.broadcast(b.t(), src=1)); rec('bc t', b)
# (the non-destination ranks' tensors are unspecified after reduce: gloo leaves partial results)
x = lib.tensor([1., 2.]) * (r + 1); rec('reduce', dist.reduce(x, dst=0)); rec('reduce t', x if r == 0 else None)
x = lib.tensor([3, 1]) * (r + 1); dist.reduce(x, dst=1, op=dist.ReduceOp.MAX); rec('reduce max', x if r == 1 else None)
outs = [lib.zeros(2, dtype=lib.int32) for _ in range(2)]
rec('ag', dist.all_gather(outs, lib.tensor([r, 10 * r], dtype=lib.int32))); rec('ag t', outs)
big = lib.zeros(4); rec('agt', dist.all_gather_into_tensor(big, lib.ones(2) * (r + 1))); rec('agt t', big)
g = [lib.zeros(2) for _ in range(2)] if r == 0 else None
rec('gather', dist.gather(lib.ones(2) * (r + 5), g, dst=0)); rec('gather t', g)
o = lib.zeros(3); rec('scatter', dist.scatter(o, [lib.full((3,), 7.), lib.full((3,), 8.)] if r == 0 else None, src=0)); rec('scatter t', o)
o = lib.zeros(2); rec('rs', dist.reduce_scatter(o, [lib.ones(2) * (r + 1), lib.ones(2) * (r + 1) * 10])); rec('rs t', o)
o = lib.zeros(2, dtype=lib.int64); dist.reduce_scatter_tensor(o, lib.arange(4) * (r + 1)); rec('rst', o)
o = lib.zeros(4); rec('a2a', dist.all_to_all_single(o, lib.arange(4.) + 4 * r)); rec('a2a t', o)
ins = [lib.arange(3.) + 10, lib.arange(5.) + 20][r]
o = lib.zeros(4); dist.all_to_all_single(o, ins, [[1, 3], [2, 2]][r], [[1, 2], [3, 2]][r]); rec('a2a uneven', o)
ins = [lib.full((2,), 100. * r + j) for j in range(2)]   # gloo: equal sizes only
outs = [lib.zeros(2) for j in range(2)]
rec('a2a list', dist.all_to_all(outs, ins)); rec('a2a list t', outs)
if r == 0:
    rec('send', dist.send(lib.arange(3.), dst=1))
else:
    y = lib.zeros(3); rec('recv', dist.recv(y, src=0)); rec('recv t', y)
s1, r1 = lib.full((2,), float(r)), lib.zeros(2)
ws = dist.batch_isend_irecv([dist.P2POp(dist.isend, s1, 1 - r), dist.P2POp(dist.irecv, r1, 1 - r)])
for w_ in ws:
    w_.wait()
rec('batch', r1)
objs = [None, None]; rec('ago', dist.all_gather_object(objs, {'r': r, 's': 'x' * r, 'l': [r, 2.5]})); rec('ago t', objs)
lst = ['x', 3, {'k': (1, 2)}] if r == 1 else [None, None, None]
rec('bol', dist.broadcast_object_list(lst, src=1)); rec('bol t', lst)
gl = [None, None] if r == 0 else None; rec('go', dist.gather_object([r], gl, dst=0)); rec('go t', gl)
so = [None]; dist.scatter_object_list(so, [{'i': 0}, {'i': 1}] if r == 0 else None, src=0); rec('so', so)
if r == 0:
    rec('sol', dist.send_object_list([1, 'two'], dst=1))
else:
    got = [None, None]; rec('rol', dist.recv_object_list(got, src=0)); rec('rol t', got)
grp = dist.new_group([1])
rec('grp', [dist.get_rank(grp), dist.get_world_size(grp), dist.get_process_group_ranks(grp) if r == 1 else None])
t = lib.ones(1) * r; rec('grp ar', dist.all_reduce(t, group=grp)); rec('grp ar t', t)
rec('world', [dist.get_rank(), dist.get_world_size(), dist.get_backend(), dist.is_initialized()])
dist.barrier()
dist.destroy_process_group()
print(json.dumps(out))
'''


def _run_oracle(lib):
    port = _free_port()
    procs = [subprocess.Popen([sys.executable, '-c', ORACLE, lib], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True,
                              env=dict(os.environ, OMP_NUM_THREADS='1', RANK=str(r),
                                       WORLD_SIZE='2', MASTER_ADDR='127.0.0.1',
                                       MASTER_PORT=str(port)))
             for r in range(2)]
    try:
        outs = [p.communicate(timeout=90) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    import json
    for p, (o, e) in zip(procs, outs):
        assert p.returncode == 0, e[-3000:]
    return [json.loads(o.strip().splitlines()[-1]) for o, e in outs]


@pytest.mark.skipif(not edist.is_mpi_available(), reason='mpi4py not installed')
def test_same_results_as_torch_gloo():
    theirs, ours = _run_oracle('torch'), _run_oracle('ember')
    for rank in range(2):
        assert len(ours[rank]) == len(theirs[rank])
        for o, t in zip(ours[rank], theirs[rank]):
            assert o == t, (rank, o, t)


def _free_port():
    s = socket.socket()
    s.bind(('127.0.0.1', 0))
    p = s.getsockname()[1]
    s.close()
    return p


def spawn(script, n, timeout=90, extra_env=None):
    """Start ``n`` independent ranks running ``script``; returns [(returncode, out, err)]."""
    port = _free_port()
    procs = []
    for r in range(n):
        env = dict(os.environ, OMP_NUM_THREADS='1', RANK=str(r), WORLD_SIZE=str(n),
                   MASTER_ADDR='127.0.0.1', MASTER_PORT=str(port), **(extra_env or {}))
        procs.append(subprocess.Popen([sys.executable, '-c', script], stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True, env=env))
    try:
        outs = [p.communicate(timeout=timeout) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    return [(p.returncode, o, e) for p, (o, e) in zip(procs, outs)]


def check_ok(results):
    for r, (rc, o, e) in enumerate(results):
        assert rc == 0, e[-3000:]
        assert o.strip().splitlines()[-1] == f'ok {r}', o


@pytest.mark.skipif(not edist.is_mpi_available(), reason='mpi4py not installed')
def test_collectives_two_ranks():
    check_ok(spawn(TWO, 2))


@pytest.mark.skipif(not edist.is_mpi_available(), reason='mpi4py not installed')
def test_collectives_four_ranks():
    check_ok(spawn(FOUR, 4))


FAULT = r'''
import os, sys, time, datetime, ember, ember.distributed as dist
mode, r = sys.argv[1], int(os.environ['RANK'])
if mode == 'late':          # only rank 0 is started: init fails within its timeout
    t0 = time.monotonic()
    try:
        dist.init_process_group('gloo', timeout=datetime.timedelta(seconds=1))
    except dist.DistStoreError as e:
        assert str(e) == 'Timed out after 1 seconds waiting for clients. 1/2 clients joined.', e
        assert time.monotonic() - t0 < 10 and not dist.is_initialized()
        print('ok', r, flush=True)
    sys.exit(0)
dist.init_process_group('gloo', timeout=datetime.timedelta(seconds=1 if mode == 'slow' else 60))
if mode == 'mismatch':      # TORCH_DISTRIBUTED_DEBUG=DETAIL: every rank raises
    assert dist.get_debug_level() == dist.DebugLevel.DETAIL
    e1 = None
    try:
        dist.all_reduce(ember.ones(3 + r))
    except RuntimeError as e:
        e1 = str(e)
    assert e1 == ("Detected mismatch between collectives on ranks. Rank {0} is running collective: "
                  "CollectiveFingerPrint(SequenceNumber=1, OpType=ALLREDUCE, TensorShape=[{1}], "
                  "TensorDtypes=torch.float32), but Rank {2} is running collective: "
                  "CollectiveFingerPrint(SequenceNumber=1, OpType=ALLREDUCE, TensorShape=[{3}], "
                  "TensorDtypes=torch.float32).").format(r, 3 + r, 1 - r, 4 - r), e1
    try:
        (dist.all_reduce if r == 0 else dist.broadcast)(ember.ones(2), **({} if r == 0 else {'src': 0}))
        raise AssertionError('no error')
    except RuntimeError as e:
        assert 'OpType=ALLREDUCE' in str(e) and 'OpType=BROADCAST' in str(e), e
    t = ember.ones(2) * r
    dist.all_reduce(t)          # still usable
    assert t.tolist() == [1., 1.]
    print('ok', r, flush=True)
    sys.exit(0)
t = ember.ones(4)
dist.all_reduce(t)
if r == 1:
    if mode == 'dead':
        os._exit(3)          # dies without finalizing MPI
    time.sleep(2.0)          # slow: misses rank 0's 1 s timeout, then catches up
    dist.all_reduce(t)
    print('ok', r, flush=True)
    sys.exit(0)
t0 = time.monotonic()
try:
    w = dist.all_reduce(t, async_op=(mode == 'dead'))
    if mode == 'dead':
        time.sleep(0.3)
        w.wait()
    raise AssertionError('no error')
except dist.DistBackendError as e:
    msg = str(e)
if mode == 'dead':     # the work failed: it holds the error
    assert w.is_completed() and not w.is_success() and w.exception() is not None
    try:
        w.get_future().wait()
        raise AssertionError('no error')
    except dist.DistBackendError:
        pass
if mode == 'dead':
    assert msg == ("[Rank 0] all_reduce failed: Connection closed by peer: a rank's process exited "
                   "before finalizing MPI"), msg
    assert time.monotonic() - t0 < 10
else:
    assert msg == "[Rank 0] all_reduce timed out after 1000 ms (the group's timeout)", msg
    assert 0.9 < time.monotonic() - t0 < 6
print('ok', r, flush=True)
'''


@pytest.mark.skipif(not edist.is_mpi_available(), reason='mpi4py not installed')
@pytest.mark.parametrize('mode', ['late', 'dead', 'slow', 'mismatch'])
def test_faults_fail_instead_of_hanging(mode):
    """A rank that never arrives, dies, or is late past the timeout: the others raise
    PyTorch's error types within the timeout (and exit cleanly). With
    TORCH_DISTRIBUTED_DEBUG=DETAIL, mismatched collectives raise on every rank."""
    n = 1 if mode == 'late' else 2
    port = _free_port()
    procs = [subprocess.Popen([sys.executable, '-c', FAULT, mode], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True,
                              env=dict(os.environ, OMP_NUM_THREADS='1', RANK=str(r),
                                       WORLD_SIZE='2', MASTER_ADDR='127.0.0.1',
                                       MASTER_PORT=str(port),
                                       TORCH_DISTRIBUTED_DEBUG='DETAIL' if mode == 'mismatch' else 'OFF'))
             for r in range(n)]
    try:
        outs = [p.communicate(timeout=60) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    rc0, o0, e0 = procs[0].returncode, outs[0][0], outs[0][1]
    assert rc0 == 0 and o0.strip() == 'ok 0', e0[-3000:]
    if mode == 'dead':
        assert procs[1].returncode == 3
    elif mode != 'late':
        assert procs[1].returncode == 0 and outs[1][0].strip() == 'ok 1', outs[1][1][-3000:]


def test_uninitialised_collective_raises():
    import ember
    with pytest.raises(ValueError, match='Default process group has not been initialized'):
        edist.all_reduce(ember.ones(2))


def test_missing_master_times_out(monkeypatch):
    import datetime
    import time
    import torch.distributed as tdist
    monkeypatch.setenv('MASTER_ADDR', '127.0.0.1')
    monkeypatch.setenv('MASTER_PORT', str(_free_port()))
    t0 = time.monotonic()
    with pytest.raises(edist.DistNetworkError, match='timed out after 500ms'):
        edist.init_process_group('gloo', rank=1, world_size=2,
                                 timeout=datetime.timedelta(seconds=0.5))
    assert time.monotonic() - t0 < 5 and not edist.is_initialized()
    assert issubclass(edist.DistNetworkError, RuntimeError)
    assert tdist.DistNetworkError.__name__ == edist.DistNetworkError.__name__


def test_env_errors(monkeypatch):
    import torch.distributed as tdist
    for k in ('RANK', 'MASTER_ADDR', 'MASTER_PORT', 'WORLD_SIZE'):
        monkeypatch.delenv(k, raising=False)
    msgs = []
    for D in (tdist, edist):
        with pytest.raises(ValueError) as e:
            D.init_process_group('gloo')
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]
