"""Random samplers: statistics over large samples, ranges, dtypes, shapes, errors (vs
torch's error types), reproducibility. Values are never compared with torch."""
import math

import numpy as np
import pytest
import torch

import ember
from oracle import check_error

N = 200_000


def stats(t):
    a = t.double().numpy()
    return a.mean(), a.std()


@pytest.fixture(autouse=True)
def _seed():
    ember.manual_seed(1234)
    yield


# ------------------------------------------------------------------ rand / randn
@pytest.mark.parametrize('dtype', ['float32', 'float64', 'float16', 'bfloat16'])
def test_rand_range_and_moments(dtype):
    dt = getattr(ember, dtype)
    t = ember.rand(N, dtype=dt)
    assert t.dtype is dt and t.shape == (N,)
    a = t.float().numpy()
    assert a.min() >= 0 and a.max() < 1
    assert abs(a.mean() - 0.5) < 0.01
    assert abs(a.std() - math.sqrt(1 / 12)) < 0.01


def test_rand_float32_drawn_in_float32():
    a = ember.rand(1000)._data
    assert a.dtype == np.float32
    # 24-bit grid: every value is k / 2**24
    k = a.astype(np.float64) * 2 ** 24
    assert np.all(k == np.round(k))
    # half: PyTorch rounds the float (24-bit) uniform to half, never reaching 1
    h = ember.rand(100000, dtype=ember.float16)._data
    assert h.max() < 1


@pytest.mark.parametrize('dtype', ['float32', 'float64', 'float16', 'bfloat16'])
def test_randn_moments(dtype):
    dt = getattr(ember, dtype)
    t = ember.randn(N, dtype=dt)
    assert t.dtype is dt
    m, s = stats(t)
    assert abs(m) < 0.02 and abs(s - 1) < 0.02


def test_complex_rand_randn():
    t = ember.randn(N, dtype=ember.complex64)
    assert t.dtype is ember.complex64
    a = t.numpy()
    assert abs(a.real.std() - math.sqrt(0.5)) < 0.01 and abs(a.imag.std() - math.sqrt(0.5)) < 0.01
    u = ember.rand(1000, dtype=ember.complex128).numpy()
    assert (u.real >= 0).all() and (u.real < 1).all() and (u.imag >= 0).all()


@pytest.mark.parametrize('fn', ['rand', 'randn'])
def test_shapes_and_kwargs(fn):
    f = getattr(ember, fn)
    assert f(2, 3).shape == (2, 3)
    assert f((2, 3)).shape == (2, 3)
    assert f([4]).shape == (4,)
    assert f(size=(2,)).shape == (2,)
    assert f(()).shape == ()
    assert f(0, 3).shape == (0, 3)
    assert f(2, dtype=ember.float64).dtype is ember.float64
    t = f(3, requires_grad=True)
    assert t.requires_grad and t.is_leaf
    assert f(3, device='cpu').device == ember.device('cpu')
    out = ember.zeros(5)
    r = f(2, 2, out=out)
    assert r is out and out.shape == (2, 2)
    ember.set_default_dtype(ember.float64)
    try:
        assert f(2).dtype is ember.float64
    finally:
        ember.set_default_dtype(ember.float32)


def test_rand_errors():
    check_error(lambda m: m.rand(2, dtype=m.int64), match='"check_uniform_bounds" not implemented for \'Long\'')
    check_error(lambda m: m.randn(2, dtype=m.int32), match='"normal_kernel_cpu" not implemented for \'Int\'')
    check_error(lambda m: m.rand(-1), match='negative dimension')
    check_error(lambda m: m.rand_like(m.zeros(2, dtype=m.int64)))


# ------------------------------------------------------------------ randint / randperm
def test_randint():
    t = ember.randint(10, (N,))
    assert t.dtype is ember.int64
    a = t.numpy()
    assert a.min() == 0 and a.max() == 9
    assert abs(a.mean() - 4.5) < 0.05
    t = ember.randint(-5, 5, (3, 4))
    assert t.shape == (3, 4) and t.min().item() >= -5 and t.max().item() < 5
    assert ember.randint(3, 10, (3,), dtype=ember.float32).dtype is ember.float32
    assert ember.randint(5, size=(2,)).shape == (2,)
    assert ember.randint(low=1, high=5, size=(2,)).shape == (2,)
    u = ember.randint(0, 256, (1000,), dtype=ember.uint8).numpy()
    assert u.dtype == np.uint8 and u.max() > 200
    big = ember.randint(-2 ** 62, 2 ** 62, (100,))
    assert big.abs().max().item() > 2 ** 55


def test_randint_errors():
    check_error(lambda m: m.randint(3, 3, (3,)), match="random_ expects 'from' to be less than 'to', but got from=3 >= to=3")
    check_error(lambda m: m.randint(-5, (2,)), match="from=0 >= to=-5")
    check_error(lambda m: m.randint(10, 3), match='must be tuple of ints')
    check_error(lambda m: m.randint(0, 300, (3,), dtype=m.uint8), match='to - 1 is out of bounds for unsigned char')
    check_error(lambda m: m.randint(5, (2,), dtype=m.bool), match='to - 1 is out of bounds for bool')


def test_randperm():
    for n in (0, 1, 5, 1000):
        p = ember.randperm(n)
        assert p.dtype is ember.int64 and sorted(p.tolist()) == list(range(n))
    assert ember.randperm(4, dtype=ember.float32).dtype is ember.float32
    check_error(lambda m: m.randperm(-1), match='negative dimension')
    firsts = [ember.randperm(4)[0].item() for _ in range(400)]
    assert set(firsts) == {0, 1, 2, 3}


# ------------------------------------------------------------------ normal overloads
def test_normal_overloads():
    m = ember.full((N,), 3.)
    t = ember.normal(m, 2.)
    mu, s = stats(t)
    assert abs(mu - 3) < 0.03 and abs(s - 2) < 0.03
    t = ember.normal(-1., ember.full((N,), 0.5, dtype=ember.float64))
    assert t.dtype is ember.float64
    mu, s = stats(t)
    assert abs(mu + 1) < 0.01 and abs(s - 0.5) < 0.01
    t = ember.normal(ember.zeros(N // 2, 1), ember.tensor([1., 4.]))
    assert t.shape == (N // 2, 2)
    a = t.numpy()
    assert abs(a[:, 0].std() - 1) < 0.03 and abs(a[:, 1].std() - 4) < 0.1
    t = ember.normal(2., 3., (N,))
    mu, s = stats(t)
    assert abs(mu - 2) < 0.05 and abs(s - 3) < 0.05
    assert ember.normal(0., 1., size=(2,), dtype=ember.float64).dtype is ember.float64
    assert ember.normal(ember.zeros(2), ember.ones(2, dtype=ember.float64)).dtype is ember.float32
    assert ember.normal(ember.zeros(3), 0.).tolist() == [0., 0., 0.]


def test_normal_errors():
    check_error(lambda m: m.normal(m.zeros(2), -1.), match='normal expects std >= 0.0, but found std -1')
    check_error(lambda m: m.normal(m.zeros(2), m.tensor([1., -1.])), match='normal expects all elements of std >= 0.0')
    check_error(lambda m: m.normal(2., m.tensor([1., -1.])), match='normal expects all elements of std >= 0.0')
    check_error(lambda m: m.normal(m.zeros(2), m.ones(3)))
    check_error(lambda m: m.normal(0., 1.))
    check_error(lambda m: m.normal(m.zeros(2, dtype=m.int64), 1.), match='not implemented for \'Long\'')


def test_normal_autograd():
    mean = ember.zeros(3, requires_grad=True)
    std = ember.ones(3, requires_grad=True)
    names = [type(ember.normal(mean, 1.).grad_fn).__name__,
             type(ember.normal(0., std).grad_fn).__name__,
             type(ember.normal(mean, std).grad_fn).__name__]
    tm = torch.zeros(3, requires_grad=True)
    ts = torch.ones(3, requires_grad=True)
    expect = [type(torch.normal(tm, 1.).grad_fn).__name__, type(torch.normal(0., ts).grad_fn).__name__,
              type(torch.normal(tm, ts).grad_fn).__name__]
    assert names == expect
    ember.normal(mean, std).sum().backward()
    assert mean.grad.tolist() == [0., 0., 0.] and std.grad.tolist() == [0., 0., 0.]


# ------------------------------------------------------------------ bernoulli / multinomial / poisson
def test_bernoulli():
    p = ember.full((N,), 0.3)
    b = ember.bernoulli(p)
    assert b.dtype is ember.float32
    a = b.numpy()
    assert set(np.unique(a)) <= {0., 1.} and abs(a.mean() - 0.3) < 0.01
    assert ember.bernoulli(ember.tensor([0., 1., 0., 1.])).tolist() == [0., 1., 0., 1.]
    assert ember.bernoulli(ember.zeros(5), p=1.0).tolist() == [1.] * 5
    assert ember.bernoulli(ember.zeros(5, dtype=ember.float64), 0.5).dtype is ember.float64
    assert ember.tensor([0.2, 0.8]).bernoulli().shape == (2,)
    g = ember.Generator().manual_seed(0)
    assert ember.bernoulli(ember.full((4,), 0.5), generator=g).shape == (4,)
    check_error(lambda m: m.bernoulli(m.tensor([0., 2.])), match='Expected p_in >= 0 && p_in <= 1')
    check_error(lambda m: m.bernoulli(m.tensor([0, 1])), match='not implemented for \'Long\'')
    x = ember.zeros(3, requires_grad=True)
    assert type(ember.bernoulli(x).grad_fn).__name__ == 'BernoulliBackward0'


def test_multinomial():
    w = ember.tensor([1., 2., 7.])
    s = ember.multinomial(w, N // 4, replacement=True)
    assert s.dtype is ember.int64 and s.shape == (N // 4,)
    freq = np.bincount(s.numpy(), minlength=3) / (N // 4)
    assert np.allclose(freq, [0.1, 0.2, 0.7], atol=0.01)
    s = ember.multinomial(ember.tensor([[1., 0, 0], [0, 0, 1]]), 4, True)
    assert s.tolist() == [[0] * 4, [2] * 4]
    # without replacement: distinct indices, zero-probability ones last
    for _ in range(20):
        r = ember.multinomial(ember.tensor([1., 0., 3., 2.]), 3).tolist()
        assert sorted(r) == [0, 2, 3]
    r = ember.multinomial(ember.tensor([1., 0, 0]), 2).tolist()
    assert r[0] == 0 and len(set(r)) == 2
    rows = ember.multinomial(ember.ones(5, 10), 10)
    assert all(sorted(x) == list(range(10)) for x in rows.tolist())
    # first draw without replacement follows the weights
    firsts = np.array([ember.multinomial(ember.tensor([1., 3.]), 2)[0].item() for _ in range(2000)])
    assert abs(firsts.mean() - 0.75) < 0.04
    assert w.multinomial(2).shape == (2,)


@pytest.mark.parametrize('args,match', [
    ((torch.tensor([1., 0, 0]), 4), 'cannot sample n_sample > prob_dist.size(-1) samples without replacement'),
    ((torch.tensor([1., -1, 0]), 1), 'probability tensor contains either `inf`, `nan` or element < 0'),
    ((torch.tensor([1., float('nan')]), 1), 'probability tensor contains'),
    ((torch.tensor([0., 0, 0]), 1), 'invalid multinomial distribution (sum of probabilities <= 0)'),
    ((torch.ones(1, 1, 3), 1), 'prob_dist must be 1 or 2 dim'),
    ((torch.tensor(1.), 1), 'prob_dist must be 1 or 2 dim'),
    ((torch.tensor([1, 1]), 1), 'multinomial only supports floating-point dtypes for input, got: Long'),
    ((torch.ones(3), 0), 'cannot sample n_sample <= 0 samples'),
])
def test_multinomial_errors(args, match):
    arr = args[0].numpy()
    check_error(lambda m, x: m.multinomial(x, args[1]), [arr], match=match)


def test_poisson():
    lam = ember.full((N,), 4.)
    p = ember.poisson(lam)
    assert p.dtype is ember.float32
    a = p.numpy()
    assert (a == np.round(a)).all() and abs(a.mean() - 4) < 0.05 and abs(a.var() - 4) < 0.1
    assert ember.poisson(ember.zeros(3, dtype=ember.float64)).tolist() == [0., 0., 0.]
    check_error(lambda m: m.poisson(m.tensor([-1., 2.])), match='invalid Poisson rate, expected rate to be non-negative')
    check_error(lambda m: m.poisson(m.tensor([1, 2])), match='"poisson_cpu" not implemented for \'Long\'')


# ------------------------------------------------------------------ _like forms
def test_like_forms():
    x = ember.zeros(3, 4, dtype=ember.float64)
    for f in (ember.rand_like, ember.randn_like):
        r = f(x)
        assert r.shape == (3, 4) and r.dtype is ember.float64
        assert f(x, dtype=ember.float16).dtype is ember.float16
        assert f(x, requires_grad=True).requires_grad
    r = ember.randint_like(x, 5)
    assert r.dtype is ember.float64 and r.min().item() >= 0 and r.max().item() < 5
    r = ember.randint_like(ember.zeros(1000, dtype=ember.int32), 2, 5)
    assert r.dtype is ember.int32 and set(r.tolist()) == {2, 3, 4}
    assert ember.randint_like(x, low=1, high=3).max().item() < 3


# ------------------------------------------------------------------ in-place samplers
def test_uniform_():
    t = ember.empty(N).uniform_(-2, 3)
    a = t.numpy()
    assert a.min() >= -2 and a.max() < 3 and abs(a.mean() - 0.5) < 0.03
    t = ember.empty(10, dtype=ember.float64).uniform_()
    assert t.dtype is ember.float64 and (t.numpy() < 1).all()
    h = ember.empty(1000, dtype=ember.bfloat16).uniform_(0, 1)
    assert h.dtype is ember.bfloat16
    check_error(lambda m: m.zeros(3).uniform_(2, 1), match='uniform_ expects to return a [from, to) range, but found from=2 > to=1')
    check_error(lambda m: m.zeros(3, dtype=m.int64).uniform_(), match='"check_uniform_bounds" not implemented for \'Long\'')


def test_normal_():
    t = ember.empty(N).normal_(1., 3.)
    mu, s = stats(t)
    assert abs(mu - 1) < 0.05 and abs(s - 3) < 0.05
    check_error(lambda m: m.zeros(3).normal_(0, -1), match='normal expects std >= 0.0, but found std -1')
    check_error(lambda m: m.zeros(3, dtype=m.int64).normal_(), match='"normal_kernel_cpu" not implemented for \'Long\'')


def test_random_():
    t = ember.zeros(N).random_(0, 10)
    a = t.numpy()
    assert a.min() == 0 and a.max() == 9 and (a == np.round(a)).all()
    assert set(ember.zeros(1000).random_(5).tolist()) == {0., 1., 2., 3., 4.}
    i8 = ember.zeros(2000, dtype=ember.int8).random_()
    assert i8.min().item() >= 0 and i8.max().item() > 100
    f = ember.zeros(1000).random_()
    assert f.min().item() >= 0 and f.max().item() <= 2 ** 24 and f.max().item() > 2 ** 20
    b = ember.zeros(100, dtype=ember.bool).random_()
    assert set(b.tolist()) == {False, True}
    r = ember.zeros(1000, dtype=ember.int64).random_(-3, None)
    assert r.min().item() >= -3 and r.max().item() > 2 ** 40
    assert set(ember.zeros(500, dtype=ember.int32).random_(to=3).tolist()) == {0, 1, 2}
    check_error(lambda m: m.zeros(3, dtype=m.int64).random_(5, 3), match="random_ expects 'from' to be less than 'to', but got from=5 >= to=3")
    check_error(lambda m: m.zeros(3).random_(-5), match="from=0 >= to=-5")
    check_error(lambda m: m.zeros(3, dtype=m.uint8).random_(-1, 3), match='from is out of bounds for unsigned char')
    check_error(lambda m: m.zeros(3, dtype=m.int8).random_(0, 200), match='to - 1 is out of bounds for signed char')
    check_error(lambda m: m.zeros(3, dtype=m.int16).random_(-2 ** 40, 0), match='from is out of bounds for short int')


def test_bernoulli_():
    t = ember.zeros(N).bernoulli_(0.25)
    assert abs(t.numpy().mean() - 0.25) < 0.01
    t = ember.zeros(3).bernoulli_(ember.tensor([1., 0., 1.]))
    assert t.tolist() == [1., 0., 1.]
    assert ember.zeros(3, dtype=ember.int64).bernoulli_(0.5).dtype is ember.int64
    t = ember.zeros(2, 3).bernoulli_(ember.tensor([1., 0., 1.]))
    assert t.tolist() == [[1., 0., 1.]] * 2
    check_error(lambda m: m.zeros(3).bernoulli_(1.5), match='bernoulli_ expects p to be in [0, 1], but got p=1.5')
    check_error(lambda m: m.zeros(3).bernoulli_(m.tensor([1., 2., 0.])), match='Expected p_in >= 0 && p_in <= 1')
    check_error(lambda m: m.zeros(3).bernoulli_(m.tensor([1., 1.])), match='The expanded size of the tensor (3) must match the existing size (2)')


def test_exponential_geometric_lognormal_cauchy():
    e = ember.empty(N).exponential_(2.)
    a = e.numpy()
    assert a.min() >= 0 and abs(a.mean() - 0.5) < 0.01
    g = ember.empty(N).geometric_(0.25).numpy()
    assert g.min() >= 1 and (g == np.round(g)).all() and abs(g.mean() - 4) < 0.05
    gi = ember.zeros(10, dtype=ember.int64).geometric_(0.5)
    assert gi.dtype is ember.int64 and gi.min().item() >= 1
    ln = ember.empty(N, dtype=ember.float64).log_normal_(0.5, 0.25).numpy()
    assert (ln > 0).all() and abs(np.log(ln).mean() - 0.5) < 0.01 and abs(np.log(ln).std() - 0.25) < 0.01
    c = ember.empty(N).cauchy_(1., 2.).numpy()
    assert abs(np.median(c) - 1) < 0.05
    q75, q25 = np.percentile(c, [75, 25])
    assert abs((q75 - q25) / 2 - 2) < 0.1


@pytest.mark.parametrize('expr,match', [
    ('m.zeros(3).exponential_(-1)', 'exponential_ expects lambda > 0.0, but found lambda=-1'),
    ('m.zeros(3).exponential_(0)', 'exponential_ expects lambda > 0.0, but found lambda=0'),
    ('m.zeros(3, dtype=m.int64).exponential_()', 'Exponential distribution is a continuous probability distribution. dtype must be a floating point but you specified Long'),
    ('m.zeros(3).geometric_(0)', 'geometric_ expects p to be in (0, 1), but got p=0'),
    ('m.zeros(3).geometric_(1.5)', 'geometric_ expects p to be in (0, 1), but got p=1.5'),
    ('m.zeros(3).log_normal_(0, 0)', 'log_normal_ expects std > 0.0, but found std=0'),
    ('m.zeros(3, dtype=m.int64).log_normal_()', '"log_normal_cpu" not implemented for \'Long\''),
    ('m.zeros(3).cauchy_(0, -1)', 'cauchy_ expects sigma > 0.0, but found sigma=-1'),
    ('m.zeros(3, dtype=m.int64).cauchy_()', 'dtype must be a floating point but you specified long int'),
])
def test_inplace_errors(expr, match):
    check_error(lambda m: eval(expr), match=match)


@pytest.mark.parametrize('call', [
    lambda t: t.uniform_(), lambda t: t.normal_(), lambda t: t.random_(), lambda t: t.random_(5),
    lambda t: t.random_(1, 5), lambda t: t.bernoulli_(), lambda t: t.bernoulli_(torch.ones(3) if isinstance(t, torch.Tensor) else ember.ones(3)),
    lambda t: t.exponential_(), lambda t: t.geometric_(0.5), lambda t: t.log_normal_(), lambda t: t.cauchy_()])
def test_inplace_autograd(call):
    def run(m):
        x = m.zeros(3, requires_grad=True)
        y = x * 2
        r = call(y)
        assert r is y
        name = type(y.grad_fn).__name__
        y.sum().backward()
        return name, x.grad.tolist()
    assert run(ember) == run(torch)
    check_error(lambda m: call(m.zeros(3, requires_grad=True)), match='a leaf Variable that requires grad')


def test_inplace_bumps_version_and_views():
    x = ember.zeros(4, 4)
    v0 = x._version
    x.uniform_()
    assert x._version > v0
    base = ember.zeros(3, 4)
    base.narrow(0, 1, 1).fill_(0) if hasattr(base, 'fill_') else None
    col = base.t().select(0, 1)      # a non-contiguous view (column 1)
    col.normal_()
    arr = base.numpy()
    assert (arr[:, 1] != 0).all() and (arr[:, [0, 2, 3]] == 0).all()


# ------------------------------------------------------------------ generators
def test_generator_kwarg_reproducible():
    for fn in (lambda g: ember.rand(5, generator=g), lambda g: ember.randn(5, generator=g),
               lambda g: ember.randint(0, 100, (5,), generator=g),
               lambda g: ember.randperm(10, generator=g),
               lambda g: ember.normal(ember.zeros(5), 1., generator=g),
               lambda g: ember.normal(0., 1., (5,), generator=g),
               lambda g: ember.bernoulli(ember.full((9,), 0.5), generator=g),
               lambda g: ember.multinomial(ember.ones(10), 5, generator=g),
               lambda g: ember.poisson(ember.full((5,), 3.), generator=g),
               lambda g: ember.empty(5).uniform_(generator=g),
               lambda g: ember.empty(5).exponential_(generator=g),
               lambda g: ember.empty(5).cauchy_(generator=g),
               lambda g: ember.zeros(5).random_(0, 1000, generator=g)):
        a = fn(ember.Generator().manual_seed(7)).tolist()
        b = fn(ember.Generator().manual_seed(7)).tolist()
        c = fn(ember.Generator().manual_seed(8)).tolist()
        assert a == b and a != c


def test_generator_does_not_touch_default():
    st = ember.get_rng_state()
    ember.rand(10, generator=ember.Generator().manual_seed(1))
    assert ember.get_rng_state().tolist() == st.tolist()
    ember.rand(1)
    assert ember.get_rng_state().tolist() != st.tolist()


def test_multinomial_out_must_be_long():
    # checked before drawing: the generator state is unchanged
    for m in (torch, ember):
        st = m.get_rng_state()
        with pytest.raises(RuntimeError, match='multinomial expects Long tensor out, got: Float'):
            m.multinomial(m.ones(1, 2), 2, out=m.zeros(1, 2))
        assert m.equal(m.get_rng_state(), st)


@pytest.mark.parametrize('dt', ['complex128', 'complex64'])
def test_uniform_complex(dt):
    # the real and imaginary parts drawn in turn, each uniform: torch's values after the seed
    res = []
    for m in (torch, ember):
        st = m.get_rng_state()
        m.manual_seed(3)
        x = m.zeros(4, 3, dtype=getattr(m, dt)).uniform_(-2, 5)
        m.set_rng_state(st)
        res.append(x.numpy())
    np.testing.assert_array_equal(res[1], res[0])
