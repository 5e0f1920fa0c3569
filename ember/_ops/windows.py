"""Window functions: ``hann_window``, ``hamming_window``, ``bartlett_window``,
``blackman_window``, ``kaiser_window`` (factories, as torch's)."""
import math

import numpy as np

from .. import _dtype as D
from ._util import wrap, register
from . import _args

__all__ = []


def _window(fname, n, periodic, dtype, device, requires_grad, fill):
    n = _args.as_int(n, fname, 'window_length', 1)
    if dtype is not None or device is not None or requires_grad is not False:
        dtype = _args.factory_args(fname, None, dtype, device, requires_grad)
    dt = dtype if dtype is not None else D._default_dtype
    if dt._cat == 3:
        raise NotImplementedError(f"\"arange_cpu\" not implemented for '{_legacy(dt)}'")
    if dt._cat != 2:
        raise RuntimeError(f"{fname} expects floating point dtypes, got: TensorOptions(dtype="
                           f"{dt}, device=cpu)")
    if n < 0:
        raise RuntimeError(f"{fname} requires non-negative window_length, got "
                           f"window_length={n}")
    from .creation import _xp, _finish
    xp, dev = _xp(device)
    if n == 0:
        arr = xp.zeros(0, dt._np)
    elif n == 1:
        arr = xp.ones(1, dt._np)
    else:
        m = n + 1 if periodic else n
        k = xp.arange(m, dtype=np.float64)
        arr = fill(xp, k, m)[:n].astype(dt._np)
    return _finish(wrap(arr), requires_grad)


def _legacy(dt):
    from .._tensor import _legacy_name
    return _legacy_name(dt)


@register(method=False)
def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None,
                   layout=None, device=None, pin_memory=False, requires_grad=False):
    """Hamming window: ``alpha - beta * cos(2 pi n / (N - 1))``.

    Args:
        window_length (int): the size of the returned window.
        periodic (bool): a periodic window (for spectral analysis) when True.
        alpha (float), beta (float): the coefficients.

    Example::

        >>> ember.hamming_window(4)
        tensor([0.0800, 0.5400, 1.0000, 0.5400])
    """
    return _window('hamming_window', window_length, periodic, dtype, device, requires_grad,
                   lambda xp, k, m: alpha - beta * xp.cos(2 * math.pi * k / (m - 1)))


@register(method=False)
def hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                pin_memory=False, requires_grad=False):
    """Hann window: ``0.5 - 0.5 * cos(2 pi n / (N - 1))``.

    Args:
        window_length (int): the size of the returned window.
        periodic (bool): a periodic window (for spectral analysis) when True.

    Example::

        >>> ember.hann_window(4)
        tensor([0.0000, 0.5000, 1.0000, 0.5000])
    """
    return _window('hann_window', window_length, periodic, dtype, device, requires_grad,
                   lambda xp, k, m: 0.5 - 0.5 * xp.cos(2 * math.pi * k / (m - 1)))


@register(method=False)
def bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    pin_memory=False, requires_grad=False):
    """Bartlett (triangular) window: ``1 - |2n / (N - 1) - 1|``.

    Args:
        window_length (int): the size of the returned window.
        periodic (bool): a periodic window when True.

    Example::

        >>> ember.bartlett_window(4)
        tensor([0.0000, 0.5000, 1.0000, 0.5000])
    """
    return _window('bartlett_window', window_length, periodic, dtype, device, requires_grad,
                   lambda xp, k, m: 1 - xp.abs(2 * k / (m - 1) - 1))


@register(method=False)
def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    pin_memory=False, requires_grad=False):
    """Blackman window: ``0.42 - 0.5 cos(2 pi n / (N-1)) + 0.08 cos(4 pi n / (N-1))``.

    Args:
        window_length (int): the size of the returned window.
        periodic (bool): a periodic window when True.

    Example::

        >>> ember.blackman_window(4)
        tensor([-1.4901e-08,  3.4000e-01,  1.0000e+00,  3.4000e-01])
    """
    return _window('blackman_window', window_length, periodic, dtype, device, requires_grad,
                   lambda xp, k, m: 0.42 - 0.5 * xp.cos(2 * math.pi * k / (m - 1))
                   + 0.08 * xp.cos(4 * math.pi * k / (m - 1)))


@register(method=False)
def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, layout=None,
                  device=None, pin_memory=False, requires_grad=False):
    """Kaiser window: ``I0(beta * sqrt(1 - ((n - N/2) / (N/2))^2)) / I0(beta)`` with
    ``N = window_length - 1`` (plus one when periodic).

    Args:
        window_length (int): the size of the returned window.
        periodic (bool): a periodic window when True.
        beta (float): the shape parameter. Default: 12.0.

    Example::

        >>> ember.kaiser_window(3, periodic=False)
        tensor([5.2773e-05, 1.0000e+00, 5.2773e-05])
    """
    def f(xp, k, m):
        a = (m - 1) / 2.0
        return xp.i0(beta * xp.sqrt(xp.clip(1 - ((k - a) / a) ** 2, 0, None))) / xp.i0(
            xp.asarray(beta, dtype=k.dtype))
    return _window('kaiser_window', window_length, periodic, dtype, device, requires_grad, f)
