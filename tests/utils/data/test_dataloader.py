"""ember.utils.data.DataLoader against torch's: batches, shuffling draws, lengths, errors,
warnings; real worker processes (order, seeding, sharding, errors, shutdown)."""
import gc
import multiprocessing
import os
import random
import signal
import time
import warnings

import numpy as np
import pytest
import torch
import torch.utils.data as TD

import ember
import ember.utils.data as ED

T = 30   # every worker test waits at most this long for a batch


def errors_same(fe, ft):
    with pytest.raises(Exception) as ee:
        fe()
    with pytest.raises(Exception) as et:
        ft()
    assert type(ee.value) is type(et.value)
    assert str(ee.value) == str(et.value)


def lists(x):
    if isinstance(x, (ember.Tensor, torch.Tensor)):
        return x.tolist()
    if isinstance(x, dict):
        return {k: lists(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [lists(v) for v in x]
    return x


def pair(n=23, d=3):
    x = np.arange(n * d, dtype=np.float32).reshape(n, d)
    y = np.arange(n)
    return (ED.TensorDataset(ember.tensor(x), ember.tensor(y)),
            TD.TensorDataset(torch.tensor(x), torch.tensor(y)))


def no_children():
    gc.collect()   # an iterator kept alive by a caught exception's traceback stops here
    deadline = time.time() + 10
    while multiprocessing.active_children() and time.time() < deadline:
        time.sleep(0.05)
    return multiprocessing.active_children() == []


# ------------------------------------------------------------------ single process
@pytest.mark.parametrize('kw', [dict(), dict(batch_size=5), dict(batch_size=5, drop_last=True),
                                dict(batch_size=None), dict(batch_size=4, shuffle=True),
                                dict(batch_size=23, shuffle=True), dict(shuffle=True)])
def test_batches_and_shuffle_match_torch(kw):
    de, dt = pair()
    for seed in (0, 11):
        ember.manual_seed(seed)
        torch.manual_seed(seed)
        le, lt = ED.DataLoader(de, **kw), TD.DataLoader(dt, **kw)
        assert len(le) == len(lt)
        for _ in range(2):
            assert lists(list(le)) == lists(list(lt))
        assert ember.rand(2).tolist() == torch.rand(2).tolist()   # same draws consumed


def test_generator_drives_shuffle_and_base_seed():
    de, dt = pair()
    ge, gt = ember.Generator().manual_seed(3), torch.Generator().manual_seed(3)
    le = ED.DataLoader(de, batch_size=6, shuffle=True, generator=ge)
    lt = TD.DataLoader(dt, batch_size=6, shuffle=True, generator=gt)
    for _ in range(3):
        assert lists(list(le)) == lists(list(lt))
    assert ge.initial_seed() == gt.initial_seed()
    assert ember.randperm(9, generator=ge).tolist() == torch.randperm(9, generator=gt).tolist()


def test_sampler_and_batch_sampler_args():
    de, dt = pair(10)
    se, st = ED.SequentialSampler(range(10)), TD.SequentialSampler(range(10))
    assert lists(list(ED.DataLoader(de, sampler=[9, 0, 3], batch_size=2))) == \
        lists(list(TD.DataLoader(dt, sampler=[9, 0, 3], batch_size=2)))
    be, bt = ED.BatchSampler(se, 4, False), TD.BatchSampler(st, 4, False)
    le, lt = ED.DataLoader(de, batch_sampler=be), TD.DataLoader(dt, batch_sampler=bt)
    assert len(le) == len(lt) == 3
    assert lists(list(le)) == lists(list(lt))
    assert le.batch_size is None and lt.batch_size is None


def test_collate_fn_and_dict_samples():
    class DS(ED.Dataset):
        def __len__(self):
            return 5

        def __getitem__(self, i):
            return {'x': np.full(2, i), 'name': f's{i}'}

    class DT(TD.Dataset):
        __len__ = DS.__len__
        __getitem__ = DS.__getitem__
    assert lists(list(ED.DataLoader(DS(), batch_size=2))) == lists(list(TD.DataLoader(DT(), batch_size=2)))
    out = list(ED.DataLoader(DS(), batch_size=2, collate_fn=len))
    assert out == [2, 2, 1]


def test_custom_collate_gets_a_list_of_samples():
    de, dt = pair(5)
    seen = []

    def coll(batch):
        seen.append(type(batch))
        return [s[1].item() for s in batch]
    assert list(ED.DataLoader(de, batch_size=2, collate_fn=coll)) == \
        list(TD.DataLoader(dt, batch_size=2, collate_fn=coll))
    assert set(seen) == {list}


def test_argument_errors_match_torch():
    de, dt = pair(4)
    cases = [dict(num_workers=-1), dict(timeout=-1), dict(prefetch_factor=2),
             dict(persistent_workers=True), dict(shuffle=True, sampler=[0]),
             dict(batch_sampler=[[0]], batch_size=2), dict(batch_sampler=[[0]], shuffle=True),
             dict(batch_sampler=[[0]], sampler=[0]), dict(batch_sampler=[[0]], drop_last=True),
             dict(batch_size=None, drop_last=True), dict(multiprocessing_context='spawn'),
             dict(num_workers=1, multiprocessing_context='nope'),
             dict(num_workers=1, multiprocessing_context=3),
             dict(num_workers=1, prefetch_factor=-1)]
    for kw in cases:
        errors_same(lambda: ED.DataLoader(de, **kw), lambda: TD.DataLoader(dt, **kw))
    le, lt = ED.DataLoader(de), TD.DataLoader(dt)
    errors_same(lambda: setattr(le, 'batch_size', 3), lambda: setattr(lt, 'batch_size', 3))


class ItE(ED.IterableDataset):
    def __init__(self, n, reported=None):
        self.n, self.reported = n, reported

    def __iter__(self):
        info = ED.get_worker_info()
        k, w = (0, 1) if info is None else (info.id, info.num_workers)
        return iter(range(k, self.n, w))

    def __len__(self):
        return self.n if self.reported is None else self.reported

    def __repr__(self):
        return 'ItDS'


class ItT(TD.IterableDataset):
    __init__ = ItE.__init__
    __len__ = ItE.__len__
    __repr__ = ItE.__repr__

    def __iter__(self):
        info = TD.get_worker_info()
        k, w = (0, 1) if info is None else (info.id, info.num_workers)
        return iter(range(k, self.n, w))


def test_iterable_dataset_len_and_errors():
    for kw in [dict(), dict(batch_size=3), dict(batch_size=3, drop_last=True),
               dict(batch_size=None)]:
        le, lt = ED.DataLoader(ItE(10), **kw), TD.DataLoader(ItT(10), **kw)
        assert len(le) == len(lt)
        assert lists(list(le)) == lists(list(lt))
    for kw in [dict(shuffle=True), dict(sampler=[0]), dict(batch_sampler=[[0]])]:
        errors_same(lambda: ED.DataLoader(ItE(3), **kw), lambda: TD.DataLoader(ItT(3), **kw))


def test_iterable_dataset_length_warning():
    msgs = {}
    for name, D, mod in (('e', ItE, ED), ('t', ItT, TD)):
        dl = mod.DataLoader(D(5, reported=2), batch_size=None)
        len(dl)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            list(dl)
        msgs[name] = [str(x.message) for x in w]
    assert msgs['e'] == msgs['t'] and len(msgs['e']) == 3


def test_pin_memory_without_accelerator_warns_like_torch():
    de, dt = pair(4)
    got = {}
    for k, mod, d in (('e', ED, de), ('t', TD, dt)):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            out = list(mod.DataLoader(d, batch_size=2, pin_memory=True))
        got[k] = ([str(x.message) for x in w], lists(out))
    assert got['e'] == got['t']


def test_worker_number_warning():
    de, _ = pair(4)
    with pytest.warns(UserWarning, match='This DataLoader will create 64 worker processes'):
        ED.DataLoader(de, num_workers=64)


def test_speed_path_single_stack_values():
    x = ember.randn(50, 4)
    ds = ED.TensorDataset(x, ember.arange(50))
    ember.manual_seed(0)
    xs, ys = zip(*ED.DataLoader(ds, batch_size=8, shuffle=True))
    ys = ember.cat(ys)
    assert ember.equal(ember.cat(xs), x[ys])


# ------------------------------------------------------------------ worker processes
class Info(ED.Dataset):
    def __len__(self):
        return 12

    def __getitem__(self, i):
        info = ED.get_worker_info()
        return (ember.full((2,), float(i)), info.id, info.seed, info.num_workers,
                ember.rand(()).item(), random.random(), float(np.random.rand()))


class InfoT(TD.Dataset):
    def __len__(self):
        return 12

    def __getitem__(self, i):
        info = TD.get_worker_info()
        return (torch.full((2,), float(i)), info.id, info.seed, info.num_workers,
                torch.rand(()).item(), random.random(), float(np.random.rand()))


def test_workers_order_seeds_and_draws_match_torch():
    ember.manual_seed(5)
    torch.manual_seed(5)
    e = lists(list(ED.DataLoader(Info(), batch_size=3, num_workers=2, timeout=T)))
    t = lists(list(TD.DataLoader(InfoT(), batch_size=3, num_workers=2, timeout=T)))
    assert e == t
    assert [b[1] for b in e] == [[0] * 3, [1] * 3, [0] * 3, [1] * 3]
    assert ember.rand(2).tolist() == torch.rand(2).tolist()
    assert no_children()


def test_worker_batches_come_through_shared_memory_in_order():
    de, _ = pair(40, 5)
    ember.manual_seed(0)
    got = list(ED.DataLoader(de, batch_size=7, shuffle=True, num_workers=2, timeout=T))
    ember.manual_seed(0)
    ref = list(ED.DataLoader(de, batch_size=7, shuffle=True))
    assert lists(got) == lists(ref)
    assert all(b[0].is_shared() and b[1].is_shared() for b in got)


def test_in_order_false_gives_every_batch():
    de, _ = pair(30)
    got = list(ED.DataLoader(de, batch_size=4, num_workers=2, in_order=False, timeout=T))
    assert sorted(sum((b[1].tolist() for b in got), [])) == list(range(30))


def test_iterable_sharding_and_worker_init_fn():
    calls = []
    le = ED.DataLoader(ItE(11), batch_size=2, num_workers=2, timeout=T,
                       worker_init_fn=lambda wid: calls.append(wid))
    lt = TD.DataLoader(ItT(11), batch_size=2, num_workers=2, timeout=T)
    assert lists(list(le)) == lists(list(lt))
    assert calls == []   # called in the workers, not here


class Boom(ED.Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        if i == 5:
            raise KeyError('missing item 5')
        return i


def test_worker_exception_reraised_with_traceback():
    msg = None
    try:
        list(ED.DataLoader(Boom(), batch_size=2, num_workers=2, timeout=T))
    except KeyError as e:
        msg = str(e)
    gc.collect()   # the failed iterator (held by the traceback) shuts its workers down
    assert 'Caught KeyError in DataLoader worker process 0.' in msg
    assert 'Original Traceback (most recent call last):' in msg
    assert "raise KeyError('missing item 5')" in msg
    assert no_children()


def test_worker_init_fn_exception():
    def init(wid):
        raise ValueError(f'init failed {wid}')
    with pytest.raises(ValueError, match='init failed 0'):
        list(ED.DataLoader(list(range(4)), num_workers=1, worker_init_fn=init, timeout=T))


class Killer(ED.Dataset):
    def __len__(self):
        return 6

    def __getitem__(self, i):
        if i == 0:
            os.kill(os.getpid(), signal.SIGKILL)
        return i


def test_killed_worker_raises_runtime_error():
    t0 = time.time()
    with pytest.raises(RuntimeError, match=r'DataLoader worker \(pid\(s\) \d+\) exited unexpectedly'):
        list(ED.DataLoader(Killer(), batch_size=1, num_workers=2))
    assert time.time() - t0 < T
    assert no_children()


class LateKiller(ED.Dataset):
    """Kills its worker mid-epoch, after the other worker has used the shared result pipe
    (the race once surfaced the pipe's EOFError instead of torch's error)."""
    def __len__(self):
        return 40

    def __getitem__(self, i):
        if i == 10:
            os.kill(os.getpid(), signal.SIGKILL)
        return i


def test_worker_killed_mid_epoch_raises_runtime_error():
    for _ in range(5):
        with pytest.raises(RuntimeError,
                           match=r'DataLoader worker \(pid\(s\) \d+\) exited unexpectedly'):
            list(ED.DataLoader(LateKiller(), batch_size=2, num_workers=2, timeout=T))
        assert no_children()


class Sleepy(ED.Dataset):
    def __len__(self):
        return 2

    def __getitem__(self, i):
        time.sleep(0.6)
        return i


def test_timeout_raises():
    t0 = time.time()
    with pytest.raises(RuntimeError, match=r'DataLoader timed out after 0.2 seconds'):
        list(ED.DataLoader(Sleepy(), num_workers=1, timeout=0.2))
    assert time.time() - t0 < T


def test_no_zombies_after_break_and_gc():
    de, _ = pair(50)
    it = iter(ED.DataLoader(de, batch_size=2, num_workers=2, timeout=T))
    pids = [w.pid for w in it._workers]
    next(it)
    del it
    gc.collect()
    assert no_children()
    for pid in pids:   # reaped: no /proc entry left (a zombie would keep one)
        assert not os.path.exists(f'/proc/{pid}') or \
            open(f'/proc/{pid}/stat').read().split()[2] != 'Z'
    for b in ED.DataLoader(de, batch_size=2, num_workers=2, timeout=T):
        break
    gc.collect()
    assert no_children()


def test_persistent_workers_across_epochs():
    de, _ = pair(9)
    dl = ED.DataLoader(de, batch_size=4, num_workers=2, persistent_workers=True, timeout=T)
    a = lists(list(dl))
    pids = [w.pid for w in dl._iterator._workers]
    b = lists(list(dl))
    assert a == b == lists(list(ED.DataLoader(de, batch_size=4)))
    assert [w.pid for w in dl._iterator._workers] == pids
    dl._iterator._shutdown_workers()
    assert no_children()


def test_spawn_context():
    from _spawn_dataset import Picklable
    out = list(ED.DataLoader(Picklable(), batch_size=2, num_workers=1, timeout=60,
                             multiprocessing_context='spawn'))
    assert lists(out) == [[[0, 0], [1, 0]], [[2, 0], [3, 0]]]


def test_workers_with_file_system_sharing_strategy():
    import ember.multiprocessing as emp
    de, _ = pair(200, 4)
    old = emp.get_sharing_strategy()
    emp.set_sharing_strategy('file_system')
    try:
        for _ in range(2):
            got = list(ED.DataLoader(de, batch_size=3, num_workers=2, timeout=T))
            assert lists(got) == lists(list(ED.DataLoader(de, batch_size=3)))
        del got
    finally:
        emp.set_sharing_strategy(old)
    gc.collect()
    assert no_children()
    assert not [f for f in os.listdir('/dev/shm') if f.startswith(f'ember_{os.getpid()}_')]


class Unsharded(ED.IterableDataset):
    def __iter__(self):
        return iter(range(3))

    def __len__(self):
        return 3

    def __repr__(self):
        return 'Unsharded'


class UnshardedT(TD.IterableDataset):
    __iter__ = Unsharded.__iter__
    __len__ = Unsharded.__len__
    __repr__ = Unsharded.__repr__


def test_iterable_dataset_with_workers_duplicates_and_warns_like_torch():
    got = []
    for mod, D in ((ED, Unsharded), (TD, UnshardedT)):
        dl = mod.DataLoader(D(), batch_size=None, num_workers=2, timeout=T)
        assert len(dl) == 3
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            items = [int(v) for v in dl]
        got.append((items, [str(x.message) for x in w]))
    assert got[0] == got[1]
    assert got[0][0] == [0, 0, 1, 1, 2, 2] and len(got[0][1]) == 3
    assert 'For multiprocessing data-loading' in got[0][1][0]
