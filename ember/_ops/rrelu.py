"""The randomized leaky ReLU: ``rrelu``, ``rrelu_`` and ``ember.rrelu`` (in training each
element ``<= 0`` is scaled by a slope drawn from PyTorch's CPU random stream; in evaluation
by the mean slope), with ``RreluWithNoiseBackward0``/``1``. Built on ``activation``'s
pointwise helpers.

``__all__`` lists the names ``ember.nn.functional`` re-exports."""
import numpy as np

from . import _args
from .. import random as _random
from .._tensor import Tensor, _Mode
from ._util import wrap, Node, register, record
from ._pointwise_common import _not_impl, _w
from .._backend import array_module, to_device, device_of
from .activation import (_inplace_form, _leaky_inplace_error, _link, _lowp_np, _pick, _run,
                         _sel)

__all__ = ['rrelu', 'rrelu_']


# ------------------------------------------------------------------ rrelu
class RreluWithNoiseBackward0(Node):
    _saved_names = ('self', 'noise')

    def backward(self, g):
        x, noise = self.saved_tensors
        if _Mode.grad:
            r = g * noise if noise is not None else _pick(x._data > 0, g, g * self.slope)
            return _link(r, x, self) if x._rg else r
        if noise is not None:
            return g * noise
        slope = self.slope
        if not _Mode.grad and g._data.dtype.kind == 'f':
            ga = g._data
            return wrap(array_module(ga).asarray(_sel(x._data > 0, ga, ga * slope, ga.dtype)))
        return _pick(x._data > 0, g, g * slope)


class RreluWithNoiseBackward1(RreluWithNoiseBackward0):
    def backward(self, g):
        if self.noise_none and self.slope < 0:
            _leaky_inplace_error()
        return super().backward(g)


def _rrelu_fn(input, lower=1.0 / 8.0, upper=1.0 / 3.0, training=False, generator=None):
    if not isinstance(input, Tensor):
        _args.tensor(input, 'rrelu')
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    a = input._data
    if a.dtype.kind not in 'fV':
        _not_impl('rrelu_with_noise_out_cpu' if training else 'leaky_relu_cpu', a)
    xp = array_module(a)
    slope = (lower + upper) / 2
    if training:
        # PyTorch's CPU kernel: one uniform_real_distribution<double>(lower, upper) draw per
        # element <= 0, in (contiguous) index order, the bounds first rounded to the
        # compute type; those elements are scaled by their draw, the others kept
        w = _lowp_np(a.dtype) or a.dtype
        x = a.astype(w)
        neg = x <= 0
        n = int(neg.sum())
        lo, hi = float(w.type(lower)), float(w.type(upper))
        gen = generator if generator is not None else _random._default_for(device_of(a))
        u = (gen._words64(n) & np.uint64((1 << 53) - 1)).astype(np.float64) * (2.0 ** -53)
        nz = xp.ones(a.shape, w)
        nz[neg] = to_device((u * (hi - lo) + lo).astype(w), device_of(a))
        res = _w((x * nz).astype(a.dtype, copy=False), xp, a)
        if _Mode.grad and input._rg:
            node = RreluWithNoiseBackward0()
            node.slope, node.noise_none = slope, not hi - lo > 1e-6
            noise = None if node.noise_none else wrap(nz.astype(a.dtype))
            record(res, node, (input,), save=(input, noise))
        return res
    res = _run(a, lambda x, xp_: _sel(x > 0, x, x * slope, x.dtype))
    if _Mode.grad and input._rg:
        node = RreluWithNoiseBackward0()
        node.slope, node.noise_none = slope, True
        record(res, node, (input, ), save=(input, None))
    return res


@register('rrelu', method=False)
def _rrelu_t(input, lower=1.0 / 8.0, upper=1.0 / 3.0, training=False, generator=None):
    """Randomized leaky ReLU (see :func:`ember.nn.functional.rrelu`).

    Example::

        >>> ember.rrelu(ember.tensor([-1., 2.]))
        tensor([-0.2292,  2.0000])
    """
    return _rrelu_fn(input, lower, upper, training, generator)


def rrelu(input, lower=1.0 / 8.0, upper=1.0 / 3.0, training=False, inplace=False):
    """Randomized leaky ReLU: in training, each element ``<= 0`` is multiplied by a slope
    drawn uniformly from ``[lower, upper]`` (PyTorch's CPU random stream, so the same seed
    gives the same slopes); in evaluation the slope is ``(lower + upper) / 2``.

    Args:
        input (Tensor): the input (floating point).
        lower (float): lower bound of the slope. Default: 1/8.
        upper (float): upper bound of the slope. Default: 1/3.
        training (bool): draw random slopes. Default: ``False``.
        inplace (bool): operate in place. Default: ``False``.

    Example::

        >>> F.rrelu(ember.tensor([-1., 2.]))
        tensor([-0.2292,  2.0000])
    """
    if inplace:
        return rrelu_(input, lower, upper, training)
    return _rrelu_fn(input, lower, upper, training)


@register(method=False)
def rrelu_(input, lower=1.0 / 8.0, upper=1.0 / 3.0, training=False, generator=None):
    """In-place :func:`rrelu`.

    Example::

        >>> x = ember.tensor([-1., 2.]); F.rrelu_(x); x
        tensor([-0.2292,  2.0000])
    """
    return _inplace_form(input, 'rrelu_', _rrelu_fn, (lower, upper, training, generator),
                         ((RreluWithNoiseBackward0, RreluWithNoiseBackward1),))


_rrelu_t.__name__ = _rrelu_t.__qualname__ = 'rrelu'
