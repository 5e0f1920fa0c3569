"""View ops: results share storage with their input (view, reshape when possible,
transpose, permute, expand, narrow, select, squeeze/unsqueeze, as_strided, diagonal,
unfold, split/chunk/unbind, basic slicing), and the machinery that keeps autograd
right when a view is written in place (CopySlices, regenerated AsStrided grad_fns)."""
from . import _args
import numpy as np

from .._tensor import Tensor, Size, _wrap_dim, _Mode
from ._inplace import (_autograd_check, _internal_overlap, _writeable, _positions_of,
                       _flat_scatter_add, AsStridedBackward0)
from ._util import wrap, Node, register, grad_needed, record, FUNCTIONS
from .._backend import array_module
from .._dtype import dtype as _dt, _PY2DT
from .._storage import _ptr, view_of as _checked_view, check_numel as _check_numel


def make_view(src, arr, node=None, save=None, off=None):
    """Wrap ``arr`` (a view of ``src``'s data) as a view tensor of ``src``.

    Like PyTorch, a view requires grad when its base does; a view made in no-grad mode
    (or an output of a multi-view op, see ``_multi_view``) may not be modified in place
    while autograd records (``_vmeta``). ``off`` is the view's start in bytes from
    ``src``'s first element, given by ops whose result may be empty (NumPy does not move
    the data pointer of an empty slice; PyTorch's ``storage_offset()`` does)."""
    st = src._st
    if st is None:
        st = src._storage_obj()
    if not _writeable(arr) and _writeable(st._src) and arr.dtype == st._src.dtype \
            and not _internal_overlap(arr):
        # a view of an expanded tensor that repeats nothing: writable again
        arr = _strided_from(st._flat(), _ptr(arr) - st.data_ptr(), arr.shape, arr.strides)
    t = wrap(arr)
    t._st = st
    if not arr.size and arr.ndim:
        if off is None:
            off = _ptr(arr) - _ptr(src._data)
        t._eoff = (src.storage_offset() * src._data.itemsize + off) // arr.itemsize
    sb = src._base
    t._base = src if sb is None else sb
    t._vver = st._version
    g = _Mode.grad
    t._vmeta = (src._vmeta if sb is not None else 0) if g else 2
    if src._rg:
        if arr.dtype.kind in 'fcV':
            t._rg = True
            if node is not None and g:
                record(t, node, (src,), save)
    elif arr.dtype.kind in 'fcV':
        st._track_view(t)   # it requires grad as soon as its base does
    return t


def _shape_str(s):
    return '[' + ', '.join(str(x) for x in s) + ']'


# ------------------------------------------------------------------ view / reshape
def _infer_shape(shape, numel):
    shape = list(shape)
    neg = [i for i, s in enumerate(shape) if s == -1]
    if len(neg) > 1:
        raise RuntimeError("only one dimension can be inferred")
    for s in shape:
        if not isinstance(s, (int, np.integer)) and not (isinstance(s, Tensor)):
            raise TypeError(f"view(): argument 'size' must be tuple of ints, but found element of type {type(s).__name__}")
        if s < -1:
            raise RuntimeError(f"invalid shape dimension {s}")
    if neg:
        known = 1
        for i, s in enumerate(shape):
            if i != neg[0]:
                known *= s
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{_shape_str(shape)}' is invalid for input of size {numel}")
        shape[neg[0]] = numel // known
    else:
        n = 1
        for s in shape:
            n *= s
        if n != numel:
            raise RuntimeError(f"shape '{_shape_str(shape)}' is invalid for input of size {numel}")
    return tuple(int(s) for s in shape)


_I64 = 1 << 63


def _size_args(args, name='view', arg='size'):
    """The int sequence of a ``*size`` argument (``f(2, 3)`` or ``f((2, 3))``), with
    PyTorch's TypeErrors for anything that is not an int (bools refused; 0-dim integer
    tensors and NumPy integers accepted)."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = tuple(args[0])
    elif not args:
        raise TypeError(f"{name}() received an invalid combination of arguments - got (), but "
                        "expected a sequence of ints")
    for v in args:
        if v.__class__ is not int or v >= _I64 or v < -_I64:
            return _checked_sizes(args, name, arg)
    return args


def _checked_sizes(args, name, arg):
    out = []
    for i, v in enumerate(args):
        if v.__class__ is int:
            if v >= _I64 or v < -_I64:
                raise TypeError(f"{name}(): argument '{arg}' failed to unpack the object at pos "
                                f"{i + 1} with error \"Overflow when unpacking long long\"")
            out.append(v)
        elif isinstance(v, Tensor) and v._data.ndim == 0 and v._data.dtype.kind in 'iu':
            out.append(int(v))
        elif not isinstance(v, (bool, Tensor)) and v.__class__ is not bool and \
                hasattr(v, '__index__') and not isinstance(v, float):
            out.append(v.__index__())
        elif len(args) == 1:
            raise TypeError(f"{name}(): argument '{arg}' (position 1) must be tuple of ints, "
                            f"not {_args.type_name(v)}")
        else:
            raise TypeError(f"{name}(): argument '{arg}' failed to unpack the object at pos "
                            f"{i + 1} with error \"type must be tuple of ints,but got "
                            f"{_args.type_name(v)}\"")
    return tuple(out)


def _view_strides(shape, strides, newshape):
    """Strides (in bytes) for viewing an array of ``shape``/``strides`` as ``newshape``
    without a copy, or None when impossible (PyTorch's computeStride)."""
    if not shape:
        return tuple(0 for _ in newshape) if newshape else ()
    numel = 1
    for s in shape:
        numel *= s
    if numel == 0:
        return None if newshape != shape else strides
    newstrides = [0] * len(newshape)
    view_d = len(newshape) - 1
    chunk_base_stride = strides[-1]
    tensor_numel = 1
    view_numel = 1
    for tensor_d in range(len(shape) - 1, -1, -1):
        tensor_numel *= shape[tensor_d]
        if tensor_d == 0 or (shape[tensor_d - 1] != 1 and
                             strides[tensor_d - 1] != tensor_numel * chunk_base_stride):
            while view_d >= 0 and (view_numel < tensor_numel or newshape[view_d] == 1):
                newstrides[view_d] = view_numel * chunk_base_stride
                view_numel *= newshape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base_stride = strides[tensor_d - 1]
                tensor_numel = 1
                view_numel = 1
    if view_d != -1:
        return None
    return tuple(newstrides)


class ViewBackward0(Node):
    def backward(self, g):
        return g.reshape(self.shape)


class UnsafeViewBackward0(ViewBackward0):
    pass


class ReshapeAliasBackward0(ViewBackward0):
    """``reshape`` of a non-contiguous tensor that can still be a view."""


def _view_arr(a, shape):
    if a.flags.c_contiguous:
        return a.reshape(shape)
    st = _view_strides(a.shape, a.strides, shape)
    if st is None:
        return None
    xp = array_module(a)
    return xp.lib.stride_tricks.as_strided(a, shape, st)


def view(self, *shape, **kw):
    """A view of the tensor with another shape (no copy); ``view(dtype)`` reinterprets
    the bytes as another dtype.

    Raises RuntimeError where the strides do not allow a view (use ``reshape``).

    Example::

        >>> ember.arange(6).view(2, 3)
        tensor([[0, 1, 2],
                [3, 4, 5]])
    """
    if kw:   # view(size=...) / view(dtype=...), keywords only
        key = next(iter(kw))
        v = kw[key]
        if shape or len(kw) > 1 or key not in ('size', 'dtype') or (key == 'dtype' and not (
                isinstance(v, _dt) or (v.__class__ is type and v in _PY2DT))):
            _args.invalid('view', *shape, **kw)
        shape = (v,)
    if len(shape) == 1 and isinstance(shape[0], _dt):
        return _view_dtype(self, shape[0])
    if len(shape) == 1 and shape[0].__class__ is type and shape[0] in _PY2DT:
        return _view_dtype(self, _PY2DT[shape[0]])
    shape = _infer_shape(_size_args(shape), self._data.size)
    a = _view_arr(self._data, shape)
    if a is None:
        raise RuntimeError("view size is not compatible with input tensor's size and stride (at "
                           "least one dimension spans across two contiguous subspaces). Use "
                           ".reshape(...) instead.")
    node = None
    if self._rg and _Mode.grad:
        node = ViewBackward0()
        node.shape = self._data.shape
    return make_view(self, a, node)


METHOD_VIEW = view


def _view_dtype(self, dt):
    a = self._data
    if dt.itemsize != a.itemsize:
        if a.ndim == 0 or a.strides[-1] != a.itemsize:
            raise RuntimeError("self.stride(-1) must be 1 to view dtype with a different size")
    return make_view(self, a.view(dt._np))   # like PyTorch: not differentiable


def _kw_form(fname, key, args, kw):
    """The varargs of a method called in its keyword form (``x.reshape(shape=(2, 3))``,
    ``x.expand(size=...)``, ``x.permute(dims=...)``), with PyTorch's TypeErrors."""
    if key not in kw:
        raise TypeError(f'{fname}() missing 1 required positional arguments: "{key}"')
    if args:
        raise TypeError(f"{fname}() got multiple values for argument '{key}'")
    if len(kw) > 1:
        bad = next(k for k in kw if k != key)
        raise TypeError(f"{fname}() got an unexpected keyword argument '{bad}'")
    v = kw[key]
    if not isinstance(v, (tuple, list, Size)):
        raise TypeError(f"{fname}(): argument '{key}' must be tuple of ints, not "
                        f"{_args.type_name(v)}")
    return (v,)


def reshape(input, *shape, **kw):
    """Same data in another shape: a view when strides allow, else a copy.

    Example::

        >>> ember.arange(6).reshape(3, -1).shape
        torch.Size([3, 2])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'reshape')
    if kw:
        shape = _kw_form('reshape', 'shape', shape, kw)
    shape = _infer_shape(_size_args(shape, 'reshape', 'shape'), input._data.size)
    a = _view_arr(input._data, shape)
    if a is not None:
        node = None
        if input._rg and _Mode.grad:
            node = ViewBackward0() if input._data.flags.c_contiguous else ReshapeAliasBackward0()
            node.shape = input._data.shape
        return make_view(input, a, node)
    out = wrap(np.ascontiguousarray(input._data).reshape(shape) if type(input._data) is np.ndarray
               else input._data.reshape(shape))
    if grad_needed(input):
        node = UnsafeViewBackward0()  # PyTorch: clone then _unsafe_view
        node.shape = input._data.shape
        record(out, node, (input,))
    return out


def view_as(self, other):
    """View this tensor with the shape of ``other`` (``self.view(other.size())``).

    Example::

        >>> ember.arange(6).view_as(ember.zeros(3, 2))
        tensor([[0, 1],
                [2, 3],
                [4, 5]])
    """
    return view(self, other.shape)


def reshape_as(self, other):
    """Reshape this tensor to the shape of ``other`` (``self.reshape(other.size())``).

    Example::

        >>> ember.arange(6).reshape_as(ember.zeros(2, 3))
        tensor([[0, 1, 2],
                [3, 4, 5]])
    """
    return reshape(self, other.shape)


def flatten(input, start_dim=0, end_dim=-1):
    """Merge dims ``start_dim`` to ``end_dim`` into one; a view when the strides allow it,
    otherwise a copy.

    Args:
        input (Tensor): the tensor.
        start_dim (int): first dim to merge. Default: 0.
        end_dim (int): last dim to merge. Default: -1.

    Example::

        >>> ember.zeros(2, 3, 4).flatten(1).shape
        torch.Size([2, 12])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'flatten')
    if start_dim.__class__ is not int:
        start_dim = _args.as_int(start_dim, 'flatten', 'start_dim', 1)
    if end_dim.__class__ is not int:
        end_dim = _args.as_int(end_dim, 'flatten', 'end_dim', 2)
    nd = input._data.ndim
    if nd == 0:
        _wrap_dim(start_dim, 0)
        _wrap_dim(end_dim, 0)
        return reshape(input, 1)
    s = _wrap_dim(start_dim, nd)
    e = _wrap_dim(end_dim, nd)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return input
    sh = input._data.shape
    n = 1
    for x in sh[s:e + 1]:
        n *= x
    return reshape(input, sh[:s] + (n,) + sh[e + 1:])


def unflatten(input, dim, sizes):
    """Split dim ``dim`` into several dims of the given ``sizes`` (one may be -1).

    Example::

        >>> ember.zeros(2, 12).unflatten(1, (3, -1)).shape
        torch.Size([2, 3, 4])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'unflatten')
    if dim.__class__ is not int:
        dim = _args.as_int(dim, 'unflatten', 'dim', 1)
    nd = input._data.ndim
    d = _wrap_dim(dim, nd)
    sh = input._data.shape
    sizes = tuple(sizes)
    if len(sizes) == 0:
        raise RuntimeError("unflatten: sizes must be non-empty")
    sizes = _infer_shape(sizes, sh[d]) if -1 in sizes else sizes
    n = 1
    for x in sizes:
        n *= x
    if n != sh[d]:
        raise RuntimeError(f"unflatten: Provided sizes {_shape_str(sizes)} don't multiply up to "
                           f"the size of dim {dim} ({sh[d]}) in the input tensor")
    return view(input, sh[:d] + sizes + sh[d + 1:])


# ------------------------------------------------------------------ permutations
class PermuteBackward0(Node):
    def backward(self, g):
        return permute(g, self.inv)


class TransposeBackward0(Node):
    def backward(self, g):
        return transpose(g, self.d0, self.d1)


class TBackward0(Node):
    def backward(self, g):
        return t(g)


def permute(input, *dims, **kw):
    """Dimensions reordered (a view).

    Example::

        >>> ember.zeros(1, 2, 3).permute(2, 0, 1).shape
        torch.Size([3, 1, 2])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'permute')
    if kw:
        dims = _kw_form('permute', 'dims', dims, kw)
    dims = _size_args(dims, 'permute', 'dims')
    nd = input._data.ndim
    if len(dims) != nd:
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does "
                           f"not match the length of the desired ordering of dimensions i.e. "
                           f"input.dim() = {nd} is not equal to len(dims) = {len(dims)}")
    dims = tuple(_wrap_dim(d, nd) for d in dims)
    if len(set(dims)) != nd:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    node = None
    if input._rg and _Mode.grad:
        node = PermuteBackward0()
        node.inv = tuple(np.argsort(dims).tolist())
    return make_view(input, input._data.transpose(dims), node)


def transpose(input, dim0, dim1):
    """Swap dims ``dim0`` and ``dim1``; returns a view sharing memory with ``input``.

    Example::

        >>> ember.zeros(2, 3, 4).transpose(0, 2).shape
        torch.Size([4, 3, 2])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'transpose')
    if dim0.__class__ is not int:
        dim0 = _args.as_int(dim0, 'transpose', 'dim0', 1)
    if dim1.__class__ is not int:
        dim1 = _args.as_int(dim1, 'transpose', 'dim1', 2)
    nd = input._data.ndim
    d0 = _wrap_dim(dim0, nd)
    d1 = _wrap_dim(dim1, nd)
    node = None
    if input._rg and _Mode.grad:
        node = TransposeBackward0()
        node.d0, node.d1 = d0, d1
    a = input._data
    if nd < 2:
        return make_view(input, a[...], node)
    return make_view(input, a.swapaxes(d0, d1), node)


def t(input):
    """Transpose a tensor of at most 2 dims (0-D and 1-D tensors come back as views of
    themselves).

    Example::

        >>> ember.arange(6).view(2, 3).t()
        tensor([[0, 3],
                [1, 4],
                [2, 5]])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 't')
    nd = input._data.ndim
    if nd > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {nd}D")
    node = TBackward0() if input._rg and _Mode.grad else None
    return make_view(input, input._data.T if nd == 2 else input._data[...], node)


def movedim(input, source, destination):
    """Move the dims at ``source`` to the positions ``destination``; the other dims keep
    their order. Returns a view.

    Args:
        source (int or tuple of ints): dims to move.
        destination (int or tuple of ints): where they go.

    Example::

        >>> ember.zeros(2, 3, 4).movedim(0, -1).shape
        torch.Size([3, 4, 2])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'movedim')
    nd = input._data.ndim
    src, dst = _movedim_dims(source), _movedim_dims(destination)
    if src is None or dst is None:
        got = ', '.join(['Tensor'] + [_args.type_name(v) for v in (source, destination)])
        raise TypeError(f"movedim() received an invalid combination of arguments - got ({got}), "
                        "but expected one of:\n * (Tensor input, tuple of ints source, tuple of "
                        "ints destination)\n * (Tensor input, int source, int destination)")
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({list(src)} dims) "
                           f"should contain the same number of dims as destination ({list(dst)} dims)")
    src_w = [_wrap_dim(s, nd) for s in src]
    dst_w = [_wrap_dim(d, nd) for d in dst]
    for name, given, w in (('source', src, src_w), ('destination', dst, dst_w)):
        if len(set(w)) != len(w):
            raise RuntimeError(f"movedim: repeated dim in `{name}` ({list(given)})")
    src, dst = src_w, dst_w
    order = [i for i in range(nd) if i not in src]
    perm = [None] * nd
    for s, d in zip(src, dst):
        perm[d] = s
    it = iter(order)
    perm = [p if p is not None else next(it) for p in perm]
    return permute(input, perm)


def _movedim_dims(v):
    """``movedim``'s source/destination as a tuple of ints (an int, an integer 0-dim tensor
    or a sequence of ints), or None when PyTorch's parser would refuse it."""
    r = _args._int_or_none(v)
    if r is not None:
        return (r,)
    if isinstance(v, (tuple, list)):
        out = tuple(_args._int_or_none(x) for x in v)
        return None if None in out else out
    return None


def swapaxes(input, axis0, axis1):
    """Alias of :func:`transpose`."""
    if not isinstance(input, Tensor):
        _args.tensor(input, 'swapaxes')
    return transpose(input, axis0, axis1)


def _T(self):
    """Dims in reverse order (a view); ``x.T`` of a matrix is its transpose.

    Example::

        >>> ember.arange(6).view(2, 3).T
        tensor([[0, 3],
                [1, 4],
                [2, 5]])
    """
    nd = self._data.ndim
    return permute(self, tuple(range(nd - 1, -1, -1)))


def _mT(self):
    """The last two dims swapped (a view), for matrices and batches of matrices.

    Example::

        >>> ember.zeros(5, 2, 3).mT.shape
        torch.Size([5, 3, 2])
    """
    if self._data.ndim < 2:
        raise RuntimeError("tensor.mT is only supported on matrices or batches of matrices. Got 1-D tensor.")
    return transpose(self, -2, -1)


def _H(self):
    """Conjugate transpose (dims reversed, complex values conjugated).

    Example::

        >>> ember.tensor([[1+2j, 3-1j]]).H
        tensor([[1.-2.j],
                [3.+1.j]])
    """
    return _T(self).conj() if self.is_complex() else _T(self)


def _mH(self):
    """Conjugate transpose of the last two dims, for (batches of) matrices.

    Example::

        >>> ember.zeros(5, 2, 3, dtype=ember.complex64).mH.shape
        torch.Size([5, 3, 2])
    """
    return _mT(self).conj() if self.is_complex() else _mT(self)


# ------------------------------------------------------------------ expand
class ExpandBackward0(Node):
    def backward(self, g):
        return g   # the engine sums it back to the input shape


def expand(self, *sizes, **kw):
    """A view with singleton dims repeated to ``sizes`` (stride 0); -1 keeps a size.

    Example::

        >>> ember.tensor([[1], [2]]).expand(2, 3)
        tensor([[1, 1, 1],
                [2, 2, 2]])
    """
    if kw:
        sizes = _kw_form('expand', 'size', sizes, kw)
    sizes = _size_args(sizes, 'expand')
    a = self._data
    nd = a.ndim
    if len(sizes) < nd:
        raise RuntimeError(f"expand(torch.{_legacy(self)}{{{_shape_str(a.shape)}}}, size={_shape_str(sizes)}): "
                           f"the number of sizes provided ({len(sizes)}) must be greater or equal "
                           f"to the number of dimensions in the tensor ({nd})")
    lead = len(sizes) - nd
    shape = []
    for i, s in enumerate(sizes):
        if i < lead:
            if s == -1:
                raise RuntimeError(f"The expanded size of the tensor (-1) isn't allowed in a "
                                   f"leading, non-existing dimension {i}")
            shape.append(s)
        else:
            cur = a.shape[i - lead]
            if s == -1:
                s = cur
            elif cur != s and cur != 1:
                raise RuntimeError(f"The expanded size of the tensor ({s}) must match the existing "
                                   f"size ({cur}) at non-singleton dimension {i}.  Target sizes: "
                                   f"{_shape_str(sizes)}.  Tensor sizes: {_shape_str(a.shape)}")
            shape.append(s)
    xp = array_module(a)
    node = ExpandBackward0() if self._rg and _Mode.grad else None
    shape = tuple(shape)
    numel = 1
    for s in shape:
        numel *= s
    if numel <= 0 or numel >= _I64:
        _check_numel(shape)   # a negative size or more than 2**63 - 1 elements
    try:
        arr = xp.broadcast_to(a, shape)
    except ValueError as e:   # NumPy's limits (> 2**63 bytes in all, more than 64 dims)
        raise RuntimeError(f"expand: {e}") from None
    # PyTorch keeps the stride of a size-1 dim that stays size 1 (NumPy zeroes it)
    strides = tuple(0 if i < lead or a.shape[i - lead] != n else a.strides[i - lead]
                    for i, n in enumerate(shape))
    if arr.strides != strides:
        flags = getattr(arr, 'flags', None)
        ro = flags is not None and not getattr(flags, 'writeable', True)
        arr = xp.lib.stride_tricks.as_strided(a, shape, strides)
        if ro:
            arr.flags.writeable = False
    if _writeable(a) and not _internal_overlap(arr):
        # nothing repeated: a writable view (writes to a stride-0 view stay refused)
        arr = xp.lib.stride_tricks.as_strided(a, shape, arr.strides)
    return make_view(self, arr, node)


def _legacy(t):
    from .._tensor import _legacy_name
    return _legacy_name(t.dtype) + 'Tensor'


def expand_as(self, other):
    """Expand this tensor to the shape of ``other`` (``self.expand(other.size())``).

    Example::

        >>> ember.tensor([1, 2]).expand_as(ember.zeros(2, 2))
        tensor([[1, 2],
                [1, 2]])
    """
    return expand(self, other.shape)


def broadcast_to(input, size):
    """Alias of ``input.expand(size)``."""
    if not isinstance(input, Tensor):
        _args.tensor(input, 'broadcast_to')
    return expand(input, tuple(size))


# ------------------------------------------------------------------ squeeze / unsqueeze
class SqueezeBackward0(Node):
    def backward(self, g):
        return g.reshape(self.shape)


SqueezeBackward1 = type('SqueezeBackward1', (SqueezeBackward0,), {})
SqueezeBackward2 = type('SqueezeBackward2', (SqueezeBackward0,), {})


class UnsqueezeBackward0(Node):
    def backward(self, g):
        return g.squeeze(self.dim)


def squeeze(input, dim=None):
    """Remove dims of size 1: all of them, or only those named by ``dim`` (an int or tuple);
    named dims whose size is not 1 are left alone. Returns a view.

    Example::

        >>> x = ember.zeros(2, 1, 3, 1)
        >>> x.squeeze().shape
        torch.Size([2, 3])
        >>> x.squeeze(1).shape
        torch.Size([2, 3, 1])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'squeeze')
    a = input._data
    nd = a.ndim
    if dim is None:
        dims = tuple(i for i, s in enumerate(a.shape) if s == 1)
        cls = SqueezeBackward0
    else:
        ds = (dim,) if isinstance(dim, int) else tuple(dim)
        ds = [_wrap_dim(d, nd) for d in ds]
        dims = tuple(d for d in ds if nd and a.shape[d] == 1)
        cls = SqueezeBackward1 if isinstance(dim, int) else SqueezeBackward2
    node = None
    if input._rg and _Mode.grad:
        node = cls()
        node.shape = a.shape
        node.given = dim        # grad_fn._saved_dim, as written
    return make_view(input, a.squeeze(dims) if dims else a[...], node)


def unsqueeze(input, dim):
    """Insert a dim of size 1 at position ``dim`` (negative counts from the end of the
    result). Returns a view.

    Example::

        >>> ember.tensor([1, 2, 3]).unsqueeze(1)
        tensor([[1],
                [2],
                [3]])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'unsqueeze')
    if dim.__class__ is not int:
        dim = _args.as_int(dim, 'unsqueeze', 'dim', 1)
    a = input._data
    d = _wrap_dim(dim, a.ndim + 1)
    node = None
    if input._rg and _Mode.grad:
        node = UnsqueezeBackward0()
        node.dim = d
    xp = array_module(a)
    r = xp.expand_dims(a, d)
    if not a.size and r.__class__ is np.ndarray:   # PyTorch: size * stride of the next dim
        st = list(input.stride())
        st.insert(d, a.shape[d] * st[d] if d < a.ndim else 1)
        from .._layout import with_strides
        r = with_strides(r, st)
    elif (d == a.ndim or 1 in a.shape) and isinstance(r, np.ndarray):
        # NumPy's reshape may re-stride the size-1 dims; PyTorch keeps every input stride
        st = a.strides
        want = st[:d] + ((a.shape[d] * st[d]) if d < a.ndim else a.itemsize,) + st[d:]
        if r.strides != want:
            r = xp.lib.stride_tricks.as_strided(r, r.shape, want)
    return make_view(input, r, node)


def _set_meta_inplace(self, view_fn, *args):
    """Give ``self`` the geometry of ``view_fn(self, *args)`` (a view of itself), as
    PyTorch's in-place view ops do: the version counter is bumped and, when autograd
    records, ``self`` gets the view's node (named ``...Backward1`` etc. like PyTorch's
    in-place variants); a base is not rebased (its data did not change)."""
    rec = _autograd_check(self, ())
    new = view_fn(self, *args)
    self._data = new._data
    e = new._eoff
    if e is not None:
        self._eoff = e
    elif '_eoff' in self.__dict__:
        del self.__dict__['_eoff']
    st = self._storage_obj()
    st._version += 1
    if rec:
        node = new._grad_fn
        node.__class__ = _INPLACE_VIEW_NODE[node.__class__]
        self._grad_fn = node
        self._out_nr = 0
    if self._base is not None:
        self._vver = st._version
    return self


def squeeze_(self, dim=None):
    """In-place version of :func:`squeeze` (changes this tensor's shape)."""
    return _set_meta_inplace(self, squeeze, dim)


def unsqueeze_(self, dim):
    """In-place version of :func:`unsqueeze`."""
    return _set_meta_inplace(self, unsqueeze, dim)


def transpose_(self, dim0, dim1):
    """In-place version of :func:`transpose`."""
    return _set_meta_inplace(self, transpose, dim0, dim1)


def t_(self):
    """In-place version of :func:`t`."""
    return _set_meta_inplace(self, t)


def as_strided_(self, size, stride, storage_offset=None):
    """In-place version of :func:`as_strided`."""
    return _set_meta_inplace(self, as_strided, size, stride, storage_offset)


# ------------------------------------------------------------------ slicing family
class SliceBackward0(Node):
    def backward(self, g):
        z = g.new_zeros(self.shape)
        idx = [slice(None)] * len(self.shape)
        idx[self.dim] = slice(self.start, self.end, self.step)
        return _scatter_slice(z, g, tuple(idx))


class SelectBackward0(Node):
    def backward(self, g):
        z = g.new_zeros(self.shape)
        idx = [slice(None)] * len(self.shape)
        idx[self.dim] = self.index
        return _scatter_slice(z, g, tuple(idx))


class _SliceScatterBackward(Node):
    """Backward of the differentiable slice-scatter used by slicing's backward."""

    def backward(self, g):
        gz = None
        gs = g[self.idx] if self.needs[1] else None
        if self.needs[0]:
            gz = g.clone()
            gz._data[self.idx] = 0
        return gz, gs


def _scatter_slice(z, src, idx):
    """``z`` with ``z[idx] = src`` (out of place, differentiable in both)."""
    out = wrap(z._data.copy())
    out._data[idx] = src._data
    if grad_needed(z, src):
        node = _SliceScatterBackward()
        node.idx = idx
        record(out, node, (z, src))
        node.__class__.__name__  # noqa
    return out


def narrow(input, dim, start, length):
    """A view of ``length`` entries of ``dim`` from ``start``.

    Example::

        >>> ember.arange(5).narrow(0, 1, 2)
        tensor([1, 2])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'narrow')
    if dim.__class__ is not int:
        dim = _args.as_int(dim, 'narrow', 'dim', 1)
    a = input._data
    if a.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    d = _wrap_dim(dim, a.ndim)
    if start.__class__ is not int or length.__class__ is not int:
        if isinstance(start, Tensor) and (start._data.ndim or start._data.dtype.kind not in 'iu'):
            raise RuntimeError("start must be an 0-dim integral Tensor.")
        if isinstance(start, Tensor):
            start = int(start)
        else:
            start = _args.as_int(start, 'narrow', 'start', 2)
        length = _args.as_int(length, 'narrow', 'length', 3)
    else:
        _args.overflow(start), _args.overflow(length)
    n = a.shape[d]
    if start < -n or start > n:
        raise IndexError(f"start out of range (expected to be in range of [{-n}, {n}], but got {start})")
    if start < 0:
        start += n
    if start + length > n or length < 0:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({n}).")
    return _slice(input, d, start, start + length, 1)


def _slice(input, d, start, end, step):
    a = input._data
    idx = (slice(None),) * d + (slice(start, end, step),)
    node = None
    if input._rg and _Mode.grad:
        node = SliceBackward0()
        node.shape, node.dim, node.start, node.end, node.step = a.shape, d, start, end, step
    return make_view(input, a[idx], node, off=start * a.strides[d])


def select(input, dim, index):
    """Take index ``index`` of dim ``dim``, removing that dim (``x.select(1, 0)`` is
    ``x[:, 0]``). Returns a view.

    Example::

        >>> ember.arange(6).view(2, 3).select(1, 0)
        tensor([0, 3])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'select')
    if dim.__class__ is not int:
        dim = _args.as_int(dim, 'select', 'dim', 1)
    if index.__class__ is not int:
        index = _args.as_int(index, 'select', 'index', 2)
    a = input._data
    if a.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = _wrap_dim(dim, a.ndim)
    n = a.shape[d]
    if isinstance(index, Tensor):
        index = int(index)
    if index < -n or index >= n:
        _args.overflow(index)
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{_shape_str(a.shape)} at dimension {d}")
    if index < 0:
        index += n
    node = None
    if input._rg and _Mode.grad:
        node = SelectBackward0()
        node.shape, node.dim, node.index = a.shape, d, index
    return make_view(input, a[(slice(None),) * d + (index, Ellipsis)], node)


class UnbindBackward0(Node):
    def backward(self, *grads):
        return FUNCTIONS['stack'](grads, self.dim)   # shape's op (shape imports view)


class SplitBackward0(Node):
    def backward(self, *grads):
        return FUNCTIONS['cat'](grads, self.dim)   # shape's op (shape imports view)


SplitWithSizesBackward0 = type('SplitWithSizesBackward0', (SplitBackward0,), {})


def _multi_view(input, pieces, cls, d, **saved):
    """Record one multi-output node (PyTorch's SplitBackward0 / UnbindBackward0) for the
    views ``pieces`` of ``input``; ``saved``: more attributes of the node (what
    ``grad_fn._saved_*`` shows)."""
    if _Mode.grad:
        for p in pieces:
            p._vmeta = 1
        if input._rg:
            node = cls()
            node.dim = d
            if saved:
                node.__dict__.update(saved)
            record(pieces, node, (input,))
    return pieces


def unbind(input, dim=0):
    """Remove dim ``dim``, returning a tuple of all slices along it (views).

    Example::

        >>> ember.arange(6).view(2, 3).unbind(1)
        (tensor([0, 3]), tensor([1, 4]), tensor([2, 5]))
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'unbind')
    if dim.__class__ is not int:
        dim = _args.as_int(dim, 'unbind', 'dim', 1)
    a = input._data
    if a.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    d = _wrap_dim(dim, a.ndim)
    pieces = tuple(make_view(input, a[(slice(None),) * d + (i, Ellipsis)])
                   for i in range(a.shape[d]))
    return _multi_view(input, pieces, UnbindBackward0, d)


def _split_views(input, d, bounds):
    a = input._data
    pre = (slice(None),) * d
    return tuple(make_view(input, a[pre + (slice(b, e),)], off=b * a.strides[d])
                 for b, e in bounds)


def split(tensor, split_size_or_sections, dim=0):
    """Split into chunks of ``split_size`` (the last may be smaller) or of the given sizes.

    Example::

        >>> [p.shape[0] for p in ember.arange(5).split(2)]
        [2, 2, 1]
    """
    if not isinstance(tensor, Tensor):
        _args.py_tensor(tensor, 'split')
    if dim.__class__ is not int:
        dim = _args.as_int(dim, 'split', 'dim', 2)
    a = tensor._data
    if a.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    s = split_size_or_sections
    if s.__class__ is not int:
        if isinstance(s, (tuple, list)):
            _args.as_int_list(s, 'split_with_sizes', 'split_sizes', 2)
        else:
            _args.as_int(s, 'split', 'split_size', 2)
    d = _wrap_dim(dim, a.ndim)
    n = a.shape[d]
    if isinstance(split_size_or_sections, int):
        s = split_size_or_sections
        if s <= 0 and not (s == 0 and n == 0):
            raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {n}")
        if n == 0:
            return _multi_view(tensor, _split_views(tensor, d, [(0, 0)]), SplitBackward0, d,
                               split_size=s, given_dim=dim)
        return _multi_view(tensor, _split_views(tensor, d, [(i, min(i + s, n)) for i in range(0, n, s)]),
                           SplitBackward0, d, split_size=s, given_dim=dim)
    sizes = [int(x) for x in split_size_or_sections]
    if sum(sizes) != n or any(x < 0 for x in sizes):
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} (input "
                           f"tensor's size at dimension {d}), but got split_sizes={sizes}")
    bounds = []
    i = 0
    for s in sizes:
        bounds.append((i, i + s))
        i += s
    return _multi_view(tensor, _split_views(tensor, d, bounds), SplitWithSizesBackward0, d,
                       split_sizes=tuple(sizes), given_dim=dim)


def split_with_sizes(self, split_sizes, dim=0):
    """Split along ``dim`` into pieces of the given sizes, which must add up to the dim's
    size. Returns a tuple of views.

    Example::

        >>> ember.arange(6).split_with_sizes([1, 2, 3])
        (tensor([0]), tensor([1, 2]), tensor([3, 4, 5]))
    """
    if dim.__class__ is not int:
        dim = _args.as_int(dim, 'split_with_sizes', 'dim', 2)
    return split(self, list(split_sizes), dim)


def chunk(input, chunks, dim=0):
    """Split along ``dim`` into at most ``chunks`` views of equal size (the last may be
    smaller, and fewer chunks may come back when the size does not divide well).

    Example::

        >>> ember.arange(5).chunk(2)
        (tensor([0, 1, 2]), tensor([3, 4]))
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'chunk')
    if chunks.__class__ is not int:
        chunks = _args.as_int(chunks, 'chunk', 'chunks', 1)
    if dim.__class__ is not int:
        dim = _args.as_int(dim, 'chunk', 'dim', 2)
    if input._data.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError("chunk expects `chunks` to be greater than 0, got: " + str(chunks))
    _args.overflow(chunks)
    d = _wrap_dim(dim, input._data.ndim)
    n = input._data.shape[d]
    if n == 0:
        return split(input, [0] * chunks, d)
    return split(input, -(-n // chunks), d)


def tensor_split(input, indices_or_sections, dim=0):
    """Split along ``dim`` into ``n`` views of near-equal size (the first ones one longer)
    when given an int, or at the given indices when given a list or tensor.

    Example::

        >>> ember.arange(7).tensor_split(3)
        (tensor([0, 1, 2]), tensor([3, 4]), tensor([5, 6]))
        >>> ember.arange(7).tensor_split([1, 5])
        (tensor([0]), tensor([1, 2, 3, 4]), tensor([5, 6]))
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'tensor_split')
    d = _wrap_dim(dim, input._data.ndim)
    n = input._data.shape[d]
    ios = indices_or_sections
    if isinstance(ios, Tensor):
        ios = ios.tolist()
    if isinstance(ios, int):
        if ios <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {ios}")
        q, r = divmod(n, ios)
        bounds = []
        i = 0
        for k in range(ios):
            sz = q + (1 if k < r else 0)
            bounds.append((i, i + sz))
            i += sz
    else:
        idx = [0] + [min(max(int(x), 0) if x >= 0 else max(n + int(x), 0), n) for x in ios] + [n]
        bounds = [(idx[k], max(idx[k], idx[k + 1])) for k in range(len(idx) - 1)]
    return tuple(_slice(input, d, s, e, 1) for s, e in bounds)


# ------------------------------------------------------------------ diagonal / unfold / as_strided
class DiagonalBackward0(Node):
    def backward(self, g):
        z = g.new_zeros(self.shape)
        out = wrap(z._data.copy())
        return _put_view(out, g, self.offset, self.d1, self.d2)


def _put_view(out, g, offset, d1, d2):
    # differentiable: out is zeros, so use diag_embed-like index scatter
    pos = _positions_of(out, diagonal(out, offset, d1, d2))
    return _flat_scatter_add(out.shape, pos, g)


def diagonal(input, offset=0, dim1=0, dim2=1):
    """The diagonal with ``offset`` of the planes spanned by ``dim1`` and ``dim2``, as a view;
    both dims are removed and the diagonal becomes the last dim.

    Example::

        >>> x = ember.arange(9).view(3, 3)
        >>> x.diagonal()
        tensor([0, 4, 8])
        >>> x.diagonal(offset=1)
        tensor([1, 5])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'diagonal')
    if offset.__class__ is not int:
        offset = _args.as_int(offset, 'diagonal', 'offset', 1)
    if dim1.__class__ is not int:
        dim1 = _args.as_int(dim1, 'diagonal', 'dim1', 2)
    if dim2.__class__ is not int:
        dim2 = _args.as_int(dim2, 'diagonal', 'dim2', 3)
    a = input._data
    nd = a.ndim
    d1 = _wrap_dim(dim1, nd)
    d2 = _wrap_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    node = None
    if input._rg and _Mode.grad:
        node = DiagonalBackward0()
        node.shape, node.offset, node.d1, node.d2 = a.shape, offset, d1, d2
    n1, n2 = a.shape[d1], a.shape[d2]
    if offset >= 0:
        L = max(min(n1, n2 - offset), 0)
        start = offset * a.strides[d2] if L else 0
    else:
        L = max(min(n1 + offset, n2), 0)
        start = -offset * a.strides[d1] if L else 0
    rest = [i for i in range(nd) if i not in (d1, d2)]
    shape = tuple(a.shape[i] for i in rest) + (L,)
    strides = tuple(a.strides[i] for i in rest) + (a.strides[d1] + a.strides[d2],)
    arr = _strided_from(a, start, shape, strides)
    return make_view(input, arr, node)


def _strided_from(a, byte_offset, shape, strides):
    """A view of ``a``'s memory starting ``byte_offset`` bytes after its first element."""
    xp = array_module(a)
    if byte_offset:
        flat = xp.lib.stride_tricks.as_strided(a, (byte_offset // a.itemsize + 1,), (a.itemsize,))
        a = flat[byte_offset // a.itemsize:]
    return xp.lib.stride_tricks.as_strided(a, shape, strides)


class UnfoldBackward0(Node):
    def backward(self, g):
        return _flat_scatter_add(self.shape, self.pos, g)


def unfold(self, dimension, size, step):
    """All windows of length ``size`` taken every ``step`` entries along ``dimension``, as a
    view whose new last dim holds each window.

    Example::

        >>> ember.arange(6.).unfold(0, 3, 2)
        tensor([[0., 1., 2.],
                [2., 3., 4.]])
    """
    if dimension.__class__ is not int:
        dimension = _args.as_int(dimension, 'unfold', 'dimension', 1)
    if size.__class__ is not int:
        size = _args.as_int(size, 'unfold', 'size', 2)
    if step.__class__ is not int:
        step = _args.as_int(step, 'unfold', 'step', 3)
    if not (-_I64 <= size < _I64 and -_I64 <= step < _I64 and -_I64 <= dimension < _I64):
        raise ValueError("Overflow when unpacking long long")
    a = self._data
    nd = a.ndim
    d = _wrap_dim(dimension, nd) if nd else 0
    n = a.shape[d] if nd else 1
    if size > n:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {n} but size is {size}")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    cnt = (n - size) // step + 1
    if nd == 0:
        shape, strides = (size,), (a.itemsize,)
    else:
        wst = a.strides[d] * step
        if cnt <= 1 and not -_I64 < wst < _I64:
            wst = 0   # NOTE: unlike PyTorch, a stride no element steps along may read as 0
        shape = a.shape[:d] + (cnt,) + a.shape[d + 1:] + (size,)
        strides = a.strides[:d] + (wst,) + a.strides[d + 1:] + (a.strides[d],)
    out = make_view(self, _strided_from(a, 0, shape, strides))
    if self._rg and _Mode.grad:
        node = UnfoldBackward0()
        node.shape = a.shape
        node.pos = _positions_of(self, out)
        record(out, node, (self,))
    return out


def _int_tuple(v, name, arg, pos):
    """A ``tuple of ints`` argument (a tuple, list or Size of ints, NumPy integers or
    integer 0-dim tensors), with PyTorch's TypeErrors."""
    if not isinstance(v, (tuple, list)):
        raise TypeError(f"{name}(): argument '{arg}' (position {pos}) must be tuple of ints, "
                        f"not {_args.type_name(v)}")
    out = []
    for i, e in enumerate(v):
        if e.__class__ is not int:
            if isinstance(e, Tensor) and e._data.ndim == 0 and e._data.dtype.kind in 'iu':
                e = int(e)
            elif isinstance(e, (bool, np.bool_, float, Tensor)) or not hasattr(e, '__index__'):
                raise TypeError(f"{name}(): argument '{arg}' (position {pos}) must be tuple of "
                                f"ints, but found element of type {_args.type_name(e)} at pos {i}")
            else:
                e = e.__index__()
        if e >= _I64 or e < -_I64:
            raise TypeError(f"{name}(): argument '{arg}' failed to unpack the object at pos "
                            f"{i + 1} with error \"Overflow when unpacking long long\"")
        out.append(e)
    return tuple(out)




def as_strided(input, size, stride, storage_offset=None):
    """A view of ``input``'s storage with the given ``size``, ``stride`` (in elements) and
    ``storage_offset`` (default: ``input``'s own offset). Every element of the view must lie
    inside the storage (``ember._storage.check_view``): strides and the offset must be
    non-negative, and PyTorch's errors are raised otherwise, before anything changes.

    Args:
        input (Tensor): the tensor whose storage is viewed.
        size (tuple of ints): the view's shape.
        stride (tuple of ints): the view's strides, >= 0.
        storage_offset (int, optional): the first element's index in the storage, >= 0.

    Raises:
        RuntimeError: a negative stride or offset, a storage size that overflows int64, or
            a view reaching past the end of the storage (``setStorage: ... out of bounds``).

    NOTE: unlike PyTorch, a negative size is refused even when another size is 0; a stride
    whose byte count overflows int64 is reported as 0 on a dim no element steps along (of
    size 1, or in an empty view); views NumPy cannot address (more than 64 dims, more than
    2**63 bytes in all even when stride 0 repeats one element) raise RuntimeError.

    Example::

        >>> ember.arange(6).as_strided((2, 2), (1, 2), 1)
        tensor([[1, 3],
                [2, 4]])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'as_strided')
    size = _int_tuple(size, 'as_strided', 'size', 1)
    stride = _int_tuple(stride, 'as_strided', 'stride', 2)
    if storage_offset is None:
        off = input.storage_offset()
    else:
        off = _args.overflow(_args.as_int(storage_offset, 'as_strided', 'storage_offset', 3))
    a = input._data
    arr = _checked_view(input._storage_obj(), a.dtype, off, size, stride)
    isz = a.itemsize
    out = make_view(input, arr, off=None if arr.size else (off - input.storage_offset()) * isz)
    if input._rg and _Mode.grad:
        node = AsStridedBackward0()
        node.shape = a.shape
        node.pos = _positions_of(input, out, True)
        record(out, node, (input,))
    return out




















# PyTorch's names for the nodes of the in-place view ops (squeeze_, t_, ...)
_INPLACE_VIEW_NODE = {c: type(n, (c,), {}) for c, n in (
    (SqueezeBackward0, 'SqueezeBackward3'), (SqueezeBackward1, 'SqueezeBackward4'),
    (SqueezeBackward2, 'SqueezeBackward5'), (UnsqueezeBackward0, 'UnsqueezeBackward1'),
    (TransposeBackward0, 'TransposeBackward1'), (TBackward0, 'TBackward1'),
    (AsStridedBackward0, 'AsStridedBackward1'))}


# ------------------------------------------------------------------ registration
register('view', function=False)(view)
register('view_as', function=False)(view_as)
register('reshape_as', function=False)(reshape_as)
register('expand', function=False)(expand)
register('expand_as', function=False)(expand_as)
register('squeeze_', function=False)(squeeze_)
register('unsqueeze_', function=False)(unsqueeze_)
register('transpose_', function=False)(transpose_)
register('t_', function=False)(t_)
register('as_strided_', function=False)(as_strided_)
register('unfold', function=False)(unfold)
register('split_with_sizes', function=True)(split_with_sizes)
register('reshape', function=False)(reshape)


@register('reshape', method=False)
def _reshape(input, shape):  # bound as ember.reshape (named so below)
    """``ember.reshape(input, shape)``: :meth:`Tensor.reshape` with ``shape`` one tuple of
    ints (the function form takes no ``*shape``, as in PyTorch).

    Example::

        >>> ember.reshape(ember.arange(6), (2, 3)).shape
        torch.Size([2, 3])
    """
    if not isinstance(shape, (tuple, list)):
        if not isinstance(input, Tensor):
            _args.tensor(input, 'reshape')
        _args._fail('reshape', 'shape', 2, 'tuple of ints', shape)
    return reshape(input, shape)


_reshape.__name__ = _reshape.__qualname__ = 'reshape'

for _f in (flatten, unflatten, transpose, t, movedim, swapaxes, broadcast_to, squeeze,
           unsqueeze, narrow, select, unbind, split, chunk, tensor_split, diagonal, as_strided):
    register()(_f)
register('permute', method=True)(permute)
register('moveaxis')(movedim)
register('swapdims')(swapaxes)
register('swapaxes_', function=False)(transpose_)
register('swapdims_', function=False)(transpose_)
register('detach', method=False)(Tensor.detach)      # ember.detach(x) is x.detach()
register('detach_', method=False)(Tensor.detach_)
Tensor.T = property(_T)
Tensor.mT = property(_mT)
Tensor.H = property(_H)
Tensor.mH = property(_mH)
