"""all_reduce's default peer check (mismatched shapes or dtypes raise on every rank, naming
each rank's) and the functional collectives' result types, on 2 ranks. The functional
collectives' values (and ``distributed.constants``) are compared with torch's gloo run in
test_dtensor.py, which runs one program under both (one torch launch for both files)."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from _ranks import run_ranks  # noqa: E402

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
import ember.distributed._functional_collectives as funcol
a = funcol.all_reduce(ember.ones(2) * (r + 1), 'sum', dist.group.WORLD)
assert type(a).__name__ == 'AsyncCollectiveTensor' and a.wait().tolist() == [3., 3.]
assert type(a + 1) is ember.Tensor and type(a.wait()) is ember.Tensor
assert funcol.wait_tensor(a).tolist() == [3., 3.]
try:
    funcol.all_reduce(ember.ones(2), 'nope', dist.group.WORLD)
    raise AssertionError('no error')
except ValueError as e:
    assert 'reduce op' in str(e)
print('ok', flush=True)
'''


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
