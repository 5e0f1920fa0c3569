"""Custom differentiable operations: ``ember.autograd.Function``.

A subclass defines ``forward`` and ``backward`` as static methods; ``Fn.apply(*args)``
runs ``forward`` without recording a graph and attaches a backward node named
``<Fn>Backward`` to the outputs. That node *is* the ``ctx`` object the user's methods
receive, so attributes set on ``ctx`` in ``forward`` are visible in ``backward`` (and on
``out.grad_fn``). ``backward`` is written with ember ops, so it is differentiable again
(``create_graph=True``) unless decorated with :func:`once_differentiable`.
"""
import functools
import inspect
import warnings

from .graph import Node, _seq
from .grad_mode import _Mode

__all__ = ['Function', 'FunctionCtx', 'BackwardCFunction', 'InplaceFunction',
           'once_differentiable']

_LEAF_DIRTY = "a leaf Variable that requires grad has been used in an in-place operation."


class FunctionCtx:
    """The methods available on ``ctx`` inside a custom :class:`Function`:
    :meth:`save_for_backward` (read back as ``ctx.saved_tensors``), ``save_for_forward``,
    ``mark_dirty``, ``mark_non_differentiable`` and ``set_materialize_grads``. Other
    attributes may be set on ``ctx`` freely to pass values to ``backward``.

    Example::

        >>> class Mul(ember.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, a, k):
        ...         ctx.save_for_backward(a)
        ...         ctx.k = k
        ...         return a * k
        ...     @staticmethod
        ...     def backward(ctx, g):
        ...         a, = ctx.saved_tensors
        ...         return g * ctx.k, None
        >>> x = ember.ones(2, requires_grad=True)
        >>> Mul.apply(x, 3.).sum().backward()
        >>> x.grad
        tensor([3., 3.])
    """

    def save_for_backward(self, *tensors):
        """Save tensors (or ``None``) for ``backward``; read them back with
        ``ctx.saved_tensors``, which raises if any of them was modified in place since.

        Example::

            >>> ctx.save_for_backward(input, weight)
        """
        from .._tensor import Tensor
        for i, t in enumerate(tensors):
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(f"save_for_backward can only save variables, but argument {i} "
                                f"is of type {type(t).__name__}")
        self._to_save = tensors

    def save_for_forward(self, *tensors):
        """Save tensors for the forward-mode :meth:`Function.jvp` (read back there with
        ``ctx.saved_tensors``, as in PyTorch)."""
        self.saved_for_forward = tensors

    def mark_dirty(self, *args):
        """Mark input tensors that ``forward`` modified in place (and returns)."""
        self._dirty = args

    def mark_non_differentiable(self, *args):
        """Mark outputs that are not differentiable (they get ``requires_grad=False``;
        ``backward`` still receives a (zero) gradient for them)."""
        self._non_diff = args

    def set_materialize_grads(self, value):
        """Whether ``None`` output gradients are passed to ``backward`` as zeros (the
        default, True) or as ``None``."""
        self._materialize = bool(value)

    @property
    def saved_variables(self):
        """Deprecated alias of ``saved_tensors``."""
        warnings.warn("'saved_variables' is deprecated; use 'saved_tensors'", DeprecationWarning,
                      stacklevel=2)
        return self.saved_tensors


class BackwardCFunction(Node, FunctionCtx):
    """The backward node of a custom Function (one subclass ``<Fn>Backward`` per Function);
    it is also the ``ctx`` passed to ``forward``/``backward``. Calling it runs the
    Function's ``backward`` (or ``vjp``) and checks the number of gradients returned.

    Example::

        >>> class Double(ember.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, t):
        ...         return t * 2
        ...     @staticmethod
        ...     def backward(ctx, g):
        ...         return g * 2
        >>> y = Double.apply(ember.ones(2, requires_grad=True))
        >>> type(y.grad_fn).__name__
        'DoubleBackward'
        >>> isinstance(y.grad_fn, ember.autograd.function.BackwardCFunction)
        True
    """
    _forward_cls = None
    _to_save = None
    _dirty = ()
    _non_diff = ()
    _is_tensor = ()
    needs_input_grad = ()

    def __repr__(self):
        return f"<torch.autograd.function.{type(self).__name__} object at {hex(id(self))}>"

    def apply(self, *grads):
        cls = self._forward_cls
        fn = cls.backward if cls.vjp is Function.vjp or cls.backward is not Function.backward \
            else cls.vjp
        res = fn(self, *grads)
        if type(res) is not tuple:
            res = tuple(res) if isinstance(res, list) else (res,)
        is_t = self._is_tensor
        n = len(is_t)
        if len(res) != n:
            if len(res) > n and all(r is None for r in res[n:]):
                res = res[:n]
            else:
                raise RuntimeError(f"function {self.name()} returned an incorrect number of "
                                   f"gradients (expected {n}, got {len(res)})")
        out = []
        for i, (r, t) in enumerate(zip(res, is_t)):
            if t:
                out.append(r)
            elif r is not None:
                raise RuntimeError(f"function {self.name()} returned a gradient different than "
                                   f"None at position {i + 1}, but the corresponding forward "
                                   "input was not a Variable")
        return tuple(out)

    __call__ = apply


class _FunctionMeta(type):
    def __init__(cls, name, bases, attrs):
        cls._backward_cls = type(name + 'Backward', (BackwardCFunction,),
                                 {'_forward_cls': cls, '__module__': cls.__module__})
        cls._sig = None
        super().__init__(name, bases, attrs)


class Function(FunctionCtx, metaclass=_FunctionMeta):
    """Base class of custom differentiable operations.

    Define ``forward(ctx, *args)`` (or ``forward(*args)`` plus
    ``setup_context(ctx, inputs, output)``) and ``backward(ctx, *grad_outputs)`` as static
    methods, then call ``Fn.apply(*args)``. ``backward`` returns one gradient per
    ``forward`` input (``None`` for non-tensors and inputs that need none).

    Example::

        >>> class Exp(ember.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         y = x.exp()
        ...         ctx.save_for_backward(y)
        ...         return y
        ...     @staticmethod
        ...     def backward(ctx, g):
        ...         (y,) = ctx.saved_tensors
        ...         return g * y
        >>> y = Exp.apply(ember.ones(2, requires_grad=True))
        >>> y.grad_fn
        <torch.autograd.function.ExpBackward object at 0x...>
    """
    generate_vmap_rule = False

    def __init__(self, *args, **kwargs):
        warnings.warn(f"{self.__class__} should not be instantiated. Methods on autograd "
                      "functions are all static, so you should invoke them on the class itself. "
                      "Instantiating an autograd function will raise an error in a future "
                      "version of PyTorch.", DeprecationWarning, stacklevel=2)

    def __call__(self, *args, **kwargs):
        raise RuntimeError("Legacy autograd function with non-static forward method is "
                           "deprecated. Please use new-style autograd function with static "
                           "forward method. (Example: "
                           "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")

    @staticmethod
    def forward(*args, **kwargs):
        """Compute the outputs (runs with gradient recording off)."""
        raise NotImplementedError("You must implement the forward function for custom "
                                  "autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        """Optional: save what ``backward`` needs when ``forward`` takes no ``ctx``."""
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        """The gradients of the inputs given the gradients of the outputs."""
        raise NotImplementedError("You must implement either the backward or vjp method for "
                                  "your custom autograd.Function to use it with backward mode AD.")

    vjp = backward

    @staticmethod
    def jvp(ctx, *grad_inputs):
        """Forward-mode derivative: the tangents of the outputs given the tangents of the
        inputs (one per ``forward`` argument; ``None`` for non-tensors). Used by
        ``ember.autograd.forward_ad`` when an input of :meth:`apply` carries a tangent.

        Example::

            >>> class Square(ember.autograd.Function):
            ...     @staticmethod
            ...     def forward(ctx, x):
            ...         ctx.save_for_forward(x)
            ...         return x * x
            ...     @staticmethod
            ...     def jvp(ctx, t):
            ...         (x,) = ctx.saved_tensors
            ...         return 2 * x * t
        """
        raise NotImplementedError("You must implement the jvp function for custom "
                                  "autograd.Function to use it with forward mode AD.")

    @classmethod
    def apply(cls, *args, **kwargs):
        """Run the function on ``args`` and record its backward node.

        Example::

            >>> out = LinearFunction.apply(x, w, b)
        """
        from .._tensor import Tensor
        if kwargs:
            sig = cls._sig
            if sig is None:
                sig = cls._sig = inspect.signature(cls.forward)
            if cls.setup_context is Function.setup_context:
                ba = sig.bind(None, *args, **kwargs)
                ba.apply_defaults()
                args = ba.args[1:]
            else:
                ba = sig.bind(*args, **kwargs)
                ba.apply_defaults()
                args = ba.args
        ctx = cls._backward_cls()
        is_t = tuple(isinstance(a, Tensor) for a in args)
        grad_on = _Mode.grad
        needs = tuple(t and grad_on and a._rg for a, t in zip(args, is_t))
        ctx._is_tensor = is_t
        ctx.needs_input_grad = needs
        prev = _Mode.grad
        _Mode.grad = False
        try:
            if cls.setup_context is Function.setup_context:
                out = cls.forward(ctx, *args)
            else:
                out = cls.forward(*args)
                cls.setup_context(ctx, args, out)
        finally:
            _Mode.grad = prev
        res = _wrap_outputs(ctx, args, is_t, any(needs), out)
        if cls.jvp is not Function.jvp:
            from . import forward_ad
            if forward_ad._state.level >= 0 and forward_ad._state.duals:
                res = forward_ad._function_jvp(cls, ctx, args, is_t, res)
        return res


def _wrap_outputs(ctx, args, is_t, differentiable, out):
    from .._tensor import Tensor
    from .graph import edge_of, _meta
    from .._backend import array_module
    single = not isinstance(out, tuple)
    outs = (out,) if single else out
    dirty = ctx._dirty
    to_save = ctx._to_save
    if not differentiable:
        for d in dirty:
            d._bump()
        # no graph: still hand back fresh tensors for returned (non-dirty) inputs
        if any(o is a for o in outs for a in args if isinstance(o, Tensor)):
            outs = tuple(_alias(o) if isinstance(o, Tensor) and _is_input(o, args)
                         and not _in(o, dirty) else o for o in outs)
        ctx._to_save = None
        if to_save is not None:
            ctx.save(*to_save)
        return outs[0] if single else outs
    for d in dirty:
        d._bump()
    for d in dirty:
        if d._rg and d._grad_fn is None and (d._base is None or not d._base._rg or
                                             d._base._grad_fn is None):
            raise RuntimeError(_LEAF_DIRTY)
    tensor_ins = [a for a, t in zip(args, is_t) if t]
    ctx.next_functions = tuple(edge_of(t) for t in tensor_ins)
    ctx._in_meta = tuple(_meta(t) for t in tensor_ins)
    ctx._seq = next(_seq)
    from . import anomaly_mode
    if anomaly_mode._enabled:
        ctx._anomaly_trace = anomaly_mode._trace()
    non_diff = ctx._non_diff
    metas = []
    new_outs = []
    for i, o in enumerate(outs):
        if not isinstance(o, Tensor):
            metas.append(None)
            new_outs.append(o)
            continue
        d = o._data
        metas.append((d.shape, d.dtype, array_module(d)))
        is_dirty = _in(o, dirty)
        is_non_diff = _in(o, non_diff)
        if not is_dirty and _is_input(o, args):
            o = _alias(o)
        if d.dtype.kind not in 'fcV' or is_non_diff:
            new_outs.append(o)
            continue
        if is_dirty and o._base is not None:
            # written in place through a view: rebase the base's history (CopySlices)
            from .._tensor import _new_tensor
            from .._ops._inplace import _copy_slices
            res = _new_tensor(o._data)
            res._st = o._storage_obj()
            res._grad_fn, res._out_nr, res._rg = ctx, i, True
            _copy_slices(o, res)
        else:
            o._grad_fn = ctx
            o._out_nr = i
            o._rg = True
        new_outs.append(o)
    ctx._out_meta = metas
    ctx._to_save = None
    if to_save is not None:
        ctx.save(*to_save)
    new_outs = tuple(new_outs)
    return new_outs[0] if single else new_outs


def _in(t, seq):
    for s in seq:
        if s is t:
            return True
    return False


def _is_input(o, args):
    return _in(o, args)


def _alias(o):
    """A new tensor object viewing ``o`` (an input returned as an output)."""
    from .._ops.view import make_view
    return make_view(o, o._data)


class InplaceFunction(Function):
    """A :class:`Function` with an ``inplace`` flag (for functions that may modify their
    inputs in place); the flag is only stored.

    Args:
        inplace (bool, optional): stored as ``self.inplace``. Default: False.

    Example::

        >>> ember.autograd.function.InplaceFunction(inplace=True).inplace
        True
    """

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace


class NestedIOFunction(Function):
    """Legacy base class (``forward_extended``/``backward_extended`` on instances), kept
    for name compatibility only; write a :class:`Function` with static ``forward`` and
    ``backward`` instead.

    NOTE: as in PyTorch 2.x, a subclass cannot actually be applied: instances have no
    legacy dispatch and ``apply`` does not know the nested-input protocol.

    Example::

        >>> issubclass(ember.autograd.NestedIOFunction, ember.autograd.Function)
        True
    """


# ------------------------------------------------------------------ once_differentiable
class Error(Node):
    """Grad function of the outputs of a ``once_differentiable`` backward computed with
    ``create_graph=True``: differentiating them again raises."""

    def name(self):
        return 'torch::autograd::Error'

    def backward(self, *grads):
        raise RuntimeError(self.msg)


def once_differentiable(fn):
    """Decorate a custom Function's ``backward`` that is not itself differentiable: it runs
    without recording a graph, and differentiating its result again raises.

    Example::

        >>> @staticmethod
        ... @once_differentiable
        ... def backward(ctx, grad_output):
        ...     ...
    """
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        from .._tensor import Tensor
        prev = _Mode.grad
        _Mode.grad = False
        try:
            outputs = fn(ctx, *args)
        finally:
            _Mode.grad = prev
        if not prev:
            return outputs
        if not any(isinstance(a, Tensor) and a._rg for a in args):
            return outputs
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        node = Error()
        node.msg = ("trying to differentiate twice a function that was marked with "
                    "@once_differentiable")
        node.next_functions = tuple((None, 0) for _ in outs)
        node._seq = next(_seq)
        wrapped = []
        for i, o in enumerate(outs):
            if isinstance(o, Tensor) and o._data.dtype.kind in 'fcV':
                o = o.detach()
                o._grad_fn, o._out_nr, o._rg = node, i, True
            wrapped.append(o)
        node._out_meta = [None if not isinstance(o, Tensor) else
                          (o._data.shape, o._data.dtype, None) for o in outs]
        node._materialize = False
        return wrapped[0] if single else tuple(wrapped)
    return wrapper
