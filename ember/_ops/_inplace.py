"""In-place writes and autograd through views (the op layer's machinery for ``add_``,
``copy_``, ``x[i] = v``...): the checks PyTorch makes before writing (memory overlap,
leaves that require grad, views autograd cannot rebase), the write itself with its
version bump, and the rebasing of history: a tensor's grad_fn after an in-place op, and
a view's base after the view was written (``CopySlices``), with the view's grad_fn
regenerated as an ``AsStridedBackward0`` of the base.

``Tensor._view_grad_fn`` (read by ``autograd.graph.record``/``edge_of`` for views) is bound
here, with the view machinery it needs.
"""
import numpy as np

from .._dtype import _NP2DT
from .._tensor import Tensor, _new_tensor, _Mode, _views_need_grad, _legacy_name
from .._storage import _ptr
from .._backend import array_module
from ..autograd.graph import Node, record, edge_of, _seq, _named
from ._util import grad_needed

wrap = _new_tensor

__all__ = ['inplace', 'check_inplace', 'inplace_apply']

_LEAF_INPLACE = "a leaf Variable that requires grad is being used in an in-place operation."


def inplace_apply(self, res):
    """Write ``res`` (the out-of-place result, possibly with a graph) into ``self``:
    copy the data, bump the version, and rebase ``self``'s history (through its base
    when ``self`` is a view)."""
    src = res._data
    dst = self._data
    if src.dtype != dst.dtype:
        rc = _NP2DT[src.dtype]
        dc = _NP2DT[dst.dtype]
        if rc._cat > dc._cat:
            raise RuntimeError(f"result type {_cat_name(rc)} can't be cast to the desired "
                               f"output type {_legacy_name(dc)}")
    if src.shape != dst.shape:
        try:
            ok = np.broadcast_shapes(src.shape, dst.shape) == dst.shape
        except ValueError:
            ok = False
        if not ok:
            _bad_shape(src, dst)
    if src is not dst:
        _assign(self, dst, src)
    self._storage_obj()._version += 1
    if _Mode.grad and (res._rg or self._rg):
        if self._base is None:
            was = self._rg
            fn = res._grad_fn
            if fn is None:
                # the new value depends on nothing differentiable: the old history
                # gets a zero gradient (PyTorch's copy_ from a tensor without grad)
                fn = _ZeroOldBackward()
                record(res, fn, (self._shallow_alias(),))
            self._grad_fn = fn
            self._out_nr = res._out_nr
            self._rg = True
            if not was:
                _views_need_grad(self)
        else:
            _copy_slices(self, res)
    return self

class _ZeroOldBackward(Node):
    """``CopyBackwards``: the node of an in-place result that ignores ``self``'s old value
    (its old history gets a zero gradient)."""

    def backward(self, g):
        return g.new_zeros(g.shape)


_named(_ZeroOldBackward, 'CopyBackwards')

def _assign(t, dst, src):
    """``dst[...] = src`` for ``t``'s array ``dst``. Into an expanded tensor (elements
    sharing memory: only ops that PyTorch allows there get here, e.g. ``index_put_``)
    only the changed elements are written, so that the untouched aliases of a memory
    location do not write its old value back."""
    if _writeable(dst) and not _internal_overlap(dst):
        dst[...] = src
        return
    dst = _writable(t)
    if _internal_overlap(dst):
        xp = array_module(dst)
        src = xp.broadcast_to(xp.asarray(src, dtype=dst.dtype), dst.shape)
        changed = src != dst
        dst[changed] = src[changed]
    else:
        dst[...] = src

def _writeable(a):
    """Whether array ``a`` may be written (NumPy's broadcast views may not; device arrays
    have no such flag and always may)."""
    return getattr(a.flags, 'writeable', True)

def _writable(t):
    """A writable array with ``t``'s geometry (``t._data`` may be a read-only
    broadcast view, e.g. of ``expand``)."""
    a = t._data
    if _writeable(a):
        return a
    st = t._storage_obj()
    flat = st._flat()
    if flat.dtype != a.dtype:
        flat = flat.view(np.uint8).view(a.dtype)
    off = (_ptr(a) - _ptr(flat)) // a.itemsize
    xp = array_module(a)
    return xp.lib.stride_tricks.as_strided(flat[off:], a.shape, a.strides)

def _bad_shape(src, dst):
    raise RuntimeError(f"output with shape [{', '.join(map(str, dst.shape))}] doesn't match the "
                       f"broadcast shape [{', '.join(map(str, np.broadcast_shapes(src.shape, dst.shape)))}]")

def _cat_name(d):
    return {0: 'Bool', 1: 'Long', 2: 'Float', 3: 'ComplexFloat'}[d._cat]


# ------------------------------------------------------------ memory overlap of writes
_INTERNAL_OVERLAP = ("unsupported operation: more than one element of the written-to tensor "
                     "refers to a single memory location. Please clone() the tensor before "
                     "performing the operation.")
_PARTIAL_OVERLAP = ("unsupported operation: some elements of the input tensor and the "
                    "written-to tensor refer to a single memory location. Please clone() the "
                    "tensor before performing the operation.")


def _internal_overlap(a):
    """True when two elements of array ``a`` surely share memory (a stride-0 dim of size
    > 1, as after ``expand``); PyTorch refuses most in-place ops on such tensors."""
    st = a.strides
    if 0 in st and a.size:
        for n, s in zip(a.shape, st):
            if s == 0 and n > 1:
                return True
    return False

def _dense(a):
    """Non-overlapping and dense (a permutation of a contiguous layout)."""
    f = a.flags
    if f.c_contiguous or f.f_contiguous:
        return True
    expected = a.itemsize
    for s, n in sorted((s, n) for n, s in zip(a.shape, a.strides) if n != 1):
        if s != expected:
            return False
        expected *= n
    return True

def _overlap(self, o):
    """How tensors ``self`` and ``o`` share memory, as PyTorch tells it: ``'full'`` (the very
    same elements in the same layout), ``'partial'`` (both dense, intersecting memory, not
    the same), or None (no shared memory, or a layout where PyTorch does not tell)."""
    st, so = self._st, o._st
    if self is not o and (st is None or so is None or (st is not so and
                                                      st._src is not so._src)):
        return None
    a, b = self._data, o._data
    if not a.size or not b.size or not (_dense(a) and _dense(b)):
        return None
    pa, pb = _ptr(a), _ptr(b)
    ea, eb = pa + a.size * a.itemsize, pb + b.size * b.itemsize
    if pa == pb and ea == eb and a.strides == b.strides and a.shape == b.shape:
        return 'full'
    return 'partial' if pa < eb and pb < ea else None


def _check_partial_overlap(self, o):
    """PyTorch's error when input ``o`` and written-to ``self`` overlap partly (both dense,
    same memory, not the very same elements in the same layout)."""
    if _overlap(self, o) == 'partial':
        raise RuntimeError(_PARTIAL_OVERLAP)


def check_out_overlap(out, inputs, full=False):
    """PyTorch's error when ``out=`` tensor ``out`` and an input tensor share memory: a
    partial overlap of two dense tensors always raises; with ``full`` (``cat``, ``stack``,
    ``index_select``, ``gather``, which read inputs while writing) so does any overlap of
    their memory ranges, the very same tensor included. Where the layouts make the
    question hard (a non-dense tensor), PyTorch does not check, nor does this."""
    if not isinstance(out, Tensor):
        return
    for t in inputs:
        if isinstance(t, Tensor):
            status = _overlap(out, t)
            if status == 'partial' or (full and status == 'full'):
                raise RuntimeError(_PARTIAL_OVERLAP)


def _raise_view_rebase(v, indirect):
    """PyTorch's error for an in-place change of (or through) a view that autograd cannot
    rebase: an output of a multi-view op (``unbind``, ``split``...) or a view made in
    no-grad mode."""
    import re
    what = ("its base or another view of its base has been" if indirect else "is being")
    fn = v._grad_fn
    if fn is not None:
        msg = (f"Output {v._out_nr} of {re.sub(r'Backward[0-9]*$', '', fn.name())} is a view "
               f"and {what} modified inplace.")
    else:
        msg = f"A view was created in no_grad mode and {what} modified inplace with grad mode enabled."
    if v._vmeta == 1:
        msg += (" This view is the output of a function that returns multiple views. Such "
                "functions do not allow the output views to be modified inplace. You should "
                "replace the inplace operation by an out-of-place one.")
    else:
        msg += (" Given that this use case is ambiguous and error-prone, it is forbidden. You "
                "can clarify your code by moving both the view and the inplace either both "
                "inside the no_grad block (if you don't want the inplace to be tracked) or both "
                "outside (if you want the inplace to be tracked).")
    raise RuntimeError(msg)

def check_inplace(self, *others):
    """Raise PyTorch's error for an in-place op that cannot be allowed: ``self`` has
    elements sharing memory (expanded) while a tensor is written into it, ``self`` and a
    tensor of ``others`` overlap in part, a leaf that requires grad (or a view of one), a
    view autograd cannot rebase. Returns True when the op must record a graph.

    0-dim tensors of ``others`` are read as numbers (``fill_``, ``masked_fill_``): they may
    overlap ``self``."""
    for o in others:
        if o.__class__ is not float and o.__class__ is not int and isinstance(o, Tensor):
            if _internal_overlap(self._data):
                raise RuntimeError(_INTERNAL_OVERLAP)
            if o._data.ndim and o is not self:
                _check_partial_overlap(self, o)
    return _autograd_check(self, others)

def _autograd_check(self, others):
    if not _Mode.grad:
        return False
    if not self._rg:
        for o in others:
            if o.__class__ is not float and o.__class__ is not int and isinstance(o, Tensor) \
                    and o._rg:
                break
        else:
            return False
    b = self._base
    if b is not None:
        if self._vmeta:
            _raise_view_rebase(self, False)
        if self._rg and b._grad_fn is None:
            raise RuntimeError("a view of a leaf Variable that requires grad is being used in "
                               "an in-place operation.")
        if self._rg and self._view_grad_fn() is None:
            raise RuntimeError(_LEAF_INPLACE)
    elif self._rg and self._grad_fn is None:
        raise RuntimeError(_LEAF_INPLACE)
    return True


_OVERLAP_OK = frozenset(('masked_fill', 'index_put', '_index_put_key', 'index_fill', '_zeroed'))
_SCALAR_ARG_OK = frozenset(('masked_fill', '_filled', 'index_fill'))


def inplace(self, fn, *args, **kwargs):
    """Run out-of-place op ``fn(self, *args, **kwargs)`` and write the result into self.

    Gradients follow PyTorch: the node keeps the original value of ``self`` where its
    formula needs it; other saved inputs are version-checked as usual."""
    name = fn.__name__
    if _internal_overlap(self._data) and name not in _OVERLAP_OK and not (
            name == '_filled' and not isinstance(args[0], Tensor)):
        raise RuntimeError(_INTERNAL_OVERLAP)
    scalar_ok = name in _SCALAR_ARG_OK
    for o in args:
        if isinstance(o, Tensor) and o is not self and not (scalar_ok and not o._data.ndim):
            _check_partial_overlap(self, o)
    if kwargs:
        for o in kwargs.values():
            if isinstance(o, Tensor) and o is not self:
                _check_partial_overlap(self, o)
    if _autograd_check(self, args + tuple(kwargs.values()) if kwargs else args):
        alias = self._shallow_alias()
        res = fn(alias, *args, **kwargs)
        node = res._grad_fn
        if node is not None and node._saved:
            saved = node._saved
            if any(s is alias for s in saved):
                snap = _new_tensor(alias._data.copy())   # the value before the write
                snap._rg, snap._grad_fn, snap._out_nr = alias._rg, alias._grad_fn, alias._out_nr
                snap._grad_acc = alias._grad_acc
                node._saved = tuple(snap if s is alias else s for s in saved)
                node._saved_ver = tuple(0 if s is alias else v for s, v in zip(saved, node._saved_ver))
        return inplace_apply(self, res)
    # nothing requires grad: the op records nothing; write the result straight in
    res = fn(self, *args, **kwargs)
    src = res._data
    dst = self._data
    if src.dtype == dst.dtype and src.shape == dst.shape:
        _assign(self, dst, src)
        st = self._st
        if st is None:
            st = self._storage_obj()
        st._version += 1
        return self
    return inplace_apply(self, res)


# ------------------------------------------------------------ flat gather / scatter-add
def _storage_index(t):
    """Storage element index of every element of ``t`` (an int64 array of t's shape)."""
    a = t._data
    isz = a.itemsize
    idx = np.full(a.shape, t.storage_offset(), dtype=np.int64)
    for d, (n, s) in enumerate(zip(a.shape, a.strides)):
        sh = [1] * a.ndim
        sh[d] = n
        idx = idx + (np.arange(n, dtype=np.int64) * (s // isz)).reshape(sh)
    return idx

def _positions_of(base, view_t, outside=False):
    """Row-major positions in ``base`` of each element of ``view_t`` (same storage).
    With ``outside``, elements of ``view_t`` that are not elements of ``base`` (an
    ``as_strided`` window reaching past its input) get position -1."""
    v = _storage_index(view_t)
    n = base._data.size
    if base._data.flags.c_contiguous:
        pos = v - base.storage_offset()
        if outside:
            pos[(pos < 0) | (pos >= n)] = -1
        return pos
    b = _storage_index(base).reshape(-1)
    order = np.argsort(b, kind='stable')
    sb = b[order]
    loc = np.searchsorted(sb, v)
    if not outside:
        return order[loc]
    if not n:
        return np.full(v.shape, -1, np.int64)
    locc = np.minimum(loc, n - 1)
    return np.where((loc < n) & (sb[locc] == v), order[locc], -1)

class _FlatGatherBackward(Node):
    def backward(self, g):
        return _flat_scatter_add(self.shape, self.pos, g)

class _FlatScatterAddBackward(Node):
    def backward(self, g):
        return _flat_gather(g, self.pos)

def _flat_gather(x, pos):
    """``x.flatten()[pos]`` (differentiable)."""
    a = x._data
    xp = array_module(a)
    if pos.size and pos.min() < 0:   # positions outside the input read as 0
        flat = xp.concatenate([a.reshape(-1), xp.zeros(1, a.dtype)])
        out = wrap(flat[xp.asarray(np.where(pos < 0, a.size, pos))])
    else:
        out = wrap(a.reshape(-1)[xp.asarray(pos)] if a.size else xp.zeros(pos.shape, a.dtype))
    if grad_needed(x):
        node = _FlatGatherBackward()
        node.shape, node.pos = a.shape, pos
        record(out, node, (x,))
    return out

def _flat_scatter_add(shape, pos, src):
    """zeros(shape) with ``src`` added at flat positions ``pos`` (differentiable)."""
    a = src._data
    xp = array_module(a)
    z = xp.zeros(int(np.prod(shape)), a.dtype)
    p = xp.asarray(pos).reshape(-1)
    vals = xp.broadcast_to(a, pos.shape).reshape(-1)
    if p.size and pos.min() < 0:   # positions outside the target are dropped
        keep = xp.asarray(pos.reshape(-1) >= 0)
        p, vals = p[keep], vals[keep]
    if xp is np:
        np.add.at(z, p, vals)
    else:
        xp.add.at(z, p, vals)
    out = wrap(z.reshape(shape))
    if grad_needed(src):
        node = _FlatScatterAddBackward()
        node.pos = pos
        record(out, node, (src,))
    return out


# ------------------------------------------------------------ in-place through views
class AsStridedBackward0(Node):
    def backward(self, g):
        return _flat_scatter_add(self.shape, self.pos, g)

class CopySlices(Node):
    """grad_fn of a base after one of its views was written in place: the view region
    of the gradient goes to the new values, the rest to the base's old history."""

    _overlap = False

    def name(self):
        return 'torch::autograd::CopySlices'

    def backward(self, g):
        if self._overlap and self.next_functions[0][0] is not None:
            raise RuntimeError(_INTERNAL_OVERLAP)
        gb = None
        if self.next_functions[0][0] is not None:
            mask = np.ones(int(np.prod(self.shape)), dtype=bool)
            mask[self.pos.reshape(-1)] = False
            m = wrap(array_module(g._data).asarray(mask.reshape(self.shape)))
            gb = g * m
        gr = _flat_gather(g, self.pos) if self.next_functions[1][0] is not None else None
        return gb, gr

def _copy_slices(view_t, res):
    """Rebase ``view_t._base``'s history after ``view_t`` was overwritten by ``res``."""
    base = view_t._base
    was = base._rg
    node = CopySlices()
    node.shape = base._data.shape
    node.pos = _positions_of(base, view_t)
    if _internal_overlap(view_t._data):
        node._overlap = True   # PyTorch fails in backward, writing the view's gradient
    record(base, node, (base, res))
    base._out_nr = 0
    if not was:
        _views_need_grad(base)
    _regenerate_view_fn(view_t)

def _regenerate_view_fn(v):
    base = v._base
    st = v._storage_obj()
    v._vver = st._version
    if not base._rg:
        v._grad_fn = None
        return
    node = AsStridedBackward0()
    node.shape = base._data.shape
    node.pos = _positions_of(base, v)
    node.next_functions = (edge_of(base),)
    node._in_meta = ((base._data.shape, base._data.dtype),)
    node._seq = next(_seq)
    v._grad_fn = node
    v._out_nr = 0
    v._rg = True

def _view_grad_fn(self):
    """grad_fn of a view: regenerated (``AsStridedBackward0`` of the base) when the
    base or another view of it changed in place since the view's grad_fn was made;
    raises PyTorch's error for views that may not be rebased (outputs of multi-view
    ops like ``unbind``, views made in no-grad mode)."""
    fn = self._grad_fn
    if fn is None and not self._base._rg:
        return None
    if self._vver != self._st._version:
        if self._vmeta:
            _raise_view_rebase(self, True)
        _regenerate_view_fn(self)
        return self._grad_fn
    return fn


Tensor._view_grad_fn = _view_grad_fn
