"""Window functions (``torch.signal.windows``): tapers for spectral analysis and filter
design, built from ember ops (so ``requires_grad=True`` gives a differentiable window and
every backend computes them the same way).

Every window takes the length ``M`` first and keyword-only options: ``sym`` (``True``: a
symmetric window, for filter design; ``False``: a periodic one, for spectral analysis,
i.e. the first ``M`` points of a symmetric window of length ``M + 1``), ``dtype`` (float32
or float64; default: the default dtype), ``layout`` (only ``ember.strided``), ``device`` and
``requires_grad``.
"""
import math
from collections.abc import Iterable

from ... import _dtype as D
from ..._memory_format import strided
from ..._ops.creation import arange, empty, linspace, ones, tensor
from ..._ops.arithmetic import minimum

__all__ = ['bartlett', 'blackman', 'cosine', 'exponential', 'gaussian', 'general_cosine',
           'general_hamming', 'hamming', 'hann', 'kaiser', 'nuttall']


def _check(name, M, dtype, layout):
    """Resolve ``dtype`` and validate the arguments every window shares."""
    if dtype is None:
        dtype = D.get_default_dtype()
    if M < 0:
        raise ValueError(f"{name} requires non-negative window length, got M={M}")
    if layout is not strided:
        raise ValueError(f"{name} is implemented for strided tensors only, got: {layout}")
    if dtype is not D.float32 and dtype is not D.float64:
        raise ValueError(f"{name} expects float32 or float64 dtypes, got: {dtype}")
    return dtype


def _trivial(M, dtype, device, requires_grad, one_is_trivial=True):
    """The window for ``M == 0`` (empty) and, where the formula degenerates, ``M == 1``
    (a single 1); None otherwise."""
    if M == 0:
        return empty((0,), dtype=dtype, device=device, requires_grad=requires_grad)
    if M == 1 and one_is_trivial:
        return ones((1,), dtype=dtype, device=device, requires_grad=requires_grad)
    return None


def _span(M, sym):
    """The number of sample intervals the window's formula spans: ``M - 1`` for a symmetric
    window, ``M`` for a periodic one (the ``M + 1``-point symmetric window, truncated)."""
    return M - 1 if sym else M


def _grid(first, step, M, dtype, device, requires_grad):
    """``M`` evenly spaced points ``first, first + step, ...``."""
    return linspace(first, first + (M - 1) * step, M, dtype=dtype, device=device,
                    requires_grad=requires_grad)


def _grid_units(first, unit, M, dtype, device, requires_grad):
    """``M`` points ``(first + n) * unit``, ``n = 0 .. M - 1`` (the end points are rounded
    as written, so that the values match torch's to the last bit)."""
    return linspace(first * unit, (first + (M - 1)) * unit, M, dtype=dtype, device=device,
                    requires_grad=requires_grad)


def exponential(M, *, center=None, tau=1.0, sym=True, dtype=None, layout=strided, device=None,
                requires_grad=False):
    r"""The exponential (Poisson) window:
    :math:`w_n = \exp(-|n - c| / \tau)`, where :math:`c` is ``center``.

    Args:
        M (int): the window length; ``0`` gives an empty tensor.

    Keyword args:
        center (float, optional): where the window peaks; default: its middle. Only allowed
            for periodic windows (``sym=False``).
        tau (float, optional): the decay; must be positive. Default: ``1.0``
        sym (bool, optional): symmetric (``True``) or periodic window. Default: ``True``
        dtype (ember.dtype, optional): float32 or float64. Default: the default dtype
        layout (ember.layout, optional): only ``ember.strided``.
        device (ember.device, optional): where to make it.
        requires_grad (bool, optional): record operations for autograd. Default: ``False``

    Raises:
        ValueError: for ``M < 0``, ``tau <= 0``, a ``center`` with ``sym=True``, a
            non-strided layout or a dtype other than float32/float64.

    Example::

        >>> ember.signal.windows.exponential(5)
        tensor([0.1353, 0.3679, 1.0000, 0.3679, 0.1353])
        >>> ember.signal.windows.exponential(4, sym=False, center=1., tau=2.)
        tensor([0.6065, 1.0000, 0.6065, 0.3679])
    """
    dtype = _check('exponential', M, dtype, layout)
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")
    w = _trivial(M, dtype, device, requires_grad, one_is_trivial=False)
    if w is not None:
        return w
    if center is None:
        center = (M if not sym and M > 1 else M - 1) / 2.0
    k = _grid_units(-center, 1 / tau, M, dtype, device, requires_grad)
    return (-k.abs()).exp()


def cosine(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    r"""The cosine (sine) window: :math:`w_n = \sin(\pi (n + 1/2) / M)` (with :math:`M + 1`
    in place of :math:`M` for a periodic window).

    Args:
        M (int): the window length; ``0`` gives an empty tensor.

    Keyword args:
        sym (bool, optional): symmetric (``True``) or periodic window. Default: ``True``
        dtype (ember.dtype, optional): float32 or float64. Default: the default dtype
        layout (ember.layout, optional): only ``ember.strided``.
        device (ember.device, optional): where to make it.
        requires_grad (bool, optional): record operations for autograd. Default: ``False``

    Raises:
        ValueError: for ``M < 0``, a non-strided layout or a dtype other than
            float32/float64.

    Example::

        >>> ember.signal.windows.cosine(5)
        tensor([0.3090, 0.8090, 1.0000, 0.8090, 0.3090])
    """
    dtype = _check('cosine', M, dtype, layout)
    w = _trivial(M, dtype, device, requires_grad, one_is_trivial=False)
    if w is not None:
        return w
    step = math.pi / (M + 1 if not sym and M > 1 else M)
    return _grid_units(0.5, step, M, dtype, device, requires_grad).sin()


def gaussian(M, *, std=1.0, sym=True, dtype=None, layout=strided, device=None,
             requires_grad=False):
    r"""The Gaussian window: :math:`w_n = \exp(-(n - c)^2 / (2 \sigma^2))`, centred on the
    window's middle :math:`c`, with :math:`\sigma` = ``std``.

    Args:
        M (int): the window length; ``0`` gives an empty tensor.

    Keyword args:
        std (float, optional): the standard deviation, in samples; must be positive.
            Default: ``1.0``
        sym (bool, optional): symmetric (``True``) or periodic window. Default: ``True``
        dtype (ember.dtype, optional): float32 or float64. Default: the default dtype
        layout (ember.layout, optional): only ``ember.strided``.
        device (ember.device, optional): where to make it.
        requires_grad (bool, optional): record operations for autograd. Default: ``False``

    Raises:
        ValueError: for ``M < 0``, ``std <= 0``, a non-strided layout or a dtype other than
            float32/float64.

    Example::

        >>> ember.signal.windows.gaussian(5, std=1.5)
        tensor([0.4111, 0.8007, 1.0000, 0.8007, 0.4111])
    """
    dtype = _check('gaussian', M, dtype, layout)
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")
    w = _trivial(M, dtype, device, requires_grad, one_is_trivial=False)
    if w is not None:
        return w
    scale = 1 / (std * math.sqrt(2))
    first = -(M if not sym and M > 1 else M - 1) / 2.0
    k = _grid_units(first, scale, M, dtype, device, requires_grad)
    return (-(k ** 2)).exp()


def kaiser(M, *, beta=12.0, sym=True, dtype=None, layout=strided, device=None,
           requires_grad=False):
    r"""The Kaiser window:
    :math:`w_n = I_0(\beta \sqrt{1 - (2n / N - 1)^2}) / I_0(\beta)`, with :math:`I_0` the
    modified Bessel function of order 0 and :math:`N` = ``M - 1`` (``M`` for a periodic
    window).

    Args:
        M (int): the window length; ``0`` gives an empty tensor.

    Keyword args:
        beta (float, optional): the shape; must be non-negative (``0`` is rectangular).
            Default: ``12.0``
        sym (bool, optional): symmetric (``True``) or periodic window. Default: ``True``
        dtype (ember.dtype, optional): float32 or float64. Default: the default dtype
        layout (ember.layout, optional): only ``ember.strided``.
        device (ember.device, optional): where to make it.
        requires_grad (bool, optional): record operations for autograd. Default: ``False``

    Raises:
        ValueError: for ``M < 0``, ``beta < 0``, a non-strided layout or a dtype other than
            float32/float64.

    Example::

        >>> ember.signal.windows.kaiser(5, beta=4.)
        tensor([0.0885, 0.6334, 1.0000, 0.6334, 0.0885])
    """
    dtype = _check('kaiser', M, dtype, layout)
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")
    w = _trivial(M, dtype, device, requires_grad)
    if w is not None:
        return w
    b = tensor(beta, dtype=dtype, device=device)    # in the window's dtype: no NaN at the ends
    first = -b
    step = 2.0 * b / _span(M, sym)
    last = minimum(b, first + (M - 1) * step)
    k = linspace(first, last, M, dtype=dtype, device=device, requires_grad=requires_grad)
    return (b * b - k ** 2).sqrt().i0() / b.i0()


def general_cosine(M, *, a, sym=True, dtype=None, layout=strided, device=None,
                   requires_grad=False):
    r"""A generalized cosine window, a sum of cosines with coefficients ``a``:
    :math:`w_n = \sum_i (-1)^i a_i \cos(2 \pi i n / N)`, with :math:`N` = ``M - 1``
    (``M`` for a periodic window).

    Args:
        M (int): the window length; ``0`` gives an empty tensor, ``1`` a single ``1``.

    Keyword args:
        a (iterable of float): the coefficients, not empty.
        sym (bool, optional): symmetric (``True``) or periodic window. Default: ``True``
        dtype (ember.dtype, optional): float32 or float64. Default: the default dtype
        layout (ember.layout, optional): only ``ember.strided``.
        device (ember.device, optional): where to make it.
        requires_grad (bool, optional): record operations for autograd. Default: ``False``

    Raises:
        TypeError: if ``a`` is not iterable.
        ValueError: for ``M < 0``, empty ``a``, a non-strided layout or a dtype other than
            float32/float64.

    Example::

        >>> ember.signal.windows.general_cosine(5, a=[0.46, 0.23, 0.31])
        tensor([0.5400, 0.1500, 1.0000, 0.1500, 0.5400])
    """
    dtype = _check('general_cosine', M, dtype, layout)
    w = _trivial(M, dtype, device, requires_grad)
    if w is not None:
        return w
    if not isinstance(a, Iterable):
        raise TypeError("Coefficients must be a list/tuple")
    if not a:
        raise ValueError("Coefficients cannot be empty")
    step = 2 * math.pi / _span(M, sym)
    k = _grid(0, step, M, dtype, device, requires_grad)
    coef = tensor([c if i % 2 == 0 else -c for i, c in enumerate(a)], dtype=dtype,
                  device=device, requires_grad=requires_grad)
    order = arange(coef.shape[0], dtype=dtype, device=device, requires_grad=requires_grad)
    return (coef.unsqueeze(-1) * (order.unsqueeze(-1) * k).cos()).sum(0)


def general_hamming(M, *, alpha=0.54, sym=True, dtype=None, layout=strided, device=None,
                    requires_grad=False):
    r"""The generalized Hamming window:
    :math:`w_n = \alpha - (1 - \alpha) \cos(2 \pi n / N)`, with :math:`N` = ``M - 1``
    (``M`` for a periodic window).

    Args:
        M (int): the window length; ``0`` gives an empty tensor, ``1`` a single ``1``.

    Keyword args:
        alpha (float, optional): the coefficient :math:`\alpha`. Default: ``0.54``
        sym (bool, optional): symmetric (``True``) or periodic window. Default: ``True``
        dtype (ember.dtype, optional): float32 or float64. Default: the default dtype
        layout (ember.layout, optional): only ``ember.strided``.
        device (ember.device, optional): where to make it.
        requires_grad (bool, optional): record operations for autograd. Default: ``False``

    Raises:
        ValueError: as :func:`general_cosine`.

    Example::

        >>> ember.signal.windows.general_hamming(5, alpha=0.6)
        tensor([0.2000, 0.6000, 1.0000, 0.6000, 0.2000])
    """
    return general_cosine(M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, layout=layout,
                          device=device, requires_grad=requires_grad)


def hamming(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    r"""The Hamming window: :func:`general_hamming` with :math:`\alpha = 0.54`.

    Args:
        M (int): the window length; ``0`` gives an empty tensor, ``1`` a single ``1``.

    Keyword args:
        sym (bool, optional): symmetric (``True``) or periodic window. Default: ``True``
        dtype (ember.dtype, optional): float32 or float64. Default: the default dtype
        layout (ember.layout, optional): only ``ember.strided``.
        device (ember.device, optional): where to make it.
        requires_grad (bool, optional): record operations for autograd. Default: ``False``

    Raises:
        ValueError: as :func:`general_cosine`.

    Example::

        >>> ember.signal.windows.hamming(5)
        tensor([0.0800, 0.5400, 1.0000, 0.5400, 0.0800])
    """
    return general_hamming(M, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


def hann(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    r"""The Hann window: :func:`general_hamming` with :math:`\alpha = 0.5`, i.e.
    :math:`w_n = \sin^2(\pi n / N)`.

    Args:
        M (int): the window length; ``0`` gives an empty tensor, ``1`` a single ``1``.

    Keyword args:
        sym (bool, optional): symmetric (``True``) or periodic window. Default: ``True``
        dtype (ember.dtype, optional): float32 or float64. Default: the default dtype
        layout (ember.layout, optional): only ``ember.strided``.
        device (ember.device, optional): where to make it.
        requires_grad (bool, optional): record operations for autograd. Default: ``False``

    Raises:
        ValueError: as :func:`general_cosine`.

    Example::

        >>> ember.signal.windows.hann(5)
        tensor([0.0000, 0.5000, 1.0000, 0.5000, 0.0000])
        >>> ember.signal.windows.hann(4, sym=False)
        tensor([0.0000, 0.5000, 1.0000, 0.5000])
    """
    return general_hamming(M, alpha=0.5, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


def blackman(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    r"""The Blackman window: :func:`general_cosine` with coefficients
    ``[0.42, 0.5, 0.08]``.

    Args:
        M (int): the window length; ``0`` gives an empty tensor, ``1`` a single ``1``.

    Keyword args:
        sym (bool, optional): symmetric (``True``) or periodic window. Default: ``True``
        dtype (ember.dtype, optional): float32 or float64. Default: the default dtype
        layout (ember.layout, optional): only ``ember.strided``.
        device (ember.device, optional): where to make it.
        requires_grad (bool, optional): record operations for autograd. Default: ``False``

    Raises:
        ValueError: for ``M < 0``, a non-strided layout or a dtype other than
            float32/float64.

    Example::

        >>> ember.signal.windows.blackman(5)
        tensor([-1.4901e-08,  3.4000e-01,  1.0000e+00,  3.4000e-01, -1.4901e-08])
    """
    dtype = _check('blackman', M, dtype, layout)
    return general_cosine(M, a=[0.42, 0.5, 0.08], sym=sym, dtype=dtype, layout=layout,
                          device=device, requires_grad=requires_grad)


def bartlett(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    r"""The Bartlett (triangular, zero at the ends) window: :math:`w_n = 1 - |2n / N - 1|`,
    with :math:`N` = ``M - 1`` (``M`` for a periodic window).

    Args:
        M (int): the window length; ``0`` gives an empty tensor, ``1`` a single ``1``.

    Keyword args:
        sym (bool, optional): symmetric (``True``) or periodic window. Default: ``True``
        dtype (ember.dtype, optional): float32 or float64. Default: the default dtype
        layout (ember.layout, optional): only ``ember.strided``.
        device (ember.device, optional): where to make it.
        requires_grad (bool, optional): record operations for autograd. Default: ``False``

    Raises:
        ValueError: for ``M < 0``, a non-strided layout or a dtype other than
            float32/float64.

    Example::

        >>> ember.signal.windows.bartlett(5)
        tensor([0.0000, 0.5000, 1.0000, 0.5000, 0.0000])
    """
    dtype = _check('bartlett', M, dtype, layout)
    w = _trivial(M, dtype, device, requires_grad)
    if w is not None:
        return w
    k = _grid(-1, 2 / _span(M, sym), M, dtype, device, requires_grad)
    return 1 - k.abs()


def nuttall(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    r"""The minimum 4-term Blackman-Harris window (Nuttall's): :func:`general_cosine` with
    coefficients ``[0.3635819, 0.4891775, 0.1365995, 0.0106411]``.

    Args:
        M (int): the window length; ``0`` gives an empty tensor, ``1`` a single ``1``.

    Keyword args:
        sym (bool, optional): symmetric (``True``) or periodic window. Default: ``True``
        dtype (ember.dtype, optional): float32 or float64. Default: the default dtype
        layout (ember.layout, optional): only ``ember.strided``.
        device (ember.device, optional): where to make it.
        requires_grad (bool, optional): record operations for autograd. Default: ``False``

    Raises:
        ValueError: as :func:`general_cosine`.

    Example::

        >>> ember.signal.windows.nuttall(5)
        tensor([3.6280e-04, 2.2698e-01, 1.0000e+00, 2.2698e-01, 3.6280e-04])
    """
    return general_cosine(M, a=[0.3635819, 0.4891775, 0.1365995, 0.0106411], sym=sym,
                          dtype=dtype, layout=layout, device=device,
                          requires_grad=requires_grad)
