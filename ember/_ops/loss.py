"""Loss functions: each reduces with ``reduction='mean'|'sum'|'none'`` (the legacy
``size_average``/``reduce`` arguments are translated as PyTorch does).

Kernels with a node of their own (PyTorch's grad_fn names): ``mse_loss``
(MseLossBackward0), ``nll_loss`` (NllLossBackward0 / NllLoss2DBackward0), ``ctc_loss``
(CtcLossBackward0), ``binary_cross_entropy``, ``binary_cross_entropy_with_logits``,
``huber_loss``, ``smooth_l1_loss``, ``soft_margin_loss``, ``multi_margin_loss``,
``multilabel_margin_loss``. The others are compositions of ember ops, as in PyTorch.

The ``torch.xxx`` forms (``ember.kl_div``, ``ember.ctc_loss``, ...) take the reduction as
PyTorch's enumeration (0 none, 1 mean, 2 sum), the ``F.xxx`` forms as a string. Their
default is 0 (no reduction): PyTorch documents ``reduction=Mean`` in their signatures, but
its Python bindings reduce nothing when the argument is left out, and ember gives the same
numbers.
"""
import math
import warnings

from . import _args
from .._tensor import Tensor, _Mode, _legacy_name
from .._dtype import _NP2DT
from ._util import wrap, Node, grad_needed, record, register
from .._backend import array_module

__all__ = ['l1_loss', 'mse_loss', 'cross_entropy', 'nll_loss', 'ctc_loss', 'poisson_nll_loss',
           'gaussian_nll_loss', 'kl_div', 'binary_cross_entropy',
           'binary_cross_entropy_with_logits', 'margin_ranking_loss', 'hinge_embedding_loss',
           'multilabel_margin_loss', 'huber_loss', 'smooth_l1_loss', 'soft_margin_loss',
           'multilabel_soft_margin_loss', 'cosine_embedding_loss', 'multi_margin_loss',
           'triplet_margin_loss', 'triplet_margin_with_distance_loss', 'linear_cross_entropy']

_ENUM = ('none', 'mean', 'sum')


# ----------------------------------------------------------------------------- helpers

def _reduction(size_average, reduce, reduction):
    """The reduction string, translating the deprecated ``size_average``/``reduce``."""
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if size_average and reduce:
        ret = 'mean'
    elif reduce:
        ret = 'sum'
    else:
        ret = 'none'
    warnings.warn("size_average and reduce args will be deprecated, please use reduction='{}' "
                  "instead.".format(ret), UserWarning, stacklevel=3)
    return ret


def _red(reduction):
    """Validate a reduction string (PyTorch's ``_Reduction.get_enum``)."""
    if reduction == 'mean' or reduction == 'sum' or reduction == 'none':
        return reduction
    if reduction == 'elementwise_mean':
        warnings.warn("reduction='elementwise_mean' is deprecated. Please use reduction='mean' "
                      "instead.", UserWarning, stacklevel=3)
        return 'mean'
    raise ValueError(f"{reduction} is not a valid value for reduction")


def _red_enum(reduction, fname='loss'):
    """The reduction string of PyTorch's enumeration (the ``torch.xxx`` forms)."""
    if isinstance(reduction, bool) or not isinstance(reduction, int):
        raise TypeError(f"{fname}(): argument 'reduction' must be int, not "
                        f"{_args.type_name(reduction)}")
    if reduction not in (0, 1, 2):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return _ENUM[int(reduction)]


def _apply_reduction(x, reduction):
    if reduction == 'none':
        return x
    if reduction == 'mean':
        return x.mean()
    if reduction == 'sum':
        return x.sum()
    raise ValueError(f"{reduction} is not a valid value for reduction")


def _reduce_arr(xp, arr, reduction):
    """Reduce an array of elementwise losses (mean of nothing is nan)."""
    if reduction == 'none':
        return arr if arr.ndim else xp.asarray(arr, dtype=arr.dtype)   # numpy 0-d: a scalar
    s = arr.sum()
    if reduction == 'mean':
        s = s / arr.size if arr.size else xp.asarray(math.nan, arr.dtype)
    return xp.asarray(s, dtype=arr.dtype)


def _tname(arr):
    return _legacy_name(_NP2DT[arr.dtype])


def _shape_str(s):
    return '[' + ', '.join(str(int(v)) for v in s) + ']'


def _size_str(s):
    return 'torch.Size([' + ', '.join(str(int(v)) for v in s) + '])'


def _check_sizes(input, target, name):
    if not isinstance(target, Tensor):
        _args.py_tensor(target, 'size')
    if target.shape != input.shape:
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input size "
                      f"({input.shape}). This will likely lead to incorrect results due to "
                      "broadcasting. Please ensure they have the same size.", UserWarning, stacklevel=3)


def _tensor_arg(v, fname, arg, pos):
    if not isinstance(v, Tensor):
        _args.tensor(v, fname, arg, pos)


def _no_grad_arg(t, fname, arg):
    """PyTorch refuses a ``requires_grad`` tensor for an argument it does not
    differentiate (a loss's class ``weight``)."""
    if t is not None and _Mode.grad and t._rg:
        raise RuntimeError(f"The function '{fname}' is not differentiable with respect to "
                           f"argument '{arg}'. This input cannot have requires_grad True.")


def _float_kernel(arr, kname):
    if arr.dtype.kind not in 'fV':
        raise NotImplementedError(f'"{kname}" not implemented for \'{_tname(arr)}\'')


def _not_impl_node(res, name, *ins):
    from ._pointwise_common import _record_not_impl
    _record_not_impl(res, name, *ins)


# ----------------------------------------------------------------------------- l1 / mse

def l1_loss(input, target, size_average=None, reduce=None, reduction='mean', weight=None):
    """Mean (or sum, or none) absolute error between ``input`` and ``target``.

    Args:
        input (Tensor): any shape.
        target (Tensor): the same shape (broadcast, with a warning, otherwise).
        size_average, reduce: deprecated (see ``reduction``).
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.
        weight (Tensor, optional): elementwise weights of ``input``'s shape; ``'mean'`` then
            divides by their sum.

    Example::

        >>> F.l1_loss(ember.tensor([1., 2.]), ember.tensor([0., 0.]))
        tensor(1.5000)
    """
    if not isinstance(input, Tensor):
        _args.py_tensor(input, 'size')
    _check_sizes(input, target, 'l1_loss')
    reduction = _reduction(size_average, reduce, reduction)
    import ember
    if input.shape != target.shape:
        input, target = ember.broadcast_tensors(input, target)
    if weight is not None:
        if weight.shape != input.shape:
            raise ValueError("Weights and input must have the same size.")
        d = (input - target).abs() * weight
        if reduction == 'none':
            return d
        if reduction == 'sum':
            return d.sum()
        if reduction == 'mean':
            return d.sum() / weight.sum()
        raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', "
                         "'sum'.")
    reduction = _red(reduction)
    if input._data.dtype.kind not in 'fcV' and reduction == 'mean':
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a "
                           f"floating point or complex dtype. Got: {_tname(input._data)}")
    return _apply_reduction((input - target).abs(), reduction)


class MseLossBackward0(Node):
    def backward(self, g):
        x, t = self.saved_tensors
        d = (x - t) * 2
        if self.reduction == 'mean':
            d = d / self.n
        gi = d * g
        return (gi if self.needs[0] else None), (-gi if self.needs[1] else None)


def mse_loss(input, target, size_average=None, reduce=None, reduction='mean', weight=None):
    """Mean (or sum, or none) squared error between ``input`` and ``target``.

    Args:
        input (Tensor), target (Tensor): broadcastable (a warning when shapes differ).
        size_average, reduce: deprecated (see ``reduction``).
        reduction (str): ``'mean'`` (default), ``'sum'`` or ``'none'``.
        weight (Tensor, optional): per-element weights of ``input``'s shape; ``'mean'``
            then divides by their sum.

    Example::

        >>> F.mse_loss(ember.tensor([1., 2.]), ember.tensor([0., 0.]))
        tensor(2.5000)
    """
    if not isinstance(input, Tensor):
        _args.py_tensor(input, 'size')
    _check_sizes(input, target, 'mse_loss')
    reduction = _reduction(size_average, reduce, reduction)
    import ember
    if input.shape != target.shape:
        input, target = ember.broadcast_tensors(input, target)
    if weight is not None:
        if weight.shape != input.shape:
            raise ValueError("Weights and input must have the same size.")
        d = (input - target).pow(2) * weight
        if reduction == 'none':
            return d
        if reduction == 'sum':
            return d.sum()
        if reduction == 'mean':
            return d.sum() / weight.sum()
        raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', "
                         "'sum'.")
    reduction = _red(reduction)
    from ._util import binary_arrays
    a, b, xp = binary_arrays(input, target)
    _float_kernel(a, 'mse_cpu')
    diff = a - b
    out = wrap(_reduce_arr(xp, diff * diff, reduction))
    if grad_needed(input, target):
        node = MseLossBackward0()
        node.reduction = reduction
        node.n = a.size
        record(out, node, (input, target), save=(input, target))
    return out


# ----------------------------------------------------------------------------- pointwise kernels

class _PointwiseLoss(Node):
    """Backward of an elementwise loss ``l(x, t)`` followed by a reduction: subclasses
    give ``grads(g, x, t)``, the gradients of ``sum(g * l)`` (ember ops)."""

    def backward(self, g):
        x, t = self.saved_tensors
        if self.reduction == 'mean':
            g = g / self.n
        return self.grads(g, x, t)


class HuberLossBackward0(_PointwiseLoss):
    def grads(self, g, x, t):
        if x.dtype != t.dtype:     # PyTorch's huber backward refuses mixed dtypes
            raise RuntimeError(f"Found dtype {_tname(t._data)} but expected {_tname(x._data)}")
        gx = (x - t).clamp(-self.delta, self.delta) * g
        return (gx if self.needs[0] else None), (-gx if self.needs[1] else None)


class SmoothL1LossBackward0(_PointwiseLoss):
    def grads(self, g, x, t):
        gx = ((x - t) / self.beta).clamp(-1, 1) * g
        return (gx if self.needs[0] else None), (-gx if self.needs[1] else None)


class SoftMarginLossBackward0(_PointwiseLoss):
    def grads(self, g, x, t):
        return -t * (-t * x).sigmoid() * g, None


class BinaryCrossEntropyBackward0(_PointwiseLoss):
    def grads(self, g, x, t):
        w = self.weight
        gx = gt = None
        if self.needs[0]:
            gx = (x - t) / ((1 - x) * x).clamp_min(1e-12) * g
            if w is not None:
                gx = gx * w
        if self.needs[1]:
            gt = ((-x).log1p() - x.log()) * g
            if w is not None:
                gt = gt * w
        return gx, gt


def _log_sigmoid(x):
    """log(sigmoid(x)) in ember ops, stable for large |x|."""
    return -((-x).clamp_min(0) + (-x.abs()).exp().log1p())


class BinaryCrossEntropyWithLogitsBackward0(_PointwiseLoss):
    def grads(self, g, x, t):
        w, pw = self.weight, self.pos_weight
        gx = gt = None
        if self.needs[0]:
            if pw is None:
                gx = (x.sigmoid() - t) * g
            else:
                gx = (x.sigmoid() * ((pw - 1) * t + 1) - pw * t) * g
            if w is not None:
                gx = gx * w
        if self.needs[1]:
            if pw is None:
                gt = -x * g
            else:
                gt = (_log_sigmoid(-x) - pw * _log_sigmoid(x)) * g
            if w is not None:
                gt = gt * w
        return gx, gt


def _pointwise(node, input, target, reduction, arr, save_shape_n):
    res = wrap(_reduce_arr(array_module(input._data), arr, reduction))
    if grad_needed(input, target):
        node.reduction = reduction
        node.n = save_shape_n
        record(res, node, (input, target), save=(input, target))
    return res


def huber_loss(input, target, reduction='mean', delta=1.0, weight=None):
    """Huber loss: ``0.5 d^2`` where ``|d| < delta``, else ``delta (|d| - 0.5 delta)``, for
    ``d = input - target``.

    Args:
        input (Tensor), target (Tensor): broadcastable (a warning when shapes differ).
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.
        delta (float): the threshold, ``> 0``. Default: 1.0.
        weight (Tensor, optional): elementwise weights of ``input``'s shape.

    Example::

        >>> F.huber_loss(ember.tensor([0.5, 3.]), ember.tensor([0., 0.]), reduction='none')
        tensor([0.1250, 2.5000])
    """
    if not isinstance(input, Tensor):
        _args.py_tensor(input, 'size')
    _check_sizes(input, target, 'huber_loss')
    import ember
    if input.shape != target.shape:
        input, target = ember.broadcast_tensors(input, target)
    if weight is not None:
        if weight.shape != input.shape:
            raise ValueError("Weights and input must have the same size.")
        d = huber_loss(input, target, 'none', delta) * weight
        if reduction == 'none':
            return d
        if reduction == 'sum':
            return d.sum()
        if reduction == 'mean':
            return d.mean()
        raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', "
                         "'sum'.")
    reduction = _red(reduction)
    _tensor_arg(target, 'huber_loss', 'target', 2)
    a, b = input._data, target._data
    _float_kernel(a, 'huber_cpu')
    if not delta > 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    xp = array_module(a)
    if b.dtype != a.dtype:
        b = b.astype(a.dtype)
    z = xp.abs(a - b)
    arr = xp.where(z < delta, 0.5 * z * z, delta * (z - 0.5 * delta)).astype(a.dtype, copy=False)
    node = HuberLossBackward0()
    node.delta = delta
    return _pointwise(node, input, target, reduction, arr, a.size)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction='mean', beta=1.0):
    """Smooth L1 loss: ``0.5 d^2 / beta`` where ``|d| < beta``, else ``|d| - 0.5 beta``, for
    ``d = input - target`` (``beta = 0`` is the L1 loss).

    Args:
        input (Tensor), target (Tensor): broadcastable (a warning when shapes differ).
        size_average, reduce: deprecated (see ``reduction``).
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.
        beta (float): the threshold, ``>= 0``. Default: 1.0.

    Example::

        >>> F.smooth_l1_loss(ember.tensor([0.5, 3.]), ember.tensor([0., 0.]), reduction='none')
        tensor([0.1250, 2.5000])
    """
    if not isinstance(input, Tensor):
        _args.py_tensor(input, 'size')
    _check_sizes(input, target, 'smooth_l1_loss')
    reduction = _reduction(size_average, reduce, reduction)
    import ember
    if input.shape != target.shape:
        input, target = ember.broadcast_tensors(input, target)
    if beta == 0.0:
        return l1_loss(input, target, reduction=reduction)
    reduction = _red(reduction)
    _float_kernel(input._data, 'smooth_l1_cpu')
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    from ._util import binary_arrays
    a, b, xp = binary_arrays(input, target)    # PyTorch's result dtype is the promoted one
    z = xp.abs(a - b)
    arr = xp.where(z < beta, 0.5 * z * z / beta, z - 0.5 * beta).astype(a.dtype, copy=False)
    node = SmoothL1LossBackward0()
    node.beta = beta
    return _pointwise(node, input, target, reduction, arr, a.size)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction='mean'):
    """Two-class logistic loss ``log(1 + exp(-target * input))`` (targets are 1 or -1).

    Args:
        input (Tensor): any shape.
        target (Tensor): broadcastable with ``input``, values 1 or -1.
        size_average, reduce: deprecated (see ``reduction``).
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.

    Example::

        >>> F.soft_margin_loss(ember.tensor([0.]), ember.tensor([1.]))
        tensor(0.6931)
    """
    reduction = _red(_reduction(size_average, reduce, reduction))
    _tensor_arg(input, 'soft_margin_loss', 'input', 1)
    _tensor_arg(target, 'soft_margin_loss', 'target', 2)
    a, b = input._data, target._data
    xp = array_module(a)
    if a.dtype.kind not in 'fV':
        raise RuntimeError(f"result type Float can't be cast to the desired output type "
                           f"{_tname(a)}")
    _no_grad_arg(target, 'soft_margin_loss', 'target')
    from ._util import check_broadcast
    check_broadcast(a.shape, b.shape)
    arr = xp.log1p(xp.exp(-(b * a))).astype(a.dtype, copy=False)
    if a.shape != arr.shape:
        raise RuntimeError(f"output with shape {_shape_str(a.shape)} doesn't match the broadcast "
                           f"shape {_shape_str(arr.shape)}")
    return _pointwise(SoftMarginLossBackward0(), input, target, reduction, arr, arr.size)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction='mean'):
    """Binary cross entropy between probabilities ``input`` and ``target``:
    ``-w (t log(x) + (1 - t) log(1 - x))``, each log clamped below at -100.

    Args:
        input (Tensor): probabilities in ``[0, 1]``.
        target (Tensor): the same shape as ``input``, values in ``[0, 1]``.
        weight (Tensor, optional): broadcastable to ``target``'s shape.
        size_average, reduce: deprecated (see ``reduction``).
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.

    Example::

        >>> F.binary_cross_entropy(ember.tensor([0.5]), ember.tensor([1.]))
        tensor(0.6931)
    """
    reduction = _red(_reduction(size_average, reduce, reduction))
    if not isinstance(target, Tensor):
        _args.py_tensor(target, 'size')
    if not isinstance(input, Tensor):
        _args.py_tensor(input, 'size')
    if target.shape != input.shape:
        raise ValueError(f"Using a target size ({_size_str(target.shape)}) that is different to the "
                         f"input size ({_size_str(input.shape)}) is deprecated. Please ensure they "
                         "have the same size.")
    import ember
    if weight is not None:
        weight = weight.expand(ember.broadcast_shapes(target.shape, weight.shape))
    a, b = input._data, target._data
    xp = array_module(a)
    _float_kernel(a, 'binary_cross_entropy')
    if b.dtype != a.dtype:
        raise RuntimeError(f"Found dtype {_tname(b)} but expected {_tname(a)}")
    _no_grad_arg(weight, 'binary_cross_entropy', 'weight')
    w = None
    if weight is not None:
        w = weight._data
        if w.shape != a.shape:
            raise RuntimeError(f"Attempting to broadcast a dimension of length {w.shape[-1]} at -1! "
                               f"Mismatching argument at index 1 had {_size_str(w.shape)}; but "
                               f"expected shape should be broadcastable to {_shape_str(a.shape)}")
    if a.size and not bool(((a >= 0) & (a <= 1)).all()):
        raise RuntimeError("all elements of input should be between 0 and 1")
    with _errstate(xp):
        arr = (b - 1) * xp.maximum(xp.log1p(-a), -100) - b * xp.maximum(xp.log(a), -100)
    if w is not None:
        arr = arr * w.astype(a.dtype, copy=False)
    arr = arr.astype(a.dtype, copy=False)
    node = BinaryCrossEntropyBackward0()
    node.weight = None if weight is None else weight.detach()
    return _pointwise(node, input, target, reduction, arr, a.size)


def _bshape(s, t):
    n = max(len(s), len(t))
    s = (1,) * (n - len(s)) + tuple(s)
    t = (1,) * (n - len(t)) + tuple(t)
    return tuple(i if j == 1 else j for i, j in zip(s, t))


class _errstate:
    """Silence NumPy's floating-point warnings (log of 0 is -inf, as intended)."""
    __slots__ = ('cm',)

    def __init__(self, xp):
        f = getattr(xp, 'errstate', None)
        self.cm = f(all='ignore') if f is not None else None

    def __enter__(self):
        if self.cm is not None:
            self.cm.__enter__()

    def __exit__(self, *a):
        if self.cm is not None:
            self.cm.__exit__(*a)


def _bce_logits(input, target, weight, pos_weight, reduction):
    _tensor_arg(input, 'binary_cross_entropy_with_logits', 'input', 1)
    _tensor_arg(target, 'binary_cross_entropy_with_logits', 'target', 2)
    from ._util import binary_arrays, check_broadcast
    if input._data.dtype.kind not in 'fV':
        raise NotImplementedError(f'"log_sigmoid_cpu" not implemented for '
                                  f"'{_tname(input._data)}'")
    _no_grad_arg(weight, 'binary_cross_entropy_with_logits', 'weight')
    _no_grad_arg(pos_weight, 'binary_cross_entropy_with_logits', 'pos_weight')
    a, b, xp = binary_arrays(input, target)
    shape = a.shape if a.shape == b.shape else None
    if shape is None:
        check_broadcast(a.shape, b.shape)
    bs = _bshape(a.shape, b.shape)
    if bs != b.shape:
        raise RuntimeError(f"output with shape {_shape_str(b.shape)} doesn't match the broadcast "
                           f"shape {_shape_str(bs)}")
    if pos_weight is not None:
        pw = pos_weight._data
        check_broadcast(b.shape, pw.shape)
        lw = (pw - 1) * b + 1
        arr = (1 - b) * a + lw * (xp.log1p(xp.exp(-xp.abs(a))) + xp.maximum(-a, 0))
    else:
        arr = (1 - b) * a + (xp.log1p(xp.exp(-xp.abs(a))) + xp.maximum(-a, 0))
    if weight is not None:
        check_broadcast(arr.shape, weight._data.shape)
        arr = arr * weight._data
    # PyTorch computes into a tensor of the target's shape and dtype
    arr = arr.astype(target._data.dtype, copy=False)
    node = BinaryCrossEntropyWithLogitsBackward0()
    node.weight = None if weight is None else weight.detach()
    node.pos_weight = None if pos_weight is None else pos_weight.detach()
    return _pointwise(node, input, target, reduction, arr, arr.size)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction='mean', pos_weight=None):
    """Binary cross entropy of ``sigmoid(input)`` and ``target``, computed stably from the
    logits: ``-w (p t log(sigmoid(x)) + (1 - t) log(1 - sigmoid(x)))``.

    Args:
        input (Tensor): logits, any shape.
        target (Tensor): the same shape, values in ``[0, 1]``.
        weight (Tensor, optional): broadcastable to ``input``'s shape.
        size_average, reduce: deprecated (see ``reduction``).
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.
        pos_weight (Tensor, optional): weight of positive examples, broadcastable (one per
            class, along the last dimension).

    Example::

        >>> F.binary_cross_entropy_with_logits(ember.tensor([0.]), ember.tensor([1.]))
        tensor(0.6931)
    """
    reduction = _red(_reduction(size_average, reduce, reduction))
    if not isinstance(target, Tensor):
        _args.py_tensor(target, 'size')
    if not isinstance(input, Tensor):
        _args.py_tensor(input, 'size')
    if target.shape != input.shape:
        raise ValueError(f"Target size ({_size_str(target.shape)}) must be the same as input size "
                         f"({_size_str(input.shape)})")
    return _bce_logits(input, target, weight, pos_weight, reduction)


@register('binary_cross_entropy_with_logits', method=False)
def _binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=0):
    """``torch.binary_cross_entropy_with_logits``: the reduction is PyTorch's enumeration
    (0 none, 1 mean, 2 sum; default 0); input and target broadcast. See
    :func:`ember.nn.functional.binary_cross_entropy_with_logits`.

    Example::

        >>> ember.binary_cross_entropy_with_logits(ember.tensor([0.]), ember.tensor([1.]))
        tensor([0.6931])
    """
    red = _red_enum(reduction, 'binary_cross_entropy_with_logits')
    return _bce_logits(input, target, weight, pos_weight, red)


# ----------------------------------------------------------------------------- nll / cross entropy

class NllLossBackward0(Node):
    def backward(self, g):
        import ember
        (x,) = self.saved_tensors
        if self.bad is not None:     # PyTorch's backward refuses a (1,) target of a (C,) input
            raise RuntimeError(self.bad)
        if not (_Mode.grad and g._rg):   # no graph of the gradient: one array kernel
            xp = array_module(g._data)
            gd = g._data.reshape(self.gshape) if self.reduction == 'none' else g._data
            out = xp.zeros(self.xshape, dtype=x._data.dtype)
            n, _, k = self.xshape
            vals = xp.broadcast_to(self.coef * gd, (n, 1, k))[:, 0, :]
            out[xp.arange(n)[:, None], self.idx[:, 0, :], xp.arange(k)[None, :]] = vals
            return wrap(out.reshape(x.shape))
        coef = wrap(self.coef)             # (N, 1, *) or (1, 1): -w[t] / total (0 if ignored)
        if self.reduction == 'none':
            gg = g.reshape(self.gshape)    # (N, 1, *)
        else:
            gg = g
        src = coef * gg
        z = ember.zeros(self.xshape, dtype=x.dtype)
        out = z.scatter(1, wrap(self.idx), src)
        return out.reshape(x.shape)


class NllLoss2DBackward0(NllLossBackward0):
    pass


def _nll(input, target, weight, reduction, ignore_index):
    x, t = input._data, target._data
    xp = array_module(x)
    nd = x.ndim
    if nd < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {nd})")
    if nd != 1 and (t.shape[0] if t.ndim else 0) != x.shape[0]:
        raise ValueError(f"Expected input batch_size ({x.shape[0]}) to match target batch_size "
                         f"({t.shape[0] if t.ndim else 0}).")
    if t.dtype.kind not in 'iub' or t.dtype.kind == 'b' or \
            (t.dtype.itemsize != 8 and t.dtype.name != 'uint8'):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {_tname(t)}")
    C = x.shape[0] if nd == 1 else x.shape[1]
    if nd <= 2:
        if t.ndim > 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        if nd == 1 and t.ndim == 1 and t.shape[0] != 1:
            raise ValueError(f"For 1D input, 1D target must have size 1, but got target size: "
                             f"{t.shape[0]}")
        cls = NllLossBackward0
    else:
        if nd == 4 and t.dtype.name == 'uint8':
            raise RuntimeError("expected scalar type Long but found Byte")
        if nd == 4 and t.ndim != 3:
            raise RuntimeError("only batches of spatial targets supported (3D tensors) but got "
                               f"targets of dimension: {t.ndim}")
        if nd == 4 and t.shape != (x.shape[0],) + x.shape[2:]:
            raise RuntimeError(f"size mismatch (got input: {_shape_str(x.shape)} , target: "
                               f"{_shape_str(t.shape)}")
        if nd != 4 and t.shape != (x.shape[0],) + x.shape[2:]:
            raise RuntimeError(f"Expected target size {_shape_str((x.shape[0],) + x.shape[2:])}, "
                               f"got {_shape_str(t.shape)}")
        cls = NllLoss2DBackward0
    if x.dtype.kind not in 'fV':
        raise NotImplementedError(f'"nll_loss_out_frame" not implemented for \'{_tname(x)}\'')
    w = None
    if weight is not None:
        w = weight._data
        if w.ndim != 1 or w.shape[0] != C:
            if nd > 2:
                raise RuntimeError("weight tensor should be defined either for all or no classes")
            raise RuntimeError(f"weight tensor should be defined either for all {C} classes or "
                               f"no classes but got weight tensor of shape: {_shape_str(w.shape)}")
        if w.dtype != x.dtype:
            raise RuntimeError(f"expected scalar type {_tname(x)} but found {_tname(w)}")
    _no_grad_arg(weight, 'nll_loss_forward', 'weight')
    # a (N, C, K) view of the input and (N, K) of the target
    if nd == 1:
        x3 = x.reshape(1, C, 1)
        t2 = t.reshape(1, 1)
    else:
        K = math.prod(x.shape[2:])
        x3 = x.reshape(x.shape[0], C, K)
        t2 = t.reshape(t.shape[0], K)
    t2 = t2.astype('int64', copy=False)
    valid = t2 != ignore_index
    tc = xp.where(valid, t2, 0)
    bad = valid & ((tc < 0) | (tc >= C))
    if bool(bad.any()):
        raise IndexError(f"Target {int(t2[bad][0])} is out of bounds.")
    picked = xp.take_along_axis(x3, tc[:, None, :], axis=1)[:, 0, :]
    if w is not None:
        wt = xp.where(valid, w[tc], 0).astype(x.dtype, copy=False)
    else:
        wt = valid.astype(x.dtype)
    loss = xp.where(valid, -picked * wt, 0).astype(x.dtype, copy=False)
    if reduction == 'none':
        out = loss.reshape(t.shape if nd != 1 else ())
        coef = -wt
    elif reduction == 'sum':
        out = xp.asarray(loss.sum(), dtype=x.dtype)
        coef = -wt
    else:
        total = wt.sum()
        with _errstate(xp):
            out = xp.asarray(loss.sum() / total, dtype=x.dtype)
            coef = xp.where(valid, -wt / total, 0)
    res = wrap(out)
    if _Mode.grad and input._rg:
        node = cls()
        node.reduction = reduction
        node.bad = (f"size mismatch (got input: {_shape_str(x.shape)}, target: "
                    f"{_shape_str(t.shape)})") if nd == 1 and t.ndim == 1 else None
        node.coef = coef[:, None, :].astype(x.dtype, copy=False)
        node.idx = tc[:, None, :]
        node.xshape = x3.shape
        node.gshape = (x3.shape[0], 1, x3.shape[2])
        record(res, node, (input,), save=(input,))
    return res


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction='mean'):
    """The negative log likelihood loss: ``-w[t] * input[n, t]`` for the class index ``t``
    of each sample (and spatial position, for ``(N, C, d1, ...)`` inputs).

    Args:
        input (Tensor): log-probabilities ``(N, C)``, ``(C)`` or ``(N, C, d1, ..., dK)``.
        target (Tensor): class indices ``(N)``, ``()`` or ``(N, d1, ..., dK)`` (int64).
        weight (Tensor, optional): ``(C)`` class weights.
        size_average, reduce: deprecated (see ``reduction``).
        ignore_index (int): a target value that adds nothing (and is left out of the mean's
            denominator). Default: -100.
        reduction (str): ``'none'`` | ``'mean'`` (weighted mean) | ``'sum'``. Default:
            ``'mean'``.

    Example::

        >>> F.nll_loss(ember.tensor([[-1., -2.], [-3., -0.5]]), ember.tensor([0, 1]))
        tensor(0.7500)
    """
    reduction = _red(_reduction(size_average, reduce, reduction))
    _tensor_arg(input, 'nll_loss_nd', 'input', 1)
    _tensor_arg(target, 'nll_loss_nd', 'target', 2)
    x = input
    if x.dim() == 3 or x.dim() > 4:
        # PyTorch folds the spatial dims into one and unfolds the 'none' result with a view
        n, c = x.shape[0], x.shape[1]
        t = target._data
        if t.shape != (x.shape[0],) + tuple(x.shape[2:]) and x.shape[0] == (t.shape[0] if t.ndim
                                                                            else 0):
            raise RuntimeError(f"Expected target size {_shape_str((n,) + tuple(x.shape[2:]))}, "
                               f"got {_shape_str(t.shape)}")
        if t.ndim and t.shape[0] == n and x.numel():
            out = _nll(x.reshape(n, c, 1, -1), target.reshape(n, 1, -1), weight, reduction,
                       ignore_index)
            return out.view(target.shape) if reduction == 'none' else out
    return _nll(x, target, weight, reduction, ignore_index)


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction='mean', label_smoothing=0.0):
    """Cross entropy between the logits ``input`` and ``target``: ``nll_loss`` of
    ``log_softmax(input)`` for class indices, ``-sum(target * log_softmax(input))`` for
    class probabilities (a target of the input's shape).

    Args:
        input (Tensor): logits ``(N, C)``, ``(C)`` or ``(N, C, d1, ..., dK)``.
        target (Tensor): class indices ``(N)``, ``()``, ``(N, d1, ..., dK)`` (int64), or class
            probabilities of ``input``'s shape (floating).
        weight (Tensor, optional): ``(C)`` class weights.
        size_average, reduce: deprecated (see ``reduction``).
        ignore_index (int): a class index that adds nothing. Default: -100.
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.
        label_smoothing (float): in ``[0, 1]``: the target is mixed with the uniform
            distribution by this amount. Default: 0.

    Example::

        >>> F.cross_entropy(ember.tensor([[2., 0.], [0., 2.]]), ember.tensor([0, 1]))
        tensor(0.1269)
    """
    reduction = _red(_reduction(size_average, reduce, reduction))
    _tensor_arg(input, 'cross_entropy_loss', 'input', 1)
    _tensor_arg(target, 'cross_entropy_loss', 'target', 2)
    import ember
    cdim = 0 if input.dim() == 1 else 1
    if input.shape == target.shape:
        if target._data.dtype.kind not in 'fcV':
            raise RuntimeError("Expected floating point type for target with class "
                               f"probabilities, got {_tname(target._data)}")
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        C = input.shape[cdim]
        if weight is not None and (weight.dim() != 1 or weight.numel() != C):
            raise RuntimeError(f"cross_entropy: weight tensor should be defined either for all "
                               f"{C} classes or no classes but got weight tensor of shape: "
                               f"{_shape_str(weight.shape)}")
        logp = ember.log_softmax(input, cdim)
        if label_smoothing > 0.0:
            if label_smoothing > 1.0:
                raise RuntimeError("label_smoothing must be between 0.0 and 1.0. Got: "
                                   f"{label_smoothing}")
            target = target * (1 - label_smoothing) + (label_smoothing / C)
        prod = logp * target
        if weight is not None:
            shape = [1] * input.dim()
            shape[cdim] = C
            prod = prod * weight.view(shape)
        if reduction == 'none':
            return -prod.sum(cdim)
        if reduction == 'sum':
            return -prod.sum()
        if input.numel() == 0:
            return -prod.sum() * math.nan
        return -prod.sum() / (input.numel() // C)
    if label_smoothing > 0.0:
        if label_smoothing > 1.0:
            raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: "
                               f"{label_smoothing}")
        return _ce_smooth(input, target, weight, reduction, ignore_index, label_smoothing, cdim)
    if input._data.dtype.kind not in 'fcV' and target._data.dtype == input._data.dtype:
        raise NotImplementedError('"log_softmax_lastdim_kernel_impl" not implemented for '
                                  f"'{_tname(input._data)}'")
    _nll_checks(input, target)
    return nll_loss(ember.log_softmax(input, cdim), target, weight, None, ignore_index, None,
                    reduction)


def _nll_checks(input, target):
    """The target checks of nll_loss, made before the log-softmax is computed."""
    x, t = input._data, target._data
    if x.ndim >= 1 and x.ndim != 1 and (t.shape[0] if t.ndim else 0) != x.shape[0]:
        raise ValueError(f"Expected input batch_size ({x.shape[0]}) to match target batch_size "
                         f"({t.shape[0] if t.ndim else 0}).")
    if t.dtype.kind not in 'iu' or (t.dtype.itemsize != 8 and t.dtype.name != 'uint8'):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {_tname(t)}")


def _ce_smooth(input, target, weight, reduction, ignore_index, ls, cdim):
    import ember
    _nll_checks(input, target)
    logp = ember.log_softmax(input, cdim)
    C = input.shape[cdim]
    nll = nll_loss(logp, target, weight, None, ignore_index, None, reduction)
    ignore = target == ignore_index
    if weight is not None:
        shape = [1] * input.dim()
        shape[cdim] = weight.shape[0]
        smooth = -(logp * weight.view(shape)).sum(cdim)
    else:
        smooth = -logp.sum(cdim)
    smooth = smooth.masked_fill(ignore, 0.0)
    if reduction == 'mean':
        if weight is not None:
            keep = target.masked_select(~ignore).flatten()
            ret = smooth.sum() / weight.gather(0, keep).sum()
        else:
            ret = smooth.sum() / (~ignore).sum()
    elif reduction == 'sum':
        ret = smooth.sum()
    else:
        ret = smooth
    return (1 - ls) * nll + ret * (ls / C)


# ----------------------------------------------------------------------------- linear cross entropy

def linear_cross_entropy(input, linear_weight, target, *, linear_bias=None, weight=None,
                         reduction='mean', ignore_index=None, label_smoothing=0.0, options=None):
    """Cross entropy of the logits ``linear(input, linear_weight, linear_bias)`` and
    ``target`` (the reference computation of PyTorch's fused op).

    Args:
        input (Tensor): ``(N, in_features)`` or ``(in_features)``.
        linear_weight (Tensor): ``(C, in_features)`` or ``(C, d1, ..., dK, in_features)``.
        target (Tensor): class indices or class probabilities (see :func:`cross_entropy`).
        linear_bias (Tensor, optional): ``(C, d1, ..., dK)``.
        weight (Tensor, optional): ``(C)`` class weights.
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.
        ignore_index (int, optional): ignored class index (class-index targets only); None
            means -100.
        label_smoothing (float): see :func:`cross_entropy`. Default: 0.
        options (LinearCrossEntropyOptions, optional): chunking options. NOTE: unlike
            PyTorch, ember always computes the reference path (the logits are materialised);
            the options are accepted and otherwise ignored.

    Example::

        >>> x, w = ember.ones(2, 3), ember.zeros(4, 3)
        >>> F.linear_cross_entropy(x, w, ember.tensor([0, 1]))
        tensor(1.3863)
    """
    if input.dim() < 1 or input.dim() > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    if linear_weight.dim() < 2:
        raise RuntimeError("expected linear_weight with dimensionality at least 2, got "
                           f"{linear_weight.dim()}")
    nb = tuple(input.shape[:-1])
    fin = input.shape[-1]
    if fin != linear_weight.shape[-1]:
        raise RuntimeError("expected equal input and linear_weight last dimensions (in_features), "
                           f"got {input.shape[-1]} and {linear_weight.shape[-1]}, respectively")
    C = linear_weight.shape[0]
    outf = tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (C,) + outf:
        raise RuntimeError(f"expected linear_bias shape {(C,) + outf}, got "
                           f"{tuple(linear_bias.shape)}")
    if outf and not nb:
        raise RuntimeError(f"K-dimensional loss defined by linear_weight shape "
                           f"{tuple(linear_weight.shape)} requires batched input, (N, {fin}), got "
                           f"unbatched input with shape {tuple(input.shape)}")
    lshape = nb + (C,) + outf
    if tuple(target.shape) == lshape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
    ignore_index = -100 if ignore_index is None else ignore_index
    from .linear import linear
    if outf:
        linear_weight = linear_weight.reshape((math.prod(outf) * C, fin))
        if linear_bias is not None:
            linear_bias = linear_bias.reshape(math.prod(outf) * C)
    logits = linear(input, linear_weight, linear_bias).reshape(lshape)
    return cross_entropy(logits, target, weight=weight, reduction=reduction,
                         ignore_index=ignore_index, label_smoothing=label_smoothing)


# ----------------------------------------------------------------------------- composites

def _poisson(input, target, log_input, full, eps, reduction):
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * (input + eps).log()
    if full:
        import ember
        st = target * target.log() - target + 0.5 * (2 * math.pi * target).log()
        loss = loss + st.masked_fill(target <= 1, 0)
    return _apply_reduction(loss, reduction)


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8,
                     reduce=None, reduction='mean'):
    """Negative log likelihood of a Poisson target: ``exp(input) - target * input``
    (``log_input``), else ``input - target * log(input + eps)``.

    Args:
        input (Tensor): the expected value (or its log, with ``log_input``).
        target (Tensor): samples, broadcastable with ``input``.
        log_input (bool): ``input`` is the log of the rate. Default: ``True``.
        full (bool): add the Stirling term ``t log t - t + 0.5 log(2 pi t)`` (for t > 1).
        size_average, reduce: deprecated (see ``reduction``).
        eps (float): avoids ``log(0)`` when not ``log_input``. Default: 1e-8.
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.

    Example::

        >>> F.poisson_nll_loss(ember.tensor([0.]), ember.tensor([1.]))
        tensor(1.)
    """
    reduction = _reduction(size_average, reduce, reduction)
    if reduction not in _ENUM:
        raise ValueError(reduction + " is not a valid value for reduction")
    return _poisson(input, target, log_input, full, eps, reduction)


@register('poisson_nll_loss', method=False)
def _poisson_nll_loss(input, target, log_input, full, eps, reduction):
    """``torch.poisson_nll_loss`` (every argument required; the reduction is PyTorch's
    enumeration). See :func:`ember.nn.functional.poisson_nll_loss`.

    Example::

        >>> ember.poisson_nll_loss(ember.tensor([0.]), ember.tensor([1.]), True, False, 1e-8, 1)
        tensor(1.)
    """
    red = _red_enum(reduction, 'poisson_nll_loss')
    return _poisson(input, target, log_input, full, eps, red)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction='mean'):
    """Negative log likelihood of ``target`` under ``N(input, var)``:
    ``0.5 (log(max(var, eps)) + (input - target)^2 / max(var, eps))`` (+ ``0.5 log(2 pi)``
    with ``full``).

    Args:
        input (Tensor): the expectations ``(N, *)`` or ``(*)``.
        target (Tensor): samples, the same shape (or broadcastable).
        var (Tensor or float): variances: ``input``'s shape, or one dimension short, or
            broadcastable with a single dimension of size 1 (homoscedastic); a float is a
            variance for every element.
        full (bool): add the constant term. Default: ``False``.
        eps (float): clamps ``var`` (no gradient through the clamp). Default: 1e-6.
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.

    Example::

        >>> F.gaussian_nll_loss(ember.tensor([0.]), ember.tensor([1.]), ember.tensor([1.]))
        tensor(0.5000)
    """
    import ember
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * ember.ones_like(input)
    elif bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    if var.shape != input.shape:
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)
        elif input.dim() == var.dim() and sum(y for x, y in zip(input.shape, var.shape)
                                              if x != y) == 1:
            pass
        else:
            raise ValueError("var is of incorrect size")
    if reduction != 'none' and reduction != 'mean' and reduction != 'sum':
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with ember.no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _apply_reduction(loss, reduction)


def _kl(input, target, reduction, log_target):
    import ember
    if input._data.dtype.kind in 'biu' or target._data.dtype.kind in 'biu':
        raise RuntimeError("kl_div: Integral inputs not supported.")
    if log_target:
        out = target.exp() * (target - input)
    else:
        out = ember.xlogy(target, target) - target * input
    return _apply_reduction(out, reduction)


def kl_div(input, target, size_average=None, reduce=None, reduction='mean', log_target=False):
    """Kullback-Leibler divergence of ``target`` from the log-probabilities ``input``:
    ``target * (log(target) - input)`` (``target`` itself in log space with
    ``log_target``).

    Args:
        input (Tensor): log-probabilities, any shape.
        target (Tensor): probabilities (or log-probabilities), the same shape.
        size_average, reduce: deprecated (see ``reduction``).
        reduction (str): ``'none'`` | ``'batchmean'`` (the sum divided by the batch size:
            the KL divergence) | ``'sum'`` | ``'mean'`` (divides by the number of elements,
            with PyTorch's warning). Default: ``'mean'``.
        log_target (bool): ``target`` holds log-probabilities. Default: ``False``.

    Example::

        >>> F.kl_div(ember.tensor([[-1., -1.]]), ember.tensor([[0.5, 0.5]]), reduction='batchmean')
        tensor(0.3069)
    """
    if size_average is not None or reduce is not None:
        red = _reduction(size_average, reduce, reduction)
    else:
        if reduction == 'mean':
            warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the "
                          "support size.'batchmean' divides only by the batch size, and aligns with "
                          "the KL div math definition.'mean' will be changed to behave the same as "
                          "'batchmean' in the next major release.", UserWarning, stacklevel=2)
        red = 'sum' if reduction == 'batchmean' else _red(reduction)
    out = _kl(input, target, red, log_target)
    if reduction == 'batchmean' and input.dim() != 0:
        out = out / input.shape[0]
    return out


@register('kl_div', method=False)
def _kl_div(input, target, reduction=0, *, log_target=False):
    """``torch.kl_div`` (the reduction is PyTorch's enumeration; default 0, none). See
    :func:`ember.nn.functional.kl_div`.

    Example::

        >>> ember.kl_div(ember.tensor([-1., -1.]), ember.tensor([0.5, 0.5]), 2)
        tensor(0.3069)
    """
    red = _red_enum(reduction, 'kl_div')
    return _kl(input, target, red, log_target)


def _margin_ranking(input1, input2, target, margin, reduction):
    return _apply_reduction((-target * (input1 - input2) + margin).clamp_min(0), reduction)


def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                        reduction='mean'):
    """Ranking loss ``max(0, -target * (input1 - input2) + margin)``.

    Args:
        input1 (Tensor), input2 (Tensor): ``(N)`` or ``()`` scores.
        target (Tensor): 1 (``input1`` should rank higher) or -1, the same dimensions.
        margin (float): Default: 0.
        size_average, reduce: deprecated (see ``reduction``).
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.

    Example::

        >>> F.margin_ranking_loss(ember.tensor([1., 2.]), ember.tensor([2., 1.]), ember.tensor([1., 1.]))
        tensor(0.5000)
    """
    reduction = _red(_reduction(size_average, reduce, reduction))
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension "
                           f"but got sizes: input1: {_size_str(input1.shape)}, input2: "
                           f"{_size_str(input2.shape)}, target: {_size_str(target.shape)} ")
    return _margin_ranking(input1, input2, target, margin, reduction)


@register('margin_ranking_loss', method=False)
def _margin_ranking_loss(input1, input2, target, margin=0.0, reduction=0):
    """``torch.margin_ranking_loss`` (the reduction is PyTorch's enumeration; default 0, none). See
    :func:`ember.nn.functional.margin_ranking_loss`.

    Example::

        >>> ember.margin_ranking_loss(ember.tensor([1.]), ember.tensor([2.]), ember.tensor([1.]))
        tensor([1.])
    """
    red = _red_enum(reduction, 'margin_ranking_loss')
    return _margin_ranking(input1, input2, target, margin, red)


def _hinge(input, target, margin, reduction):
    import ember
    zeros = ember.zeros_like(input)
    m = (margin - input).clamp_min(0)
    out = ember.where(target != 1, m, zeros) + ember.where(target != -1, input, zeros)
    return _apply_reduction(out, reduction)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None,
                         reduction='mean'):
    """Hinge embedding loss: ``input`` where ``target == 1``, ``max(0, margin - input)``
    where ``target == -1``.

    Args:
        input (Tensor): distances, any shape.
        target (Tensor): 1 or -1, broadcastable with ``input``.
        margin (float): Default: 1.
        size_average, reduce: deprecated (see ``reduction``).
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.

    Example::

        >>> F.hinge_embedding_loss(ember.tensor([0.3, 0.4]), ember.tensor([1., -1.]))
        tensor(0.4500)
    """
    reduction = _red(_reduction(size_average, reduce, reduction))
    return _hinge(input, target, margin, reduction)


@register('hinge_embedding_loss', method=False)
def _hinge_embedding_loss(input, target, margin=1.0, reduction=0):
    """``torch.hinge_embedding_loss`` (the reduction is PyTorch's enumeration; default 0, none). See
    :func:`ember.nn.functional.hinge_embedding_loss`.

    Example::

        >>> ember.hinge_embedding_loss(ember.tensor([0.3]), ember.tensor([-1.]))
        tensor([0.7000])
    """
    red = _red_enum(reduction, 'hinge_embedding_loss')
    return _hinge(input, target, margin, red)


def _cosine_emb(input1, input2, target, margin, reduction):
    import ember
    td = target.dim()
    if td not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if td == 1:
        if input1.dim() != 2 or input2.dim() != 2:
            raise RuntimeError(f"1D target tensor expects 2D input tensors, but found inputs with "
                               f"sizes {_shape_str(input1.shape)} and {_shape_str(input2.shape)}.")
    elif input1.dim() != 1 or input2.dim() != 1:
        raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs with "
                           f"sizes {_shape_str(input1.shape)} and {_shape_str(input2.shape)}.")
    eps = 1e-12
    prod = (input1 * input2).sum(td)
    m1 = (input1 * input1).sum(td) + eps
    m2 = (input2 * input2).sum(td) + eps
    cos = prod / (m1 * m2).sqrt()
    zeros = ember.zeros_like(cos)
    out = ember.where(target == 1, 1 - cos, zeros) + \
        ember.where(target == -1, (cos - margin).clamp_min(0), zeros)
    return _apply_reduction(out, reduction)


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                          reduction='mean'):
    """Cosine embedding loss: ``1 - cos(x1, x2)`` where ``target == 1``,
    ``max(0, cos(x1, x2) - margin)`` where ``target == -1``.

    Args:
        input1 (Tensor), input2 (Tensor): ``(N, D)`` or ``(D)``.
        target (Tensor): ``(N)`` or ``()``, values 1 or -1.
        margin (float): in ``[-1, 1]``. Default: 0.
        size_average, reduce: deprecated (see ``reduction``).
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.

    Example::

        >>> F.cosine_embedding_loss(ember.tensor([[1., 0.]]), ember.tensor([[1., 0.]]), ember.tensor([1]))
        tensor(0.)
    """
    reduction = _red(_reduction(size_average, reduce, reduction))
    return _cosine_emb(input1, input2, target, margin, reduction)


@register('cosine_embedding_loss', method=False)
def _cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=0):
    """``torch.cosine_embedding_loss`` (the reduction is PyTorch's enumeration; default 0, none). See
    :func:`ember.nn.functional.cosine_embedding_loss`.

    Example::

        >>> ember.cosine_embedding_loss(ember.tensor([[1., 0.]]), ember.tensor([[0., 1.]]), ember.tensor([1]))
        tensor([1.])
    """
    red = _red_enum(reduction, 'cosine_embedding_loss')
    return _cosine_emb(input1, input2, target, margin, red)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction='mean'):
    """Multi-label one-versus-all logistic loss, averaged over the classes (last dim):
    ``-(t log(sigmoid(x)) + (1 - t) log(sigmoid(-x)))``.

    Args:
        input (Tensor): ``(N, C)`` or ``(C)``.
        target (Tensor): 0 or 1 labels, the same shape.
        weight (Tensor, optional): class weights, broadcastable.
        size_average, reduce: deprecated (see ``reduction``).
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.

    Example::

        >>> F.multilabel_soft_margin_loss(ember.tensor([[0., 0.]]), ember.tensor([[1., 0.]]))
        tensor(0.6931)
    """
    if size_average is not None or reduce is not None:
        reduction = _reduction(size_average, reduce, reduction)
    loss = -(target * _log_sigmoid(input) + (1 - target) * _log_sigmoid(-input))
    if weight is not None:
        loss = loss * weight
    cd = input.dim() - 1
    loss = loss.sum(dim=cd) / input.shape[cd]
    if reduction == 'none':
        return loss
    if reduction == 'mean':
        return loss.mean()
    if reduction == 'sum':
        return loss.sum()
    raise ValueError(reduction + " is not valid")


def _triplet(anchor, positive, negative, margin, p, eps, swap, reduction):
    import ember
    a, pd, nd = anchor.dim(), positive.dim(), negative.dim()
    if not (a == pd and pd == nd):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the "
                           f"same number of dimensions, but got: anchor {a}D, positive {pd}D, and "
                           f"negative {nd}D inputs")
    from .distance import pairwise_distance
    dp = pairwise_distance(anchor, positive, p, eps)
    dn = pairwise_distance(anchor, negative, p, eps)
    if swap:
        dn = ember.minimum(dn, pairwise_distance(positive, negative, p, eps))
    return _apply_reduction((margin + dp - dn).clamp_min(0), reduction)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                        size_average=None, reduce=None, reduction='mean'):
    """Triplet loss ``max(d(a, p) - d(a, n) + margin, 0)`` with ``d`` the pairwise p-norm
    distance.

    Args:
        anchor (Tensor), positive (Tensor), negative (Tensor): ``(N, D)`` or ``(D)``.
        margin (float): ``> 0``. Default: 1.
        p (float): the norm degree. Default: 2.
        eps (float): see :func:`pairwise_distance`. Default: 1e-6.
        swap (bool): use ``min(d(a, n), d(p, n))`` as the negative distance. Default: ``False``.
        size_average, reduce: deprecated (see ``reduction``).
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.

    Example::

        >>> a = ember.zeros(1, 2)
        >>> F.triplet_margin_loss(a, a, a + 3, eps=0)
        tensor(0.)
    """
    reduction = _red(_reduction(size_average, reduce, reduction))
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    return _triplet(anchor, positive, negative, margin, p, eps, swap, reduction)


@register('triplet_margin_loss', method=False)
def _triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                         reduction=0):
    """``torch.triplet_margin_loss`` (the reduction is PyTorch's enumeration; default 0, none). See
    :func:`ember.nn.functional.triplet_margin_loss`.

    Example::

        >>> a = ember.zeros(1, 2)
        >>> ember.triplet_margin_loss(a, a, a + 3)
        tensor([0.])
    """
    red = _red_enum(reduction, 'triplet_margin_loss')
    return _triplet(anchor, positive, negative, margin, p, eps, swap, red)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None,
                                      margin=1.0, swap=False, reduction='mean'):
    """Triplet loss with a custom distance: ``max(d(a, p) - d(a, n) + margin, 0)``.

    Args:
        anchor (Tensor), positive (Tensor), negative (Tensor): the same number of dims.
        distance_function (callable, optional): ``d(x, y)`` -> distances; default
            :func:`pairwise_distance`.
        margin (float): ``> 0``. Default: 1.
        swap (bool): use ``min(d(a, n), d(p, n))``. Default: ``False``.
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.

    Example::

        >>> a = ember.zeros(1, 2)
        >>> F.triplet_margin_with_distance_loss(a, a, a + 3)
        tensor(0.)
    """
    import ember
    if reduction not in ('mean', 'sum', 'none'):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    a, pd, nd = anchor.ndim, positive.ndim, negative.ndim
    if not (a == pd and pd == nd):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the "
                           f"same number of dimensions, but got: anchor {a}D, positive {pd}D, and "
                           f"negative {nd}D inputs")
    if distance_function is None:
        from .distance import pairwise_distance as distance_function
    dp = distance_function(anchor, positive)
    dn = distance_function(anchor, negative)
    if swap:
        dn = ember.minimum(dn, distance_function(positive, negative))
    loss = ember.clamp_min(margin + dp - dn, 0)
    if reduction == 'sum':
        return ember.sum(loss)
    if reduction == 'mean':
        return ember.mean(loss)
    return loss


# ----------------------------------------------------------------------------- margin kernels

def _margin_shapes(x, t, name):
    """(N, C) views of a ``(N, C)``/``(C)``/``()`` input and its target."""
    if not (x.ndim <= 1 and x.size != 0 or x.ndim == 2 and x.shape[1] != 0):
        raise RuntimeError("Expected non-empty vector or matrix with optional 0-dim batch size, "
                           f"but got: {_shape_str(x.shape)}")


class MultiMarginLossBackward0(Node):
    def backward(self, g):
        import ember
        (x,) = self.saved_tensors
        x2 = x.reshape(self.shape2)
        y = wrap(self.idx)                              # (N, 1)
        z = self.margin - x2.gather(1, y) + x2          # (N, C)
        mask = wrap(self.mask)                          # z > 0 and not the target
        h = (z * 2 if self.p == 2 else ember.ones_like(z)) * mask
        h = h * wrap(self.scale)                        # w[y] / C (/ N for mean)
        gg = g.reshape(-1, 1) if self.reduction == 'none' else g
        h = h * gg
        gx = h - ember.zeros_like(h).scatter(1, y, h.sum(1, keepdim=True))
        return gx.reshape(x.shape)


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                      reduction='mean'):
    """Multi-class hinge loss: for each sample,
    ``sum_{i != y} w[y] max(0, margin - x[y] + x[i])^p / C``.

    Args:
        input (Tensor): ``(N, C)`` or ``(C)``.
        target (Tensor): class indices ``(N)`` or ``()`` (int64).
        p (int): 1 or 2. Default: 1.
        margin (float): Default: 1.
        weight (Tensor, optional): ``(C)`` class weights.
        size_average, reduce: deprecated (see ``reduction``).
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.

    Example::

        >>> F.multi_margin_loss(ember.tensor([[0.1, 0.2, 0.4, 0.8]]), ember.tensor([3]))
        tensor(0.3250)
    """
    reduction = _red(_reduction(size_average, reduce, reduction))
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    _tensor_arg(input, 'multi_margin_loss', 'input', 1)
    _tensor_arg(target, 'multi_margin_loss', 'target', 2)
    x, t = input._data, target._data
    xp = array_module(x)
    _margin_shapes(x, t, 'multi_margin_loss')
    n = 1 if x.ndim <= 1 else x.shape[0]
    C = x.size if x.ndim <= 1 else x.shape[1]
    if not (t.ndim <= 1 and t.size == n):
        raise RuntimeError("multi_margin_loss: target tensor should be 1-D with size equal to the "
                           f"number of input samples (batch size). Expected target size [{n}], "
                           f"but got {_shape_str(t.shape)}. Input has shape {_shape_str(x.shape)}.")
    if t.dtype.kind not in 'iu' or t.dtype.itemsize != 8:
        raise RuntimeError(f"expected scalar type Long but found {_tname(t)}")
    if weight is not None and weight.numel() != C:
        raise RuntimeError(f"inconsistent weight size, expected {C} but got "
                           f"{_shape_str(weight.shape)}")
    _no_grad_arg(weight, 'multi_margin_loss', 'weight')
    _float_kernel(x, 'multi_margin_loss_cpu_kernel')
    x2 = x.reshape(n, C)
    y = t.reshape(n, 1).astype('int64', copy=False)
    if bool(((y < 0) | (y >= C)).any()):
        raise RuntimeError("target out of range")
    z = margin - xp.take_along_axis(x2, y, 1) + x2
    notself = xp.arange(C)[None, :] != y
    mask = (z > 0) & notself
    h = xp.where(mask, z * z if p == 2 else z, 0)
    scale = xp.full((n, 1), 1.0 / C, dtype=x.dtype)
    if weight is not None:
        scale = scale * weight._data[y].astype(x.dtype)
    per = (h * scale).sum(1).astype(x.dtype)
    if reduction == 'none':
        out = per.reshape(t.shape) if x.ndim <= 1 else per
    elif reduction == 'sum':
        out = xp.asarray(per.sum(), dtype=x.dtype)
    else:
        out = xp.asarray(per.sum() / n if n else 0, dtype=x.dtype)
    res = wrap(out)
    if _Mode.grad and input._rg:
        node = MultiMarginLossBackward0()
        node.p, node.margin, node.reduction = p, margin, reduction
        node.shape2 = (n, C)
        node.idx = y
        node.mask = mask.astype(x.dtype)
        node.scale = (scale / n if reduction == 'mean' and n else scale).astype(x.dtype)
        record(res, node, (input,), save=(input,))
    return res


class MultilabelMarginLossBackward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        x2 = x.reshape(self.shape2)
        z = 1 - x2.unsqueeze(2) + x2.unsqueeze(1)      # (N, j, i): 1 - x[j] + x[i]
        # count[j] * (i not a target) * (z > 0): a constant of the hinge's active pairs
        m = wrap((self.pairs * (z._data > 0)).astype(z._data.dtype, copy=False))
        gg = g.reshape(-1, 1, 1) if self.reduction == 'none' else g
        h = m * (gg * self.scale)
        gx = h.sum(1) - h.sum(2)
        return gx.reshape(x.shape)


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction='mean'):
    """Multi-class multi-label hinge loss: for each sample,
    ``sum_{j in targets, i not in targets} max(0, 1 - (x[j] - x[i])) / C``; the target
    lists class indices, ended by the first -1.

    Args:
        input (Tensor): ``(N, C)`` or ``(C)``.
        target (Tensor): int64 of ``input``'s shape.
        size_average, reduce: deprecated (see ``reduction``).
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.

    Example::

        >>> F.multilabel_margin_loss(ember.tensor([[0.1, 0.2, 0.4, 0.8]]), ember.tensor([[3, 0, -1, 1]]))
        tensor(0.8500)
    """
    reduction = _red(_reduction(size_average, reduce, reduction))
    _tensor_arg(input, 'multilabel_margin_loss', 'input', 1)
    _tensor_arg(target, 'multilabel_margin_loss', 'target', 2)
    x, t = input._data, target._data
    xp = array_module(x)
    _margin_shapes(x, t, 'multilabel_margin_loss')
    if x.ndim <= 1:
        n, C = 1, (x.size if x.ndim else 1)
        ok = t.ndim <= 1 and t.size == C
    else:
        n, C = x.shape
        ok = t.ndim == 2 and t.shape == x.shape
    if not ok:
        raise RuntimeError(f"inconsistent target size: {_shape_str(t.shape)} for input of size: "
                           f"{_shape_str(x.shape)}")
    if t.dtype.kind not in 'iu' or t.dtype.itemsize != 8:
        raise RuntimeError(f"expected scalar type Long but found {_tname(t)}")
    _float_kernel(x, 'multilabel_margin_loss_forward_out_frame')
    x2 = x.reshape(n, C)
    t2 = t.reshape(n, C).astype('int64', copy=False)
    # the targets of each row are its values before the first -1
    neg = t2 < 0
    live = xp.cumsum(neg, 1) == 0
    if bool(((t2 >= C) | (t2 < -1)).any()):
        raise RuntimeError("argument #2 'target' is out of range")
    cnt = xp.zeros((n, C), dtype=x.dtype)   # how often class j is listed
    rows = xp.broadcast_to(xp.arange(n)[:, None], (n, C))
    idx = xp.where(live, t2, 0)
    flat = (rows * C + idx)[live]
    cnt = xp.bincount(flat, minlength=n * C).reshape(n, C).astype(x.dtype) if flat.size else cnt
    is_t = cnt > 0
    pairs = cnt[:, :, None] * (~is_t)[:, None, :]     # (N, j, i): target j, non-target i
    per = xp.empty(n, dtype=x.dtype)
    step = max(1, (1 << 22) // max(1, C * C))         # rows per block of (C, C) hinges
    for r in range(0, n, step):
        xb = x2[r:r + step]
        z = 1 - xb[:, :, None] + xb[:, None, :]
        per[r:r + step] = (pairs[r:r + step] * xp.maximum(z, 0)).sum((1, 2)) / C
    if reduction == 'none':
        out = per.reshape(() if x.ndim <= 1 else (n,))
    elif reduction == 'sum':
        out = xp.asarray(per.sum(), dtype=x.dtype)
    else:
        out = xp.asarray(per.sum() / n if n else math.nan, dtype=x.dtype)
    res = wrap(out)
    if _Mode.grad and input._rg:
        node = MultilabelMarginLossBackward0()
        node.reduction = reduction
        node.shape2 = (n, C)
        node.pairs = pairs
        node.scale = 1.0 / C / (n if reduction == 'mean' and n else 1)
        record(res, node, (input,), save=(input,))
    return res


# ----------------------------------------------------------------------------- ctc

class CtcLossBackward0(Node):
    def backward(self, g):
        (lp,) = self.saved_tensors
        xp = array_module(lp._data)
        gd = g._data
        grad = self.grad_base * gd.reshape(1, -1, 1).astype(self.grad_base.dtype)
        res = wrap(grad.astype(lp._data.dtype, copy=False))
        if _Mode.grad and (g._rg or lp._rg):
            _not_impl_node(res, '_ctc_loss_backward', g, lp)
        return res


def _lengths(v, name, fname):
    if isinstance(v, Tensor):
        a = v._data
        if a.dtype.kind not in 'iu':
            raise RuntimeError(f"{name} must be integral")
        return [int(i) for i in a.reshape(-1).tolist()]
    if isinstance(v, (list, tuple)) and all(isinstance(i, int) for i in v):
        return [int(i) for i in v]
    raise TypeError(f"{fname}(): argument '{name}' must be tuple of ints, not "
                    f"{_args.type_name(v)}")


def _lse(xp, *arrs):
    m = arrs[0]
    for a in arrs[1:]:
        m = xp.maximum(m, a)
    ms = xp.where(xp.isneginf(m), 0, m)
    s = 0
    for a in arrs:
        s = s + xp.exp(a - ms)
    return xp.log(s) + ms


def _ctc(log_probs, targets, input_lengths, target_lengths, blank, reduction, zero_infinity):
    import ember
    _tensor_arg(log_probs, 'ctc_loss', 'log_probs', 1)
    _tensor_arg(targets, 'ctc_loss', 'targets', 2)
    if isinstance(input_lengths, Tensor) != isinstance(target_lengths, Tensor):
        raise TypeError("ctc_loss(): input_lengths and target_lengths must both be tensors or "
                        "both be tuples of ints")
    il = _lengths(input_lengths, 'input_lengths', 'ctc_loss')
    tl = _lengths(target_lengths, 'target_lengths', 'ctc_loss')
    batched = log_probs.dim() == 3
    lpt = log_probs if batched else log_probs.unsqueeze(1)
    lp = lpt._data
    xp = array_module(lp)
    if lp.ndim != 3:
        # PyTorch unsqueezes a non-3-D input first, and reports that tensor's dims
        raise RuntimeError(f"Expected 3-dimensional tensor, but got {lp.ndim}-dimensional "
                           "tensor for argument #1 'log_probs' (while checking arguments for "
                           "ctc_loss_allocate_outputs)")
    T, N, C = lp.shape
    if not (0 <= blank < C):
        raise RuntimeError("blank must be in label range")
    if len(il) != N:
        raise RuntimeError("input_lengths must be of size batch_size")
    if len(tl) != N:
        raise RuntimeError("target_lengths must be of size batch_size")
    _float_kernel(lp, 'ctc_loss_cpu')
    tg = targets._data.astype('int64', copy=False)
    for v in tl:
        if v < 0:
            raise RuntimeError(f"Expected target_lengths to have value at least 0, but got value "
                               f"{v} (while checking arguments for ctc_loss_allocate_outputs)")
    S = max(tl) if tl else 0
    if tg.ndim == 1:
        if tg.shape[0] != sum(tl):
            raise RuntimeError(f"Expected tensor to have size {sum(tl)} at dimension 0, but got size "
                               f"{tg.shape[0]} for argument #2 'targets' (while checking arguments "
                               "for ctc_loss_allocate_outputs)")
        offs = [0]
        for v in tl[:-1]:
            offs.append(offs[-1] + v)
        pad = xp.zeros((N, max(S, 1)), 'int64')
        for b in range(N):
            pad[b, :tl[b]] = tg[offs[b]:offs[b] + tl[b]]
        tg2 = pad
    else:
        tg2 = tg
        if tg2.shape[0] != N:
            raise RuntimeError(f"Expected tensor to have size {N} at dimension 0, but got size "
                               f"{tg2.shape[0]} for argument #2 'targets' (while checking "
                               "arguments for ctc_loss_allocate_outputs)")
        if tg2.shape[1] < S:
            raise RuntimeError(f"Expected tensor to have size at least {S} at dimension 1, but got "
                               f"size {tg2.shape[1]} for argument #2 'targets' (while checking "
                               "arguments for ctc_loss_allocate_outputs)")
    for v in il:
        if v < 0:
            raise RuntimeError(f"Expected input_lengths to have value at least 0, but got value {v} "
                               "(while checking arguments for ctc_loss_allocate_outputs)")
        if v > T:
            raise RuntimeError(f"Expected input_lengths to have value at most {T}, but got value {v} "
                               "(while checking arguments for ctc_loss_allocate_outputs)")
    L = 2 * S + 1
    ilen = xp.asarray(il, dtype='int64')
    tlen = xp.asarray(tl, dtype='int64')
    Ln = 2 * tlen + 1                              # extended length per sample
    ext = xp.full((N, L), blank, dtype='int64')     # blank, l1, blank, l2, ..., blank
    if S:
        lab = tg2[:, :S]
        ext[:, 1::2] = xp.where(xp.arange(S)[None, :] < tlen[:, None], lab, blank)
    sidx = xp.arange(L)[None, :]
    inside = sidx < Ln[:, None]
    # may skip from s-2: a label differing from the label two before
    skip = xp.zeros((N, L), bool)
    if L > 2:
        skip[:, 2:] = (ext[:, 2:] != blank) & (ext[:, 2:] != ext[:, :-2])
    ninf = -math.inf
    bi = xp.arange(N)[:, None]
    lpe = lp[:, bi, ext]                            # (T, N, L) emission log-probs
    lpe = xp.where(inside[None], lpe, ninf)
    la = xp.full((T, N, L), ninf, dtype=lp.dtype)
    with _errstate(xp):
        if T:
            la[0, :, 0] = lpe[0, :, 0]
            if L > 1:
                la[0, :, 1] = xp.where(tlen > 0, lpe[0, :, 1], ninf)
        for t in range(1, T):
            prev = la[t - 1]
            p1 = xp.concatenate([xp.full((N, 1), ninf, lp.dtype), prev[:, :-1]], 1)
            p2 = xp.concatenate([xp.full((N, 2), ninf, lp.dtype), prev[:, :-2]], 1)[:, :L]
            p2 = xp.where(skip, p2, ninf)
            la[t] = _lse(xp, prev, p1, p2) + lpe[t]
        last = xp.clip(ilen - 1, 0, None)
        fin = la[last, xp.arange(N)]                # (N, L) at each sample's last frame
        e1 = xp.take_along_axis(fin, (Ln - 1)[:, None], 1)[:, 0]
        e2 = xp.take_along_axis(fin, xp.clip(Ln - 2, 0, None)[:, None], 1)[:, 0]
        e2 = xp.where(Ln > 1, e2, ninf)
        ll = _lse(xp, e1, e2)
        ll = xp.where(ilen > 0, ll, xp.where(tlen == 0, 0.0, ninf))
        nll = (-ll).astype(lp.dtype)
    res = wrap(nll)
    if _Mode.grad and lpt._rg:
        node = CtcLossBackward0()
        node.grad_base = _ctc_grad(xp, lp, lpe, la, ext, skip, inside, ilen, Ln, nll,
                                   zero_infinity)
        record(res, node, (lpt,), save=(lpt,))
    if zero_infinity:
        res = ember.where(res == math.inf, ember.zeros((), dtype=res.dtype), res)
    if reduction == 'mean':
        tlt = ember.tensor(tl, dtype=res.dtype, device=res.device).clamp_min(1)
        return (res / tlt).mean()
    if reduction == 'sum':
        return res.sum()
    return res if batched else res.squeeze(0)


def _ctc_grad(xp, lp, lpe, la, ext, skip, inside, ilen, Ln, nll, zero_infinity):
    """PyTorch's gradient of the per-sample CTC loss w.r.t. ``log_probs`` (T, N, C):
    ``exp(lp) - exp(log(sum_{s: l'_s = c} alpha_t(s) beta_t(s)) + nll - lp)`` for
    ``t < input_length`` (the gradient w.r.t. the logits of a log_softmax, as PyTorch's)."""
    T, N, C = lp.shape
    L = ext.shape[1]
    ninf = -math.inf
    lb = xp.full((T, N, L), ninf, dtype=lp.dtype)
    sidx = xp.arange(L)[None, :]
    endmask = inside & ((sidx == (Ln - 1)[:, None]) | (sidx == (Ln - 2)[:, None]))
    # skip into s from s+2: allowed where ext[s+2] may skip back to s
    skipn = xp.zeros((N, L), bool)
    if L > 2:
        skipn[:, :-2] = skip[:, 2:]
    with _errstate(xp):
        for t in range(T - 1, -1, -1):
            init = (ilen - 1 == t)[:, None] & endmask
            if t + 1 < T:
                nxt = lb[t + 1]
                n1 = xp.concatenate([nxt[:, 1:], xp.full((N, 1), ninf, lp.dtype)], 1)
                n2 = xp.concatenate([nxt[:, 2:], xp.full((N, 2), ninf, lp.dtype)], 1)[:, :L]
                n2 = xp.where(skipn, n2, ninf)
                rec = _lse(xp, nxt, n1, n2) + lpe[t]
                rec = xp.where((t < ilen - 1)[:, None], rec, ninf)
            else:
                rec = xp.full((N, L), ninf, lp.dtype)
            lb[t] = xp.where(init, lpe[t], rec)
        ab = la + lb                                           # (T, N, L)
        m = ab.max(2, keepdims=True) if L else xp.zeros((T, N, 1), lp.dtype)
        ms = xp.where(xp.isneginf(m), 0, m)
        e = xp.exp(ab - ms)                                    # (T, N, L)
        onehot = (ext[:, :, None] == xp.arange(C)[None, None, :]).astype(lp.dtype)  # (N, L, C)
        acc = xp.matmul(e.transpose(1, 0, 2), onehot).transpose(1, 0, 2)        # (T, N, C)
        lcab = xp.log(acc) + ms
        grad = xp.exp(lp) - xp.exp(lcab + nll[None, :, None] - lp)
        tmask = xp.arange(T)[:, None] < ilen[None, :]
        grad = xp.where(tmask[:, :, None], grad, 0)
        if zero_infinity:
            grad = xp.where(xp.isinf(nll)[None, :, None], 0, grad)
    return grad.astype(lp.dtype, copy=False)


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction='mean',
             zero_infinity=False):
    """The Connectionist Temporal Classification loss: the negative log likelihood of the
    target sequences summed over all their alignments with the input frames (log-space
    forward algorithm over the batch).

    Args:
        log_probs (Tensor): ``(T, N, C)`` or ``(T, C)`` log-probabilities (log_softmax).
        targets (Tensor): ``(N, S)`` padded, or the targets concatenated
            ``(sum(target_lengths))``; class indices, never ``blank``.
        input_lengths (Tensor or tuple of ints): ``(N)`` frames used per sample.
        target_lengths (Tensor or tuple of ints): ``(N)`` target length per sample.
        blank (int): the blank label. Default: 0.
        reduction (str): ``'none'`` | ``'mean'`` (each loss divided by its target length,
            then averaged) | ``'sum'``. Default: ``'mean'``.
        zero_infinity (bool): impossible alignments (infinite losses) give 0 and no
            gradient. Default: ``False``.

    NOTE: as PyTorch's, the gradient w.r.t. ``log_probs`` is ``exp(log_probs) - posterior``,
    exact for the logits of a ``log_softmax`` feeding the loss.

    Example::

        >>> lp = ember.randn(5, 2, 4).log_softmax(2)
        >>> F.ctc_loss(lp, ember.tensor([[1, 2], [3, 3]]), [5, 5], [2, 2]).shape
        torch.Size([])
    """
    return _ctc(log_probs, targets, input_lengths, target_lengths, blank, _red(reduction),
                zero_infinity)


@register('ctc_loss', method=False)
def _ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=0,
              zero_infinity=False):
    """``torch.ctc_loss`` (the reduction is PyTorch's enumeration; default 0, none). See
    :func:`ember.nn.functional.ctc_loss`.

    Example::

        >>> lp = ember.randn(5, 1, 4).log_softmax(2)
        >>> ember.ctc_loss(lp, ember.tensor([[1, 2]]), [5], [2]).shape
        torch.Size([1])
    """
    red = _red_enum(reduction, 'ctc_loss')
    return _ctc(log_probs, targets, input_lengths, target_lengths, blank, red,
                zero_infinity)


# the torch-level forms carry their public names (``ember.kl_div.__name__ == 'kl_div'``)
for _f in (_binary_cross_entropy_with_logits, _poisson_nll_loss, _kl_div, _margin_ranking_loss,
           _hinge_embedding_loss, _cosine_embedding_loss, _triplet_margin_loss, _ctc_loss):
    _f.__name__ = _f.__qualname__ = _f.__name__[1:]
del _f
