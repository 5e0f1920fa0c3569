"""``MaskedTensor``: a tensor that carries a boolean mask of which elements are
specified, as ``torch.masked.MaskedTensor``. Pointwise ops keep the mask (two masked
operands must have the same mask), reductions skip the masked-out elements (through
``ember.masked``'s functions) and give the mask of "some element was kept"."""


from .._tensor import Tensor, _disabled_torch_function_impl
from .. import _dtype as D
from . import _ops

__all__ = ['MaskedTensor', 'masked_tensor', 'as_masked_tensor', 'is_masked_tensor']

_UNARY = frozenset("""abs absolute neg negative exp exp2 expm1 log log2 log10 log1p sin cos tan
asin acos atan sinh cosh tanh asinh acosh atanh sigmoid sqrt rsqrt relu square sign sgn ceil
floor round trunc frac reciprocal erf erfc erfinv logit isnan isinf isfinite logical_not
bitwise_not positive nan_to_num clone detach contiguous float double half bfloat16 int long
bool to type_as clamp clamp_min clamp_max __neg__ __abs__ __invert__ __pos__ pow_ angle real
imag conj digamma lgamma i0 sinc deg2rad rad2deg float32 float64 float16 int8 int16 int32 int64
uint8 char short byte cfloat cdouble""".split())
# functions that act on the tensor object itself (autograd flags, metadata)
_SELF = frozenset("""requires_grad_ retain_grad backward register_hook numel dim size stride
is_floating_point is_complex element_size storage_offset is_contiguous __len__ __format__
__hash__ __bool__ get_device""".split())
_BINARY = frozenset("""add sub subtract mul multiply div divide true_divide floor_divide pow
remainder fmod atan2 arctan2 maximum minimum fmax fmin hypot logaddexp eq ne lt le gt ge
greater less equal not_equal greater_equal less_equal logical_and logical_or logical_xor
bitwise_and bitwise_or bitwise_xor __add__ __radd__ __sub__ __rsub__ __mul__ __rmul__
__truediv__ __rtruediv__ __floordiv__ __rfloordiv__ __pow__ __rpow__ __mod__ __rmod__ __eq__
__ne__ __lt__ __le__ __gt__ __ge__ __and__ __or__ __xor__ __rand__ __ror__ __rxor__""".split())
_REDUCE = {'sum': _ops.sum, 'mean': _ops.mean, 'amax': _ops.amax, 'amin': _ops.amin,
           'prod': _ops.prod, 'argmax': _ops.argmax, 'argmin': _ops.argmin, 'var': _ops.var,
           'std': _ops.std}
_SOFT = {'softmax': _ops.softmax, 'log_softmax': _ops.log_softmax}


def _plain(t):
    """The tensor data of MaskedTensor ``t`` as a plain Tensor on the same graph."""
    return Tensor.as_subclass(t, Tensor)


_OBSERVING = []


def _wrap(data, mask):
    if not _OBSERVING:      # ops must reach __torch_function__ once a MaskedTensor exists
        from .._ops import _dispatch
        _dispatch._activate('subclass')
        _OBSERVING.append(True)
    r = Tensor.as_subclass(data, MaskedTensor)
    r.__dict__['_masked_mask'] = mask
    return r


class MaskedTensor(Tensor):
    """A tensor whose elements outside ``mask`` are unspecified: printed as ``--``,
    skipped by reductions, and kept masked by pointwise ops. Make one with
    :func:`masked_tensor` or :func:`as_masked_tensor`.

    NOTE: unlike PyTorch, an op outside those ember supports on masked tensors (pointwise
    ops, ``sum``/``mean``/``amax``/``amin``/``prod``/``argmax``/``argmin``/``var``/``std``
    and ``softmax``/``log_softmax``) raises a TypeError naming the op.

    Example::

        >>> mt = ember.masked.masked_tensor(ember.tensor([1., 2., 3.]),
        ...                                 ember.tensor([True, False, True]))
        >>> mt.sum()
        MaskedTensor(  4.0000, True)
    """

    def get_data(self):
        """The underlying data (values at masked-out positions are unspecified)."""
        return _plain(self)

    def get_mask(self):
        """The boolean mask: True where an element is specified."""
        return self.__dict__['_masked_mask']

    def to_tensor(self, value):
        """A plain tensor with the masked-out elements set to ``value``."""
        return _plain(self).masked_fill(self.get_mask().logical_not(), value)

    @property
    def is_sparse(self):
        """Whether the data is sparse (always False in ember)."""
        return False

    @property
    def grad(self):
        """The gradient, a MaskedTensor with this tensor's mask (None before backward)."""
        g = Tensor.grad.fget(self)
        if g is None or isinstance(g, MaskedTensor):
            return g
        return _wrap(g, self.get_mask())

    @grad.setter
    def grad(self, value):
        Tensor.grad.fset(self, None if value is None else
                         (_plain(value) if isinstance(value, MaskedTensor) else value))

    def __repr__(self, *, tensor_contents=None):
        data, mask = _plain(self).detach(), self.get_mask()
        floating = data.dtype.is_floating_point or data.dtype.is_complex

        def fmt(v, keep):
            if not keep:
                return '--'.rjust(8)
            return f"{v:8.4f}" if floating else str(v)
        if data.ndim == 0:
            return f"MaskedTensor({fmt(data.item(), bool(mask))}, {bool(mask)})"

        def rows(d, m, indent):
            pad = ' ' * indent
            if d.ndim == 1:
                return [pad + '[' + ', '.join(fmt(v, k) for v, k in zip(d.tolist(), m.tolist()))
                        + ']']
            out = [pad + '[']
            for i in range(d.shape[0]):
                sub = rows(d[i], m[i], indent + 2)
                if i < d.shape[0] - 1:
                    sub[-1] += ','
                out += sub
            return out + [pad + ']']
        return 'MaskedTensor(\n' + '\n'.join(rows(data, mask, 2)) + '\n)'

    __str__ = __repr__

    # the real handler is installed after the class exists: creating a Tensor subclass
    # with a handler would switch every op to the observing bindings at import (the first
    # MaskedTensor made switches them, see _wrap)
    __torch_function__ = _disabled_torch_function_impl

    def _handler(cls, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        name = getattr(func, '__name__', str(func))
        if name in _UNARY or name in _BINARY:
            masks = [a.get_mask() for a in list(args) + list(kwargs.values())
                     if isinstance(a, MaskedTensor)]
            for m in masks[1:]:
                if not bool((m == masks[0]).all()):
                    raise ValueError("Input masks must match. If you need support for this, "
                                     "please open an issue on Github.")
            a = [_plain(x) if isinstance(x, MaskedTensor) else x for x in args]
            k = {n: (_plain(x) if isinstance(x, MaskedTensor) else x) for n, x in kwargs.items()}
            r = func(*a, **k)
            return _wrap(r, masks[0]) if isinstance(r, Tensor) else r
        if name in _REDUCE or name in _SOFT:
            self, rest = args[0], args[1:]
            mask = self.get_mask()
            data = _plain(self)
            if name in _SOFT:
                return _wrap((_SOFT[name])(data, *rest, mask=mask, **kwargs), mask)
            r = _REDUCE[name](data, *rest, mask=mask, **kwargs)
            dim = rest[0] if rest else kwargs.get('dim')
            keepdim = kwargs.get('keepdim', False)
            if dim is None:
                rm = mask.any()
                if keepdim:
                    rm = rm.reshape((1,) * mask.ndim)
            else:
                rm = mask.any(_ops._dims(dim, mask.ndim), keepdim=keepdim) if mask.ndim else mask
            return _wrap(r, rm)
        if name in _SELF:
            from ..overrides import DisableTorchFunctionSubclass
            with DisableTorchFunctionSubclass():
                return func(*args, **kwargs)
        raise TypeError(f"Multiple dispatch failed for 'torch._ops.aten.{name}.default'; all "
                        "__torch_dispatch__ handlers returned NotImplemented:\n\n  - tensor "
                        "subclass <class 'torch.masked.maskedtensor.core.MaskedTensor'>")


def _check(data, mask):
    if not isinstance(data, Tensor):
        raise TypeError("data must be a Tensor")
    if not isinstance(mask, Tensor):
        raise TypeError("mask must be a Tensor")
    if mask.dtype is not D.bool:
        raise TypeError("mask must have dtype bool.")
    if data.ndim != mask.ndim:
        raise ValueError("data.dim() must equal mask.dim()")
    if tuple(data.shape) != tuple(mask.shape):
        raise ValueError("data.size() must equal mask.size()")


def masked_tensor(data, mask, requires_grad=False):
    """A :class:`MaskedTensor` of ``data`` (copied, detached) and boolean ``mask`` (same
    shape): a leaf that requires grad if asked.

    Example::

        >>> ember.masked.masked_tensor(ember.tensor([1., 2.]), ember.tensor([True, False]))
        MaskedTensor(
          [  1.0000,       --]
        )
    """
    _check(data, mask)
    r = _wrap(Tensor.detach(_plain(data) if isinstance(data, MaskedTensor) else data).clone(),
              Tensor.detach(mask).clone())
    if requires_grad:
        Tensor.requires_grad_(r, True)
    return r


def as_masked_tensor(data, mask):
    """A :class:`MaskedTensor` viewing ``data`` (differentiable with respect to it) with
    boolean ``mask``.

    NOTE: unlike PyTorch, the gradient that reaches a plain ``data`` is a plain tensor
    (zero at the masked-out positions), not a MaskedTensor.

    Example::

        >>> x = ember.tensor([1., 2.], requires_grad=True)
        >>> ember.masked.as_masked_tensor(x, ember.tensor([True, False])).sum()
        MaskedTensor(  1.0000, True)
    """
    _check(data, mask)
    return _wrap(data, mask)


def is_masked_tensor(obj):
    """Whether ``obj`` is a :class:`MaskedTensor`.

    Example::

        >>> ember.masked.is_masked_tensor(ember.ones(1))
        False
    """
    return isinstance(obj, MaskedTensor)


MaskedTensor.__torch_function__ = classmethod(MaskedTensor._handler)
del MaskedTensor._handler
