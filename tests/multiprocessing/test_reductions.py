"""Tensors through ember.multiprocessing queues and pipes travel through shared memory:
the receiver sees the sender's later in-place writes, as in PyTorch."""
from multiprocessing.reduction import ForkingPickler

import pytest
import torch
import torch.multiprocessing as tmp

import ember
import ember.multiprocessing as mp
import _mp_targets as targets


@pytest.fixture(params=['file_descriptor', 'file_system'])
def strategy(request):
    old = mp.get_sharing_strategy()
    mp.set_sharing_strategy(request.param)
    yield request.param
    mp.set_sharing_strategy(old)


def test_sharing_strategies_like_torch():
    assert mp.get_all_sharing_strategies() == tmp.get_all_sharing_strategies()
    assert mp.get_sharing_strategy() == tmp.get_sharing_strategy() == 'file_descriptor'
    for mod in (mp, tmp):
        with pytest.raises(AssertionError, match="invalid sharing strategy 'bogus'"):
            mod.set_sharing_strategy('bogus')


def test_share_memory_and_is_shared_like_torch():
    for m in (ember, torch):
        x = m.arange(6.).reshape(2, 3)
        v = x[1]
        assert not x.is_shared()
        assert x.share_memory_() is x
        assert x.is_shared() and v.is_shared()
        x[1, 0] = 10.
        assert v.tolist() == [10., 4., 5.]
        assert x.untyped_storage().is_shared()
        assert x.storage_offset() == 0 and x[1].storage_offset() == 3


def test_pipe_receiver_sees_later_writes(strategy):
    a, b = mp.Pipe()
    x = ember.arange(4.)
    a.send(x)
    y = b.recv()
    assert x.is_shared() and y.is_shared()
    x.mul_(2)
    assert y.tolist() == [0., 2., 4., 6.]
    y[0] = -1.
    assert x[0].item() == -1.


def test_queue_between_processes_both_ways(strategy):
    ctx = mp.get_context('fork')
    q_in, q_out = ctx.Queue(), ctx.Queue()
    p = ctx.Process(target=targets.add_one_inplace, args=(q_in, q_out))
    p.start()
    try:
        x = ember.zeros(3)
        q_in.put(x)
        assert q_out.get(timeout=30) == 'done'
        assert x.tolist() == [1., 1., 1.]          # the child's in-place write
        x[2] = 7.
        q_in.put(None)
        assert q_out.get(timeout=30) == [1., 1., 7.]   # the parent's later write
    finally:
        p.join(timeout=30)
    assert p.exitcode == 0


def test_spawned_child_gets_shared_tensor():
    ctx = mp.get_context('spawn')
    q = ctx.Queue()
    t = ember.ones(5)
    p = ctx.Process(target=targets.sum_of, args=(2, t, q))
    p.start()
    assert q.get(timeout=60) == 7.0
    p.join(timeout=30)
    assert t.is_shared()


def test_views_dtypes_params_and_storages_round_trip():
    mp.init_reductions()
    x = ember.arange(12, dtype=ember.int16).reshape(3, 4)
    p = ember.nn.Parameter(ember.randn(2, 2))
    leaf = ember.ones(2, requires_grad=True)
    x_r, v_r, p_r, leaf_r, st_r = ForkingPickler.loads(ForkingPickler.dumps(
        (x, x.t()[1:], p, leaf, x.untyped_storage())))
    assert x_r.dtype is ember.int16 and x_r.tolist() == x.tolist()
    assert v_r.tolist() == x.t()[1:].tolist() and v_r.stride() == x.t()[1:].stride()
    assert type(p_r) is ember.nn.Parameter and p_r.requires_grad and ember.equal(p_r, p)
    assert leaf_r.requires_grad and leaf_r.is_leaf
    x[0, 1] = 100
    assert v_r[0, 0].item() == 100 and x_r[0, 1].item() == 100
    assert v_r.untyped_storage() is x_r.untyped_storage()   # one storage per block
    assert st_r.nbytes() == x.untyped_storage().nbytes()


def test_non_leaf_requiring_grad_is_refused_like_torch():
    mp.init_reductions()
    tmp.init_reductions()
    msgs = []
    for m in (ember, torch):
        y = m.ones(2, requires_grad=True) * 2
        with pytest.raises(RuntimeError) as ei:
            ForkingPickler.dumps(y)
        msgs.append(str(ei.value))
    assert msgs[0] == msgs[1]
