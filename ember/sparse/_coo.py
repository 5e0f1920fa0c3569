"""Sparse COO tensors: ``sparse_coo_tensor``, ``Tensor.to_sparse``, ``to_dense``, ``coalesce``.

A sparse COO tensor is an instance of ``_SparseCooTensor``, a ``Tensor`` subclass that holds
two dense tensors: ``indices`` (int64, ``sparse_dim x nnz``) and ``values`` (``nnz x
*dense_shape``). Its own dense data slot is a zero-strided, read-only array of its shape
and dtype that refuses NumPy's functions (``_SparseData``), so the metadata (``shape``,
``dtype``, ``dim()``) reads as for any tensor while no dense op can compute on it: every op reaches ``__torch_function__`` (the observing
bindings are on while a sparse tensor is alive), which runs the sparse kernels below or
raises PyTorch's ``NotImplementedError`` for the ``SparseCPU`` backend.

The sparse kernels are written with dense ember ops on ``values`` (``index_add``, indexing,
products), so autograd flows through ``values`` with no node of its own: the gradient of a
sparse leaf is the sparse tensor of its values' gradient at its indices.
"""
import numpy as np

from .. import _dtype as D
from .._tensor import Tensor, Size, _disabled_torch_function_impl, _new_tensor
from .._memory_format import sparse_coo, strided
from .._backend import array_module
from .._ops import _dispatch
from .._grad_state import _Mode

__all__ = ['sparse_coo_tensor']


def _ember():
    import ember
    return ember


def _not_impl(op, backend='SparseCPU'):
    return NotImplementedError(
        f"Could not run 'aten::{op}' with arguments from the '{backend}' backend. This could "
        "be because the operator doesn't exist for this backend, or was omitted during the "
        "selective/custom build process (if using custom build).")


def _backend_name(t):
    return 'SparseCUDA' if t.device.type == 'cuda' else 'SparseCPU'


class _SparseCooTensor(Tensor):
    """A tensor in the sparse COO layout (``layout == ember.sparse_coo``); made by
    :func:`ember.sparse_coo_tensor` or :meth:`Tensor.to_sparse`.

    NOTE: unlike PyTorch, where a sparse tensor is a ``torch.Tensor``, its type is this
    subclass of ``ember.Tensor`` (``isinstance(s, ember.Tensor)`` holds); its ``grad_fn`` is
    its values' (PyTorch has a node of its own, ``SparseCooTensorWithDimsAndTensorsBackward0``).

    Example::

        >>> s = ember.sparse_coo_tensor([[0, 1], [1, 0]], [2., 3.], (2, 2))
        >>> s.to_dense()
        tensor([[0., 2.],
                [3., 0.]])
    """
    # the class is made with the disabled handler (so that defining it does not turn the
    # observing bindings on for good); the real handler is set below, and each instance
    # holds the observing bindings while it lives
    __torch_function__ = _disabled_torch_function_impl

    is_sparse = True
    layout = sparse_coo

    # ------------------------------------------------------------ metadata
    @property
    def device(self):
        """The :class:`ember.device` holding the indices and values."""
        return self._v.device

    @property
    def is_meta(self):
        """True when the values are on the ``meta`` device."""
        return self._v.is_meta

    @property
    def requires_grad(self):
        """Whether gradients flow to this tensor's values."""
        return self._v.requires_grad

    @requires_grad.setter
    def requires_grad(self, r):
        self._v.requires_grad = r

    def requires_grad_(self, requires_grad=True):
        """Sets ``requires_grad`` of the values in place and returns self."""
        self._v.requires_grad_(requires_grad)
        return self

    @property
    def grad_fn(self):
        """The backward node of the values (``None`` for a leaf)."""
        return self._v.grad_fn

    @property
    def is_leaf(self):
        """True when the values are a leaf of the graph."""
        return self._v.grad_fn is None

    @property
    def grad(self):
        """The gradient of a leaf, as a sparse tensor with this tensor's indices."""
        g = self._v.grad
        if g is None:
            return None
        if self._coal:
            return _make(self._i, g, self.shape, True)
        # as PyTorch: the gradient at each distinct index once (duplicates' gradients are
        # the same entry of the dense gradient), on the coalesced indices
        lin, _ = _linear(self._i, self.shape[:self.sparse_dim()])
        xp = array_module(lin)
        _, first = xp.unique(lin, return_index=True)
        E = _ember()
        pick = E.as_tensor(first.astype(np.int64), device=g.device)
        return _make(self._i[:, pick], g[pick], self.shape, False)   # flagged as PyTorch

    @grad.setter
    def grad(self, g):
        if g is None:
            self._v.grad = None
            return
        if not g.is_sparse:
            raise RuntimeError("assigned grad has data of a different type")
        if g.shape != self.shape:
            raise RuntimeError("assigned grad has data of a different size")
        if not bool((g._i == self._i).all()) if g._i.shape == self._i.shape else True:
            raise RuntimeError("NOTE: unlike PyTorch, ember sets a sparse grad only when its "
                               "indices are this tensor's")
        self._v.grad = g._v

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Backward through the values: ``gradient`` (sparse, or dense) is read at this
        tensor's indices."""
        if gradient is None:
            raise RuntimeError("grad can be implicitly created only for scalar outputs")
        g = gradient._v if gradient.is_sparse else _gather(gradient, self._i, self.sparse_dim())
        self._v.backward(g, retain_graph=retain_graph, create_graph=create_graph,
                         inputs=inputs)

    def is_contiguous(self, memory_format=None):
        """False: a sparse tensor is not laid out with strides."""
        return False

    def data_ptr(self):
        """Raises, as PyTorch: a sparse tensor has no storage."""
        raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage")

    def untyped_storage(self):
        """Raises, as PyTorch: a sparse tensor has no storage."""
        raise NotImplementedError("Cannot access storage of SparseTensorImpl")

    storage = untyped_storage

    def numpy(self, *, force=False):
        """Raises, as PyTorch: convert with :meth:`to_dense` first."""
        raise TypeError("can't convert Sparse layout tensor to numpy. Use Tensor.to_dense() "
                        "first.")

    def tolist(self):
        """Raises, as PyTorch: convert with :meth:`to_dense` first."""
        raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage")

    def item(self):
        """The value of a one-element sparse tensor."""
        if self.numel() != 1:
            raise RuntimeError(f"a Tensor with {self.numel()} elements cannot be converted to "
                               "Scalar")
        return self.to_dense().item()

    def __repr__(self, *, tensor_contents=None):
        return _repr(self)

    # ------------------------------------------------------------ COO accessors
    def sparse_dim(self):
        """Number of sparse dimensions (rows of ``indices``)."""
        return self._i.shape[0]

    def dense_dim(self):
        """Number of dense dimensions (dimensions of ``values`` after the first)."""
        return self._v.dim() - 1

    def _nnz(self):
        """Number of stored (index, value) pairs, duplicates included."""
        return self._i.shape[1]

    def _indices(self):
        """The indices tensor (``sparse_dim x nnz``), coalesced or not."""
        return self._i

    def _values(self):
        """The values tensor (``nnz x *dense_shape``), coalesced or not."""
        return self._v

    def indices(self):
        """The indices of a coalesced tensor (raises on an uncoalesced one, as PyTorch)."""
        if not self._coal:
            raise RuntimeError("Cannot get indices on an uncoalesced tensor, please call "
                               ".coalesce() first")
        return self._i.detach()

    def values(self):
        """The values of a coalesced tensor (raises on an uncoalesced one, as PyTorch)."""
        if not self._coal:
            raise RuntimeError("Cannot get values on an uncoalesced tensor, please call "
                               ".coalesce() first")
        return self._v

    def is_coalesced(self):
        """True when the indices are sorted and unique (as ``coalesce()`` leaves them)."""
        return self._coal

    def coalesce(self):
        """A sparse tensor with sorted, unique indices: values at equal indices summed.

        Example::

            >>> s = ember.sparse_coo_tensor([[1, 0, 1]], [1., 2., 3.], (2,))
            >>> s.coalesce().values()
            tensor([2., 4.])
        """
        if self._coal:
            return self
        lin, shape = _linear(self._i, self.shape[:self.sparse_dim()])
        xp = array_module(lin)
        uniq, inv = xp.unique(lin, return_inverse=True)
        E = _ember()
        v = self._v
        inv_t = E.as_tensor(inv.reshape(-1).astype(np.int64), device=v.device)
        nv = E.zeros((len(uniq),) + tuple(v.shape[1:]), dtype=v.dtype, device=v.device)
        nv = nv.index_add(0, inv_t, v)
        idx = xp.stack(xp.unravel_index(uniq, shape)) if len(shape) else \
            xp.zeros((0, len(uniq)), dtype=np.int64)
        it = E.as_tensor(idx.astype(np.int64), device=self._i.device)
        return _make(it, nv, self.shape, True)

    def to_dense(self, dtype=None, *, masked_grad=None):
        """The dense (strided) tensor with this tensor's values at its indices (duplicates
        summed); differentiable in the values.

        Example::

            >>> ember.sparse_coo_tensor([[0, 0]], [1., 2.], (2,)).to_dense()
            tensor([3., 0.])
        """
        v = self._v if dtype is None else self._v.to(dtype)
        sd = self.sparse_dim()
        lin, sshape = _linear(self._i, self.shape[:sd])
        E = _ember()
        n = 1
        for s in sshape:
            n *= s
        out = E.zeros((n,) + tuple(v.shape[1:]), dtype=v.dtype, device=v.device)
        out = out.index_add(0, E.as_tensor(lin, device=self._i.device), v)
        return out.reshape(tuple(self.shape))

    def to_sparse(self, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None):
        """Itself (already sparse COO) when ``sparse_dim`` is its own or not given."""
        _check_layout(layout, blocksize, dense_dim)
        if sparse_dim is not None and sparse_dim != self.sparse_dim():
            raise RuntimeError(f"to_sparse: conversion from Sparse to Sparse with sparse_dim "
                               f"argument !=self.sparse_dim() is not supported")
        return self

    to_sparse_coo = to_sparse

    def __reduce_ex__(self, protocol):
        # rebuilt through _make, so that the copy refuses dense ops as the original does
        return (_rebuild_coo, (self._i, self._v, tuple(self.shape), self._coal))

    def __deepcopy__(self, memo):
        import copy
        r = _make(copy.deepcopy(self._i, memo), copy.deepcopy(self._v, memo), self.shape,
                  self._coal)
        memo[id(self)] = r
        return r

    def detach(self):
        """The same indices and the values detached from the graph."""
        return _make(self._i, self._v.detach(), self.shape, self._coal)


def _rebuild_coo(indices, values, size, coalesced):
    """Unpickle a sparse COO tensor."""
    return _make(indices, values, Size(size), coalesced)


def _check_layout(layout, blocksize, dense_dim):
    if layout is not None and layout is not sparse_coo:
        raise NotImplementedError(f"NOTE: unlike PyTorch, ember has no {layout} layout yet "
                                  "(only sparse_coo)")
    if blocksize is not None:
        raise RuntimeError("to_sparse for Strided to SparseCoo conversion does not use "
                           "specified blocksize")
    if dense_dim is not None:
        raise RuntimeError("to_sparse for Strided to SparseCoo conversion does not use "
                           "specified dense_dim")


class _SparseData(np.ndarray):
    """The dense data slot of a sparse tensor: a zero-strided array of its shape and dtype
    that refuses to compute. An op reached through a binding taken before any sparse
    tensor existed (``f = ember.exp`` early in a program) does not pass the seam's
    ``__torch_function__``; its NumPy calls land here and raise PyTorch's error."""

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        raise _not_impl(ufunc.__name__)

    def __array_function__(self, func, types, args, kwargs):
        raise _not_impl(func.__name__)


def _make(indices, values, shape, coalesced):
    """A sparse tensor over ``indices`` and ``values`` (no checks)."""
    dt = values._data.dtype
    t = _new_tensor(np.broadcast_to(np.zeros((), dtype=dt), tuple(shape)).view(_SparseData),
                    _SparseCooTensor)
    t._i = indices
    t._v = values
    t._coal = bool(coalesced)
    # ops must reach __torch_function__ while a sparse tensor lives
    _dispatch._activate('sparse')
    _dispatch._release_when_collected(t, 'sparse')
    return t


def _linear(indices, sshape):
    """Row-major linear positions (host or device int64 array) of the ``indices`` columns
    in the sparse shape ``sshape``."""
    a = indices._data
    xp = array_module(a)
    lin = xp.zeros(a.shape[1], dtype=np.int64)
    for d, s in enumerate(sshape):
        lin = lin * s + a[d]
    return lin, tuple(int(s) for s in sshape)


def _gather(dense, indices, sd):
    """The entries of ``dense`` at the sparse ``indices`` (``nnz x *dense_shape``)."""
    return dense[tuple(indices[d] for d in range(sd))]


# ---------------------------------------------------------------------------- printing
def _repr(t):
    from .._tensor_str import _add_suffixes, _node_name
    ind = ' ' * len('tensor(')
    i_s = _inner(t._i, len('tensor(indices='))
    v_s = _inner(t._v, len('tensor(values='))
    body = f"tensor(indices={i_s},\n{ind}values={v_s},\n{ind}size={tuple(t.shape)}"
    suffixes = [f"nnz={t._nnz()}"]
    dt = t.dtype
    if dt not in (D.get_default_dtype(), D._default_complex(), D.int64, D.bool):
        suffixes.append(f"dtype={dt}")
    if t.device.type != 'cpu':
        suffixes.insert(0, f"device='{t.device}'")
    suffixes.append('layout=torch.sparse_coo')
    fn = t.grad_fn
    if fn is not None:
        suffixes.append(f"grad_fn=<{_node_name(fn)}>")
    elif t.requires_grad:
        suffixes.append('requires_grad=True')
    return _add_suffixes(body, suffixes, len(ind))


def _inner(x, indent):
    """A component tensor as PyTorch prints it inside a sparse tensor: its elements only
    (no dtype, device or grad), with ``size=`` when empty; continuation lines indented."""
    from .._tensor_str import _body, _host
    a = x._data
    if a.size == 0:
        r = f"tensor([], size={tuple(a.shape)})"
    else:
        r = 'tensor(' + _body(_host(a), len('tensor(')) + ')'
    return r.replace('\n', '\n' + ' ' * indent)


# ---------------------------------------------------------------------------- factories
def sparse_coo_tensor(indices, values, size=None, *, dtype=None, device=None, pin_memory=False,
                      requires_grad=False, check_invariants=None, is_coalesced=None):
    r"""Make a sparse tensor in the COO layout from ``indices`` and ``values``.

    Args:
        indices (array_like): ``sparse_dim x nnz`` integer coordinates (int64 kept).
        values (array_like): ``nnz x *dense_shape`` values.
        size (list, tuple or ``ember.Size``, optional): the shape; inferred (largest index
            plus one per sparse dimension, then the values' dense shape) when not given.
        dtype (ember.dtype, optional): the values' dtype (default: that of ``values``).
        device (ember.device, optional): where the indices and values live.
        requires_grad (bool, optional): make the values a leaf that requires grad.
        check_invariants (bool, optional): check that the indices are within ``size``
            (default: off, as PyTorch's default).
        is_coalesced (bool, optional): declare the indices sorted and unique (trusted).

    NOTE: unlike PyTorch, making one does not warn that invariant checks are off, and
    ``pin_memory`` is accepted and ignored.

    Example::

        >>> s = ember.sparse_coo_tensor([[0, 1, 1], [2, 0, 2]], [3., 4., 5.], (2, 3))
        >>> s.to_dense()
        tensor([[0., 0., 3.],
                [4., 0., 5.]])
    """
    E = _ember()
    if not isinstance(indices, Tensor):
        indices = E.tensor(indices, device=device)
    if not isinstance(values, Tensor):
        values = E.tensor(values, dtype=dtype, device=device)
    if indices.is_sparse or values.is_sparse:
        raise TypeError("sparse_coo_tensor(): indices and values must be dense tensors")
    if indices.dtype is not D.int64:
        if indices.is_floating_point() or indices.is_complex() or indices.dtype is D.bool:
            raise RuntimeError(f"indices must be an int64 tensor")
        indices = indices.to(D.int64)
    if indices.dim() != 2:
        raise RuntimeError(f"indices must be sparse_dim x nnz, but got: "
                           f"{list(indices.shape)}")
    if values.dim() == 0:
        raise RuntimeError("values must have a dimension (nnz) and dense dimensions")
    nnz = indices.shape[1]
    if values.shape[0] != nnz:
        raise RuntimeError(f"indices and values must have same nnz, but got nnz from indices: "
                           f"{nnz}, nnz from values: {values.shape[0]}")
    sd = indices.shape[0]
    dense_shape = tuple(values.shape[1:])
    ia = indices._data
    xp = array_module(ia)
    if size is None:
        if nnz:
            mx = xp.max(ia, axis=1) + 1 if sd else ()
            sshape = tuple(int(m) for m in mx)
        else:
            sshape = (0,) * sd
        size = sshape + dense_shape
    else:
        size = tuple(int(s) for s in size)
        if len(size) != sd + len(dense_shape):
            raise RuntimeError(f"'len(size) == sparse_dim + dense_dim' is not satisfied: "
                               f"len(size) = {len(size)}, sparse_dim = {sd}, dense_dim = "
                               f"{len(dense_shape)}")
        if tuple(size[sd:]) != dense_shape:
            raise RuntimeError(f"values has incorrect size, expected {list((nnz,) + size[sd:])}"
                               f", got {list(values.shape)}")
        if any(s < 0 for s in size):
            raise RuntimeError(f"Trying to create tensor with negative dimension "
                               f"{min(size)}: {list(size)}")
        if check_invariants and nnz:
            mn = xp.min(ia, axis=1)
            mx = xp.max(ia, axis=1)
            for d in range(sd):
                if int(mn[d]) < 0:
                    raise RuntimeError(f"found negative index {int(mn[d])} for dim {d}")
                if int(mx[d]) >= size[d]:
                    raise RuntimeError(f"size is inconsistent with indices: for dim {d}, size "
                                       f"is {size[d]} but found index {int(mx[d])}")
    if dtype is not None and values.dtype is not dtype:
        values = values.to(dtype)
    if device is not None:
        indices = indices.to(device)
        values = values.to(device)
    elif indices.device != values.device:
        raise RuntimeError(f"device of indices ({indices.device}) must match device of "
                           f"values ({values.device})")
    if requires_grad:
        if not (values.is_floating_point() or values.is_complex()):
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               "gradients")
        values = values.detach().requires_grad_(True)
    coal = bool(is_coalesced) if is_coalesced is not None else nnz <= 1
    return _make(indices, values, Size(size), coal)


def to_sparse(self, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None):
    """A sparse COO copy of a dense tensor: the non-zero entries (or, with ``sparse_dim``,
    the sub-tensors along the first ``sparse_dim`` dimensions that hold any non-zero).

    Args:
        sparse_dim (int, optional): how many leading dimensions are sparse (default: all).
        layout (ember.layout, optional): ``ember.sparse_coo`` (the default).

    NOTE: unlike PyTorch, only the COO layout is made (CSR/CSC/BSR/BSC raise).

    Example::

        >>> ember.tensor([[0., 2.], [3., 0.]]).to_sparse()._values()
        tensor([2., 3.])
    """
    _check_layout(layout, blocksize, dense_dim)
    E = _ember()
    n = self.dim()
    sd = n if sparse_dim is None else sparse_dim
    if not 0 <= sd <= n:
        raise RuntimeError(f"dense_to_sparse: sparse_dim argument must be in [0,{n}] range, "
                           f"but {sd} is given")
    if sd == 0 and n > 0:
        raise RuntimeError("dense_to_sparse: sparse_dim argument must be in >0 when "
                           "self.dim()>0")
    a = self._data
    xp = array_module(a)
    nz = a != 0
    if n > sd:
        nz = nz.reshape(a.shape[:sd] + (-1,)).any(axis=-1)
    idx = xp.stack(xp.nonzero(nz)).astype(np.int64) if sd else \
        xp.zeros((0, 1), dtype=np.int64)
    it = E.as_tensor(idx, device=self.device)
    vals = self[tuple(it[d] for d in range(sd))] if sd else self.unsqueeze(0)
    return _make(it, vals, self.shape, True)


class _DenseMembers:
    """COO members of a dense (strided) tensor, bound onto ``Tensor`` (as PyTorch's)."""

    def to_sparse(self, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None):
        return to_sparse(self, sparse_dim, layout=layout, blocksize=blocksize,
                         dense_dim=dense_dim)

    def to_sparse_coo(self):
        """Same as :meth:`to_sparse` with no arguments."""
        return to_sparse(self)

    def to_dense(self, dtype=None, *, masked_grad=None):
        """Itself for a dense tensor (a cast with ``dtype``); see the sparse form.

        Example::

            >>> ember.ones(2).to_dense()
            tensor([1., 1.])
        """
        return self if dtype is None else self.to(dtype)

    def sparse_dim(self):
        """0 for a dense tensor."""
        return 0

    def dense_dim(self):
        """``dim()`` for a dense tensor."""
        return self.dim()

    def is_coalesced(self):
        """Raises for a dense tensor, as PyTorch."""
        raise RuntimeError("is_coalesced expected sparse coordinate tensor layout but got "
                           "Strided")

    def coalesce(self):
        """Raises for a dense tensor, as PyTorch."""
        raise RuntimeError("coalesce expected sparse coordinate tensor layout but got Strided")

    def indices(self):
        """Raises for a dense tensor, as PyTorch."""
        raise RuntimeError("indices expected sparse coordinate tensor layout but got Strided")

    def values(self):
        """Raises for a dense tensor, as PyTorch."""
        raise RuntimeError("values expected sparse tensor layout but got Strided")

    def _nnz(self):
        raise _not_impl('_nnz', 'CPU')

    def _indices(self):
        raise _not_impl('_indices', 'CPU')

    def _values(self):
        raise _not_impl('_values', 'CPU')


_DenseMembers.to_sparse.__doc__ = to_sparse.__doc__


def _bind_dense():
    from .._tensor import _bind
    own = {k for k in vars(_DenseMembers) if not k.startswith('__')}
    have = {k for k in own if k in Tensor.__dict__}
    if have:   # somebody else defined them already: keep theirs
        for k in have:
            delattr(_DenseMembers, k)
    _bind(_DenseMembers)


_bind_dense()


# ---------------------------------------------------------------------------- kernels
def _is_sp(x):
    return isinstance(x, _SparseCooTensor)


def _merge(a, b, alpha):
    """``a + alpha * b`` of two sparse tensors, merged as PyTorch's CPU kernel does: the
    two index lists are walked together, equal indices add, the smaller one goes first."""
    E = _ember()
    sd = a.sparse_dim()
    la, _ = _linear(a._i, a.shape[:sd])
    lb, _ = _linear(b._i, b.shape[:sd])
    la = [int(x) for x in np.asarray(la.get() if hasattr(la, 'get') else la)]
    lb = [int(x) for x in np.asarray(lb.get() if hasattr(lb, 'get') else lb)]
    pa, pb, cols = [], [], []    # output position of each a/b entry; the output's source
    i = j = 0
    k = 0
    while i < len(la) or j < len(lb):
        if j >= len(lb) or (i < len(la) and la[i] < lb[j]):
            pa.append(k); cols.append(('a', i)); i += 1
        elif i >= len(la) or lb[j] < la[i]:
            pb.append(k); cols.append(('b', j)); j += 1
        else:
            pa.append(k); pb.append(k); cols.append(('a', i)); i += 1; j += 1
        k += 1
    src_a = np.array([c[1] for c in cols if c[0] == 'a'], dtype=np.int64)
    src_b = np.array([c[1] for c in cols if c[0] == 'b'], dtype=np.int64)
    at_a = np.array([n for n, c in enumerate(cols) if c[0] == 'a'], dtype=np.int64)
    at_b = np.array([n for n, c in enumerate(cols) if c[0] == 'b'], dtype=np.int64)
    dev = a._i.device
    xp = array_module(a._i._data)

    def T(lst):   # int64 positions as a tensor of the indices' array module
        return E.as_tensor(xp.asarray(np.asarray(lst, dtype=np.int64)))
    idx = E.zeros((sd, k), dtype=D.int64, device=dev)
    if len(src_a):
        idx[:, T(at_a)] = a._i[:, T(src_a)]
    if len(src_b):
        idx[:, T(at_b)] = b._i[:, T(src_b)]
    vb = b._v if alpha == 1 else b._v * alpha
    dt = E.result_type(a._v, vb)
    vals = E.zeros((k,) + tuple(a._v.shape[1:]), dtype=dt, device=a._v.device)
    vals = vals.index_add(0, T(pa),
                          a._v.to(dt))
    vals = vals.index_add(0, T(pb),
                          vb.to(dt))
    return _make(idx, vals, a.shape, a._coal and b._coal)


def _add(input, other, *, alpha=1, out=None):
    if out is not None:
        raise _not_impl('add.out')
    if _is_sp(input) and _is_sp(other):
        if input.shape != other.shape:
            raise RuntimeError(f"add: expected sizes of 'self' and 'other' to match, but "
                               f"{list(input.shape)} != {list(other.shape)}")
        if input.sparse_dim() != other.sparse_dim():
            raise _not_impl('add')
        return _merge(input, other, alpha)
    if _is_sp(input):
        raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) "
                           "instead.")
    E = _ember()
    d = other.to_dense()
    return E.add(input, d, alpha=alpha)


def _sub(input, other, *, alpha=1, out=None):
    return _add(input, other, alpha=-alpha, out=out)


def _scalar_of(x):
    if isinstance(x, (int, float, complex, bool)):
        return x
    if isinstance(x, Tensor) and not _is_sp(x) and x.dim() == 0:
        return x
    return None


def _mul(input, other, *, out=None):
    if out is not None:
        raise _not_impl('mul.out')
    s, o = (input, other) if _is_sp(input) else (other, input)
    k = _scalar_of(o)
    if k is None:
        raise _not_impl('mul')   # NOTE: sparse * tensor is not written yet
    return _make(s._i, s._v * k, s.shape, s._coal)


def _rmul(self, other):
    return _mul(self, other)


def _div(input, other, *, rounding_mode=None, out=None):
    k = _scalar_of(other)
    if not _is_sp(input) or k is None or out is not None:
        raise _not_impl('div')
    return _make(input._i, input._v.div(k, rounding_mode=rounding_mode), input.shape,
                 input._coal)


def _neg(input, *, out=None):
    return _make(input._i, -input._v, input.shape, input._coal)


def _check_mm(s, d, name='addmm'):
    if s.sparse_dim() != 2 or s.dense_dim() != 0:
        raise RuntimeError(f"{name}: matrices expected, got {s.sparse_dim()}D tensor")
    if not isinstance(d, Tensor) or _is_sp(d):
        raise _not_impl('mm')
    if d.dim() != 2:
        raise RuntimeError(f"{name}: matrices expected, got {d.dim()}D tensor")
    if d.shape[0] != s.shape[1]:
        raise RuntimeError(f"{name}: Argument #3 (dense): Expected dim 0 size {s.shape[1]}, "
                           f"got {d.shape[0]}")


def _spmm(s, d):
    """``s @ d``: sparse 2-D times dense 2-D, differentiable in ``s``'s values and ``d``."""
    E = _ember()
    _check_mm(s, d)
    rows, cols = s._i[0], s._i[1]
    prod = s._v.unsqueeze(1) * d[cols]
    out = E.zeros((s.shape[0], d.shape[1]), dtype=prod.dtype, device=prod.device)
    return out.index_add(0, rows, prod)


def _dsmm(d, s):
    """``d @ s``: dense 2-D times sparse 2-D."""
    E = _ember()
    if s.sparse_dim() != 2 or s.dense_dim() != 0 or d.dim() != 2:
        raise RuntimeError("mm: matrices expected")
    if d.shape[1] != s.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({d.shape[0]}x"
                           f"{d.shape[1]} and {s.shape[0]}x{s.shape[1]})")
    rows, cols = s._i[0], s._i[1]
    prod = d[:, rows] * s._v
    out = E.zeros((d.shape[0], s.shape[1]), dtype=prod.dtype, device=prod.device)
    return out.index_add(1, cols, prod)


def _mm(input, mat2, *, out=None):
    if out is not None:
        raise _not_impl('mm.out')
    if _is_sp(input) and _is_sp(mat2):
        raise _not_impl('mm')   # NOTE: sparse @ sparse is not written yet
    return _spmm(input, mat2) if _is_sp(input) else _dsmm(input, mat2)


def _matmul(input, other, *, out=None):
    if (_is_sp(input) and input.dim() != 2) or (_is_sp(other) and other.dim() != 2) or \
            (not _is_sp(input) and input.dim() != 2) or (not _is_sp(other) and other.dim() != 2):
        raise _not_impl('matmul')
    return _mm(input, other, out=out)


def _sum(input, dim=None, keepdim=False, *, dtype=None, out=None):
    if keepdim or out is not None:
        raise _not_impl('sum.dim_IntList')
    return sparse_sum(input, dim, dtype=dtype)


def sparse_sum(input, dim=None, dtype=None):
    """See :func:`ember.sparse.sum`."""
    E = _ember()
    v = input._v if dtype is None else input._v.to(dtype)
    if dim is None:
        return v.sum() if dtype is not None else v.sum()
    n = input.dim()
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    wrapped = []
    for d in dims:
        if not -n <= d < n:
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-n}, {n - 1}], but got {d})")
        wrapped.append(d % n)
    if len(set(wrapped)) != len(wrapped):
        raise RuntimeError(f"dim {wrapped[0]} appears multiple times in the list of dims")
    sd = input.sparse_dim()
    sp = sorted(d for d in wrapped if d < sd)
    dn = sorted(d - sd + 1 for d in wrapped if d >= sd)
    if dn:
        v = v.sum(dn)
    if len(sp) == sd:      # every sparse dim reduced: a dense result
        return v.sum(0)
    keep = [d for d in range(sd) if d not in sp]
    idx = input._i[keep]
    shape = Size([input.shape[d] for d in keep] +
                 [input.shape[d] for d in range(sd, n) if d not in wrapped])
    return _make(idx, v, shape, False).coalesce()


def _to_dtype(self, *args, **kwargs):
    """``to``/``double``/``float``...: a sparse tensor whose values are converted (and
    whose indices move with them to another device)."""
    v = self._v.to(*args, **kwargs)
    if v is self._v:
        return self
    return _make(self._i.to(v.device), v, self.shape, self._coal)


def _transpose(self, dim0, dim1):
    """Swap two sparse dimensions (rows of ``indices``); the result is not coalesced, as
    PyTorch flags it."""
    n = self.dim()
    d0, d1 = (_wrap(d, n) for d in (dim0, dim1))
    sd = self.sparse_dim()
    if d0 >= sd or d1 >= sd:
        raise RuntimeError(f"sparse transpose: transposed dimensions must be sparse Got "
                           f"sparse_dim: {sd}, d0: {d0}, d1: {d1}")
    shape = list(self.shape)
    shape[d0], shape[d1] = shape[d1], shape[d0]
    perm = list(range(sd))
    perm[d0], perm[d1] = perm[d1], perm[d0]
    return _make(self._i[perm], self._v, Size(shape), False if d0 != d1 else self._coal)


def _wrap(d, n):
    if not -n <= d < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}],"
                         f" but got {d})")
    return d % n


def _t(self):
    if self.dim() > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 sparse and 0 dense dimensions, "
                           f"but got {self.sparse_dim()} sparse and {self.dense_dim()} dense "
                           "dimensions")
    return self if self.dim() < 2 else _transpose(self, 0, 1)


def _zero_(self):
    """In place: no stored entries left (``nnz == 0``), as PyTorch's ``zero_``."""
    E = _ember()
    if not _is_sp(self):
        raise _not_impl('zero_')
    self._i = E.zeros((self.sparse_dim(), 0), dtype=D.int64, device=self._i.device)
    self._v = E.zeros((0,) + tuple(self._v.shape[1:]), dtype=self._v.dtype,
                      device=self._v.device)
    self._coal = True
    return self


def _detach_(self):
    self._v = self._v.detach()
    return self


def _add_(self, other, *, alpha=1):
    """``dense.add_(sparse)``: the sparse tensor's values added in place;
    ``sparse.add_(sparse)``: the merged entries (as ``+``) become this tensor's."""
    if _is_sp(self):
        if not _is_sp(other):
            raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) "
                               "instead.")
        r = _add(self, other, alpha=alpha)
        self._i, self._v, self._coal = r._i, r._v, r._coal
        return self
    return self.add_(other.to_dense(), alpha=alpha)


def _clone(self, *, memory_format=None):
    return _make(self._i.clone(), self._v.clone(), self.shape, self._coal)


def _cast(dt):
    def f(self, memory_format=None):
        return _make(self._i, self._v.to(dt), self.shape, self._coal)
    return f


_OPS = {
    'add': _add, '__add__': _add, '__radd__': lambda s, o, **k: _add(o, s, **k),
    'sub': _sub, '__sub__': _sub, 'subtract': _sub,
    'mul': _mul, '__mul__': _mul, '__rmul__': _rmul, 'multiply': _mul,
    'div': _div, '__truediv__': _div, 'divide': _div, 'true_divide': _div,
    'neg': _neg, '__neg__': _neg, 'negative': _neg,
    'mm': _mm, 'matmul': _matmul, '__matmul__': _matmul,
    '__rmatmul__': lambda s, o, **k: _matmul(o, s, **k),
    'sum': _sum,
    'to': _to_dtype, 'clone': _clone, 't': _t, 'transpose': _transpose, 'swapaxes': _transpose,
    'add_': _add_, '__iadd__': _add_, 'zero_': _zero_, 'detach_': _detach_,
    'double': _cast(D.float64), 'float': _cast(D.float32), 'half': _cast(D.float16),
}


def _sparse_torch_function(cls, func, types, args=(), kwargs=None):
    kwargs = kwargs or {}
    name = getattr(func, '_ember_op', None) or getattr(func, '__name__', '')
    impl = _OPS.get(name)
    if impl is not None:
        return impl(*args, **kwargs)
    if args and _is_sp(args[0]) and name in _SparseCooTensor.__dict__:
        return getattr(args[0], name)(*args[1:], **kwargs)
    if name == 'is_signed':
        return func.__wrapped__(*args, **kwargs)
    sp = next((a for a in list(args) + list(kwargs.values()) if _is_sp(a)), None)
    raise _not_impl(name.strip('_'), _backend_name(sp) if sp is not None else 'SparseCPU')


_SparseCooTensor.__torch_function__ = classmethod(_sparse_torch_function)


def _int_like(conv):
    def f(self):
        return conv(self.item())
    return f


_SparseCooTensor.__bool__ = _int_like(bool)
_SparseCooTensor.__float__ = _int_like(float)
_SparseCooTensor.__int__ = _int_like(int)


def _no_array(self, *a, **k):
    raise TypeError("can't convert Sparse layout tensor to numpy. Use Tensor.to_dense() "
                    "first.")


_SparseCooTensor.__array__ = _no_array


def _embedding_sparse_grad(indices, values, size):
    """``Embedding(sparse=True)``'s weight gradient (the hook of ``_ops/embedding.py``)."""
    return _make(indices, values, Size(size), values.shape[0] <= 1)


def _set_hooks():
    from .._ops import embedding
    embedding._SPARSE_GRAD = _embedding_sparse_grad


_set_hooks()


def sparse_softmax(input, dim, dtype=None, log=False):
    """See :func:`ember.sparse.softmax`: over the specified entries of each slice along
    ``dim`` (the unspecified ones count as minus infinity); coalesced result."""
    E = _ember()
    if not _is_sp(input):
        raise _not_impl('_sparse_log_softmax' if log else '_sparse_softmax', 'CPU')
    n = input.dim()
    d = _wrap(dim, n)
    s = input.coalesce()
    v = s._v if dtype is None else s._v.to(dtype)
    sd = s.sparse_dim()
    f = E.log_softmax if log else E.softmax
    if d >= sd:      # a dense dimension: softmax of each value row
        return _make(s._i, f(v, d - sd + 1), s.shape, True)
    if v.shape[0] == 0:
        return _make(s._i, v, s.shape, True)
    keep = [k for k in range(sd) if k != d]
    lin, _ = _linear(s._i[keep], [s.shape[k] for k in keep])
    xp = array_module(lin)
    _, grp = xp.unique(lin, return_inverse=True)
    grp = grp.reshape(-1)
    ng = int(grp.max()) + 1
    g = E.as_tensor(grp.astype(np.int64))
    with E.no_grad():   # the per-group maximum, for a stable exp
        mx = E.full((ng,) + tuple(v.shape[1:]), -float('inf'), dtype=v.dtype,
                    device=v.device).index_reduce(0, g, v, 'amax')
    z = v - mx[g]
    ez = z.exp()
    tot = E.zeros((ng,) + tuple(v.shape[1:]), dtype=v.dtype, device=v.device).index_add(0, g, ez)
    out = z - tot.log()[g] if log else ez / tot[g]
    return _make(s._i, out, s.shape, True)
