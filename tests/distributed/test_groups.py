"""Process groups on 4 independently started ranks: group.WORLD, new_group (members and
non-members, torch's return values and warnings), collectives and object collectives with
group=, src/dst as global ranks, new_subgroups, new_subgroups_by_enumeration, split_group,
rank translation, destroy, and torch's errors. One spawn, bounded by a timeout."""
import pytest

import ember.distributed as edist
from tests.distributed.test_collectives import COMMON, check_ok, spawn

SCRIPT = COMMON + r'''
import warnings
W = dist.group.WORLD
assert isinstance(W, dist.ProcessGroup) and W is dist.GroupMember.WORLD
assert (W.rank(), W.size(), W.group_name, W.name()) == (r, 4, '0', 'gloo')
assert dist.get_process_group_ranks(None) == [0, 1, 2, 3] and dist.get_pg_count() == 1
g = dist.new_group([3, 1])                     # sorted: group rank 0 is global rank 1
assert dist.get_pg_count() == 2
if r in (1, 3):
    assert isinstance(g, dist.ProcessGroup) and g.rank() == (r - 1) // 2 and g.size() == 2
    assert dist.get_rank(g) == g.rank() and dist.get_world_size(g) == 2
    assert dist.get_process_group_ranks(g) == [1, 3] and g.group_name == '1'
    assert dist.get_group_rank(g, 3) == 1 and dist.get_global_rank(g, 0) == 1
    assert err(lambda: dist.get_group_rank(g, 0))[1].startswith('Global rank 0 is not part of group')
    assert err(lambda: dist.get_global_rank(g, 2))[1].startswith('Group rank 2 is not part of group')
    t = ember.ones(2) * r
    dist.all_reduce(t, group=g); assert t.tolist() == [4., 4.]
    w = dist.all_reduce(t, op=dist.ReduceOp.MAX, group=g, async_op=True); w.wait()
    b = ember.full((2,), float(r)); dist.broadcast(b, src=3, group=g); assert b.tolist() == [3., 3.]
    b = ember.full((2,), float(r)); dist.broadcast(b, group=g, group_src=0); assert b.tolist() == [1., 1.]
    assert err(lambda: dist.broadcast(b, src=0, group=g))[1].startswith('Global rank 0 is not part of group')
    x = ember.ones(1) * r; dist.reduce(x, dst=3, group=g)
    assert x.item() == (4. if r == 3 else 1.)
    outs = [ember.zeros(1), ember.zeros(1)]
    dist.all_gather(outs, ember.tensor([float(r)]), group=g)
    assert [o.item() for o in outs] == [1., 3.]
    gl = [ember.zeros(1), ember.zeros(1)] if r == 1 else None
    dist.gather(ember.tensor([r * 2.]), gl, group=g)          # dst: the group's first rank
    if r == 1:
        assert [o.item() for o in gl] == [2., 6.]
    objs = [None, None]
    dist.all_gather_object(objs, {'r': r}, group=g); assert objs == [{'r': 1}, {'r': 3}]
    peer = 4 - r
    if r == 1:
        dist.send(ember.ones(1) * 9, dst=3, group=g)
    else:
        y = ember.zeros(1); assert dist.recv(y, src=1, group=g) == 1 and y.item() == 9.
    dist.barrier(group=g)
else:
    assert g == dist.GroupMember.NON_GROUP_MEMBER == -100
    assert dist.get_rank(g) == -1 and dist.get_world_size(g) == -1
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter('always')
        t = ember.ones(2)
        assert dist.all_reduce(t, group=g) is None and t.tolist() == [1., 1.]
        assert dist.broadcast(t, src=1, group=g) is None
        assert dist.barrier(group=g) is None
    assert len(ws) == 3 and str(ws[0].message) == (
        f"Running all_reduce on global rank {r} which does not belong to the given group.")
    assert err(lambda: dist.get_group_rank(g, 1)) == ('ValueError', 'Global rank 1 is not part of group -100')
# subgroups
cur, subs = dist.new_subgroups(group_size=2)
assert len(subs) == 2 and dist.get_process_group_ranks(cur) == [r - r % 2, r - r % 2 + 1]
t = ember.tensor([float(r)]); dist.all_reduce(t, group=cur)
assert t.item() == (1. if r < 2 else 5.)
cur2, subs2 = dist.new_subgroups_by_enumeration([[0, 2], [1, 3]])
assert dist.get_process_group_ranks(cur2) == [r % 2, r % 2 + 2]
t = ember.tensor([float(r)]); dist.all_reduce(t, group=cur2)
assert t.item() == (2. if r % 2 == 0 else 4.)
assert err(lambda: dist.new_subgroups_by_enumeration([[0, 1], [1, 2]])) == (
    'ValueError', 'Rank 1 has appeared in both subgroup [0, 1] and [1, 2]')
assert err(lambda: dist.new_subgroups(group_size=3)) == (
    'ValueError', "The world size (4) must be divisible by 'group_size=3'")
assert err(lambda: dist.new_group([0, 1], backend='nccl')) == (
    'RuntimeError', "Distributed package doesn't have NCCL built in")
assert err(lambda: dist.new_group([0, 0])) == ('ValueError', 'ranks list must not contain duplicate entries, got [0, 0]')
assert err(lambda: dist.new_group([0, 4])) == ('ValueError', 'Rank 4 is out of range. Valid ranks are 0 to 3 (world_size=4)')
sg = dist.split_group(split_ranks=[[0, 3], [1, 2]])
assert dist.get_process_group_ranks(sg) == ([0, 3] if r in (0, 3) else [1, 2])
t = ember.tensor([1.]); dist.all_reduce(t, group=sg); assert t.item() == 2.
# use_local_synchronization: only the members call it; groups made later still line up
if r < 2:
    lg = dist.new_group([0, 1], use_local_synchronization=True)
    t = ember.ones(1); dist.all_reduce(t, group=lg); assert t.item() == 2.
g12 = dist.new_group([1, 2])
if r in (1, 2):
    t = ember.ones(1) * r; dist.all_reduce(t, group=g12); assert t.item() == 3.
# DeviceMesh: a group along each dimension
mesh = dist.init_device_mesh('cpu', (2, 2), mesh_dim_names=('dp', 'tp'))
assert mesh.shape == (2, 2) and mesh.ndim == 2 and mesh.size() == 4 and mesh.size('tp') == 2
assert mesh.get_coordinate() == [r // 2, r % 2] and mesh.get_local_rank('dp') == r // 2
assert dist.get_process_group_ranks(mesh.get_group('tp')) == [r - r % 2, r - r % 2 + 1]
assert dist.get_process_group_ranks(mesh.get_group(0)) == [r % 2, r % 2 + 2]
sub = mesh['tp']
assert sub.mesh.tolist() == [r - r % 2, r - r % 2 + 1] and sub.get_group() is mesh.get_group('tp')
t = ember.tensor([float(r)]); dist.all_reduce(t, group=mesh.get_group('dp'))
assert t.item() == (2. if r % 2 == 0 else 4.)
assert dist.init_device_mesh('cpu', (4,)).get_group() is W
assert err(lambda: dist.init_device_mesh('cpu', (3,)))[0] == 'RuntimeError'
assert err(lambda: mesh.get_group())[0] == 'RuntimeError'
assert err(lambda: mesh.get_group('pp'))[0] == 'KeyError'
# shrink_group: only the remaining ranks call it
if r != 3:
    sh = dist.shrink_group([3])
    assert dist.get_process_group_ranks(sh) == [0, 1, 2] and sh.rank() == r
    t = ember.tensor([float(r)]); dist.all_reduce(t, group=sh); assert t.item() == 3.
# the group's own methods (group ranks, Work results)
t = ember.ones(2) * r
W.allreduce([t]).wait(); assert t.tolist() == [6., 6.]
o = dist.AllreduceOptions(); o.reduceOp = dist.ReduceOp.MAX
t = ember.ones(1) * r; W.allreduce([t], o).wait(); assert t.item() == 3.
t = ember.ones(1) * r; W.broadcast([t], 2).wait(); assert t.item() == 2.
W.barrier().wait()
outs = [ember.zeros(1) for _ in range(4)]
W.allgather([outs], [ember.tensor([float(r)])]).wait(); assert [x.item() for x in outs] == [0., 1., 2., 3.]
if r in (0, 1):
    w = W.send([ember.ones(1) * 7], 1) if r == 0 else W.recv([t], 0)
    w.wait()
    assert r == 0 or t.item() == 7.
# destroying a group
dist.destroy_process_group(cur)
assert err(lambda: dist.all_reduce(ember.ones(1), group=cur)) == (
    'ValueError', 'Invalid process group specified or has been destroyed.')
dist.barrier()
dist.destroy_process_group()
assert dist.group.WORLD is None and not dist.is_initialized()
print('ok', r, flush=True)
'''


@pytest.mark.skipif(not edist.is_mpi_available(), reason='mpi4py not installed')
def test_groups_four_ranks():
    check_ok(spawn(SCRIPT, 4))
