"""``nn.Parameter``, ``nn.Buffer``, ``nn.UninitializedParameter``, ``nn.UninitializedBuffer``."""
from .._tensor import Tensor, _new_tensor, _disabled_torch_function_impl
from .. import _dtype as D

__all__ = ['Parameter', 'Buffer', 'UninitializedParameter', 'UninitializedBuffer']


def _alias(data, cls):
    t = _new_tensor(data._data, cls)
    t._st = data._storage_obj()
    return t


class Parameter(Tensor):
    """A tensor that is a module parameter: assigning it as a Module attribute registers
    it in ``parameters()``. ``requires_grad`` is True by default.

    Args:
        data (Tensor): the parameter's data (shared, not copied).
        requires_grad (bool): default True.

    Example::

        >>> p = nn.Parameter(ember.zeros(3))
        >>> p.requires_grad
        True
    """
    __slots__ = ()
    __torch_function__ = _disabled_torch_function_impl

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            from .._ops.creation import empty
            data = empty(0)
        if not isinstance(data, Tensor):
            raise AttributeError(f"'{type(data).__name__}' object has no attribute 'detach'")
        if cls is Parameter and hasattr(data, '_as_parameter'):   # a DTensor: stays one
            return data._as_parameter(requires_grad)
        if requires_grad and data._data.dtype.kind not in 'fcV':
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               "gradients")
        t = _alias(data.detach(), cls)
        t.requires_grad_(requires_grad)
        return t

    def __init__(self, *a, **k):
        pass

    def __repr__(self):
        return 'Parameter containing:\n' + super().__repr__()

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        import copy
        r = type(self)(_new_tensor(self._data.copy()), self.requires_grad)
        if self._grad is not None:
            r._grad = copy.deepcopy(self._grad, memo)
        for k, v in self.__dict__.items():
            r.__dict__[k] = copy.deepcopy(v, memo)
        memo[id(self)] = r
        return r

    def __reduce_ex__(self, proto):
        from ..serialization import _rebuild_parameter_state
        return _rebuild_parameter_state(self)


class _BufferMeta(type):
    def __instancecheck__(cls, obj):
        if cls is Buffer:
            return isinstance(obj, Tensor) and getattr(obj, '_is_buffer', False)
        return type.__instancecheck__(cls, obj)


class Buffer(Tensor, metaclass=_BufferMeta):
    """Marks a tensor as a module buffer: ``self.running = nn.Buffer(t)`` registers it as a
    (persistent by default) buffer.

    Args:
        data (Tensor): the buffer's data.
        persistent (bool): whether it is part of ``state_dict()``.

    Example::

        >>> m.counter = nn.Buffer(ember.zeros(1), persistent=False)
    """
    __torch_function__ = _disabled_torch_function_impl
    __slots__ = ()

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            from .._ops.creation import empty
            data = empty(0)
        t = data.detach()
        if data.requires_grad:
            t.requires_grad_(True)
        t.__dict__['_is_buffer'] = True
        t.__dict__['persistent'] = persistent
        return t


_UNINIT_ALLOWED = frozenset({
    'size', 'copy_', 'is_complex', 'is_floating_point', 'half', 'float', 'double', 'char',
    'short', 'int', 'long', 'cuda', 'cpu', 'to', 'get_device', 'materialize',
    'requires_grad_', 'share_memory_', 'detach', 'type', 'bfloat16', 'register_hook'})
_UNINIT_DUNDERS = (
    '__abs__', '__add__', '__and__', '__array__', '__bool__', '__complex__', '__div__', '__eq__',
    '__float__', '__floordiv__', '__ge__', '__getitem__', '__gt__', '__iadd__', '__iand__',
    '__idiv__', '__ifloordiv__', '__ilshift__', '__imod__', '__imul__', '__index__', '__int__',
    '__invert__', '__ior__', '__ipow__', '__irshift__', '__isub__', '__iter__', '__itruediv__',
    '__ixor__', '__le__', '__len__', '__lshift__', '__lt__', '__matmul__', '__mod__', '__mul__',
    '__ne__', '__neg__', '__or__', '__pos__', '__pow__', '__radd__', '__rand__', '__rdiv__',
    '__rfloordiv__', '__rlshift__', '__rmatmul__', '__rmod__', '__rmul__', '__ror__', '__rpow__',
    '__rrshift__', '__rshift__', '__rsub__', '__rtruediv__', '__rxor__', '__setitem__', '__sub__',
    '__truediv__', '__xor__')
_tensor_methods = None


def _uninit_error(cls, name):
    return ValueError(
        f"Attempted to use an uninitialized parameter in <method '{name}' of 'Tensor' objects>. "
        "This error happens when you are using a `LazyModule` or explicitly manipulating "
        f"`torch.nn.parameter.{cls.__name__}` objects. When using LazyModules Call `forward` "
        "with a dummy batch to initialize the parameters before calling torch functions")


def _public_tensor_methods():
    global _tensor_methods
    if _tensor_methods is None:
        import inspect
        _tensor_methods = frozenset(
            n for n in dir(Tensor) if not n.startswith('_')
            and callable(inspect.getattr_static(Tensor, n))
            and not isinstance(inspect.getattr_static(Tensor, n), (property, type))
        ) - _UNINIT_ALLOWED
    return _tensor_methods


class _Uninit:
    """Mixin: a placeholder of unknown shape. Using it in tensor operations raises a
    ``ValueError`` until ``materialize(shape)`` gives it data (only conversions such as
    ``to``, ``float``, ``cpu`` and ``size`` are allowed before)."""
    cls_to_become = None
    __torch_function__ = _disabled_torch_function_impl

    def __getattribute__(self, name):
        if name[0] != '_' and name in _public_tensor_methods():
            raise _uninit_error(type(self), name)
        return object.__getattribute__(self, name)

    def materialize(self, shape, device=None, dtype=None):
        """Create the data with ``shape`` (on this tensor's device and dtype unless given)
        and turn into ``cls_to_become``.

        Args:
            shape (tuple): the shape of the materialized tensor.
            device (ember.device, optional): its device.
            dtype (ember.dtype, optional): its dtype.
        """
        from .._ops.creation import empty
        if device is None:
            device = self.device
        if dtype is None:
            dtype = self.dtype
        new = empty(tuple(shape) if isinstance(shape, (tuple, list)) else (shape,), device=device, dtype=dtype)
        self._data = new._data
        self._st = None
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError("Can't access the shape of an uninitialized parameter or buffer. This "
                           "error usually happens in `load_state_dict` when trying to load an "
                           "uninitialized parameter into an initialized one. Call `forward` to "
                           "initialize the parameters before accessing their attributes.")

    def share_memory_(self):
        raise RuntimeError("Can't share memory on an uninitialized parameter or buffer. Call "
                           "`forward` to initialize the parameters before calling "
                           "`module.share_memory()`.")

    def __repr__(self):
        return f'<{type(self).__name__}>'

    def __reduce_ex__(self, proto):
        return (self.__class__, (self.requires_grad,))

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        r = type(self)(self.requires_grad, device=self.device, dtype=self.dtype)
        memo[id(self)] = r
        return r


def _make_raiser(name):
    def f(self, *args, **kwargs):
        raise _uninit_error(type(self), name)
    f.__name__ = name
    return f


for _n in _UNINIT_DUNDERS:
    setattr(_Uninit, _n, _make_raiser(_n))
_Uninit.__hash__ = object.__hash__
del _n


class UninitializedParameter(_Uninit, Parameter):
    """A parameter whose shape is not known yet (used by lazy modules). Using it in tensor
    operations raises ``ValueError`` until :meth:`materialize` gives it a shape, which turns it
    into a :class:`Parameter`.

    Args:
        requires_grad (bool): Default: ``True``.
        device (ember.device, optional): the device of the data to be created.
        dtype (ember.dtype, optional): its dtype.

    Example::

        >>> p = nn.UninitializedParameter()
        >>> p.materialize((2, 3)); type(p).__name__, p.shape
        ('Parameter', torch.Size([2, 3]))
    """
    __slots__ = ()
    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        from .._ops.creation import empty
        return Parameter.__new__(cls, empty(0, device=device, dtype=dtype), requires_grad)


class UninitializedBuffer(_Uninit, Tensor):
    """A buffer whose shape is not known yet (used by lazy modules); :meth:`materialize` turns
    it into a plain tensor.

    Args:
        requires_grad (bool): Default: ``False``.
        device (ember.device, optional): the device of the data to be created.
        dtype (ember.dtype, optional): its dtype.

    Example::

        >>> b = nn.UninitializedBuffer()
        >>> b.materialize(4); b.shape
        torch.Size([4])
    """
    __slots__ = ()
    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None):
        from .._ops.creation import empty
        t = empty(0, device=device, dtype=dtype).as_subclass(cls)
        t._rg = requires_grad
        return t


def is_lazy(param):
    """True for uninitialized parameters and buffers."""
    return isinstance(param, _Uninit)
