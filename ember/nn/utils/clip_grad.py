"""Gradient clipping: ``clip_grad_norm_``, ``clip_grad_value_``, ``get_total_norm`` and
``clip_grads_with_norm_`` (and the deprecated ``clip_grad_norm``)."""
import functools
import types
import warnings

from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad

__all__ = ['clip_grad_norm', 'clip_grad_norm_', 'clip_grad_value_']


def _no_grad(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with no_grad():
            return fn(*args, **kwargs)
    return wrapper


def _as_list(tensors):
    return [tensors] if isinstance(tensors, Tensor) else list(tensors)


@_no_grad
def _get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Compute the norm of an iterable of tensors, as if their elements were concatenated
    into one vector (the norm of the vector of the per-tensor norms).

    Args:
        tensors (Iterable[Tensor] or Tensor): the tensors.
        norm_type (float): the p of the p-norm; ``'inf'`` (or ``float('inf')``) for the
            infinity norm. Default: 2.0
        error_if_nonfinite (bool): raise ``RuntimeError`` when the total norm is ``nan``,
            ``inf`` or ``-inf``. Default: ``False``
        foreach (bool, optional): accepted for compatibility; ember computes the same
            numbers either way.

    Returns:
        Tensor: the total norm (0-dim).

    Example::

        >>> nn.utils.get_total_norm([ember.tensor([3.]), ember.tensor([4.])])
        tensor(5.)
    """
    import ember
    tensors = _as_list(tensors)
    norm_type = float(norm_type)
    if len(tensors) == 0:
        return ember.tensor(0.0)
    first_device = tensors[0].device
    vn = ember.linalg.vector_norm
    norms = [vn(g, norm_type) for g in tensors]
    total = vn(ember.stack([n.to(first_device) for n in norms]), norm_type)
    if error_if_nonfinite and bool(ember.logical_or(total.isnan(), total.isinf())):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is "
            "non-finite, so it cannot be clipped. To disable this error and scale the "
            "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`")
    return total


@_no_grad
def _clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Scale the gradients of ``parameters`` in place by
    ``min(max_norm / (total_norm + 1e-6), 1)``, given a precomputed ``total_norm``.

    Args:
        parameters (Iterable[Tensor] or Tensor): tensors whose ``.grad`` is scaled.
        max_norm (float): the largest allowed norm.
        total_norm (Tensor): the total norm of the gradients (e.g. from
            :func:`get_total_norm`).
        foreach (bool, optional): accepted for compatibility.

    Returns:
        None

    Example::

        >>> p = nn.Parameter(ember.ones(4)); p.grad = ember.full((4,), 2.)
        >>> nn.utils.clip_grads_with_norm_([p], 1.0, ember.tensor(4.))
        >>> p.grad
        tensor([0.2500, 0.2500, 0.2500, 0.2500])
    """
    import ember
    parameters = _as_list(parameters)
    grads = [p.grad for p in parameters if p.grad is not None]
    max_norm = float(max_norm)
    if len(grads) == 0:
        return
    coef = ember.clamp(max_norm / (total_norm + 1e-6), max=1.0)
    per_device = {}
    for g in grads:
        d = g.device
        if d not in per_device:
            per_device[d] = coef.to(d)
        g.mul_(per_device[d])


@_no_grad
def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False,
                    foreach=None):
    """Clip the gradient norm of an iterable of parameters, in place.

    The norm is taken over all gradients together, as if they were concatenated into a
    single vector; when it exceeds ``max_norm`` every gradient is multiplied by
    ``max_norm / (total_norm + 1e-6)``. Same as :func:`get_total_norm` followed by
    :func:`clip_grads_with_norm_`.

    Args:
        parameters (Iterable[Tensor] or Tensor): the tensors whose gradients are clipped.
        max_norm (float): the largest allowed norm.
        norm_type (float): the p of the p-norm; ``'inf'`` for the infinity norm.
            Default: 2.0
        error_if_nonfinite (bool): raise ``RuntimeError`` when the total norm is ``nan``,
            ``inf`` or ``-inf``. Default: ``False``
        foreach (bool, optional): accepted for compatibility.

    Returns:
        Tensor: the total norm of the gradients (before clipping).

    Example::

        >>> lin = nn.Linear(3, 2); lin(ember.ones(1, 3)).sum().backward()
        >>> total = nn.utils.clip_grad_norm_(lin.parameters(), max_norm=1.0)
    """
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    else:
        is_generator = isinstance(parameters, types.GeneratorType)
        parameters = list(parameters)
        if is_generator and len(parameters) == 0:
            warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.",
                          stacklevel=3)
    grads = [p.grad for p in parameters if p.grad is not None]
    total_norm = _get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    _clip_grads_with_norm_(parameters, max_norm, total_norm, foreach)
    return total_norm


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False,
                   foreach=None):
    """Deprecated alias of :func:`clip_grad_norm_` (warns with ``FutureWarning``).

    Args:
        parameters (Iterable[Tensor] or Tensor): see :func:`clip_grad_norm_`.
        max_norm (float): the largest allowed norm.
        norm_type (float): the p of the p-norm. Default: 2.0
        error_if_nonfinite (bool): see :func:`clip_grad_norm_`. Default: ``False``
        foreach (bool, optional): accepted for compatibility.

    Returns:
        Tensor: the total norm of the gradients.

    Example::

        >>> total = nn.utils.clip_grad_norm(nn.Linear(2, 2).parameters(), 1.0)  # warns
    """
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
                  "`torch.nn.utils.clip_grad_norm_`.", FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


@_no_grad
def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clip the gradients of an iterable of parameters to ``[-clip_value, clip_value]``, in
    place.

    Args:
        parameters (Iterable[Tensor] or Tensor): the tensors whose gradients are clipped.
        clip_value (float): the largest allowed absolute value.
        foreach (bool, optional): accepted for compatibility.

    Returns:
        None

    Example::

        >>> p = nn.Parameter(ember.zeros(3)); p.grad = ember.tensor([-2., 0.5, 3.])
        >>> nn.utils.clip_grad_value_([p], 1.0); p.grad
        tensor([-1.0000,  0.5000,  1.0000])
    """
    parameters = _as_list(parameters)
    clip_value = float(clip_value)
    for p in parameters:
        g = p.grad
        if g is not None:
            g.clamp_(min=-clip_value, max=clip_value)
