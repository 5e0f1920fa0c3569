"""Dropout family: dropout, dropout1d/2d/3d, alpha_dropout, feature_alpha_dropout.

The ``torch``-level ops (``ember.dropout``, ``feature_dropout``, ``alpha_dropout``,
``feature_alpha_dropout`` and their in-place ``_`` forms) take ``(input, p, train)`` and
follow PyTorch's CPU recipe step by step, so that after the same ``manual_seed`` they give
the same numbers:

* ``p`` outside ``[0, 1]`` is a RuntimeError; ``p == 0``, ``train=False`` or an empty input
  return ``input`` itself;
* ``p == 1`` multiplies by a zero scalar (the result keeps ``input``'s NaNs as NaNs);
* otherwise a noise tensor of ``input``'s shape (``(N, C, 1, ...)`` for the feature forms) is
  filled with ``bernoulli_(1 - p)``; plain dropout multiplies by ``noise / (1 - p)``
  (``ember._ops.random_ops.dropout_noise``), alpha dropout by ``noise * a`` and then adds
  ``(noise - 1) * alpha * a + alpha * a * p`` (SELU's saturation value ``-alpha``, scaled
  and shifted to keep zero mean and unit variance).

The results are ordinary products and sums of ember ops, so the grad_fns are PyTorch's
(``MulBackward0``; ``AddBackward0`` for the alpha forms). The ``F.*`` forms check ``p``
with a ValueError first and handle the unbatched inputs of the ``Nd`` forms.

``__all__`` lists the names ``ember.nn.functional`` re-exports."""
import math
import warnings

from .._tensor import Tensor, _legacy_name
from . import _args
from ._util import register, wrap, aten, Node, grad_needed, record
from ..autograd.grad_mode import no_grad as _no_grad
from .._backend import to_device
from .random_ops import dropout_noise

__all__ = ['dropout', 'dropout1d', 'dropout2d', 'dropout3d', 'alpha_dropout',
           'feature_alpha_dropout']

_ALPHA = 1.7580993408473766   # -(SELU's negative saturation value) = scale * alpha


def _prob_value_error(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _fmt(p):
    """``p`` as PyTorch's C++ message prints a double (``2``, ``1.5``, ``-0.1``)."""
    p = float(p)
    return str(int(p)) if p.is_integer() else repr(p)


def _dense_perm(x):
    """The axis order that lays ``x`` out contiguously when ``x`` is a dense permutation
    of a contiguous tensor (as ``empty_like`` would keep it), else None."""
    if x.is_contiguous():
        return None
    shape, strides = x.shape, x.stride()
    perm = sorted(range(len(shape)), key=lambda d: (-strides[d], d))
    expect = 1
    for d in reversed(perm):
        if shape[d] != 1 and strides[d] != expect:
            return None
        expect *= shape[d]
    return perm


def _noise(input, p, feature, alpha):
    """``bernoulli_(1 - p)`` noise of PyTorch's shape and layout: scaled by ``1 / (1 - p)``
    (plain dropout) or the raw 0/1 mask (alpha dropout)."""
    if feature:
        n = dropout_noise(input, p, feature=True)
    else:
        perm = _dense_perm(input)
        if perm is None:
            n = dropout_noise(input, p)
        else:   # empty_like keeps a permuted layout; bernoulli_ fills it in memory order
            inv = [0] * len(perm)
            for i, d in enumerate(perm):
                inv[d] = i
            n = dropout_noise(input.permute(perm), p).permute(inv)
    if type(n._data) is not type(input._data):
        # the mask is drawn on the host: place it with the backend of the input's array
        n = wrap(to_device(n._data, input.device))
    if alpha:
        n = (n != 0).to(input.dtype)
    return n


def _check_dtype(input, alpha):
    dt = input.dtype
    if dt._cat in (0, 1):   # bool / integer: the float scaling cannot be written back
        name = 'Long' if alpha and dt._cat == 0 else _legacy_name(dt)
        raise RuntimeError(f"result type Float can't be cast to the desired output type {name}")


def _impl(input, p, train, feature, alpha, inplace):
    if not isinstance(input, Tensor):
        _args.tensor(input, _name(feature, alpha) + ('_' if inplace else ''))
    if type(train) is not bool:
        _args.as_bool(train, _name(feature, alpha) + ('_' if inplace else ''), 'train', 3)
    if not isinstance(p, (int, float)) or isinstance(p, bool):
        raise TypeError(f"{_name(feature, alpha)}{'_' if inplace else ''}(): argument 'p' "
                        f"(position 2) must be float, not {_args.type_name(p)}")
    p = float(p)
    if not (0 <= p <= 1):
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {_fmt(p)}")
    if p == 0 or not train or input.numel() == 0:
        return input
    if p == 1:
        z = input.new_zeros(())
        return input.mul_(z) if inplace else input.mul(z)
    if feature and input.dim() < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    if input.dtype._cat == 3:
        raise NotImplementedError(f'"bernoulli_scalar_cpu_" not implemented for '
                                  f"'{_legacy_name(input.dtype)}'")
    _check_dtype(input, alpha)
    noise = _noise(input, p, feature, alpha)
    if not alpha:
        return input.mul_(noise) if inplace else input.mul(noise)
    a = 1.0 / math.sqrt((_ALPHA * _ALPHA * p + 1) * (1 - p))
    b = (noise - 1) * (_ALPHA * a) + _ALPHA * a * p
    noise = noise * a
    if inplace:
        return input.mul_(noise).add_(b)
    return input.mul(noise).add(b)   # a fresh product: add and add_ are the same here


def _name(feature, alpha):
    return ('feature_' if feature else '') + ('alpha_' if alpha else '') + 'dropout'


def _torch_level(feature, alpha, inplace):
    def op(input, p, train):
        return _impl(input, p, train, feature, alpha, inplace)
    op.__name__ = op.__qualname__ = _name(feature, alpha) + ('_' if inplace else '')
    kind = ('channel-wise ' if feature else '') + ('alpha ' if alpha else '') + 'dropout'
    op.__doc__ = f"""Applies {kind} to ``input`` with probability ``p`` when ``train`` is
    True{' (in place)' if inplace else ''}: the ``torch``-level form of
    ``F.{'feature_' if feature and alpha else ''}{'alpha_' if alpha else ''}dropout{'2d' if
    feature and not alpha else ''}`` (no ValueError check of ``p``; a bad ``p`` is a
    RuntimeError here, as in PyTorch).

    Args:
        input (Tensor): the input{' (overwritten)' if inplace else ''}.
        p (float): probability of {'a channel' if feature else 'an element'} being dropped.
        train (bool): apply dropout; otherwise ``input`` is returned unchanged.

    Example::

        >>> ember.{op.__name__}(ember.ones(2, 3, 1), 0.0, True).shape
        torch.Size([2, 3, 1])
    """
    return register(method=False)(op)


# torch.dropout, torch.dropout_, torch.feature_dropout, ... (registered as ember.<name>)
_dropout = _torch_level(False, False, False)
_dropout_ = _torch_level(False, False, True)
_feature_dropout = _torch_level(True, False, False)
_feature_dropout_ = _torch_level(True, False, True)
_alpha_dropout = _torch_level(False, True, False)
_alpha_dropout_ = _torch_level(False, True, True)
_feature_alpha_dropout = _torch_level(True, True, False)
_feature_alpha_dropout_ = _torch_level(True, True, True)


def dropout(input, p=0.5, training=True, inplace=False):
    """During training, zeroes each element of ``input`` with probability ``p`` (Bernoulli
    draws) and scales the others by ``1 / (1 - p)``; the identity when not training.

    After the same ``manual_seed`` the dropped elements are PyTorch's.

    Args:
        input (Tensor): the input.
        p (float): probability of an element being zeroed. Default: 0.5
        training (bool): apply dropout if ``True``. Default: ``True``
        inplace (bool): do the operation in place. Default: ``False``

    Example::

        >>> _ = ember.manual_seed(0)
        >>> F.dropout(ember.ones(6), 0.5)   # torch.manual_seed(0) gives the same mask
        tensor([0., 0., 2., 0., 0., 0.])
    """
    _prob_value_error(p)
    return _impl(input, p, training, False, False, inplace)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Alpha dropout (for SELU networks): during training each element is, with
    probability ``p``, set to SELU's negative saturation value, and the result is scaled and
    shifted to keep zero mean and unit variance. Note that ``training`` defaults to False.

    Args:
        input (Tensor): the input.
        p (float): probability of an element being dropped. Default: 0.5
        training (bool): apply dropout if ``True``. Default: ``False``
        inplace (bool): do the operation in place. Default: ``False``

    Example::

        >>> F.alpha_dropout(ember.ones(3), 0.5).tolist()   # not training: identity
        [1.0, 1.0, 1.0]
    """
    _prob_value_error(p)
    return _impl(input, p, training, False, True, inplace)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Alpha dropout of whole channels: each channel ``input[i, j]`` is, with probability
    ``p``, set to SELU's negative saturation value (then scaled and shifted as in
    :func:`alpha_dropout`). ``training`` defaults to False.

    Args:
        input (Tensor): ``(N, C, *)``, at least 2-D when training.
        p (float): probability of a channel being dropped. Default: 0.5
        training (bool): apply dropout if ``True``. Default: ``False``
        inplace (bool): do the operation in place. Default: ``False``

    Example::

        >>> F.feature_alpha_dropout(ember.ones(2, 3, 4), 0.2).shape
        torch.Size([2, 3, 4])
    """
    _prob_value_error(p)
    return _impl(input, p, training, True, True, inplace)


def _feature_nd(input, p, training, inplace, batched):
    if not batched:
        input = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    res = _impl(input, p, training, True, False, inplace)
    if not batched:
        res = res.squeeze_(0) if inplace else res.squeeze(0)
    return res


def _dim(input, fname):
    if not isinstance(input, Tensor):
        _args.py_tensor(input, 'dim')
    return input.dim()


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels (1-D feature maps ``input[i, j]``) with probability ``p``
    during training, scaling the kept ones by ``1 / (1 - p)``.

    Args:
        input (Tensor): ``(N, C, L)`` or unbatched ``(C, L)``.
        p (float): probability of a channel being zeroed. Default: 0.5
        training (bool): apply dropout if ``True``. Default: ``True``
        inplace (bool): do the operation in place. Default: ``False``

    Example::

        >>> F.dropout1d(ember.ones(2, 3, 4), 0.5).shape
        torch.Size([2, 3, 4])
    """
    _prob_value_error(p)
    nd = _dim(input, 'dropout1d')
    if nd not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {nd}D input. Note that "
            "dropout1d exists to provide channel-wise dropout on inputs with 1 spatial "
            "dimension, a channel dimension, and an optional batch dimension (i.e. 2D or 3D "
            "inputs).")
    return _feature_nd(input, p, training, inplace, nd == 3)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels (2-D feature maps ``input[i, j]``) with probability ``p``
    during training, scaling the kept ones by ``1 / (1 - p)``.

    As in PyTorch, a 3-D input is taken as ``(N, C, L)`` (1-D channel-wise dropout, with a
    warning), and inputs of other than 3 or 4 dims warn that this is deprecated.

    Args:
        input (Tensor): ``(N, C, H, W)`` (or ``(N, C, L)``, see above).
        p (float): probability of a channel being zeroed. Default: 0.5
        training (bool): apply dropout if ``True``. Default: ``True``
        inplace (bool): do the operation in place. Default: ``False``

    Example::

        >>> F.dropout2d(ember.ones(2, 3, 4, 4), 0.5).shape
        torch.Size([2, 3, 4, 4])
    """
    _prob_value_error(p)
    nd = _dim(input, 'dropout2d')
    if nd not in (3, 4):
        warnings.warn(
            f"dropout2d: Received a {nd}-D input to dropout2d, which is deprecated and will "
            "result in an error in a future release. To retain the behavior and silence this "
            "warning, please use dropout instead. Note that dropout2d exists to provide "
            "channel-wise dropout on inputs with 2 spatial dimensions, a channel dimension, "
            "and an optional batch dimension (i.e. 3D or 4D inputs).", stacklevel=2)
    if nd == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D "
            "dropout behavior is desired - input is interpreted as shape (N, C, L), where C is "
            "the channel dim. This behavior will change in a future release to interpret the "
            "input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
            "channel-wise dropout behavior, please switch to using dropout1d instead.",
            stacklevel=2)
    return _impl(input, p, training, True, False, inplace)


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels (3-D feature maps ``input[i, j]``) with probability ``p``
    during training, scaling the kept ones by ``1 / (1 - p)``.

    Args:
        input (Tensor): ``(N, C, D, H, W)`` or unbatched ``(C, D, H, W)``; other dims warn
            (deprecated) and are treated as unbatched.
        p (float): probability of a channel being zeroed. Default: 0.5
        training (bool): apply dropout if ``True``. Default: ``True``
        inplace (bool): do the operation in place. Default: ``False``

    Example::

        >>> F.dropout3d(ember.ones(2, 3, 2, 2, 2), 0.5).shape
        torch.Size([2, 3, 2, 2, 2])
    """
    _prob_value_error(p)
    nd = _dim(input, 'dropout3d')
    if nd not in (4, 5):
        warnings.warn(
            f"dropout3d: Received a {nd}-D input to dropout3d, which is deprecated and will "
            "result in an error in a future release. To retain the behavior and silence this "
            "warning, please use dropout instead. Note that dropout3d exists to provide "
            "channel-wise dropout on inputs with 3 spatial dimensions, a channel dimension, "
            "and an optional batch dimension (i.e. 4D or 5D inputs).", stacklevel=2)
    return _feature_nd(input, p, training, inplace, nd == 5)


class NativeDropoutBackwardBackward0(Node):
    def backward(self, g):
        (mask,) = self.saved_tensors
        return g * mask * self.scale, None


@aten('native_dropout_backward')
def native_dropout_backward(grad_output, mask, scale):
    """The gradient of a dropout through its ``mask``: ``grad_output * mask * scale`` (the
    operator ``ember.ops.aten.native_dropout_backward``), differentiable in
    ``grad_output``.

    Args:
        grad_output (Tensor): the gradient of the dropout's result.
        mask (Tensor): the kept elements (broadcastable to ``grad_output``).
        scale (float): the factor of the kept elements, ``1 / (1 - p)``.

    Example::

        >>> ember.ops.aten.native_dropout_backward(ember.ones(3),
        ...                                        ember.tensor([True, False, True]), 2.0)
        tensor([2., 0., 2.])
    """
    from .arithmetic import mul
    for t in (grad_output, mask):
        if not isinstance(t, Tensor):
            _args.tensor(t, 'native_dropout_backward')
    with _no_grad():
        res = mul(mul(grad_output, mask), scale)
    if grad_needed(grad_output):
        node = NativeDropoutBackwardBackward0()
        node.scale = scale
        record(res, node, (grad_output, mask), save=(mask,))
    return res
