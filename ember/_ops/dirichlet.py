"""The Dirichlet sampler and its gradient, which ``ember.distributions.Dirichlet`` draws and
differentiates through: ``_sample_dirichlet`` (float64 gamma draws from ``random_ops``'
stream, normalised and clamped into ``(0, 1)`` as PyTorch's CPU kernel) and
``_dirichlet_grad`` (the reparameterized gradient of a sample with respect to its
concentration: PyTorch's series and asymptotic approximations of the beta case)."""
import numpy as np

from .._tensor import _legacy_name
from .._backend import array_module
from ._util import wrap, register, grad_needed
from ._pointwise_common import _record_not_impl
from .random_ops import _F64, _digamma_arr, _gamma_arr, _gen, _host, _into_module_of, _not_impl


@register(method=False)
def _sample_dirichlet(self, generator=None):
    """Draws Dirichlet samples with concentrations ``self`` (the last dimension is the
    event): float64 gamma draws normalised by their sum, clamped into ``(0, 1)``.

    Example::

        >>> ember._sample_dirichlet(ember.ones(4)).sum()
        tensor(1.)
    """
    dt = self.dtype
    if dt._cat != 2:
        raise _not_impl('dirichlet', dt)
    alpha = _host(self._data).astype(np.float64)
    gam = _gamma_arr(_gen(generator, self.device), alpha, False)
    tiny64 = np.finfo(np.float64).tiny
    gam = np.where(tiny64 < gam, gam, tiny64)
    tot = gam.sum(-1, keepdims=True) if gam.ndim else gam
    npdt = np.dtype(dt._np)
    r = np.asarray(gam / tot).astype(npdt)
    hi = np.nextafter(npdt.type(1), npdt.type(0))
    lo = np.finfo(npdt).tiny
    r = np.where(lo < r, r, lo)                       # std::max(min, r)
    r = np.where(r < hi, r, hi).astype(npdt)          # std::min(max, r)
    o = wrap(_into_module_of(r, self))
    if grad_needed(self):
        _record_not_impl(o, '_sample_dirichlet', self)
    return o


def _beta_grad_alpha_small(x, a, b, xp):
    dg = _digamma_arr
    fac = dg(a.astype(np.float64)).astype(a.dtype) - dg((a + b).astype(np.float64)).astype(
        a.dtype) - xp.log(x)
    numer = xp.ones_like(x)
    series = numer / a * (fac + 1 / a)
    for i in range(1, 11):
        numer = numer * ((i - b) * x / i)
        den = a + i
        series = series + numer / den * (fac + 1 / den)
    r = x * (1 - x) ** (-b) * series
    return xp.where(xp.isnan(r), 0.0, r)


def _beta_grad_beta_small(x, a, b, xp):
    dg = _digamma_arr
    fac = dg((a + b).astype(np.float64)).astype(a.dtype) - dg(b.astype(np.float64)).astype(
        a.dtype)
    numer, betas, dbetas = xp.ones_like(x), xp.ones_like(x), xp.zeros_like(x)
    series = fac / a
    for i in range(1, 9):
        numer = numer * (-x / i)
        dbetas = dbetas * (b - i) + betas
        betas = betas * (b - i)
        series = series + numer / (a + i) * (dbetas + fac * betas)
    r = -(1 - x) ** (1 - b) * series
    return xp.where(xp.isnan(r), 0.0, r)


def _beta_grad_alpha_mid(x, a, b, xp):
    tot = a + b
    mean = a / tot
    std = xp.sqrt(a * b / (tot + 1)) / tot
    mid = (mean - 0.1 * std <= x) & (x <= mean + 0.1 * std)
    poly = 47 * x * (b * b) * (b * b) + a * (
        (43 + 20 * (16 + 27 * b) * x) * (b * b) * b + a * (
            3 * (59 + 180 * b - 90 * x) * (b * b) + a * (
                (453 + 1620 * b * (1 - x) - 455 * x) * b + a * (
                    8 * (1 - x) * (135 * b - 11)))))
    pre_num = (1 + 12 * a) * (1 + 12 * b) / (tot * tot)
    pre_den = 12960 * a * a * a * b * b * (1 + 12 * tot)
    r_mid = pre_num / (1 - x) * poly / pre_den
    prefactor = -x / xp.sqrt(2 * a * b / tot)
    stirling = ((1 + 1 / (12 * a) + 1 / (288 * a * a)) * (1 + 1 / (12 * b) + 1 / (288 * b * b))
                / (1 + 1 / (12 * tot) + 1 / (288 * tot * tot)))
    t1n = 2 * (a * a) * (x - 1) + a * b * (x - 1) - x * (b * b)
    axbx = a * (x - 1) + b * x
    t1 = t1n / (xp.sqrt(2 * a / b) * tot ** 1.5 * axbx * axbx)
    t2 = 0.5 * xp.log(a / (tot * x))
    t3 = xp.sqrt(8 * a * b / tot) / (b * x + a * (x - 1))
    t4 = (b * xp.log(b / (tot * (1 - x))) + a * xp.log(a / (tot * x))) ** -1.5
    r = stirling * prefactor * (t1 + t2 * (t3 + xp.where(x < mean, t4, -t4)))
    return xp.where(mid, r_mid, r)


# coefficients of the rational correction of the Dirichlet/Beta reparameterised gradient
# (the fit PyTorch ships): [p|q][i (power of u)][j (power of a)][power of b]
_DIR_C = (
    (((1.003668233, -0.01061107488, -0.0657888334, 0.01201642863),
      (0.6336835991, -0.3557432599, 0.05486251648, -0.001465281033),
      (-0.03276231906, 0.004474107445, 0.002429354597, -0.0001557569013)),
     ((0.221950385, -0.3187676331, 0.01799915743, 0.01074823814),
      (-0.2951249643, 0.06219954479, 0.01535556598, 0.001550077057),
      (0.02155310298, 0.004170831599, 0.001292462449, 6.976601077e-05)),
     ((-0.05980841433, 0.008441916499, 0.01085618172, 0.002319392565),
      (0.02911413504, 0.01400243777, -0.002721828457, 0.000751041181),
      (0.005900514878, -0.001936558688, -9.495446725e-06, 5.385558597e-05))),
    (((1, -0.02924021934, -0.04438342661, 0.007285809825),
      (0.6357567472, -0.3473456711, 0.05454656494, -0.002407477521),
      (-0.03301322327, 0.004845219414, 0.00231480583, -0.0002307248149)),
     ((0.5925320577, -0.1757678135, 0.01505928619, 0.000564515273),
      (0.1014815858, -0.06589186703, 0.01272886114, -0.0007316646956),
      (-0.007258481865, 0.001096195486, 0.0003934994223, -4.12701925e-05)),
     ((0.06469649321, -0.0236701437, 0.002902096474, -5.896963079e-05),
      (0.001925008108, -0.002869809258, 0.0008000589141, -6.063713228e-05),
      (-0.0003477407336, 6.959756487e-05, 1.097287507e-05, -1.650964693e-06))))


def _dirichlet_grad_arr(x, alpha, total, sdt=np.float64):
    """``d x / d alpha`` for a Dirichlet draw's coordinate ``x`` (a Beta(alpha,
    total - alpha) draw), scaled as PyTorch's ``_dirichlet_grad``: asymptotic series near
    0 and 1, a saddle-point expansion for large parameters, else a rational correction
    of an analytic approximation. Float64 arrays of one shape; ``sdt``: the dtype of
    PyTorch's ``scalar_t`` steps (the series near 0 and 1 run in it)."""
    xp = array_module(x)
    out = xp.zeros(x.shape, np.float64)
    xs, als, tots = x.astype(sdt), alpha.astype(sdt), total.astype(sdt)
    bes = tots - als
    beta = bes.astype(np.float64)
    bound = tots * xs * (1 - xs)
    c1 = (x <= 0.5) & (bound < 2.5)
    c2 = ~c1 & (x >= 0.5) & (bound < 0.75)
    c3 = ~c1 & ~c2 & (alpha > 6) & (beta > 6)
    c4 = ~c1 & ~c2 & ~c3
    with np.errstate(all='ignore'):
        if c1.any():
            out[c1] = _beta_grad_alpha_small(x[c1], alpha[c1], beta[c1], xp)
        if c2.any():
            out[c2] = -_beta_grad_beta_small(1 - x[c2], beta[c2], alpha[c2], xp)
        if c3.any():
            out[c3] = _beta_grad_alpha_mid(x[c3], alpha[c3], total[c3] - alpha[c3], xp)
        if c4.any():
            t, a0, tot = x[c4], alpha[c4], total[c4]
            b0 = tot - a0
            u = xp.log(t)
            a = xp.log(a0) - u
            b = xp.log(tot) - a
            pu, pa = (1, u, u * u), (1, a, a * a)
            p = q = 0.0
            for i in range(3):
                for j in range(3):
                    ua = pu[i] * pa[j]
                    cp, cq = _DIR_C[0][i][j], _DIR_C[1][i][j]
                    p = p + ua * (cp[0] + b * (cp[1] + b * (cp[2] + b * cp[3])))
                    q = q + ua * (cq[0] + b * (cq[1] + b * (cq[2] + b * cq[3])))
            approx = t * (_digamma_arr(tot) - _digamma_arr(a0)) / b0
            out[c4] = p / q * approx
    return out


@register(method=False)
def _dirichlet_grad(x, alpha, total):
    """The reparameterised gradient of Dirichlet draws ``x`` w.r.t. their concentrations
    ``alpha`` (``total``: the concentrations' sums, expanded), as PyTorch's approximation.

    NOTE: unlike PyTorch, float32 inputs are evaluated in float64 throughout (PyTorch runs
    the series near 0 and 1 in float32): results can differ by ~1e-4 relative there.

    Example::

        >>> ember._dirichlet_grad(ember.tensor([.3]), ember.tensor([1.]), ember.tensor([3.]))
        tensor([0.4123])
    """
    if x.dtype._cat != 2:
        raise _not_impl('_dirichlet_grad_cpu', x.dtype)
    for t in (alpha, total):
        if t.dtype != x.dtype:
            raise RuntimeError(f"Found dtype {_legacy_name(t.dtype)} but expected "
                               f"{_legacy_name(x.dtype)}")
    shape = tuple(x.shape)
    if tuple(alpha.shape) != shape or tuple(total.shape) != shape:
        raise RuntimeError(f"_dirichlet_grad: expected x, alpha and total to have the same "
                           f"size, got {list(x.shape)}, {list(alpha.shape)} and "
                           f"{list(total.shape)}")
    xp = array_module(x._data)
    f = [xp.asarray(t._data, np.float64) for t in (x, alpha, total)]
    sdt = np.float64 if np.dtype(x.dtype._np) == _F64 else np.float32
    o = wrap(_dirichlet_grad_arr(*f, sdt=sdt).astype(x.dtype._np))
    if grad_needed(x, alpha, total):
        _record_not_impl(o, '_dirichlet_grad', x, alpha, total)
    return o
