"""Tensor members that reach into a tensor's storage or metadata, and PyTorch's legacy
members: ``set_``, ``resize_`` / ``resize`` / ``resize_as_``, ``new``,
``new_empty_strided``, ``apply_`` / ``map_`` / ``map2_``, ``dim_order``, ``fill_diagonal_``,
``is_nonzero``, ``module_load``, the device stand-ins (``pin_memory``, ``xpu``, ``ipu``,
``mtia``, ``record_stream``) and the removed members (``reinforce``, ``to_padded_tensor``).
"""
import builtins
import warnings

import numpy as np

from .. import _dtype as D
from .. import _storage
from .._tensor import Tensor, Size, _Mode
from ._inplace import check_inplace
from .._storage import UntypedStorage, TypedStorage, check_view, check_numel, needed_bytes, \
    view_of
from .._backend import array_module
from ._util import wrap, wrap as _wrap, Node, register, record, grad_needed, METHODS, FUNCTIONS
from .. import _layout
from . import _args

__all__ = []

_int = builtins.int


def _sizes(args, fname):
    """``f(2, 3)`` / ``f((2, 3))`` / ``f(Size)`` -> a tuple of non-negative ints."""
    if len(args) == 1 and isinstance(args[0], (tuple, list, Size)):
        args = tuple(args[0])
    out = []
    for i, v in enumerate(args):
        if isinstance(v, Tensor) and v._data.ndim == 0 and v._data.dtype.kind in 'iu':
            v = _int(v.item())
        if not isinstance(v, (_int, np.integer)) or isinstance(v, builtins.bool):
            raise TypeError(f"{fname}(): argument 'size' must be tuple of ints, but found "
                            f"element of type {type(v).__name__}")
        v = _int(v)
        if not -_I64 <= v < _I64:
            raise TypeError(f"{fname}(): argument 'size' failed to unpack the object at pos "
                            f"{i + 1} with error \"Overflow when unpacking long long\"")
        out.append(v)
    return tuple(out)


_I64 = 1 << 63


def _grow(st, need, like):
    """Grow storage ``st`` to ``need`` bytes (new bytes zero), keeping its contents.

    NOTE: unlike PyTorch, tensors that viewed the old memory keep viewing it."""
    if need <= st.nbytes():
        return
    try:
        grown = array_module(like).zeros((need,), np.uint8)
    except (MemoryError, ValueError):
        raise RuntimeError("DefaultCPUAllocator: can't allocate memory: you tried to allocate "
                           f"{need} bytes. Error code 12 (Cannot allocate memory)") from None
    old = st._bytes()
    grown[:old.size] = old
    if _storage.fill_uninitialized:   # deterministic mode: the new elements as torch fills them
        isz = like.itemsize
        lo = -(-old.size // isz) * isz
        n = (need - lo) // isz
        if n > 0:
            _storage.uninit_fill(grown[lo:lo + n * isz].view(like.dtype))
    st._src = grown


_CPP_NAMES = {'float32': 'float', 'float64': 'double', 'int64': 'long int', 'int32': 'int',
              'int16': 'short int', 'int8': 'signed char', 'uint8': 'unsigned char',
              'bool': 'bool', 'float16': 'c10::Half', 'bfloat16': 'c10::BFloat16',
              'complex64': 'c10::complex<float>', 'complex128': 'c10::complex<double>'}


def _set_dtype_error(dst, src):
    n = lambda d: _CPP_NAMES.get(d._name, d._name)   # noqa: E731
    return RuntimeError(f"Could not set tensor of type {n(src)} to a tensor of type {n(dst)}")


def _retarget(self, arr, st, eoff=None):
    """Point ``self`` at array ``arr`` over storage ``st`` (in place: a new version);
    ``eoff`` is the storage offset of an empty ``arr`` (its data pointer does not say it)."""
    self._data = arr
    self._st = st
    self._base = None
    d = self.__dict__
    if eoff is not None and not arr.size and arr.ndim:
        d['_eoff'] = eoff
    elif '_eoff' in d:
        del d['_eoff']
    st._version += 1
    return self


# ============================================================================= set_
@register(function=False)
def set_(self, source=None, storage_offset=0, size=None, stride=None):
    """Make this tensor view another storage: ``set_()`` (an empty storage), ``set_(t)``
    (the storage, offset, size and strides of tensor ``t``), ``set_(storage, offset=0,
    size=None, stride=None)`` (an :class:`UntypedStorage` or :class:`TypedStorage`, the
    whole storage as 1-D when ``size`` is omitted, contiguous strides when ``stride`` is).
    The tensor then shares memory with the source; returns self. A storage too small for
    the view grows (new bytes zero); the geometry is checked first by the view layer
    (``ember._storage.check_view``), with PyTorch's errors for a negative offset, a size or
    stride whose storage size overflows int64, or mismatched lengths.

    NOTE: unlike PyTorch, a negative size is refused even next to a 0, and the strides of
    an empty result are kept as given (PyTorch may re-derive or refuse some of them).

    Args:
        source (Tensor or Storage, optional): what to view.
        storage_offset (int): first element (in elements of this tensor's dtype).
        size (tuple of ints, optional): the new shape.
        stride (tuple of ints, optional): the new strides.

    Example::

        >>> a = ember.arange(6.)
        >>> b = ember.empty(0).set_(a.untyped_storage(), 2, (2, 2), (1, 2))
        >>> b
        tensor([[2., 4.],
                [3., 5.]])
        >>> a[2] = 9.; b[0, 0].item()
        9.0
    """
    check_inplace(self)
    if self._rg and _Mode.grad and self.grad_fn is None:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                           "operation.")
    npdt = self._data.dtype
    if source is None:
        return _retarget(self, array_module(self._data).empty((0,), npdt),
                         UntypedStorage(array_module(self._data).empty((0,), np.uint8)))
    if isinstance(source, Tensor):
        if source._data.dtype != npdt:
            raise _set_dtype_error(self.dtype, source.dtype)
        if source is self:
            return self
        return _retarget(self, source._data, source._storage_obj(), source._eoff)
    if isinstance(source, TypedStorage):
        if source.dtype._np != npdt:
            raise _set_dtype_error(self.dtype, source.dtype)
        source = source._untyped
    if not isinstance(source, UntypedStorage):
        raise TypeError(f"set_(): argument 'source' must be Tensor or Storage, not "
                        f"{type(source).__name__}")
    isz = npdt.itemsize
    off = _args.overflow(_args.as_int(storage_offset, 'set_', 'storage_offset', 2))
    if size is None:
        size = ((source.nbytes() // isz) - off,) if stride is None else ()
        size = (max(size[0], 0),) if size else size
    size = _sizes((size,), 'set_')
    stride = _layout.contiguous_strides(size) if stride is None else _sizes((stride,), 'set_')
    _grow(source, check_view(size, stride, off, isz, None, 'set_'), self._data)
    return _retarget(self, view_of(source, npdt, off, size, stride, 'set_'), source, off)


def __setstate__(self, state):
    """Restore this leaf tensor from PyTorch's legacy pickled state: a 4-tuple ``(storage,
    storage_offset, size, stride)`` re-points it with :meth:`set_` (so the view is checked
    to lie inside the storage), a 3-tuple ``(requires_grad, _, backward_hooks)`` sets the
    flag (hooks are not restored), a 5-tuple ``(data, _, backward_hooks, requires_grad, _)``
    sets the data and the flag.

    Args:
        state (tuple): the state, as above.

    Example::

        >>> t = ember.empty(0)
        >>> t.__setstate__((ember.arange(4.).untyped_storage(), 1, (2,), (1,)))
        >>> t
        tensor([1., 2.])
    """
    if not self.is_leaf:
        raise RuntimeError("__setstate__ can be only called on leaf Tensors")
    if len(state) == 4:
        self.set_(*state)
        return
    if len(state) == 5:
        self.data = state[0]
        state = (state[3], state[4], state[2])
    requires_grad, _, _hooks = state
    if type(requires_grad) is not builtins.bool:
        raise RuntimeError("requires_grad must be a bool")
    self.requires_grad = requires_grad


register('__setstate__', function=False)(__setstate__)


# ============================================================================= resize
@register(function=False)
def resize_(self, *sizes, memory_format=None):
    """Resize this tensor in place to ``sizes`` (contiguous strides, or ``memory_format``'s).
    The storage grows when it is too small; elements keep their storage order and new ones
    are uninitialized. Returns self.

    NOTE: unlike PyTorch, when the storage must grow, other tensors that shared the old
    storage keep viewing the old memory (NumPy cannot grow a buffer in place); a negative
    size is refused even next to a 0 (PyTorch makes a tensor of shape ``[-2, 0]``).

    Args:
        sizes (ints or tuple of ints): the new shape.
        memory_format (ember.memory_format, optional): ``contiguous_format`` (default) or
            ``channels_last`` / ``channels_last_3d``.

    Example::

        >>> x = ember.arange(6.)
        >>> x.resize_(2, 2)
        tensor([[0., 1.],
                [2., 3.]])
    """
    from .. import _memory_format as mf
    if self._rg:
        raise RuntimeError("cannot resize variables that require grad")
    size = _sizes(sizes, 'resize_')
    check_numel(size)   # NOTE: unlike PyTorch, a negative size is refused even next to a 0
    if memory_format is None or memory_format is mf.contiguous_format or \
            memory_format is mf.preserve_format:
        stride = _layout.contiguous_strides(size)
    elif memory_format is mf.channels_last and len(size) == 4 or \
            memory_format is mf.channels_last_3d and len(size) == 5:
        stride = _layout._cl_strides(size)
    else:
        raise RuntimeError(f"unsupported memory format {memory_format}")
    if any(s > _I64 - 1 for s in stride):
        raise RuntimeError("Stride calculation overflowed")
    a = self._data
    npdt = a.dtype
    isz = npdt.itemsize
    st = self._storage_obj()
    off = self.storage_offset()
    need = needed_bytes(size, stride, off, isz)
    if need is None:
        raise RuntimeError("Storage size calculation overflowed with sizes="
                           f"[{', '.join(map(str, size))}]")
    _grow(st, need, a)
    return _retarget(self, view_of(st, npdt, off, size, tuple(stride), 'resize_'), st, off)


@register(function=True)
def resize_as_(input, the_template, *, memory_format=None):
    """Resize ``input`` in place to the shape of ``the_template`` (see :meth:`resize_`).

    Example::

        >>> ember.zeros(6).resize_as_(ember.ones(2, 3)).shape
        torch.Size([2, 3])
    """
    if not isinstance(the_template, Tensor):
        _args.tensor(the_template, 'resize_as_', 'the_template', 2)
    return resize_(input, tuple(the_template.shape), memory_format=memory_format)


class ResizeBackward(Node):
    def backward(self, g):
        return g.contiguous().view(self.shape)


def _resize_copy(self, sizes):
    n = 1
    for s in sizes:   # as PyTorch: a tuple argument multiplies as a sequence (and fails)
        n = n * s
    if n != self.numel():
        raise RuntimeError(f"requested resize to {'x'.join(map(str, sizes))} ({n} elements in "
                           f"total), but the given tensor has a size of "
                           f"{'x'.join(map(str, self.shape))} ({self.numel()} elements). "
                           "autograd's resize can only change the shape of a given tensor, "
                           "while preserving the number of elements. ")
    sizes = _sizes(sizes, 'resize')
    a = self._data
    xp = array_module(a)
    out = wrap(xp.ascontiguousarray(a).reshape(sizes).copy())
    if grad_needed(self):
        node = ResizeBackward()
        node.shape = tuple(a.shape)
        record(out, node, (self,))
    return out


@register(function=False)
def resize(self, *sizes):
    """Deprecated: a copy of this tensor reshaped to ``sizes`` (same number of elements),
    differentiable. Warns; use :meth:`reshape`.

    Example::

        >>> ember.arange(6.).resize(2, 3).shape
        torch.Size([2, 3])
    """
    warnings.warn("non-inplace resize is deprecated", UserWarning, stacklevel=2)
    return _resize_copy(self, sizes)


@register(function=False)
def resize_as(self, tensor):
    """Deprecated: :meth:`resize` to ``tensor``'s shape. Warns.

    Example::

        >>> ember.arange(6.).resize_as(ember.ones(3, 2)).shape
        torch.Size([3, 2])
    """
    warnings.warn("non-inplace resize_as is deprecated", UserWarning, stacklevel=2)
    return _resize_copy(self, tuple(tensor.shape))


# ============================================================================= new
@register(function=False)
def new(self, *args, device=None):
    """The legacy constructor, with this tensor's dtype (and device unless ``device``):
    ``new()`` (empty), ``new(2, 3)`` / ``new(ember.Size([2, 3]))`` (uninitialized),
    ``new(sequence)`` (data: a list or tuple), ``new(tensor)`` (the same storage, same dtype
    only), ``new(storage)``.

    Example::

        >>> ember.ones(2).new([1, 2])
        tensor([1., 2.])
        >>> ember.ones(2).new(2, 3).shape
        torch.Size([2, 3])
    """
    from .creation import empty, tensor
    dt = self.dtype
    dev = self.device if device is None else device
    if not args:
        return empty(0, dtype=dt, device=dev)
    if len(args) == 1:
        a = args[0]
        if isinstance(a, Tensor):
            if a.dtype is not dt:
                raise TypeError(f"expected {dt} (got {a.dtype})")
            return a.detach()
        if isinstance(a, (UntypedStorage, TypedStorage)):
            return set_(empty(0, dtype=dt, device=dev), a)
        if isinstance(a, Size):
            return empty(*a, dtype=dt, device=dev)
        if isinstance(a, (list, tuple, np.ndarray)):
            return tensor(a, dtype=dt, device=dev)
    return empty(*_sizes(args, 'new'), dtype=dt, device=dev)


@register(function=False)
def new_empty_strided(self, size, stride, *, dtype=None, layout=None, device=None,
                      requires_grad=False, pin_memory=False):
    """An uninitialized tensor with ``size`` and ``stride``, of this tensor's dtype and
    device unless given.

    Example::

        >>> ember.ones(1).new_empty_strided((2, 3), (1, 2)).stride()
        (1, 2)
    """
    from .creation import empty_strided
    return empty_strided(size, stride, dtype=dtype or self.dtype,
                         device=device if device is not None else self.device,
                         requires_grad=requires_grad)


# ============================================================================= apply_ / map_
def _py_apply(self, fname, others, fn):
    if self._rg:
        raise RuntimeError(f"Can't call {fname}() on Variable that requires grad. Use "
                           f"var.detach().{fname}() instead.")
    a = self._data
    arrs = []
    for o in others:
        if not isinstance(o, Tensor):
            _args.tensor(o, fname, 'tensor', 1)
        b = o._data
        if b.dtype != a.dtype:
            raise TypeError(f"{fname}(): expected all tensors to have dtype {self.dtype} "
                            f"(got {o.dtype})")
        try:
            b = array_module(b).broadcast_to(b, a.shape)
        except ValueError:
            raise RuntimeError(
                f"The expanded size of the tensor ({a.shape[-1] if a.ndim else 1}) must match "
                f"the existing size ({b.shape[-1] if b.ndim else 1}) at non-singleton "
                f"dimension {a.ndim - 1}.  Target sizes: {list(a.shape)}.  Tensor sizes: "
                f"{list(b.shape)}") from None
        arrs.append(b)
    check_inplace(self)
    cast = np.dtype(a.dtype).type
    if a.dtype.kind == 'V' or a.dtype.itemsize == 1 and a.dtype.kind == 'f':
        raise TypeError(f"{fname}() is not implemented for {self.dtype}")
    for idx in np.ndindex(a.shape):
        vals = [a[idx].item()] + [b[idx].item() for b in arrs]
        a[idx] = cast(fn(*vals))
    self._storage_obj()._version += 1
    return self


@register(function=False)
def apply_(self, callable):
    """Apply the Python function ``callable`` to every element, in place (CPU only, slow:
    one call per element). Returns self.

    Example::

        >>> ember.tensor([1., 2.]).apply_(lambda v: v * 10)
        tensor([10., 20.])
    """
    return _py_apply(self, 'apply_', (), callable)


@register(function=False)
def map_(self, tensor, callable):
    """Set each element ``x`` of this tensor to ``callable(x, y)``, ``y`` the element of
    ``tensor`` (broadcast to this shape), in place. Returns self.

    Example::

        >>> ember.tensor([1., 2.]).map_(ember.tensor([3., 4.]), lambda a, b: a * b)
        tensor([3., 8.])
    """
    return _py_apply(self, 'map_', (tensor,), callable)


@register(function=False)
def map2_(self, x, y, callable):
    """As :meth:`map_` with two tensors: ``callable(self_elem, x_elem, y_elem)``.

    Example::

        >>> ember.zeros(2).map2_(ember.ones(2), ember.tensor([2., 3.]), lambda a, b, c: b + c)
        tensor([3., 4.])
    """
    return _py_apply(self, 'map2_', (x, y), callable)


# ============================================================================= metadata
def _dim_order_perm(t, check):
    """PyTorch's logical -> physical dimension order of one tensor (its elementwise output
    permutation): the contiguous and channels-last fast paths, else an insertion sort by
    decreasing stride that skips zero strides and orders equal strides by size. Returns
    ``(perm, ambiguous)``; ``ambiguous`` only when ``check``."""
    from .. import _memory_format as mf
    shape, strides = tuple(t.shape), t.stride()
    nd = len(shape)
    if nd == 0:
        return (), False
    if nd == 1:
        return (0,), False
    cont = t.is_contiguous()
    cl = nd == 4 and t.is_contiguous(memory_format=mf.channels_last) or \
        nd == 5 and t.is_contiguous(memory_format=mf.channels_last_3d)
    if cont and not cl:
        return tuple(range(nd)), False
    if cl and not cont:
        return (0, *range(2, nd), 1), False

    def ge(a, b):
        if b == 0:
            return True
        if a == 0:
            return False
        return a >= b or a % b == 0

    def should_swap(i, j):
        sa, sb = strides[i], strides[j]
        if sa != 0 and sb != 0:
            if sa == sb:
                if not ge(shape[j], shape[i]):
                    return 1
            elif ge(sb, sa):
                return -1
            elif ge(sa, sb):
                return 1
        return 0

    perm = list(reversed(range(nd)))
    for i in range(1, nd):
        d1 = i
        for d0 in reversed(range(i)):
            c = should_swap(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    amb = check and any(should_swap(perm[i], perm[i + 1]) != -1 for i in range(nd - 1))
    return tuple(reversed(perm)), amb


@register(function=False)
def dim_order(self, *, ambiguity_check=False):
    """The dimensions from outermost to innermost in memory (by decreasing stride):
    ``(0, 1, ..., n-1)`` for a contiguous tensor, ``(0, 2, 3, 1)`` for channels-last.

    Args:
        ambiguity_check (bool or list of memory formats): raise when the order is not
            unique (equal strides or size-1 dimensions), unless the tensor is in one of the
            listed memory formats.

    Example::

        >>> ember.empty(2, 3).t().dim_order()
        (1, 0)
    """
    shape, strides = tuple(self.shape), self.stride()
    if not isinstance(ambiguity_check, (builtins.bool, list)):
        raise TypeError("The ambiguity_check argument must be a bool or a list of memory "
                        "formats.")
    formats = ambiguity_check if isinstance(ambiguity_check, list) else []
    check = ambiguity_check if isinstance(ambiguity_check, builtins.bool) else True
    if check:
        dup = any(a == b for a, b in zip(strides, strides[1:]))
        if (dup or any(n == 1 for n in shape)) and \
                not any(self.is_contiguous(memory_format=f) for f in formats):
            raise RuntimeError("The tensor does not have unique dim order, or cannot map to "
                               "exact one of the given memory formats.")
    perm, amb = _dim_order_perm(self, builtins.bool(ambiguity_check))
    if amb:
        raise RuntimeError("The tensor does not have unique dim order.")
    return perm


@register(function=False)
def const_data_ptr(self):
    """The address of the first element, as :meth:`data_ptr` (read-only use).

    Example::

        >>> x = ember.ones(2); x.const_data_ptr() == x.data_ptr()
        True
    """
    return self.data_ptr()


@register(function=False)
def is_nonzero(self):
    """True when this one-element tensor is not zero (error for other sizes).

    Example::

        >>> ember.tensor([1.5]).is_nonzero()
        True
    """
    n = self._data.size
    if n == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return builtins.bool(self._data.reshape(-1)[0] != 0)


register('is_nonzero', method=False)(is_nonzero)


@register(function=False)
def is_pinned(self, device=None):
    """Whether this tensor is in page-locked host memory: always False (ember has no
    pinned memory).

    Example::

        >>> ember.ones(2).is_pinned()
        False
    """
    return False


@register(function=False)
def pin_memory(self, device=None):
    """Copy into page-locked memory: needs an accelerator.

    NOTE: unlike PyTorch, with CUDA available this returns the tensor itself (ember has no
    page-locked host memory); without an accelerator it raises as PyTorch does.

    Example::

        >>> ember.ones(2).pin_memory()  # doctest: +SKIP
        RuntimeError: Cannot access accelerator device when none is available.
    """
    from .._backend import cuda_module
    if cuda_module() is None:
        raise RuntimeError("Cannot access accelerator device when none is available.")
    return self


@register(function=False)
def ipu(self, device=None, non_blocking=False, memory_format=None):
    """Copy to an IPU: ember has none (raises as PyTorch without IPU support).

    Example::

        >>> ember.ones(2).ipu()  # doctest: +SKIP
        RuntimeError: PyTorch is not linked with support for ipu devices
    """
    raise RuntimeError("PyTorch is not linked with support for ipu devices")


@register(function=False)
def xpu(self, device=None, non_blocking=False, memory_format=None):
    """Copy to an XPU: ember has none (raises as PyTorch without XPU support).

    Example::

        >>> ember.ones(2).xpu()  # doctest: +SKIP
        AssertionError: Torch not compiled with XPU enabled
    """
    raise AssertionError("Torch not compiled with XPU enabled")


@register(function=False)
def mtia(self, device=None, non_blocking=False, memory_format=None):
    """Copy to an MTIA device: ember has none (raises as PyTorch without MTIA support).

    Example::

        >>> ember.ones(2).mtia()  # doctest: +SKIP
        AssertionError: Torch not compiled with MTIA enabled
    """
    raise AssertionError("Torch not compiled with MTIA enabled")


@register(function=False)
def record_stream(self, stream):
    """Mark this (CUDA) tensor as used by ``stream`` (an :class:`ember.Stream` or CUDA
    stream); a no-op in ember, where streams run in order. CPU tensors raise, as in PyTorch.

    Example::

        >>> ember.ones(2, device='cuda').record_stream(ember.cuda.current_stream())  # doctest: +SKIP
    """
    from .._misc import Stream
    from .. import cuda
    if not isinstance(stream, (Stream, getattr(cuda, 'Stream', Stream))):
        raise RuntimeError("unknown parameter type")
    if self.device.type == 'cpu':
        raise NotImplementedError("Could not run 'aten::record_stream' with arguments from the "
                                  "'CPU' backend.")
    return None


@register(function=False)
def reinforce(self, reward):
    """Removed in PyTorch: raises (use ``ember.distributions``).

    Example::

        >>> ember.ones(2).reinforce(1.0)  # doctest: +SKIP
        RuntimeError: reinforce() was removed.
    """
    raise RuntimeError("reinforce() was removed.\nUse torch.distributions instead.\n"
                       "Sample with dist.sample() and use -dist.log_prob(action) * reward as "
                       "the loss.")


@register(function=False)
def to_padded_tensor(self, padding, output_size=None):
    """Nested tensors only: raises for a regular tensor, as PyTorch's CPU backend does.

    Example::

        >>> ember.ones(2).to_padded_tensor(0.0)  # doctest: +SKIP
        NotImplementedError: Could not run 'aten::to_padded_tensor' ...
    """
    raise NotImplementedError("Could not run 'aten::to_padded_tensor' with arguments from the "
                              "'CPU' backend. This could be because the operator doesn't exist "
                              "for this backend.")


@register(function=False)
def index(self, positions, dims):
    """Bind positional dimensions to first-class dimensions (``functorch.dim``).

    NOTE: unlike PyTorch, first-class dimensions are not implemented: this raises
    ``NotImplementedError``.

    Example::

        >>> ember.ones(2).index((0,), None)  # doctest: +SKIP
        NotImplementedError: Tensor.index binds first-class dimensions ...
    """
    raise NotImplementedError("Tensor.index binds first-class dimensions (functorch.dim), "
                              "which ember does not implement")


@register(function=False)
def module_load(self, other, assign=False):
    """What :meth:`nn.Module.load_state_dict` stores for this parameter or buffer:
    ``self.copy_(other).detach()``, or ``other.detach()`` when ``assign``.

    Example::

        >>> ember.zeros(2).module_load(ember.ones(2))
        tensor([1., 1.])
    """
    if assign:
        return other.detach()
    return self.copy_(other).detach()


@register(function=False)
def storage_type(self):
    """The legacy typed storage class of this tensor's dtype (``ember.FloatStorage``...).

    Example::

        >>> ember.ones(1).storage_type()
        <class 'ember.FloatStorage'>
    """
    from .._storage import _LEGACY_STORAGE_DTYPES, _legacy_storage_classes
    name = {d: n for n, d in _LEGACY_STORAGE_DTYPES.items()}.get(self.dtype._name)
    if name is None:
        raise RuntimeError(f"no legacy storage type for {self.dtype}")
    return _legacy_storage_classes('cpu' if self.device.type == 'cpu' else 'cuda')[name]


@register(function=False)
def chalf(self, memory_format=None):
    """This tensor cast to ``complex32``.

    NOTE: unlike PyTorch, ember cannot hold complex32 tensors: this raises ``RuntimeError``.

    Example::

        >>> ember.ones(2).chalf()  # doctest: +SKIP
        RuntimeError: ember cannot hold tensors of dtype torch.complex32 ...
    """
    return self.to(D.complex32)


@register(function=False)
def is_inference(self):
    """Whether this tensor was made in inference mode.

    NOTE: unlike PyTorch, ember does not mark tensors made under ``inference_mode``: this
    is always False.

    Example::

        >>> ember.ones(1).is_inference()
        False
    """
    return False


register('is_inference', method=False)(is_inference)


def _bind_existing():
    """Tensor methods / functions whose body already exists under the other name."""
    from .misc_ops import slice_inverse
    from .view import as_strided_
    METHODS.setdefault('slice_inverse', slice_inverse)
    FUNCTIONS.setdefault('as_strided_', as_strided_)


_bind_existing()


def _diag_mask(shape, wrap):
    nd = len(shape)
    if nd < 2:
        raise RuntimeError("dimensions must larger than 1")
    if nd > 2 and any(n != shape[0] for n in shape):
        raise RuntimeError("all dimensions of input must be of equal length")
    m = np.zeros(shape, dtype=np.bool_)
    if nd > 2:
        i = np.arange(shape[0])
        m[(i,) * nd] = True
        return m
    r, c = shape
    if wrap and r > c + 1:
        k = np.arange(0, r * c, c + 1)
        m.reshape(-1)[k] = True
    else:
        i = np.arange(min(r, c))
        m[i, i] = True
    return m


@register(function=False)
def fill_diagonal_(self, fill_value, wrap=False):
    """Fill the main diagonal (elements ``[i, i, ..., i]``) with ``fill_value``, in place.
    A 2-D tensor may be rectangular; with ``wrap``, a tall matrix's diagonal restarts every
    ``columns + 1`` rows. More dimensions must all have the same length. Returns self.

    Args:
        fill_value (Number): the value.
        wrap (bool): continue the diagonal below ``N`` rows of a tall matrix.

    Example::

        >>> ember.zeros(3, 3).fill_diagonal_(5.)
        tensor([[5., 0., 0.],
                [0., 5., 0.],
                [0., 0., 5.]])
    """
    from ._inplace import inplace
    from .._backend import to_device, device_of
    from .indexing import where
    mask = _diag_mask(tuple(self.shape), wrap)
    dev = device_of(self._data)
    xp = array_module(self._data)
    m = to_device(mask, dev) if dev.type != 'cpu' else (mask if xp is np else xp.asarray(mask))
    mask_t = _wrap(m)
    fill = fill_value.item() if isinstance(fill_value, Tensor) else fill_value
    return inplace(self, lambda s: where(mask_t, _wrap(xp.asarray(fill, dtype=s._data.dtype)), s))


@register(method=False)
def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None,
                   requires_grad=False, pin_memory=False):
    """An uninitialized tensor of shape ``size`` whose dimensions lie in memory in the order
    ``physical_layout`` (outermost first): ``physical_layout = (0, 2, 3, 1)`` gives a
    channels-last 4-D tensor.

    Args:
        size (tuple of ints): the logical shape.
        physical_layout (tuple of ints): a permutation of the dimensions.
        dtype, device, requires_grad: as :func:`empty`.

    Example::

        >>> ember.empty_permuted((2, 3, 4, 5), (0, 2, 3, 1)).stride()
        (60, 1, 15, 3)
    """
    from .creation import empty
    size = _sizes((size,), 'empty_permuted')
    perm = tuple(_int(p) for p in physical_layout)
    nd = len(size)
    if len(perm) != nd:
        raise RuntimeError(f"Number of dimensions in size does not match the length of the "
                           f"physical_layout; i.e. len(size) = {nd} is not equal to "
                           f"len(physical_layout) = {len(perm)}")
    seen = set()
    for i, p in enumerate(perm):
        if not 0 <= p < nd:
            raise RuntimeError(f"Dimension out of range (expected to be between 0 and {nd - 1}, "
                               f"but got {p} at index {i}).  NB: negative dims not currently "
                               "supported; file an issue if you want it.")
        if p in seen:
            raise RuntimeError("Duplicate dim not allowed")
        seen.add(p)
    phys = empty([size[p] for p in perm], dtype=dtype, device=device)
    inv = [0] * nd
    for i, p in enumerate(perm):
        inv[p] = i
    out = phys.permute(*inv) if nd else phys
    out = out.detach()
    if requires_grad:
        out.requires_grad_(True)
    return out


@register(function=False)
def __dlpack__(self, *, stream=-1, max_version=None, dl_device=None, copy=None):
    """A DLPack capsule of this tensor's memory, for a consumer's ``from_dlpack`` (NumPy,
    CuPy, torch, ...). Implemented in :mod:`ember.utils.dlpack`.

    Args:
        stream (int or None): the consumer's CUDA stream (``-1``: no synchronisation); must
            be ``None`` or ``-1`` on the CPU. Default: ``-1``
        max_version (tuple of two ints, optional): the newest DLPack version the consumer
            reads; ``None`` or below ``(1, 0)`` gives a legacy capsule.
        dl_device (tuple, optional): the DLPack device the consumer wants.
        copy (bool, optional): ``True`` exports a copy, ``False`` never copies.

    Raises:
        BufferError: if the tensor requires grad.

    Example::

        >>> import numpy
        >>> t = ember.zeros(3)
        >>> a = numpy.from_dlpack(t)
        >>> a[0] = 5.
        >>> t
        tensor([5., 0., 0.])
    """
    from ..utils.dlpack import _export
    return _export(self, stream, max_version, dl_device, copy)


@register(function=False)
def __dlpack_device__(self):
    """The DLPack ``(device type, device index)`` of this tensor.

    Example::

        >>> ember.ones(2).__dlpack_device__()
        (<DLDeviceType.kDLCPU: 1>, 0)
    """
    from ..utils.dlpack import _dlpack_device
    return _dlpack_device(self)
