"""``_functional_collectives`` (out-of-place collectives returning AsyncCollectiveTensor),
``distributed.constants``, and all_reduce's default peer check (mismatched shapes or dtypes
raise on every rank, naming each rank's), on 2 ranks; results compared with torch's gloo run
of the same program."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from _ranks import run_ranks  # noqa: E402

PROG = r'''
import importlib, json, sys
M = sys.argv[1]
torch = importlib.import_module(M)
dist = importlib.import_module(M + '.distributed')
funcol = importlib.import_module(M + '.distributed._functional_collectives')
dist.init_process_group('gloo')
r = dist.get_rank()
R = {}
x = (torch.arange(12.) + 10 * r).reshape(3, 4)
g = dist.group.WORLD
a = funcol.all_reduce(x, 'sum', g)
R['type'] = type(a).__name__
R['all_reduce'] = funcol.wait_tensor(a).tolist()
R['input_kept'] = x.tolist()
R['all_reduce_max_list'] = funcol.all_reduce(x, 'max', [0, 1]).wait().tolist()
for k, f in [('gather0', lambda: funcol.all_gather_tensor(x, 0, g)),
             ('gather1', lambda: funcol.all_gather_tensor(x, 1, g)),
             ('rs0', lambda: funcol.reduce_scatter_tensor(
                 torch.arange(8.).reshape(4, 2) * (r + 1), 'sum', 0, g)),
             ('rs1', lambda: funcol.reduce_scatter_tensor(
                 torch.arange(8.).reshape(2, 4) * (r + 1), 'sum', 1, g))]:
    v = f()
    R[k] = [type(v).__name__, funcol.wait_tensor(v).tolist()]
mesh = dist.init_device_mesh('cpu', (2,))
R['mesh_group'] = funcol.all_reduce(x, 'sum', mesh).wait().tolist()
R['mesh_dim'] = funcol.all_reduce(x, 'sum', (mesh, 0)).wait().tolist()
R['ops_plain'] = type((a + 1)).__name__
consts = importlib.import_module(M + '.distributed.constants')
R['timeout'] = consts.default_pg_timeout.total_seconds()
R['nccl_timeout'] = consts.default_pg_nccl_timeout
print('RESULT ' + json.dumps(R), flush=True)
'''

PEER = r'''
import ember, ember.distributed as dist
dist.init_process_group('gloo')
r = dist.get_rank()
for t in (ember.ones(3 + r), ember.ones(3, dtype=ember.float64 if r else ember.float32),
          ember.ones(2, 2) if r else ember.ones(4)):
    try:
        dist.all_reduce(t)
        raise AssertionError('no error')
    except RuntimeError as e:
        print(str(e), flush=True)
t = ember.ones(3)
dist.all_reduce(t)                 # the group still works after the refusals
w = dist.all_reduce(ember.ones(2) * r, async_op=True)
w.wait()
assert t.tolist() == [2., 2., 2.]
print('ok', flush=True)
'''


def _results(outs):
    return [json.loads([ln for ln in o.splitlines() if ln.startswith('RESULT ')][0][7:])
            for o in outs]


def test_functional_collectives_match_torch():
    theirs = _results(run_ranks(PROG, n=2, timeout=90, args=('torch',)))
    ours = _results(run_ranks(PROG, n=2, timeout=60, args=('ember',)))
    for t, e in zip(theirs, ours):
        assert e == t


def test_all_reduce_mismatch_raises_on_every_rank():
    outs = run_ranks(PEER, n=2, timeout=60)
    for o in outs:
        lines = o.strip().splitlines()
        assert lines[-1] == 'ok'
        assert lines[0] == ("all_reduce: the tensors passed by the ranks of the group do not "
                            "match: rank 0 has shape [3] and dtype torch.float32, rank 1 has "
                            "shape [4] and dtype torch.float32")
        assert lines[1].endswith("rank 0 has shape [3] and dtype torch.float32, rank 1 has "
                                 "shape [3] and dtype torch.float64")
        assert lines[2].endswith("rank 0 has shape [4] and dtype torch.float32, rank 1 has "
                                 "shape [2, 2] and dtype torch.float32")
