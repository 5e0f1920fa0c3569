"""The ``_foreach_*`` ops: one op applied to every tensor of a list, as the optimizers'
``foreach=True`` paths and libraries call them (``torch._foreach_add_(params, grads,
alpha=-lr)``).

Each is defined by the per-tensor op it maps over the list, so values, type promotion,
errors and gradients are those of calling that op tensor by tensor; this module adds only
what the list form has of its own: the argument forms (a number, a list of numbers, a list
of tensors, a 0-dim tensor, or a 1-D tensor of per-list values for ``addcmul``/
``addcdiv``), the length checks with PyTorch's messages, tuples as results, and in-place
forms that return the list they were given.

NOTE: unlike PyTorch, each result's ``grad_fn`` is its per-tensor op's node
(``ExpBackward0``), not one ``ForeachExpBackward0`` node for the whole list; the gradients
are the same. The lists are processed one tensor at a time (no fused kernel).
"""
from numbers import Number

from . import _args
from .._tensor import Tensor
from ._util import register
from .norms import vector_norm

_UNARY = ('abs', 'acos', 'asin', 'atan', 'ceil', 'cos', 'cosh', 'erf', 'erfc', 'exp', 'expm1',
          'floor', 'frac', 'lgamma', 'log', 'log10', 'log1p', 'log2', 'neg', 'reciprocal',
          'round', 'rsqrt', 'sigmoid', 'sign', 'sin', 'sinh', 'sqrt', 'tan', 'tanh', 'trunc')
# name -> whether it takes alpha= (scaling a tensor operand, as add/sub do)
_BINARY = {'add': True, 'sub': True, 'mul': False, 'div': False, 'clamp_min': False,
           'clamp_max': False, 'maximum': False, 'minimum': False, 'pow': False}


def _tensor_list(v, fname, pos=1, name='self'):
    """``v`` as a non-empty list of tensors, with PyTorch's errors."""
    if isinstance(v, Tensor) or not isinstance(v, (list, tuple)):
        _args._fail(fname, name, pos, 'tuple of Tensors', v)
    for i, t in enumerate(v):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument {pos - 1}, but got "
                            f"{_args.type_name(t)}")
    if not v:
        raise RuntimeError("Tensor list must have at least one tensor.")
    return v


def _same_length(a, b):
    if len(a) != len(b):
        raise RuntimeError(f"Tensor lists must have the same number of tensors, got {len(a)} "
                           f"and {len(b)}")


def _per_tensor(self, other, fname, pos=2):
    """The second operand for each tensor of ``self``: a number, a list of numbers or of
    tensors (one each), or a 0-dim tensor (shared)."""
    n = len(self)
    if isinstance(other, Tensor):
        if other.dim() != 0:
            raise RuntimeError(f"scalar tensor expected to be 0 dim but it has {other.dim()} "
                               f"dimensions and {other.numel()} elements.")
        return [other] * n
    if isinstance(other, (list, tuple)):
        if other and isinstance(other[0], Tensor):
            _tensor_list(other, fname, pos, 'other')
            _same_length(self, other)
            return list(other)
        if len(other) != n:
            raise RuntimeError("Tensor list must have same number of elements as scalar list.")
        for v in other:
            if not _args.is_number(v):
                _invalid(fname, self, other)
        return list(other)
    if _args.is_number(other):
        return [other] * n
    _invalid(fname, self, other)


def _invalid(fname, *args, **kwargs):
    got = ', '.join([_args.type_name(a) for a in args] +
                    [f'{k}={_args.type_name(v)}' for k, v in kwargs.items()])
    raise TypeError(f"{fname}() received an invalid combination of arguments - got ({got}), "
                    "but expected one of:\n * (tuple of Tensors self, Scalar scalar)\n"
                    " * (tuple of Tensors self, tuple of Scalars scalars)\n"
                    " * (tuple of Tensors self, tuple of Tensors other)\n"
                    " * (tuple of Tensors self, Tensor other)")


def _fn(name):
    """The per-tensor function ``ember.<name>`` (looked up on first use: the op families
    register in any order)."""
    from ._util import FUNCTIONS
    return FUNCTIONS[name]


def _make_unary(op):
    def out_of_place(self):
        self = _tensor_list(self, f'_foreach_{op}')
        f = _fn(op)
        return tuple(f(t) for t in self)

    def in_place(self):
        self = _tensor_list(self, f'_foreach_{op}_')
        for t in self:
            getattr(t, op + '_')()
        return self

    out_of_place.__doc__ = (f"``ember.{op}`` of every tensor of ``self`` (a list of tensors); "
                            "returns a tuple.\n\n    Example::\n\n        >>> ember._foreach_"
                            f"{op}([ember.tensor([0.5]), ember.tensor([1.5, 2.])])[0].shape\n"
                            "        torch.Size([1])\n")
    in_place.__doc__ = f"In-place version of :func:`_foreach_{op}`."
    return out_of_place, in_place


def _make_binary(op, alpha_ok):
    def apply(t, o, alpha, inplace):
        args = () if inplace else (t,)
        name = op
        if op in ('maximum', 'minimum'):
            if isinstance(o, Tensor):
                if inplace:     # (PyTorch has no Tensor.maximum_ either)
                    return t.copy_(_fn(op)(t, o))
            else:               # a number bound: clamp, which propagates NaN as maximum does
                name = 'clamp_min' if op == 'maximum' else 'clamp_max'
        f = getattr(t, name + '_') if inplace else _fn(name)
        if alpha is not None:
            return f(*args, o, alpha=alpha)
        return f(*args, o)

    def run(self, other, alpha, inplace):
        fname = f'_foreach_{op}' + ('_' if inplace else '')
        if op == 'pow' and not inplace and _args.is_number(self):   # number ** tensors
            exps = _tensor_list(other, fname, 2, 'exponent')
            return tuple(_fn('pow')(self, e) for e in exps)
        self = _tensor_list(self, fname)
        if alpha is not None and (not alpha_ok or not (isinstance(other, (list, tuple)) and
                                                       other and isinstance(other[0], Tensor)
                                                       or isinstance(other, Tensor))):
            _invalid(fname, self, other, alpha=alpha)
        others = _per_tensor(self, other, fname)
        res = [apply(t, o, alpha, inplace) for t, o in zip(self, others)]
        return self if inplace else tuple(res)

    if alpha_ok:
        def out_of_place(self, other, *, alpha=None):
            return run(self, other, alpha, False)

        def in_place(self, other, *, alpha=None):
            return run(self, other, alpha, True)
    else:
        def out_of_place(self, other):
            return run(self, other, None, False)

        def in_place(self, other):
            return run(self, other, None, True)
    out_of_place.__doc__ = (
        f"``ember.{op}`` of each tensor of ``self`` with ``other``: a number, a list of "
        "numbers or of tensors (one per tensor), or a 0-dim tensor"
        + (" (``alpha`` scales a tensor operand)" if alpha_ok else "") + "; returns a tuple."
        f"\n\n    Example::\n\n        >>> ember._foreach_{op}([ember.tensor([1., 2.])], "
        "[ember.tensor([3., 4.])])[0].shape\n        torch.Size([2])\n")
    in_place.__doc__ = f"In-place version of :func:`_foreach_{op}`."
    return out_of_place, in_place


def _values(value, n, fname):
    """``value`` of addcmul/addcdiv for each of ``n`` tensors: a number, a list of numbers,
    or a 1-D tensor of ``n`` numbers."""
    if isinstance(value, Tensor):
        if value.dim() != 1 or value.numel() != n:
            raise RuntimeError(f"Expected length of scalars to match input of length {n} but "
                               f"got {value.numel()} instead.")
        return value.tolist()
    if isinstance(value, (list, tuple)):
        if len(value) != n:
            raise RuntimeError("Tensor list must have same number of elements as scalar list.")
        return list(value)
    if _args.is_number(value):
        return [value] * n
    _invalid(fname, value)


def _make_pointwise(op):
    def run(self, tensor1, tensor2, value, inplace):
        fname = f'_foreach_{op}' + ('_' if inplace else '')
        self = _tensor_list(self, fname)
        t1, t2 = _tensor_list(tensor1, fname, 2, 'tensor1'), _tensor_list(tensor2, fname, 3,
                                                                          'tensor2')
        _same_length(self, t1)
        _same_length(self, t2)
        vals = _values(value, len(self), fname)
        if inplace:
            for s, a, b, v in zip(self, t1, t2, vals):
                getattr(s, op + '_')(a, b, value=v)
            return self
        f = _fn(op)
        return tuple(f(s, a, b, value=v) for s, a, b, v in zip(self, t1, t2, vals))

    def out_of_place(self, tensor1, tensor2, value=1):
        return run(self, tensor1, tensor2, value, False)

    def in_place(self, tensor1, tensor2, value=1):
        return run(self, tensor1, tensor2, value, True)
    out_of_place.__doc__ = (
        f"``ember.{op}(self[i], tensor1[i], tensor2[i], value=v[i])`` for every i; ``value`` "
        "is a number, a list of numbers or a 1-D tensor of them; returns a tuple.\n\n"
        f"    Example::\n\n        >>> x = [ember.ones(2)]\n        >>> ember._foreach_{op}(x, "
        "x, x, value=2)[0]\n        tensor([3., 3.])\n")
    in_place.__doc__ = f"In-place version of :func:`_foreach_{op}`."
    return out_of_place, in_place


for _op in _UNARY:
    _f, _fi = _make_unary(_op)
    _f.__name__ = _f.__qualname__ = f'_foreach_{_op}'
    _fi.__name__ = _fi.__qualname__ = f'_foreach_{_op}_'
    register(method=False)(_f)
    register(method=False)(_fi)
for _op, _alpha in _BINARY.items():
    _f, _fi = _make_binary(_op, _alpha)
    _f.__name__ = _f.__qualname__ = f'_foreach_{_op}'
    _fi.__name__ = _fi.__qualname__ = f'_foreach_{_op}_'
    register(method=False)(_f)
    register(method=False)(_fi)
for _op in ('addcmul', 'addcdiv'):
    _f, _fi = _make_pointwise(_op)
    _f.__name__ = _f.__qualname__ = f'_foreach_{_op}'
    _fi.__name__ = _fi.__qualname__ = f'_foreach_{_op}_'
    register(method=False)(_f)
    register(method=False)(_fi)


def _lerp_weights(self, weight, fname):
    if isinstance(weight, (list, tuple)) and weight and isinstance(weight[0], Tensor):
        _tensor_list(weight, fname, 3, 'weight')
        _same_length(self, weight)
        return list(weight)
    if isinstance(weight, (list, tuple)):
        if len(weight) != len(self):
            raise RuntimeError("Tensor list must have same number of elements as scalar list.")
        return list(weight)
    if isinstance(weight, Number):
        return [weight] * len(self)
    _invalid(fname, self, weight)


@register(method=False)
def _foreach_lerp(self, tensors1, weight):
    """``ember.lerp(self[i], tensors1[i], weight[i])`` for every i; ``weight`` is a number,
    a list of numbers or a list of tensors; returns a tuple.

    Example::

        >>> ember._foreach_lerp([ember.zeros(2)], [ember.ones(2)], 0.25)[0]
        tensor([0.2500, 0.2500])
    """
    self = _tensor_list(self, '_foreach_lerp')
    ends = _tensor_list(tensors1, '_foreach_lerp', 2, 'tensors1')
    _same_length(self, ends)
    f = _fn('lerp')
    return tuple(f(s, e, w) for s, e, w in zip(self, ends,
                                               _lerp_weights(self, weight, '_foreach_lerp')))


@register(method=False)
def _foreach_lerp_(self, tensors1, weight):
    """In-place version of :func:`_foreach_lerp`."""
    self = _tensor_list(self, '_foreach_lerp_')
    ends = _tensor_list(tensors1, '_foreach_lerp_', 2, 'tensors1')
    _same_length(self, ends)
    for s, e, w in zip(self, ends, _lerp_weights(self, weight, '_foreach_lerp_')):
        s.lerp_(e, w)
    return self


@register(method=False)
def _foreach_norm(self, ord=2, dtype=None):
    """``ember.linalg.vector_norm(self[i], ord, dtype=dtype)`` for every i (0-dim results);
    returns a tuple.

    Example::

        >>> ember._foreach_norm([ember.tensor([3., 4.]), ember.tensor([1.])])
        (tensor(5.), tensor(1.))
    """
    self = _tensor_list(self, '_foreach_norm')
    return tuple(vector_norm(t, ord, dtype=dtype) for t in self)


@register(method=False)
def _foreach_max(self):
    """The largest element of each tensor (0-dim results); returns a tuple.

    Example::

        >>> ember._foreach_max([ember.tensor([1, 5]), ember.tensor([-2.])])
        (tensor(5), tensor(-2.))
    """
    self = _tensor_list(self, '_foreach_max')
    for t in self:
        if t.numel() == 0:
            raise RuntimeError("_foreach_max cannot compute the maximum of an empty tensor; max "
                               "over zero elements is undefined.")
    return tuple(t.max() for t in self)


@register(method=False)
def _foreach_powsum(self, exponent):
    """``sum(|self[i]| ** exponent)`` for every i (0-dim results): the sums inside a
    p-norm; returns a tuple.

    Example::

        >>> ember._foreach_powsum([ember.tensor([1., -2.])], 3)
        (tensor(9.),)
    """
    self = _tensor_list(self, '_foreach_powsum')
    return tuple(t.abs().pow(exponent).sum() for t in self)


@register(method=False)
def _foreach_mm(self, mat2):
    """``ember.mm(self[i], mat2[i])`` for every i; returns a tuple.

    Example::

        >>> ember._foreach_mm([ember.ones(2, 3)], [ember.ones(3, 4)])[0].shape
        torch.Size([2, 4])
    """
    self = _tensor_list(self, '_foreach_mm')
    other = _tensor_list(mat2, '_foreach_mm', 2, 'mat2')
    _same_length(self, other)
    return tuple(a.mm(b) for a, b in zip(self, other))


@register(method=False)
def _foreach_clone(self, *, memory_format=None):
    """A copy of every tensor; returns a tuple.

    Example::

        >>> ember._foreach_clone([ember.ones(2)])
        (tensor([1., 1.]),)
    """
    self = _tensor_list(self, '_foreach_clone')
    if memory_format is None:
        return tuple(t.clone() for t in self)
    return tuple(t.clone(memory_format=memory_format) for t in self)


@register(method=False)
def _foreach_copy_(self, src, non_blocking=False):
    """Copies ``src[i]`` into ``self[i]`` for every i (with ``copy_``'s casting and
    broadcasting); returns ``self``.

    Example::

        >>> x = [ember.zeros(2)]
        >>> ember._foreach_copy_(x, [ember.tensor([1, 2])])[0]
        tensor([1., 2.])
    """
    self = _tensor_list(self, '_foreach_copy_')
    src = _tensor_list(src, '_foreach_copy_', 2, 'src')
    _same_length(self, src)
    for d, s in zip(self, src):
        d.copy_(s, non_blocking)
    return self


@register(method=False)
def _foreach_zero_(self):
    """Fills every tensor with zeros; returns ``self``.

    Example::

        >>> x = [ember.ones(2)]
        >>> ember._foreach_zero_(x)[0]
        tensor([0., 0.])
    """
    self = _tensor_list(self, '_foreach_zero_')
    for t in self:
        t.zero_()
    return self
