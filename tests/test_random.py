"""ember.random: Generator, manual_seed/seed/initial_seed, get/set_rng_state, fork_rng."""
import pytest
import torch

import ember
from oracle import check_error


def test_manual_seed_reproducible():
    ember.manual_seed(0)
    a = [ember.rand(5).tolist(), ember.randn(3).tolist(), ember.randint(0, 1000, (4,)).tolist(),
         ember.randperm(8).tolist(), ember.empty(3).normal_().tolist()]
    ember.manual_seed(0)
    b = [ember.rand(5).tolist(), ember.randn(3).tolist(), ember.randint(0, 1000, (4,)).tolist(),
         ember.randperm(8).tolist(), ember.empty(3).normal_().tolist()]
    assert a == b
    ember.manual_seed(1)
    assert ember.rand(5).tolist() != a[0]


def test_manual_seed_returns_default_generator():
    g = ember.manual_seed(3)
    assert g is ember.default_generator
    assert isinstance(g, ember.Generator)
    assert ember.initial_seed() == 3 and g.initial_seed() == 3


@pytest.mark.parametrize('seed', [0, 1, 2 ** 63 - 1, 2 ** 64 - 1, -1, -2 ** 63, '7', 2.0])
def test_seed_values_like_torch(seed):
    torch.manual_seed(seed)
    ember.manual_seed(seed)
    assert ember.initial_seed() == torch.initial_seed()
    if isinstance(seed, int):
        assert ember.Generator().manual_seed(seed).initial_seed() == \
            torch.Generator().manual_seed(seed).initial_seed()
    else:
        check_error(lambda m: m.Generator().manual_seed(seed), match='manual_seed expected a long')


@pytest.mark.parametrize('seed', [2 ** 64, -2 ** 63 - 1])
def test_seed_overflow(seed):
    check_error(lambda m: m.manual_seed(seed), match='Overflow when unpacking long')


def test_seed_nondeterministic():
    s1 = ember.seed()
    assert ember.initial_seed() == s1
    a = ember.rand(4).tolist()
    ember.manual_seed(s1)
    assert ember.rand(4).tolist() == a
    s2 = ember.seed()
    assert isinstance(s2, int) and s2 != s1


def test_rng_state_roundtrip():
    ember.manual_seed(11)
    ember.rand(3)
    st = ember.get_rng_state()
    assert st.dtype is ember.uint8 and st.dim() == 1
    a = ember.rand(10).tolist()
    b = ember.randn(2).tolist()
    ember.set_rng_state(st)
    assert ember.rand(10).tolist() == a and ember.randn(2).tolist() == b
    # the state is a copy: later draws do not change it
    assert ember.get_rng_state().tolist() != st.tolist()
    ember.set_rng_state(st)
    assert ember.rand(10).tolist() == a


def test_set_state_errors():
    check_error(lambda m: m.set_rng_state(m.zeros(3)), match='RNG state must be a torch.ByteTensor')
    check_error(lambda m: m.Generator().set_state(m.zeros(3)), match='RNG state must be a torch.ByteTensor')
    check_error(lambda m: m.set_rng_state(m.zeros(3, dtype=m.uint8)), match='found the input RNG state size to be 3')


def test_generator_object():
    g = ember.Generator()
    assert g.device == ember.device('cpu')
    assert ember.Generator(device='cpu').device.type == 'cpu'
    assert g.manual_seed(5) is g
    st = g.get_state()
    x = ember.rand(4, generator=g).tolist()
    assert g.set_state(st) is g
    assert ember.rand(4, generator=g).tolist() == x
    g2 = g.clone_state()
    assert ember.rand(3, generator=g2).tolist() == ember.rand(3, generator=g).tolist()
    s = g.seed()
    assert g.initial_seed() == s
    assert ember.random.Generator is ember.Generator


def test_independent_generators():
    g1 = ember.Generator().manual_seed(1)
    g2 = ember.Generator().manual_seed(1)
    a = ember.rand(3, generator=g1).tolist()
    ember.rand(100)                       # default generator draws do not interfere
    assert ember.rand(3, generator=g2).tolist() == a


def test_fork_rng():
    ember.manual_seed(5)
    with ember.random.fork_rng():
        inner = ember.rand(3).tolist()
        ember.manual_seed(99)
        ember.rand(3)
    after = ember.rand(3).tolist()
    assert after == inner      # the outer stream is restored exactly
    with ember.random.fork_rng(enabled=False):
        ember.rand(3)
    ember.manual_seed(5)
    ember.rand(3)
    ember.rand(3)
    st = ember.get_rng_state().tolist()
    with ember.random.fork_rng(devices=[]):
        ember.randn(10)
    assert ember.get_rng_state().tolist() == st
    try:
        with ember.random.fork_rng():
            ember.rand(5)
            raise KeyError('x')
    except KeyError:
        pass
    assert ember.get_rng_state().tolist() == st


def test_namespace():
    for name in ('manual_seed', 'seed', 'initial_seed', 'get_rng_state', 'set_rng_state',
                 'fork_rng', 'default_generator', 'Generator'):
        assert hasattr(ember.random, name)
    for name in ('manual_seed', 'seed', 'initial_seed', 'get_rng_state', 'set_rng_state',
                 'default_generator', 'Generator'):
        assert hasattr(ember, name), name
    assert ember.random.default_generator is ember.default_generator


class _WorkerDataset:
    """Each item is what thread_safe_generator() returns inside the worker."""
    def __init__(self, m):
        self.m = m

    def __len__(self):
        return 2

    def __getitem__(self, i):
        return self.m.random.thread_safe_generator() is None


@pytest.mark.parametrize('method', ['multiprocessing', 'thread'])
def test_thread_safe_generator(method, monkeypatch):
    import types
    import torch
    import ember.utils.data._utils.worker as ew
    import torch.utils.data._utils.worker as tw
    assert ember.random.thread_safe_generator() is None
    assert torch.random.thread_safe_generator() is None
    got = []
    for m, w in ((ember, ew), (torch, tw)):
        g = m.Generator()
        info = w.WorkerInfo(id=0, num_workers=1, seed=1, dataset=None,
                            rng=types.SimpleNamespace(torch_generator=g), worker_method=method)
        monkeypatch.setattr(w, '_worker_info', info)
        got.append(m.random.thread_safe_generator() is g)
        info = w.WorkerInfo(id=0, num_workers=1, seed=1, dataset=None, rng=None,
                            worker_method=method)
        monkeypatch.setattr(w, '_worker_info', info)
        got.append(m.random.thread_safe_generator() is None)
    assert got[:2] == got[2:] == [method == 'thread', True]


def test_thread_safe_generator_in_process_workers():
    import torch
    out = []
    for m in (ember, torch):
        dl = m.utils.data.DataLoader(_WorkerDataset(m), batch_size=None, num_workers=1)
        out.append([bool(x) for x in dl])
    assert out[0] == out[1] == [True, True]
