"""``torch.distributed._functional_collectives``: out-of-place collectives that return a new
tensor (the input is left as it is), as the tracing-friendly API libraries build on.

``group`` may be a ``ProcessGroup``, a group's name, a ``DeviceMesh`` (1-D), a
``(DeviceMesh, mesh_dim)`` pair, or a list of global ranks (the default group's ranks, or a
group made before with exactly those ranks).

NOTE: unlike PyTorch, the collective has completed when the call returns (the MPI request is
waited for at once); the result is still an :class:`AsyncCollectiveTensor` and
:func:`wait_tensor` is accepted, so code written for torch runs unchanged.
"""
from .. import _tensor as _T

__all__ = ['all_reduce', 'all_gather_tensor', 'reduce_scatter_tensor', 'wait_tensor',
           'AsyncCollectiveTensor', 'all_reduce_coalesced', 'all_to_all_single', 'broadcast',
           'all_gather_tensor_autograd', 'reduce_scatter_tensor_autograd',
           'all_to_all_single_autograd']


class AsyncCollectiveTensor(_T.Tensor):
    """The result of a functional collective: a tensor whose value is the collective's
    output. ``wait()`` (or :func:`wait_tensor`) returns it as a plain tensor.

    NOTE: unlike PyTorch, the collective has already completed, so ops on it need no wait
    and return plain tensors.

    Example::

        >>> out = funcol.all_reduce(t, 'sum', group=dist.group.WORLD)
        >>> out.wait()
    """
    __slots__ = ()
    __torch_function__ = _T._disabled_torch_function_impl

    @property
    def elem(self):
        """The result as a plain tensor."""
        return self.wait()

    def trigger_wait(self):
        """Wait for the collective (already done) and return the plain result."""
        return self.wait()

    def wait(self):
        """The result as a plain tensor (sharing memory)."""
        t = _T._new_tensor(self._data)
        t._st = self._storage_obj()
        return t

    def numpy(self, *a, **k):
        return self.wait().numpy(*a, **k)

    def __repr__(self):
        return f"AsyncCollectiveTensor({self.wait()!r})"


def _wrap(t):
    r = _T._new_tensor(t._data, AsyncCollectiveTensor)
    r._st = t._storage_obj()
    return r


def _resolve_group(group):
    """The ProcessGroup that ``group`` names (see the module's docstring)."""
    from .distributed_c10d import ProcessGroup, _state, _world, get_process_group_ranks
    from ._device_mesh import DeviceMesh
    if isinstance(group, ProcessGroup):
        return group
    if isinstance(group, DeviceMesh):
        if group.ndim != 1:
            raise ValueError("Only 1D mesh is supported, pass in (DeviceMesh, int) together "
                             "if mesh > 1D")
        return group.get_group(0)
    if isinstance(group, tuple) and len(group) == 2 and isinstance(group[0], DeviceMesh):
        return group[0].get_group(group[1])
    if isinstance(group, str):
        pg = _state['groups'].get(group)
        if pg is None:
            raise ValueError(f"Could not resolve the process group named {group!r}")
        return pg
    if isinstance(group, list):
        if group and isinstance(group[0], list):
            me = _world().rank()
            rows = [r for r in group if me in r]
            if len(rows) != 1:
                raise ValueError("group: this rank must be in exactly one of the rank lists")
            group = rows[0]
        w = _world()
        if list(group) == get_process_group_ranks(w):
            return w
        for pg in _state['groups'].values():
            if get_process_group_ranks(pg) == list(group):
                return pg
        raise ValueError(f"Could not find a process group with ranks {group}")
    raise ValueError(f"Unsupported group type: {type(group)}, {group}")


def _red(reduceOp):
    from . import ReduceOp
    op = getattr(reduceOp, 'name', reduceOp)
    op = str(op).upper()
    if op not in ('SUM', 'AVG', 'PRODUCT', 'MIN', 'MAX', 'BAND', 'BOR', 'BXOR'):
        raise ValueError(f"Unrecognized reduce op: {reduceOp}")
    return getattr(ReduceOp, op)


def all_reduce(self, reduceOp, group, tag=''):
    """Reduce ``self`` over ``group``: every rank gets the reduction as a new tensor.

    Args:
        self (Tensor): this rank's tensor (not modified).
        reduceOp (str): 'sum', 'avg', 'product', 'min', 'max', 'band', 'bor' or 'bxor'.
        group: the ranks (see the module's docstring).
        tag (str): ignored (torch's legacy argument).

    Returns:
        AsyncCollectiveTensor: the reduction, of ``self``'s shape and dtype.

    Example::

        >>> funcol.all_reduce(ember.ones(2), 'sum', dist.group.WORLD)   # on 2 ranks
        AsyncCollectiveTensor(tensor([2., 2.]))
    """
    from .distributed_c10d import all_reduce as _ar
    pg = _resolve_group(group)
    op = _red(reduceOp)
    out = self.detach().clone()
    _ar(out, op, pg)
    return _wrap(out)


def all_gather_tensor(self, gather_dim, group, tag=''):
    """Gather every rank's ``self`` (same shape on every rank) concatenated along
    ``gather_dim``, in group-rank order.

    Args:
        self (Tensor): this rank's tensor.
        gather_dim (int): the dimension to concatenate along.
        group: the ranks (see the module's docstring).
        tag (str): ignored.

    Returns:
        AsyncCollectiveTensor (a plain Tensor when ``gather_dim`` is not 0, as in torch):
        ``group size`` times larger along ``gather_dim``.

    Example::

        >>> funcol.all_gather_tensor(ember.ones(2, 3), 0, dist.group.WORLD).shape  # 2 ranks
        ember.Size([4, 3])
    """
    from .. import empty, cat
    from .distributed_c10d import all_gather_into_tensor
    pg = _resolve_group(group)
    n = pg.size()
    src = self.detach().contiguous()
    nd = src.dim()
    d = gather_dim + nd if gather_dim < 0 else gather_dim
    if nd and not 0 <= d < nd:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}],"
                         f" but got {gather_dim})")
    out = empty((n * src.shape[0],) + tuple(src.shape[1:]) if nd else (n,), dtype=src.dtype)
    all_gather_into_tensor(out, src, pg)
    if nd and d != 0:      # torch waits and concatenates: a plain tensor
        return cat(out.chunk(n, 0), d)
    return _wrap(out)


def reduce_scatter_tensor(self, reduceOp, scatter_dim, group, tag=''):
    """Reduce ``self`` over ``group`` and give each rank its chunk of the result along
    ``scatter_dim`` (whose size must be divisible by the group size).

    Args:
        self (Tensor): this rank's tensor.
        reduceOp (str): as :func:`all_reduce`.
        scatter_dim (int): the dimension that is split.
        group: the ranks (see the module's docstring).
        tag (str): ignored.

    Returns:
        AsyncCollectiveTensor: this rank's chunk of the reduction.

    Example::

        >>> funcol.reduce_scatter_tensor(ember.ones(4), 'sum', 0, dist.group.WORLD)  # 2 ranks
        AsyncCollectiveTensor(tensor([2., 2.]))
    """
    from .. import empty, cat
    from .distributed_c10d import reduce_scatter_tensor as _rs
    pg = _resolve_group(group)
    n = pg.size()
    op = _red(reduceOp)
    nd = self.dim()
    d = scatter_dim + nd if scatter_dim < 0 else scatter_dim
    if not 0 <= d < max(nd, 1):
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}],"
                         f" but got {scatter_dim})")
    if self.shape[d] % n:
        raise AssertionError(f"input dimension {d} ({self.shape[d]}) must be a multiple of "
                             f"group_size {n}")
    src = self.detach()
    if d != 0:
        src = cat(src.chunk(n, d), 0)
    src = src.contiguous()
    out = empty((src.shape[0] // n,) + tuple(src.shape[1:]), dtype=src.dtype)
    _rs(out, src, op, pg)
    if d != 0:
        shp = list(self.shape)
        shp[d] //= n
        out = out.reshape(shp)
    return _wrap(out)


def all_reduce_coalesced(self, reduceOp, group, tag=''):
    """:func:`all_reduce` of each tensor of the list ``self``.

    Example::

        >>> funcol.all_reduce_coalesced([a, b], 'sum', dist.group.WORLD)
    """
    return [all_reduce(t, reduceOp, group, tag) for t in self]


def all_to_all_single(self, output_split_sizes, input_split_sizes, group, tag=''):
    """Split ``self`` along dim 0 (``input_split_sizes``, or equally), send piece ``i`` to
    group rank ``i``, and concatenate what arrives (``output_split_sizes``, or equal).

    Example::

        >>> funcol.all_to_all_single(t, None, None, dist.group.WORLD)
    """
    from .. import empty
    from .distributed_c10d import all_to_all_single as _a2a
    pg = _resolve_group(group)
    src = self.detach().contiguous()
    rows = sum(output_split_sizes) if output_split_sizes is not None else src.shape[0]
    out = empty((rows,) + tuple(src.shape[1:]), dtype=src.dtype)
    _a2a(out, src, output_split_sizes, input_split_sizes, pg)
    return _wrap(out)


def broadcast(self, src, group, tag=''):
    """A new tensor holding global rank ``src``'s ``self`` on every rank.

    Example::

        >>> funcol.broadcast(t, 0, dist.group.WORLD)
    """
    from .distributed_c10d import broadcast as _bc
    pg = _resolve_group(group)
    out = self.detach().clone()
    _bc(out, src, pg)
    return _wrap(out)


def wait_tensor(tensor):
    """Wait for the collective that produced ``tensor`` and return its value as a plain
    tensor (the tensor itself when it is not an :class:`AsyncCollectiveTensor`).

    Example::

        >>> funcol.wait_tensor(funcol.all_reduce(t, 'sum', dist.group.WORLD))
    """
    if isinstance(tensor, AsyncCollectiveTensor):
        return tensor.wait()
    return tensor


def _autograd_fns():
    """The differentiable forms' Functions (made once, on first use: ``autograd.function``
    is imported lazily so that this module stays light)."""
    global _FNS
    if _FNS is not None:
        return _FNS
    from ..autograd.function import Function

    class _AllGatherT(Function):
        @staticmethod
        def forward(ctx, x, dim, group):
            ctx.dim, ctx.group = dim, group
            return wait_tensor(all_gather_tensor(x, dim, group))

        @staticmethod
        def backward(ctx, g):
            return wait_tensor(reduce_scatter_tensor(g, 'sum', ctx.dim, ctx.group)), None, None

    class _ReduceScatterT(Function):
        @staticmethod
        def forward(ctx, x, op, dim, group):
            ctx.dim, ctx.group, ctx.avg = dim, group, str(op).lower() == 'avg'
            return wait_tensor(reduce_scatter_tensor(x, op, dim, group))

        @staticmethod
        def backward(ctx, g):
            full = wait_tensor(all_gather_tensor(g, ctx.dim, ctx.group))
            if ctx.avg:
                full = full / _resolve_group(ctx.group).size()
            return full, None, None, None

    class _AllToAllT(Function):
        @staticmethod
        def forward(ctx, x, out_splits, in_splits, group):
            ctx.splits, ctx.group = (out_splits, in_splits), group
            return wait_tensor(all_to_all_single(x, out_splits, in_splits, group))

        @staticmethod
        def backward(ctx, g):
            out_splits, in_splits = ctx.splits
            return (wait_tensor(all_to_all_single(g, in_splits, out_splits, ctx.group)),
                    None, None, None)

    _FNS = (_AllGatherT, _ReduceScatterT, _AllToAllT)
    return _FNS


_FNS = None


def all_gather_tensor_autograd(self, gather_dim, group, tag=''):
    """:func:`all_gather_tensor` that autograd differentiates: the gradient of each rank's
    piece is the sum over ranks of the gradients of the gathered tensor (a reduce-scatter).

    Args:
        self (Tensor): this rank's tensor.
        gather_dim (int): the dimension to concatenate along.
        group: the ranks (see the module's docstring).
        tag (str): ignored.

    Example::

        >>> y = funcol.all_gather_tensor_autograd(x, 0, dist.group.WORLD)
        >>> y.sum().backward()
    """
    return _autograd_fns()[0].apply(self, gather_dim, group)


def reduce_scatter_tensor_autograd(self, reduceOp, scatter_dim, group, tag=''):
    """:func:`reduce_scatter_tensor` that autograd differentiates (its backward all-gathers
    the gradient; divided by the group size for ``'avg'``).

    Args:
        self (Tensor): this rank's tensor.
        reduceOp (str): 'sum' or 'avg' (the differentiable reductions).
        scatter_dim (int): the dimension that is split.
        group: the ranks (see the module's docstring).
        tag (str): ignored.

    Example::

        >>> y = funcol.reduce_scatter_tensor_autograd(x, 'sum', 0, dist.group.WORLD)
    """
    if str(getattr(reduceOp, 'name', reduceOp)).lower() not in ('sum', 'avg'):
        raise RuntimeError(f"reduce_scatter_tensor_autograd: reduceOp {reduceOp} is not "
                           f"differentiable (use 'sum' or 'avg')")
    return _autograd_fns()[1].apply(self, str(getattr(reduceOp, 'name', reduceOp)).lower(),
                                    scatter_dim, group)


def all_to_all_single_autograd(self, output_split_sizes, input_split_sizes, group, tag=''):
    """:func:`all_to_all_single` that autograd differentiates (its backward is the
    all-to-all with the split sizes swapped).

    Args:
        self (Tensor): this rank's tensor, split along dim 0.
        output_split_sizes (list of int, optional): rows received from each rank.
        input_split_sizes (list of int, optional): rows sent to each rank.
        group: the ranks (see the module's docstring).
        tag (str): ignored.

    Example::

        >>> y = funcol.all_to_all_single_autograd(x, None, None, dist.group.WORLD)
    """
    return _autograd_fns()[2].apply(self, output_split_sizes, input_split_sizes, group)
