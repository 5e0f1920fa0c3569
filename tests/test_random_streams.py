"""PyTorch's random streams: after the same seed every sampler gives torch 2.13's CPU values
bit for bit, and leaves the generator in the same state (the 5056-byte state tensors are
compared too, so the stream position matches after every call)."""
import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import ember
import ember.nn as enn
import torch.nn as tnn
from ember._ops.random_ops import dropout_noise

torch.set_num_threads(1)

SEEDS = [0, 5, 2 ** 32 + 5, -1]
FLOATS = ['float32', 'float64', 'float16', 'bfloat16']
INTS = ['int64', 'int32', 'int16', 'int8', 'uint8']
SIZES = [0, 1, 15, 16, 17, 100, 1000]


def _np(x):
    if isinstance(x, torch.Tensor):
        return x.float().numpy() if x.dtype == torch.bfloat16 else x.numpy()
    return x.float().numpy() if x.dtype is ember.bfloat16 else x.numpy()


def same(fn, seeds=SEEDS, calls=2, gen=False):
    """``fn(module)`` gives bit-identical values (NaN == NaN) and generator states on
    ember and torch, for every seed, ``calls`` times in a row."""
    for sd in seeds:
        if gen:
            ge, gt = ember.Generator().manual_seed(sd), torch.Generator().manual_seed(sd)
        else:
            ember.manual_seed(sd)
            torch.manual_seed(sd)
        for i in range(calls):
            e = fn(ember, ge) if gen else fn(ember)
            t = fn(torch, gt) if gen else fn(torch)
            a, b = _np(e), _np(t)
            assert a.dtype == b.dtype and a.shape == b.shape, (sd, i, a.dtype, b.dtype)
            assert np.array_equal(a, b, equal_nan=True), (sd, i, a.ravel()[:6], b.ravel()[:6])
        se = (ge.get_state() if gen else ember.get_rng_state()).numpy()
        st = (gt.get_state() if gen else torch.get_rng_state()).numpy()
        assert np.array_equal(se, st), (sd, np.nonzero(se != st)[0][:8])


def dt(m, name):
    return getattr(m, name)


# ------------------------------------------------------------------ state and seeding
@pytest.mark.parametrize('seed', [0, 1, 5, 2 ** 32 + 5, 2 ** 63 - 1, 2 ** 64 - 1, -1, -2 ** 63,
                                  67280421310721])
def test_state_after_seed(seed):
    ember.manual_seed(seed)
    torch.manual_seed(seed)
    st = ember.get_rng_state()
    assert st.dtype is ember.uint8 and st.shape == (5056,)
    assert np.array_equal(st.numpy(), torch.get_rng_state().numpy())
    assert ember.initial_seed() == torch.initial_seed()


def test_default_generator_state_like_torch():
    assert np.array_equal(ember.Generator().get_state().numpy(),
                          torch.Generator().get_state().numpy())


@pytest.mark.parametrize('n', [1, 623, 624, 625, 1248, 1249])
def test_state_positions(n):
    """The mt19937 ``left`` / ``next`` fields across regenerations."""
    same(lambda m: m.rand(n), seeds=[3], calls=1)
    same(lambda m: m.rand(n, dtype=m.float64), seeds=[3], calls=1)


def test_states_move_between_ember_and_torch():
    for sd in [0, 7, 123]:
        torch.manual_seed(sd)
        ember.manual_seed(sd)
        torch.randn(3)                 # leaves a cached normal sample in the state
        ember.randn(3)
        ember.set_rng_state(ember.tensor(torch.get_rng_state().numpy()))
        assert np.array_equal(ember.randn(5).numpy(), torch.randn(5).numpy())
        torch.set_rng_state(torch.tensor(ember.get_rng_state().numpy()))
        assert np.array_equal(ember.rand(7).numpy(), torch.rand(7).numpy())
        assert np.array_equal(ember.get_rng_state().numpy(), torch.get_rng_state().numpy())
    g, ge = torch.Generator().manual_seed(9), ember.Generator()
    torch.randn(1, generator=g)
    ge.set_state(ember.tensor(g.get_state().numpy()))
    assert np.array_equal(ember.randn(3, generator=ge).numpy(), torch.randn(3, generator=g).numpy())
    assert ge.initial_seed() == g.initial_seed() == 9


def test_legacy_state_size_accepted():
    torch.manual_seed(4)
    ember.set_rng_state(ember.tensor(torch.get_rng_state().numpy()[:5048]))
    assert np.array_equal(ember.rand(5).numpy(), torch.rand(5).numpy())


def test_invalid_state():
    st = ember.get_rng_state().numpy().copy()
    st[8:12] = 0                                   # left = 0
    with pytest.raises(RuntimeError, match='Invalid mt19937 state'):
        ember.set_rng_state(ember.tensor(st))


def test_generator_kwarg_and_fork_rng():
    same(lambda m, g: m.cat([m.rand(5, generator=g), m.randn(20, generator=g),
                             m.randint(0, 9, (4,), generator=g).float(),
                             m.randperm(6, generator=g).float()]), gen=True)
    ember.manual_seed(2)
    torch.manual_seed(2)
    with ember.random.fork_rng():
        ember.randn(10)
    with torch.random.fork_rng():
        torch.randn(10)
    assert np.array_equal(ember.randn(4).numpy(), torch.randn(4).numpy())


# ------------------------------------------------------------------ uniform / integers
@pytest.mark.parametrize('n', SIZES)
@pytest.mark.parametrize('d', FLOATS)
def test_rand_uniform(n, d):
    same(lambda m: m.rand(n, dtype=dt(m, d)))
    same(lambda m: m.empty(n, dtype=dt(m, d)).uniform_(-0.37, 0.41))


def test_uniform_never_reaches_to():
    # half / bfloat16 round large uniforms up to ``to``; PyTorch maps them to ``from``
    same(lambda m: m.rand(20000, dtype=m.bfloat16), seeds=[0, 1])
    same(lambda m: m.empty(20000, dtype=m.float16).uniform_(-0.3, 1.7), seeds=[5])


@pytest.mark.parametrize('d', ['complex64', 'complex128'])
def test_complex(d):
    for n in [1, 7, 8, 9, 100]:
        same(lambda m: m.rand(n, dtype=dt(m, d)))
        same(lambda m: m.randn(n, dtype=dt(m, d)))


@pytest.mark.parametrize('n', [0, 1, 17, 1000])
@pytest.mark.parametrize('d', INTS + FLOATS)
def test_randint_random(n, d):
    lo = 3 if d == 'uint8' else -3
    same(lambda m: m.randint(lo, 100, (n,), dtype=dt(m, d)))
    same(lambda m: m.empty(n, dtype=dt(m, d)).random_())
    same(lambda m: m.empty(n, dtype=dt(m, d)).random_(7))
    same(lambda m: m.empty(n, dtype=dt(m, d)).random_(5, None))


def test_random_bool_and_full_range():
    same(lambda m: m.empty(100, dtype=m.bool).random_())
    same(lambda m: m.empty(100, dtype=m.int64).random_(-2 ** 63, None))


@pytest.mark.parametrize('hi', [2 ** 28 - 1, 2 ** 28, 2 ** 31, 2 ** 40, 2 ** 62])
def test_randint_wide_ranges_use_64_bit_draws(hi):
    same(lambda m: m.randint(-5, hi, (50,)))
    same(lambda m: m.randint(-5, min(hi, 2 ** 31 - 1), (50,), dtype=m.int32))


@pytest.mark.parametrize('n', [0, 1, 2, 5, 100, 1000, 100000])
def test_randperm(n):
    same(lambda m: m.randperm(n), seeds=[0, 2 ** 32 + 5])
    same(lambda m: m.randperm(n, dtype=m.float32), seeds=[1], calls=1)


def test_random_split_permutation():
    from torch.utils.data import random_split
    g = torch.Generator().manual_seed(42)
    perm_t = sum((s.indices for s in random_split(range(50), [20, 30], generator=g)), [])
    ge = ember.Generator().manual_seed(42)
    assert ember.randperm(50, generator=ge).tolist() == perm_t


# ------------------------------------------------------------------ normal
@pytest.mark.parametrize('n', SIZES + [4096])
@pytest.mark.parametrize('d', FLOATS)
def test_randn_normal(n, d):
    same(lambda m: m.randn(n, dtype=dt(m, d)))
    same(lambda m: m.empty(n, dtype=dt(m, d)).normal_(0.5, 2.5))


def test_randn_large_float32():
    same(lambda m: m.randn(100000), seeds=[0, 11], calls=1)
    same(lambda m: m.randn(200003), seeds=[5], calls=1)      # several chunks + a tail
    same(lambda m: m.randn(3, 5, 7, 11), seeds=[3])


def test_normal_overloads():
    M = np.random.default_rng(1).standard_normal((5, 7)).astype(np.float32)
    S = np.abs(M) + 0.1
    same(lambda m: m.normal(m.tensor(M), 2.0))
    same(lambda m: m.normal(0.5, m.tensor(S)))
    same(lambda m: m.normal(m.tensor(M), m.tensor(S)))
    same(lambda m: m.normal(m.tensor(np.tile(M, (4, 1))), m.tensor(np.tile(S, (4, 1)))))
    same(lambda m: m.normal(0.5, 2.0, size=(40,)))
    same(lambda m: m.normal(0.5, 2.0, size=(3,), dtype=m.float64))


# ------------------------------------------------------------------ other samplers
@pytest.mark.parametrize('n', [0, 1, 17, 1000])
@pytest.mark.parametrize('d', FLOATS)
def test_continuous_samplers(n, d):
    same(lambda m: m.empty(n, dtype=dt(m, d)).exponential_(1.7))
    same(lambda m: m.empty(n, dtype=dt(m, d)).geometric_(0.3))
    same(lambda m: m.empty(n, dtype=dt(m, d)).cauchy_(0.5, 2.0))
    same(lambda m: m.empty(n, dtype=dt(m, d)).log_normal_(0.2, 0.7))
    same(lambda m: m.poisson(m.linspace(0, 30, n, dtype=dt(m, d))))


@pytest.mark.parametrize('n', [0, 1, 17, 1000])
@pytest.mark.parametrize('d', FLOATS)
def test_bernoulli(n, d):
    same(lambda m: m.empty(n, dtype=dt(m, d)).bernoulli_(0.3))
    same(lambda m: m.bernoulli(m.linspace(0, 1, n, dtype=dt(m, d))))
    same(lambda m: m.bernoulli(m.zeros(n, dtype=dt(m, d)), 0.6))


def test_bernoulli_other_dtypes_and_p():
    same(lambda m: m.empty(50, dtype=m.int32).bernoulli_(0.3))
    same(lambda m: m.empty(50, dtype=m.bool).bernoulli_(0.3))
    same(lambda m: m.empty(50, dtype=m.int64).geometric_(0.3))
    same(lambda m: m.empty(50, dtype=m.float64).bernoulli_(m.rand(50)))
    same(lambda m: m.empty(50).bernoulli_(m.rand(50, dtype=m.float64)))
    same(lambda m: m.zeros(6, 5).bernoulli_(m.rand(5)))


@pytest.mark.parametrize('d', FLOATS)
def test_multinomial(d):
    P = np.random.default_rng(0).random((4, 50)).astype(np.float32) + 0.01
    P[:, ::7] = 0
    cases = [(1, False), (1, True), (20, True), (200, True)]
    if d in ('float32', 'float64'):
        cases += [(5, False), (40, False)]       # fewer than the nonzero categories: no ties
    for k, rep in cases:
        same(lambda m: m.multinomial(m.tensor(P, dtype=dt(m, d)), k, replacement=rep))
        same(lambda m: m.multinomial(m.tensor(P[0], dtype=dt(m, d)), k, replacement=rep))


# ------------------------------------------------------------------ layout, interleaving
@pytest.mark.parametrize('op', ['uniform_', 'normal_', 'exponential_', 'bernoulli_',
                                'cauchy_', 'log_normal_'])
def test_non_contiguous_fill_in_memory_order(op):
    for shape, perm in [((4, 6), (1, 0)), ((3, 4, 5), (2, 0, 1)), ((20, 3), (1, 0))]:
        def f(m):
            x = m.zeros(shape).permute(*perm)
            getattr(x, op)()
            return x
        same(f, seeds=[0, 1])

        def g(m):
            x = m.zeros(shape)[..., ::2]
            getattr(x, op)()
            return x
        same(g, seeds=[0, 1])

    def h(m):
        x = m.zeros(6, 5).t()
        x.random_(0, 10)
        return x
    same(h, seeds=[0])


def test_interleaved_samplers():
    def f(m):
        outs = [m.rand(3), m.randn(1), m.randn(20), m.randint(0, 10, (5,)),
                m.randn(3, dtype=m.float64), m.randperm(7), m.empty(5).exponential_(),
                m.randn(1), m.empty(3).log_normal_(), m.rand(2, dtype=m.float64),
                m.empty(17, dtype=m.float16).normal_(), m.bernoulli(m.full((9,), 0.4)),
                m.multinomial(m.ones(6), 3), m.empty(4).geometric_(0.2),
                m.randint(0, 2 ** 40, (3,)), m.empty(5).cauchy_()]
        return m.cat([o.double().reshape(-1) for o in outs])
    same(f, seeds=[0, 1, 2, 3, 99, 2 ** 40, -7], calls=3)


# ------------------------------------------------------------------ layers, init, dropout
def test_default_layer_init():
    def f(m):
        nn = enn if m is ember else tnn
        ps = []
        for mod in [nn.Linear(5, 3), nn.Conv2d(3, 4, 3), nn.Linear(20, 30, bias=False),
                    nn.Conv1d(2, 6, 5), nn.BatchNorm1d(4)]:
            ps += [p.detach().reshape(-1) for p in mod.parameters()]
        return m.cat(ps)
    same(f)


@pytest.mark.parametrize('name,kw', [
    ('uniform_', dict(a=-2, b=3)), ('normal_', dict(mean=1, std=0.3)),
    ('xavier_uniform_', {}), ('xavier_normal_', {}), ('kaiming_uniform_', dict(a=0.1)),
    ('kaiming_normal_', dict(mode='fan_out')), ('trunc_normal_', dict(std=0.5)),
    ('trunc_normal_', dict(mean=0.3, std=2.0, a=-0.1, b=0.2)), ('sparse_', dict(sparsity=0.5))])
def test_nn_init(name, kw):
    def f(m):
        nn = enn if m is ember else tnn
        w = m.empty(30, 20)
        getattr(nn.init, name)(w, **kw)
        return w
    same(f, seeds=[0, 5])


@pytest.mark.parametrize('d', FLOATS)
def test_dropout_noise(d):
    for p in [0.1, 0.5, 0.9, 1.0]:
        same(lambda m: (dropout_noise(m.ones(4, 5, 6, dtype=dt(m, d)), p) if m is ember
                        else TF.dropout(m.ones(4, 5, 6, dtype=dt(m, d)), p)), seeds=[0, 3])
        same(lambda m: (dropout_noise(m.ones(4, 5, 3, 3, dtype=dt(m, d)), p, feature=True)
                        .expand(4, 5, 3, 3) if m is ember
                        else TF.dropout2d(m.ones(4, 5, 3, 3, dtype=dt(m, d)), p)), seeds=[1])


def test_randint_bounds_errors_and_warnings_like_torch():
    """Integer dtypes refuse out-of-range bounds; floating ones refuse bounds beyond the
    dtype's range and warn beyond its exact integers (values there: see randint's NOTE)."""
    import warnings
    cases = [(0, 70000, 'float16'), (0, 2 ** 30, 'float32'), (-2 ** 30, 0, 'bfloat16'),
             (0, 2000, 'float16'), (0, 300, 'uint8'), (-1, 5, 'uint8'), (0, 2 ** 40, 'int32'),
             (0, 2 ** 30, 'float64'), (5, 5, 'int64')]
    for lo, hi, dt in cases:
        got = []
        for m in (ember, torch):
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter('always')
                try:
                    r = m.randint(lo, hi, (3,), dtype=getattr(m, dt)).dtype
                    r = str(r)
                except Exception as e:      # noqa: BLE001 - compared with torch's
                    r = (type(e).__name__, str(e))
            got.append((r, [str(x.message).split(' (Triggered')[0] for x in w]))
        assert got[0] == got[1], (lo, hi, dt, got)


@pytest.mark.parametrize('dt', ['int64', 'int32', 'int16', 'uint8', 'float32', 'float64',
                                'bfloat16', 'float16'])
def test_randint_in_range_values_all_dtypes(dt):
    for lo, hi in ((-5, 7), (0, 2), (3, 250), (0, 2000)):
        if dt in ('uint8', 'bfloat16') and (lo < 0 or hi > 256):
            continue
        same(lambda m: m.randint(lo, hi, (40,), dtype=getattr(m, dt)), seeds=[3])
