"""Differentiable collectives: each returns new tensors (the inputs are not modified) and
its backward runs the adjoint collective (all_reduce <-> all_reduce, all_gather <->
reduce_scatter, broadcast <-> reduce, scatter <-> gather, all_to_all <-> all_to_all), so
gradients flow across ranks. Every rank must run the backward pass (the adjoint collective
needs all of them)."""
from ...autograd.function import Function
from .. import ReduceOp, group

__all__ = ['broadcast', 'gather', 'scatter', 'reduce', 'reduce_scatter', 'all_gather',
           'all_to_all', 'all_to_all_single', 'all_reduce', 'ReduceOp', 'group']


def _d():
    from ... import distributed
    return distributed


def _zeros_like(t):
    from ..._ops.creation import zeros_like
    return zeros_like(t)


class _Broadcast(Function):
    @staticmethod
    def forward(ctx, src, grp, tensor):
        ctx.src, ctx.group = src, grp
        d = _d()
        ctx.rank = d.get_rank(grp)
        t = tensor.clone().contiguous()
        d.broadcast(t, src, group=grp)
        return t

    @staticmethod
    def backward(ctx, g):
        gi = _Reduce.apply(ctx.src, ReduceOp.SUM, ctx.group, g)
        if ctx.src != ctx.rank:
            gi = gi * 0
        return None, None, gi


class _Reduce(Function):
    @staticmethod
    def forward(ctx, dst, op, grp, tensor):
        ctx.dst, ctx.group = dst, grp
        t = tensor.clone().contiguous()
        _d().reduce(t, dst, op=op, group=grp)
        return t

    @staticmethod
    def backward(ctx, g):
        return None, None, None, _Broadcast.apply(ctx.dst, ctx.group, g)


class _AllReduce(Function):
    @staticmethod
    def forward(ctx, op, grp, tensor):
        ctx.op, ctx.group = op, grp
        t = tensor.clone().contiguous()
        _d().all_reduce(t, op=op, group=grp)
        return t

    @staticmethod
    def backward(ctx, g):
        return None, None, _AllReduce.apply(ctx.op, ctx.group, g)


class _AllGather(Function):
    @staticmethod
    def forward(ctx, grp, tensor):
        d = _d()
        ctx.group = grp
        n = d.get_world_size(grp)
        outs = [_zeros_like(tensor) for _ in range(n)]
        d.all_gather(outs, tensor.contiguous(), group=grp)
        return tuple(outs)

    @staticmethod
    def backward(ctx, *grads):
        d = _d()
        grads = [g.contiguous() for g in grads]
        out = _zeros_like(grads[d.get_rank(ctx.group)])
        d.reduce_scatter(out, grads, op=ReduceOp.SUM, group=ctx.group)
        return None, out


class _ReduceScatter(Function):
    @staticmethod
    def forward(ctx, op, grp, output, *inputs):
        ctx.group = grp
        out = _zeros_like(output)
        _d().reduce_scatter(out, [t.contiguous() for t in inputs], op=op, group=grp)
        return out

    @staticmethod
    def backward(ctx, g):
        return (None, None, None) + _AllGather.apply(ctx.group, g)


class _Gather(Function):
    @staticmethod
    def forward(ctx, dst, grp, tensor):
        d = _d()
        ctx.dst, ctx.group = dst, grp
        n = d.get_world_size(grp)
        outs = [_zeros_like(tensor) for _ in range(n)]
        me = d.get_rank(grp)
        d.gather(tensor.contiguous(), outs if me == dst else None, dst=dst, group=grp)
        return tuple(outs)

    @staticmethod
    def backward(ctx, *grads):
        return None, None, _Scatter.apply(ctx.dst, ctx.group, *grads)


class _Scatter(Function):
    @staticmethod
    def forward(ctx, src, grp, *tensors):
        d = _d()
        ctx.src, ctx.group = src, grp
        out = _zeros_like(tensors[d.get_rank(grp)])
        me = d.get_rank(grp)
        d.scatter(out, [t.contiguous() for t in tensors] if me == src else None, src=src,
                  group=grp)
        return out

    @staticmethod
    def backward(ctx, g):
        return (None, None) + _Gather.apply(ctx.src, ctx.group, g)


class _AlltoAll(Function):
    @staticmethod
    def forward(ctx, grp, out_list, *tensors):
        ctx.group = grp
        ctx.in_shapes = [t.shape for t in tensors]
        outs = [_zeros_like(o) for o in out_list]
        _d().all_to_all(outs, [t.contiguous() for t in tensors], group=grp)
        return tuple(outs)

    @staticmethod
    def backward(ctx, *grads):
        from ..._ops.creation import zeros
        dst = [zeros(s, dtype=grads[0].dtype) for s in ctx.in_shapes]
        return (None, None) + _AlltoAll.apply(ctx.group, dst, *[g.contiguous() for g in grads])


class _AlltoAllSingle(Function):
    @staticmethod
    def forward(ctx, grp, output, out_splits, in_splits, inp):
        ctx.group, ctx.out_splits, ctx.in_splits = grp, out_splits, in_splits
        ctx.in_shape = inp.shape
        out = _zeros_like(output)
        _d().all_to_all_single(out, inp.contiguous(), output_split_sizes=out_splits,
                               input_split_sizes=in_splits, group=grp)
        return out

    @staticmethod
    def backward(ctx, g):
        from ..._ops.creation import zeros
        dst = zeros(ctx.in_shape, dtype=g.dtype)
        return (None, None, None, None,
                _AlltoAllSingle.apply(ctx.group, dst, ctx.in_splits, ctx.out_splits,
                                      g.contiguous()))


def broadcast(tensor, src, group=group.WORLD):
    """Broadcast ``tensor`` from rank ``src``; returns the received tensor. Backward: the
    gradients of every rank are summed onto ``src`` (others get zero).

    Args:
        tensor (Tensor): the data (meaningful on ``src``).
        src (int): the source rank.
        group (ProcessGroup, optional): the group (default: the world).

    Example::

        >>> y = ember.distributed.nn.functional.broadcast(x, src=0)
    """
    return _Broadcast.apply(src, group, tensor)


def gather(tensor, dst=0, group=group.WORLD):
    """Gather ``tensor`` of every rank on ``dst``; returns a tuple of ``world_size``
    tensors (zeros on other ranks). Backward: scatter of the gradients from ``dst``.

    Example::

        >>> parts = ember.distributed.nn.functional.gather(x, dst=0)
    """
    return _Gather.apply(dst, group, tensor)


def scatter(tensors, src=0, group=group.WORLD):
    """Rank ``src`` sends ``tensors[i]`` to rank ``i``; returns this rank's piece.
    Backward: gather of the gradients on ``src``.

    Example::

        >>> mine = ember.distributed.nn.functional.scatter(list_on_src, src=0)
    """
    return _Scatter.apply(src, group, *tensors)


def reduce(tensor, dst, op=ReduceOp.SUM, group=group.WORLD):
    """Reduce ``tensor`` of every rank onto ``dst`` (returned; other ranks get their input
    back). Backward: broadcast of ``dst``'s gradient.

    Example::

        >>> s = ember.distributed.nn.functional.reduce(x, dst=0)
    """
    return _Reduce.apply(dst, op, group, tensor)


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=group.WORLD):
    """Reduce ``input_list[i]`` over ranks onto rank ``i``; returns this rank's result
    (shaped as ``output``). Backward: all_gather of the gradients.

    Example::

        >>> y = ember.distributed.nn.functional.reduce_scatter(out, [a, b])
    """
    return _ReduceScatter.apply(op, group, output, *input_list)


def all_gather(tensor, group=group.WORLD):
    """Gather ``tensor`` from every rank; returns a tuple of ``world_size`` tensors.
    Backward: each rank's gradient is the sum over ranks of the gradients of its piece
    (a reduce_scatter).

    Args:
        tensor (Tensor): this rank's piece (same shape on every rank).
        group (ProcessGroup, optional): the group.

    Example::

        >>> xs = ember.distributed.nn.functional.all_gather(x)
        >>> ember.cat(xs).sum().backward()
    """
    return _AllGather.apply(group, tensor)


def all_to_all(output_tensor_list, input_tensor_list, group=group.WORLD):
    """Send ``input_tensor_list[i]`` to rank ``i``; returns the received tensors (shaped as
    ``output_tensor_list``). Backward: all_to_all of the gradients.

    Example::

        >>> outs = ember.distributed.nn.functional.all_to_all(out_list, in_list)
    """
    return _AlltoAll.apply(group, output_tensor_list, *input_tensor_list)


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None,
                      group=group.WORLD):
    """Split ``input`` along dim 0 and exchange the pieces (see
    ``ember.distributed.all_to_all_single``); returns a tensor shaped as ``output``.
    Backward: the reverse exchange of the gradient.

    Example::

        >>> y = ember.distributed.nn.functional.all_to_all_single(out, x)
    """
    return _AlltoAllSingle.apply(group, output, output_split_sizes, input_split_sizes, input)


def all_reduce(tensor, op=ReduceOp.SUM, group=group.WORLD):
    """All-reduce ``tensor`` (returned as a new tensor; the input is unchanged). Backward:
    the gradient is all-reduced with the same op.

    Args:
        tensor (Tensor): the input.
        op (ReduceOp): the reduction. Default: SUM.
        group (ProcessGroup, optional): the group.

    Example::

        >>> total = ember.distributed.nn.functional.all_reduce(x)
        >>> total.sum().backward()      # x.grad == world_size
    """
    return _AllReduce.apply(op, group, tensor)
