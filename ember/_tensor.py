"""``ember.Tensor``: a view (shape, strides, offset) onto a storage, plus autograd state.

The data of a tensor is a NumPy (or CuPy) array ``_data`` that views the storage's
memory; views of a tensor share its ``_storage`` (memory and version counter).
Op methods are bound from the op library (``ember/_ops``) at import time.
"""
import numpy as np

from . import _dtype as D
from ._dtype import _NP2DT
from ._memory_format import strided as _strided_layout
from ._device import device as _device_cls, CPU
from ._storage import UntypedStorage, TypedStorage, _ptr
from ._backend import device_of
from ._backend.meta_backend import MetaArray, no_data
from ._grad_state import _Mode

__all__ = ['Tensor', 'Size']

_obj_new = object.__new__


class Size(tuple):
    """The shape of a tensor: a tuple of ints with ``numel()``.

    Example::

        >>> ember.zeros(2, 3).shape
        torch.Size([2, 3])
    """
    __slots__ = ()

    def numel(self):
        """Number of elements of a tensor of this shape."""
        n = 1
        for s in self:
            n *= s
        return n

    def __repr__(self):
        return f"torch.Size([{', '.join(str(s) for s in self)}])"

    def __getitem__(self, i):
        r = tuple.__getitem__(self, i)
        return Size(r) if isinstance(i, slice) else r

    def __add__(self, other):
        return Size(tuple.__add__(self, tuple(other)))

    def __radd__(self, other):
        return Size(tuple(other) + tuple(self))

    def __reduce__(self):
        return (Size, (tuple(self),))


def _new_tensor(arr, cls=None):
    """Wrap a fresh array (aliasing no other tensor) as a Tensor without grad state."""
    t = _obj_new(cls or Tensor)
    if not arr.ndim and isinstance(arr, np.generic):
        arr = np.asarray(arr)   # numpy ops on 0-d arrays return scalars
    t._data = arr
    t._st = None
    t._rg = False
    t._grad_fn = None
    t._out_nr = 0
    t._grad = None
    t._base = None
    t._grad_acc = None
    t._post_acc_hooks = None
    return t




class Tensor:
    """A multi-dimensional array with autograd, like ``torch.Tensor``.

    ``ember.Tensor(*sizes)`` makes an uninitialised float tensor (legacy constructor);
    ``ember.Tensor(data)`` copies ``data`` as float32. Prefer :func:`ember.tensor`.

    Example::

        >>> x = ember.tensor([[1., 2.], [3., 4.]], requires_grad=True)
        >>> (x * x).sum().backward()
        >>> x.grad
        tensor([[2., 4.],
                [6., 8.]])
    """
    # The slots (short names: they are read on the hot path of every op):
    #   _data      the NumPy/CuPy array viewing the storage (shape, strides, offset)
    #   _st        the storage (memory + version counter), made lazily; None until needed
    #   _rg        requires_grad
    #   _grad_fn   the Node that produced this tensor (None for leaves and plain tensors)
    #   _out_nr    which output of _grad_fn this tensor is
    #   _grad      .grad
    #   _base      for a view, the tensor it views (None otherwise)
    #   _grad_acc  a leaf's AccumulateGrad node, made on first use
    #   _post_acc_hooks  register_post_accumulate_grad_hook hooks (dict or None)
    #   _vver      a view's storage version when its grad_fn was last (re)made: a later
    #              in-place write through the storage regenerates the view's grad_fn
    #   _vmeta     how an in-place write on this view is treated: 0 = allowed (the
    #              base's history is rebased, as PyTorch's CopySlices), 1 = forbidden,
    #              output of a multi-view op (unbind, split...), 2 = forbidden, view made
    #              in no-grad mode (both refuse only when autograd would have to rebase
    #              the view: it or its base requires grad)
    __slots__ = ('_data', '_st', '_rg', '_grad_fn', '_out_nr', '_grad', '_base', '_grad_acc',
                 '_post_acc_hooks', '_vver', '_vmeta', '__dict__', '__weakref__')

    _legacy_dtype = None
    _eoff = None   # storage offset of an empty view (its data pointer does not say it)

    def __init__(self, *args, **kwargs):
        pass

    # ------------------------------------------------------------ metadata
    @property
    def shape(self):
        """The size of the tensor, as an :class:`ember.Size`."""
        return Size(self._data.shape)

    def size(self, dim=None):
        """The size of the tensor, or of dimension ``dim``."""
        if dim is None:
            return Size(self._data.shape)
        return self._data.shape[_wrap_dim(dim, self._data.ndim)]

    def dim(self):
        """Number of dimensions."""
        return self._data.ndim

    ndimension = dim

    @property
    def ndim(self):
        """Number of dimensions (same as ``dim()``)."""
        return self._data.ndim

    def numel(self):
        """Number of elements."""
        return self._data.size

    nelement = numel

    @property
    def dtype(self):
        """The :class:`ember.dtype` of the elements."""
        return _NP2DT[self._data.dtype]

    @property
    def device(self):
        """The :class:`ember.device` holding the data."""
        return device_of(self._data)

    @property
    def is_cuda(self):
        """True when the tensor lives on a CUDA device."""
        return self.device.type == 'cuda'

    @property
    def is_cpu(self):
        """True when the tensor lives on the CPU."""
        return self.device.type == 'cpu'

    @property
    def is_meta(self):
        """True for tensors on the ``meta`` device (shape and dtype only)."""
        return type(self._data) is MetaArray

    is_sparse = False
    is_quantized = False
    is_mkldnn = False
    is_nested = False
    layout = _strided_layout

    def get_device(self):
        """The CUDA device index, or -1 on the CPU."""
        d = self.device
        return -1 if d.type == 'cpu' else (d.index or 0)

    @property
    def itemsize(self):
        """Size in bytes of one element (same as ``element_size()``)."""
        return self._data.itemsize

    def element_size(self):
        """Size in bytes of one element."""
        return self._data.itemsize

    @property
    def nbytes(self):
        """Bytes taken by the elements: ``numel() * itemsize``."""
        return self._data.size * self._data.itemsize

    def is_floating_point(self):
        """True for float16/bfloat16/float32/float64 tensors."""
        k = self._data.dtype.kind
        return k == 'f' or k == 'V' and _NP2DT[self._data.dtype]._cat == 2

    def is_complex(self):
        """True for complex tensors."""
        return self._data.dtype.kind == 'c'

    def is_signed(self):
        """True when the dtype is signed (False for ``bool`` and the unsigned integers)."""
        return self.dtype.is_signed

    # ------------------------------------------------------------ storage and strides
    def _storage_obj(self):
        st = self._st
        if st is None:
            st = self._st = UntypedStorage(self._data)
        return st

    def untyped_storage(self):
        """The :class:`UntypedStorage` this tensor views."""
        return self._storage_obj()

    def storage(self):
        """The storage as a :class:`TypedStorage` of this tensor's dtype."""
        return TypedStorage(self._storage_obj(), self.dtype)

    def is_shared(self):
        """True when the tensor's storage is in shared memory (see :meth:`share_memory_`)."""
        return self._storage_obj().is_shared()

    def share_memory_(self):
        """Move the storage to shared memory, in place (a no-op if it already is, and on
        CUDA). Tensors sent through ``ember.multiprocessing`` queues are moved this way.

        NOTE: unlike PyTorch, other tensors viewing the same storage follow at once only
        when they are this tensor's bases or views tracked by the storage; any other view
        follows when it is itself shared or sent (writes made through it in between stay
        in the old memory).

        Example::

            >>> x = ember.zeros(3).share_memory_()
            >>> x.is_shared()
            True
        """
        from ._storage import _shm_of, _shared_array
        st = self._storage_obj()
        old = st._src
        if not isinstance(old, np.ndarray) or _shm_of(self._data) is not None:
            return self
        m = _shm_of(old)
        if m is None:
            p0 = _ptr(old)
            st.share_memory_()
            m = _shm_of(st._src)
        else:   # the storage moved already (through another tensor): follow it
            p0 = getattr(m, '_moved_from', None)
            if p0 is None:
                return self
        n = m._nbytes

        def move(t):
            d = t._data
            off = _ptr(d) - p0
            if (isinstance(d, np.ndarray) and _shm_of(d) is None and t._st is st
                    and 0 <= off <= n):
                t._data = _shared_array(m, d.shape, d.dtype, d.strides, off, type(d))
        move(self)
        b = self._base
        while b is not None:
            move(b)
            b = b._base
        for r in st._views or ():
            v = r()
            if v is not None:
                move(v)
        return self

    def stride(self, dim=None):
        """Strides in elements (a tuple), or the stride of dimension ``dim``."""
        a = self._data
        isz = a.itemsize
        st = tuple(s // isz for s in a.strides)
        if not a.size and a.ndim and self._base is None and not any(st):
            # NumPy gives a fresh empty array zero strides; PyTorch reports the contiguous
            # strides with every size taken as at least 1 (views keep what they computed)
            st = _contiguous_strides(a.shape)
        if dim is None:
            return st
        return st[_wrap_dim(dim, self._data.ndim)]

    def storage_offset(self):
        """Offset of the first element in the storage, in elements."""
        e = self._eoff
        if e is not None and not self._data.size:
            return e   # an empty view: where PyTorch's view starts (see make_view)
        return (_ptr(self._data) - self._storage_obj().data_ptr()) // self._data.itemsize

    def data_ptr(self):
        """Address of the first element."""
        return _ptr(self._data)

    @property
    def _version(self):
        return self._storage_obj()._version

    def _bump(self):
        self._storage_obj()._version += 1

    def is_contiguous(self, memory_format=None):
        """Whether the tensor is laid out row-major (or in ``memory_format``) without gaps."""
        from . import _memory_format as mf
        if memory_format is None or memory_format is mf.contiguous_format:
            return _is_c_contig(self._data)
        return mf._is_contiguous_as(self, memory_format)

    def is_set_to(self, other):
        """True when both tensors view the same memory with the same shape and strides."""
        return (self.data_ptr() == other.data_ptr() and self.shape == other.shape
                and self.stride() == other.stride())

    def _is_view(self):
        return self._base is not None

    # ------------------------------------------------------------ autograd state
    def requires_grad_(self, requires_grad=True):
        """Sets ``requires_grad`` in place and returns self."""
        if requires_grad is not True and requires_grad is not False:
            raise TypeError("requires_grad_(): argument 'requires_grad' (position 1) must be "
                            f"bool, not {type(requires_grad).__name__}")
        if self._grad_fn is not None and not requires_grad:
            raise RuntimeError("you can only change requires_grad flags of leaf variables. If "
                               "you want to use a computed variable in a subgraph that doesn't "
                               "require differentiation use var_no_grad = var.detach().")
        if self._grad_fn is None:
            self.requires_grad = requires_grad
        return self

    @property
    def grad_fn(self):
        """The backward node that created this tensor (``None`` for leaves)."""
        if self._base is not None:
            return self._view_grad_fn()
        return self._grad_fn

    @property
    def is_leaf(self):
        """True for tensors not created by a recorded op (``grad_fn is None``)."""
        return self.grad_fn is None

    @property
    def grad_dtype(self):
        """The dtype a leaf's ``.grad`` is given: ``self.dtype`` unless set (the engine
        casts incoming gradients to it); ``None`` lets any dtype through. Leaves only.

        Example::

            >>> x = ember.ones(2, requires_grad=True)
            >>> x.grad_dtype = ember.float64
            >>> (x * 2).sum().backward(); x.grad.dtype
            torch.float64
        """
        if self.grad_fn is not None:
            raise RuntimeError("grad_dtype can only be accessed on leaf tensors.")
        d = self.__dict__
        return d['_grad_dtype'] if '_grad_dtype' in d else self.dtype

    @grad_dtype.setter
    def grad_dtype(self, dt):
        if self.grad_fn is not None:
            raise RuntimeError("grad_dtype can only be set on leaf tensors.")
        if dt is not None and not isinstance(dt, D.dtype):
            raise RuntimeError(f"grad_dtype must be a torch.dtype or None, but got "
                               f"{type(dt).__name__}")
        self.__dict__['_grad_dtype'] = dt

    @property
    def output_nr(self):
        """Which output of its ``grad_fn`` this tensor is (0 for leaves).

        Example::

            >>> ember.ones(4, requires_grad=True).unbind()[2].output_nr
            2
        """
        return self._out_nr if self.grad_fn is not None else 0

    @property
    def volatile(self):
        """Removed in PyTorch (always False, with a warning)."""
        import warnings
        warnings.warn("volatile was removed (Variable.volatile is always False)", UserWarning,
                      stacklevel=2)
        return False

    @volatile.setter
    def volatile(self, v):
        import warnings
        warnings.warn("volatile was removed (Variable.volatile is always False)", UserWarning,
                      stacklevel=2)

    @property
    def name(self):
        """A tensor's name in PyTorch's legacy graph tooling: always None."""
        return None

    # devices ember has no backend for: always False
    is_ipu = property(lambda self: False, doc="False: ember has no IPU backend.")
    is_maia = property(lambda self: False, doc="False: ember has no MAIA backend.")
    is_mps = property(lambda self: False, doc="False: ember has no MPS backend.")
    is_mtia = property(lambda self: False, doc="False: ember has no MTIA backend.")
    is_vulkan = property(lambda self: False, doc="False: ember has no Vulkan backend.")
    is_xla = property(lambda self: False, doc="False: ember has no XLA backend.")
    is_xpu = property(lambda self: False, doc="False: ember has no XPU backend.")

    @property
    def grad(self):
        """The accumulated gradient (leaves, and non-leaves after ``retain_grad()``)."""
        if self._grad is None and self._grad_fn is not None and \
                not self.__dict__.get('_retains_grad'):
            import warnings
            warnings.warn("The .grad attribute of a Tensor that is not a leaf Tensor is being "
                          "accessed. Its .grad attribute won't be populated during "
                          "autograd.backward(). If you indeed want the .grad field to be "
                          "populated for a non-leaf Tensor, use .retain_grad() on the non-leaf "
                          "Tensor. If you access the non-leaf Tensor by mistake, make sure you "
                          "access the leaf Tensor instead. See "
                          "github.com/pytorch/pytorch/pull/30531 for more information.",
                          UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, g):
        if g is not None:
            if not isinstance(g, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of "
                                f"type {type(g).__name__}")
            if g.dtype != self.dtype:
                raise RuntimeError("assigned grad has data of a different type")
            if g.shape != self.shape:
                raise RuntimeError("assigned grad has data of a different size")
        self._grad = g

    @grad.deleter
    def grad(self):
        self._grad = None

    @property
    def retains_grad(self):
        """True for a non-leaf tensor whose ``.grad`` is populated (see ``retain_grad``)."""
        return bool(self.__dict__.get('_retains_grad')) if self._grad_fn is not None else False

    def retain_grad(self):
        """Populate ``.grad`` of this non-leaf tensor during backward."""
        if not self._rg:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self._grad_fn is None:
            return
        if self.__dict__.get('_retains_grad'):
            return
        import weakref
        fn = self.grad_fn
        if fn._retain_hooks is None:
            fn._retain_hooks = {}
        fn._retain_hooks[self._out_nr] = weakref.ref(self)
        self.__dict__['_retains_grad'] = True

    def detach(self):
        """A new tensor sharing data with this one, detached from the graph."""
        t = _new_tensor(self._data)
        t._st = self._storage_obj()
        return t

    def detach_(self):
        """Detach this tensor from the graph in place."""
        if self._base is not None and self._rg:
            raise RuntimeError("Can't detach views in-place. Use detach() instead.")
        self._grad_fn = None
        self._rg = False
        return self

    @property
    def data(self):
        """The tensor's data, as a tensor outside the graph sharing memory. Unlike
        ``detach()``, in-place changes through it are not seen by autograd (it has its
        own version counter)."""
        t = _new_tensor(self._data)
        t._st = UntypedStorage(self._storage_obj()._src)
        return t

    @data.setter
    def data(self, other):
        if not isinstance(other, Tensor):
            raise TypeError(f"data must be a Tensor")
        self._data = other._data
        self._st = other._storage_obj()


    # ------------------------------------------------------------ conversion
    def numpy(self, *, force=False):
        """The data as a NumPy array sharing memory (CPU tensors)."""
        if self._rg and _Mode.grad and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use "
                               "tensor.detach().numpy() instead.")
        if type(self._data) is not np.ndarray:
            if force and type(self._data) is not MetaArray:
                return self._data.get()
            raise TypeError(f"can't convert {self.device} device type tensor to numpy. Use "
                            "Tensor.cpu() to copy the tensor to host memory first.")
        return self._data

    def __array__(self, dtype=None, copy=None):
        a = self._data if type(self._data) is np.ndarray else _host_array(self._data)
        if dtype is not None and a.dtype != dtype:
            return a.astype(dtype)
        return a

    # NumPy defers its binary operators to a tensor (``np.float64(.5) * t`` is a Tensor with
    # autograd, as in torch) and wraps ufunc results as tensors
    __array_priority__ = 1000

    def __contains__(self, element):
        """``element in tensor``: whether any element equals ``element`` (a number or a
        tensor, broadcast against this one)."""
        from numbers import Number
        if not isinstance(element, (Tensor, Number)):
            raise RuntimeError("Tensor.__contains__ only supports Tensor or scalar, but you "
                               f"passed in a {type(element)}.")
        return bool((element == self).any().item())

    def item(self):
        """The value of a one-element tensor as a Python number."""
        if self._data.size != 1:
            raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be converted to Scalar")
        if type(self._data) is MetaArray:
            raise RuntimeError("Tensor.item() cannot be called on meta tensors")
        v = self._data.reshape(-1)[0]
        return _py_scalar(v)

    def tolist(self):
        """The data as (nested) Python lists of numbers."""
        a = self._data if type(self._data) is np.ndarray else _host_array(self._data)
        if a.dtype.kind == 'V':
            a = a.astype(np.float32)
        return a.tolist()

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __bool__(self):
        if self._data.size != 1:
            raise RuntimeError("Boolean value of Tensor with "
                               f"{'no values' if not self._data.size else 'more than one value'}"
                               " is ambiguous")
        return bool(self._data.reshape(-1)[0])

    def _py_number(self, ctype):
        # int() / float() / complex(): PyTorch's errors for several elements and for a
        # complex value with an imaginary part
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        v = self.item()
        if ctype and isinstance(v, complex):
            if v.imag:
                raise RuntimeError(f"value cannot be converted to type {ctype} without "
                                   "overflow")
            v = v.real
        return v

    def __int__(self):
        return int(self._py_number('int64_t'))

    def __float__(self):
        return float(self._py_number('double'))

    def __complex__(self):
        return complex(self._py_number(None))

    def __index__(self):
        if self._data.dtype.kind not in 'iub' or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __format__(self, spec):
        if self._data.ndim == 0:
            return self.item().__format__(spec)
        return object.__format__(self, spec)

    def __hash__(self):
        return id(self)

    def __str__(self):
        return self.__repr__()

    def __deepcopy__(self, memo):
        if not self.is_leaf:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) "
                               "support the deepcopy protocol at the moment.  If you were "
                               "attempting to deepcopy a module, this may be because of a "
                               "torch.nn.utils.weight_norm usage, see "
                               "https://github.com/pytorch/pytorch/pull/103001")
        if id(self) in memo:
            return memo[id(self)]
        import copy
        new = _new_tensor(self._data.copy(), type(self))
        new._rg = self._rg
        if self._grad is not None:
            new._grad = copy.deepcopy(self._grad, memo)
        d = self.__dict__
        if d:
            for k, v in d.items():
                if k != '_retains_grad':
                    new.__dict__[k] = copy.deepcopy(v, memo)
        memo[id(self)] = new
        return new

    @staticmethod
    def _make_subclass(cls, data, require_grad=False, dispatch_sizes_strides_policy=None,
                       dispatch_device=False, dispatch_layout=False, _extra_dispatch_keys=None):
        """An instance of ``cls`` sharing ``data``'s memory, detached from its graph, with
        ``requires_grad=require_grad`` (PyTorch's ``Tensor._make_subclass``)."""
        t = _new_tensor(data._data, cls)
        t._st = data._storage_obj()
        if require_grad:
            t.requires_grad_(True)
        return t

    def _shallow_alias(self):
        """A new Tensor object for the same data and graph position (used by in-place ops
        so a node can keep the original value of ``self`` apart)."""
        t = _new_tensor(self._data)
        t._st = self._storage_obj()
        t._rg = self._rg
        t._grad_fn = self.grad_fn if self._base is not None else self._grad_fn
        t._out_nr = self._out_nr
        t._grad_acc = self._leaf_acc() if (self._rg and t._grad_fn is None
                                           and self._base is None) else None
        return t


def _bind(members):
    """Attach the members of class ``members`` to ``Tensor``.

    ``Tensor`` holds its data, metadata and views here (layer 1); the members that belong
    to an upper layer are written there, in a class of their own, and bound with this
    (as the op methods are bound by ``ember/_ops/__init__.bind``): autograd's
    (``backward``, ``requires_grad``, hooks) in ``autograd``, construction and
    ``as_subclass`` in the ops, ``__torch_function__`` in ``_ops/_dispatch``, printing in
    ``_tensor_str``, pickling in ``serialization``."""
    for name, v in vars(members).items():
        if name in ('__module__', '__qualname__', '__doc__', '__dict__', '__weakref__'):
            continue
        for f in ((v.fget, v.fset) if isinstance(v, property) else (getattr(v, '__func__', v),)):
            if f is not None and hasattr(f, '__qualname__'):
                f.__qualname__ = 'Tensor.' + f.__name__
        setattr(Tensor, name, v)


def _convert(ret, cls):
    if cls is Tensor:
        return ret
    if isinstance(ret, Tensor) and not isinstance(ret, cls):
        return ret.as_subclass(cls)
    if isinstance(ret, (tuple, list)):
        items = [_convert(r, cls) for r in ret]
        rt = ret.__class__
        if rt is tuple or rt is list or hasattr(rt, 'n_fields'):
            return rt(items)
        if hasattr(rt, '_fields'):
            return rt(*items)
    return ret


class _DisabledTorchFunctionImpl:
    """``__torch_function__`` of subclasses that opt out of dispatch (``Parameter``;
    assign it as ``__torch_function__ = ember._C._disabled_torch_function_impl``): ops on
    such a subclass run as on a plain Tensor and return plain Tensors."""
    __slots__ = ()

    def __call__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))

    def __repr__(self):
        return '<built-in function _disabled_torch_function_impl>'


_disabled_torch_function_impl = _DisabledTorchFunctionImpl()


class _LegacyTensor(Tensor):
    __slots__ = ()
    __torch_function__ = _disabled_torch_function_impl


def _contiguous_strides(shape):
    """PyTorch's contiguous strides of ``shape`` (sizes 0 count as 1)."""
    out = []
    acc = 1
    for n in reversed(shape):
        out.append(acc)
        acc *= n if n > 1 else 1
    return tuple(reversed(out))


def _host_array(a):
    """A device array's values on the host (raises for meta tensors)."""
    if type(a) is MetaArray:
        no_data()
    return a.get()


def _py_scalar(v):
    if isinstance(v, np.generic):
        k = v.dtype.kind
        if k == 'V':
            return float(v)
        return v.item()
    return v.item() if hasattr(v, 'item') else v


def _is_c_contig(a):
    if a.flags.c_contiguous:
        return True
    # numpy and torch disagree on size-1 dims only; torch ignores them too
    return False


def _wrap_dim(dim, ndim):
    if dim.__class__ is not int:   # #ARGCHK
        dim = _dim_arg(dim)
    n = ndim if ndim > 0 else 1
    if dim < -n or dim >= n:
        if dim >= 1 << 63 or dim < -(1 << 63):   # #ARGCHK
            raise ValueError("Overflow when unpacking long long")
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         f"but got {dim})")
    return dim + n if dim < 0 else dim


def _dim_arg(dim):   # #ARGCHK
    """A dim given as a NumPy integer or an integer 0-dim tensor, as an int; PyTorch's
    TypeError for bools, floats and the rest."""
    if isinstance(dim, (int, np.integer)) and not isinstance(dim, (bool, np.bool_)):
        return int(dim)
    if isinstance(dim, Tensor) and dim._data.ndim == 0 and dim._data.dtype.kind in 'iu':
        return int(dim._data)
    tn = type(dim).__name__
    if type(dim).__module__ == 'numpy':   # #ARGCHK
        tn = 'numpy.' + tn
    raise TypeError(f"argument 'dim' must be int, not {tn}")








def _views_need_grad(base):
    """``base`` (a root tensor) starts requiring grad: so do the views made of it while
    it did not (their grad_fn is made from the base's when they are next used)."""
    st = base._st
    if st is None or st._views is None:
        return
    for v in st._views_of(base):
        v._rg = True












def _legacy_name(d):
    return {'bool': 'Bool', 'uint8': 'Byte', 'int8': 'Char', 'int16': 'Short', 'int32': 'Int',
            'int64': 'Long', 'float16': 'Half', 'bfloat16': 'BFloat16', 'float32': 'Float',
            'float64': 'Double', 'complex64': 'ComplexFloat',
            'complex128': 'ComplexDouble'}.get(d._name, d._name)
















# in-place ops PyTorch runs on tensors whose elements share memory (expanded ones)
# in-place ops that read a 0-dim tensor argument as a number (it may overlap self)






class _NoGrad:
    __slots__ = ('prev',)

    def __enter__(self):
        self.prev = _Mode.grad
        _Mode.grad = False

    def __exit__(self, *a):
        _Mode.grad = self.prev
