"""``nn.Parameter``, ``nn.Buffer``, ``nn.UninitializedParameter``, ``nn.UninitializedBuffer``."""
from .._tensor import Tensor, _new_tensor
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

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            from .._ops.creation import empty
            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter expects a Tensor, got {type(data).__name__}")
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
    __slots__ = ()

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            from .._ops.creation import empty
            data = empty(0)
        t = data.detach()
        t.__dict__['_is_buffer'] = True
        t.__dict__['persistent'] = persistent
        return t


class _Uninit:
    """Mixin: a placeholder that raises on use until ``materialize`` gives it a shape."""
    cls_to_become = None

    def materialize(self, shape, device=None, dtype=None):
        """Create the data with ``shape`` and turn into ``cls_to_become``."""
        from .._ops.creation import empty
        if device is None:
            device = self.device
        if dtype is None:
            dtype = self.dtype
        new = empty(*shape if isinstance(shape, (tuple, list)) else (shape,), device=device, dtype=dtype)
        self._data = new._data
        self._st = None
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError("Can't access the shape of an uninitialized parameter or buffer. This "
                           "error usually happens in `load_state_dict` when trying to load an "
                           "uninitialized parameter into an initialized one. Call `forward` to "
                           "initialize the parameters before accessing their attributes.")

    def __repr__(self):
        return f'<{type(self).__name__}>'

    def __reduce_ex__(self, proto):
        return (self.__class__, (self.requires_grad,))


class UninitializedParameter(_Uninit, Parameter):
    """A parameter whose shape is not known yet (lazy modules); becomes a
    :class:`Parameter` after ``materialize(shape)``."""
    __slots__ = ()
    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        from .._ops.creation import empty
        return Parameter.__new__(cls, empty(0, device=device, dtype=dtype), requires_grad)


class UninitializedBuffer(_Uninit, Tensor):
    """A buffer whose shape is not known yet (lazy modules); becomes a plain tensor after
    ``materialize(shape)``."""
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
