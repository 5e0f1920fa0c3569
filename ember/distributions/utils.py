"""Helpers shared by the distributions: broadcasting parameters, converting between
probabilities and logits, lazily computed attributes, triangular packing."""
from functools import update_wrapper
from numbers import Number

import ember

euler_constant = 0.57721566490153286060  # Euler-Mascheroni constant

__all__ = ["broadcast_all", "logits_to_probs", "clamp_probs", "probs_to_logits",
           "lazy_property", "tril_matrix_to_vec", "vec_to_tril_matrix"]


def _tensor_like(v):
    from ember.overrides import is_tensor_like
    return is_tensor_like(v)


def broadcast_all(*values):
    """Broadcast tensors and numbers together.

    Tensors are broadcast by the usual rules; Python numbers become tensors of the
    first tensor's dtype and device (the default dtype when all are numbers).

    Args:
        values: numbers, tensors, or objects implementing ``__torch_function__``.

    Returns:
        tuple of Tensor: the broadcast values.

    Raises:
        ValueError: if a value is neither a number nor tensor-like.

    Example::

        >>> a, b = broadcast_all(ember.zeros(2, 1), 3.0)
        >>> b.shape
        torch.Size([2, 1])
    """
    tl = [isinstance(v, ember.Tensor) or _tensor_like(v) for v in values]
    if not all(t or isinstance(v, Number) for t, v in zip(tl, values)):
        raise ValueError("Input arguments must all be instances of Number, "
                         "torch.Tensor or objects implementing __torch_function__.")
    if not all(tl):
        opts = dict(dtype=ember.get_default_dtype())
        for v in values:
            if isinstance(v, ember.Tensor):
                opts = dict(dtype=v.dtype, device=v.device)
                break
        values = [v if t else ember.tensor(v, **opts) for t, v in zip(tl, values)]
    return ember.broadcast_tensors(*values)


def _standard_normal(shape, dtype, device):
    return ember.empty(shape, dtype=dtype, device=device).normal_()


def _sum_rightmost(value, dim):
    """Sum the ``dim`` rightmost dimensions of ``value``."""
    if dim == 0:
        return value
    return value.reshape(tuple(value.shape[:-dim]) + (-1,)).sum(-1)


def logits_to_probs(logits, is_binary=False):
    """Probabilities from logits: ``sigmoid`` in the binary case (log-odds), else a
    softmax over the last dimension.

    Example::

        >>> logits_to_probs(ember.tensor([0.0]), is_binary=True)
        tensor([0.5000])
    """
    if is_binary:
        return ember.sigmoid(logits)
    return ember.softmax(logits, dim=-1)


def clamp_probs(probs):
    """Clamp probabilities into ``[eps, 1 - eps]`` (``eps`` of the dtype).

    Args:
        probs (Tensor): probabilities.

    Example::

        >>> clamp_probs(ember.tensor([0.0, 0.5, 1.0]))
        tensor([1.1921e-07, 5.0000e-01, 1.0000e+00])
    """
    eps = ember.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary=False):
    """Logits from probabilities: log-odds in the binary case, else ``log(probs)``
    (probabilities clamped away from 0 and 1 first).

    Example::

        >>> probs_to_logits(ember.tensor([0.5]), is_binary=True)
        tensor([0.])
    """
    p = clamp_probs(probs)
    if is_binary:
        return ember.log(p) - ember.log1p(-p)
    return ember.log(p)


class lazy_property:
    """Decorator: an attribute computed on first access (with grad enabled), then
    stored on the instance so later reads are plain attribute reads.

    Example::

        >>> class D:
        ...     @lazy_property
        ...     def big(self):
        ...         return ember.ones(3)
    """

    def __init__(self, wrapped):
        self.wrapped = wrapped
        update_wrapper(self, wrapped)

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return _lazy_property_and_property(self.wrapped)
        with ember.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


class _lazy_property_and_property(lazy_property, property):
    """Seen on the class: both a lazy_property (for argument validation) and a property
    (for documentation tools)."""

    def __init__(self, wrapped):
        property.__init__(self, wrapped)


def _tril_mask(n, diag, device):
    ar = ember.arange(n, device=device)
    return ar < ar.view(-1, 1) + (diag + 1)


def tril_matrix_to_vec(mat, diag=0):
    """The lower-triangular entries (below diagonal ``diag``) of a (batch of) ``D x D``
    matrix, in row order.

    Example::

        >>> tril_matrix_to_vec(ember.tensor([[1., 2.], [3., 4.]]))
        tensor([1., 3., 4.])
    """
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    return mat[..., _tril_mask(n, diag, mat.device)]


def vec_to_tril_matrix(vec, diag=0):
    """The inverse of :func:`tril_matrix_to_vec`: a (batch of) lower-triangular
    ``D x D`` matrix filled in row order from the last dim of ``vec``.

    Example::

        >>> vec_to_tril_matrix(ember.tensor([1., 3., 4.]))
        tensor([[1., 0.],
                [3., 4.]])
    """
    m = vec.shape[-1]
    c = 1 + 2 * diag
    n = (-c + (c ** 2 + 8 * m + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    eps = ember.finfo(vec.dtype).eps
    if round(n) - n > eps:
        raise ValueError(
            f"The size of last dimension is {m} which cannot be expressed as "
            "the lower triangular part of a square D x D matrix.")
    n = round(n)
    mat = vec.new_zeros(tuple(vec.shape[:-1]) + (n, n))
    mat[..., _tril_mask(n, diag, vec.device)] = vec
    return mat
