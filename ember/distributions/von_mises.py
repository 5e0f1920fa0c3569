"""The von Mises distribution (a circular normal)."""
import math

import ember
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all, lazy_property

__all__ = ["VonMises"]

# Polynomial approximations of the modified Bessel functions I0 and I1 (Abramowitz &
# Stegun 9.8.1-9.8.4): in t = (x / 3.75)^2 below 3.75, in 3.75 / x above.
_I0_SMALL = [1.0, 3.5156229, 3.0899424, 1.2067492, 0.2659732, 0.0360768, 0.0045813]
_I0_LARGE = [0.39894228, 0.01328592, 0.00225319, -0.00157565, 0.00916281, -0.02057706,
             0.02635537, -0.01647633, 0.00392377]
_I1_SMALL = [0.5, 0.87890594, 0.51498869, 0.15084934, 0.02658733, 0.00301532, 0.00032411]
_I1_LARGE = [0.39894228, -0.03988024, -0.00362018, 0.00163801, -0.01031555, 0.02282967,
             -0.02895312, 0.01787654, -0.00420059]


def _horner(y, coef):
    res = coef[-1]
    for c in reversed(coef[:-1]):
        res = c + y * res
    return res


def _log_modified_bessel_fn(x, order=0):
    """``log(I_order(x))`` for order 0 or 1 (polynomial approximation)."""
    if order not in (0, 1):
        raise AssertionError(f"order must be 0 or 1, got {order}")
    small_c, large_c = (_I0_SMALL, _I0_LARGE) if order == 0 else (_I1_SMALL, _I1_LARGE)
    y = x / 3.75
    small = _horner(y * y, small_c)
    if order == 1:
        small = x.abs() * small
    small = small.log()
    large = x - 0.5 * x.log() + _horner(3.75 / x, large_c).log()
    return ember.where(x < 3.75, small, large)


def _rejection_sample(loc, concentration, proposal_r, x):
    done = ember.zeros(x.shape, dtype=ember.bool, device=loc.device)
    while not done.all():
        u1, u2, u3 = ember.rand((3,) + tuple(x.shape), dtype=loc.dtype,
                                device=loc.device).unbind()
        z = ember.cos(math.pi * u1)
        f = (1 + proposal_r * z) / (proposal_r + z)
        c = concentration * (proposal_r - f)
        accept = ((c * (2 - c) - u2) > 0) | ((c / u2).log() + 1 - c >= 0)
        if accept.any():
            x = ember.where(accept, (u3 - 0.5).sign() * f.acos(), x)
            done = done | accept
    return (x + math.pi + loc) % (2 * math.pi) - math.pi


class VonMises(Distribution):
    """A circular von Mises distribution (samples in ``[-pi, pi)``).

    Args:
        loc (Tensor): an angle in radians.
        concentration (Tensor): concentration parameter.
        validate_args (bool, optional): check the arguments.

    Example::

        >>> VonMises(ember.tensor([1.0]), ember.tensor([1.0])).sample().shape
        torch.Size([1])
    """
    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc, concentration, validate_args=None):
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(self.loc.shape, ember.Size(), validate_args)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        lp = self.concentration * ember.cos(value - self.loc)
        return (lp - math.log(2 * math.pi)
                - _log_modified_bessel_fn(self.concentration, order=0))

    @lazy_property
    def _loc(self):
        return self.loc.to(ember.double)

    @lazy_property
    def _concentration(self):
        return self.concentration.to(ember.double)

    @lazy_property
    def _proposal_r(self):
        k = self._concentration
        tau = 1 + (1 + 4 * k ** 2).sqrt()
        rho = (tau - (2 * tau).sqrt()) / (2 * k)
        r = (1 + rho ** 2) / (2 * rho)
        return ember.where(k < 1e-5, 1 / k + k, r)

    def sample(self, sample_shape=ember.Size()):
        """Draw samples by Best & Fisher's rejection method (computed in double)."""
        with ember.no_grad():
            shape = self._extended_shape(sample_shape)
            x = ember.empty(shape, dtype=self._loc.dtype, device=self.loc.device)
            return _rejection_sample(self._loc, self._concentration, self._proposal_r,
                                     x).to(self.loc.dtype)

    def expand(self, batch_shape, _instance=None):
        try:
            return super().expand(batch_shape)
        except NotImplementedError:
            validate_args = self.__dict__.get("_validate_args")
            return type(self)(self.loc.expand(batch_shape),
                              self.concentration.expand(batch_shape),
                              validate_args=validate_args)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @lazy_property
    def variance(self):
        return 1 - (_log_modified_bessel_fn(self.concentration, order=1)
                    - _log_modified_bessel_fn(self.concentration, order=0)).exp()
