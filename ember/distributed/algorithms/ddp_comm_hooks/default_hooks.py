"""The default DDP communication hooks: plain all-reduce, and all-reduce of the bucket cast
to float16 / bfloat16 (half the bytes) and cast back."""
from .._futures import all_reduce_future

__all__ = ['allreduce_hook', 'fp16_compress_hook', 'bf16_compress_hook', 'fp16_compress_wrapper',
           'bf16_compress_wrapper']


def _allreduce_fut(process_group, tensor, world_size=None):
    """Divide ``tensor`` by the group size and all-reduce it (SUM); a future of the tensor."""
    from .... import distributed as dist
    n = world_size if world_size is not None else dist.get_world_size(process_group)
    tensor.div_(n)
    return all_reduce_future(tensor, process_group).then(lambda f: _first(f.value()))


def _first(v):
    return v[0] if isinstance(v, (list, tuple)) else v


def allreduce_hook(process_group, bucket):
    """All-reduce the bucket's gradients and divide by the group size (what DDP does
    without a hook).

    Args:
        process_group (ProcessGroup or None): the group (``None``: the world).
        bucket (GradBucket): the bucket.

    Returns:
        A future of the averaged flat tensor.

    Example::

        >>> ddp.register_comm_hook(None, allreduce_hook)
    """
    return _allreduce_fut(process_group, bucket.buffer())


def _compress_hook(dtype, process_group, bucket):
    from .... import distributed as dist
    n = dist.get_world_size(process_group)
    buf = bucket.buffer()
    comp = buf.to(dtype).div_(n)

    def decompress(fut):
        buf.copy_(_first(fut.value()))
        return buf
    return all_reduce_future(comp, process_group).then(decompress)


def fp16_compress_hook(process_group, bucket):
    """Cast the bucket to float16, divide by the group size, all-reduce, and cast back.

    Args:
        process_group (ProcessGroup or None): the group (``None``: the world).
        bucket (GradBucket): the bucket.

    Returns:
        A future of the averaged bucket (the bucket's own dtype).

    Example::

        >>> ddp.register_comm_hook(None, fp16_compress_hook)
    """
    from .... import _dtype as D
    return _compress_hook(D.float16, process_group, bucket)


def bf16_compress_hook(process_group, bucket):
    """As :func:`fp16_compress_hook`, with bfloat16.

    Example::

        >>> ddp.register_comm_hook(None, bf16_compress_hook)
    """
    from .... import _dtype as D
    return _compress_hook(D.bfloat16, process_group, bucket)


def _compress_wrapper(dtype, hook):
    def wrapped(state, bucket):
        buf = bucket.buffer()
        orig = buf.clone()
        bucket.set_buffer(buf.to(dtype).to(buf.dtype))   # round the gradients to ``dtype``
        fut = hook(state, bucket)

        def back(f):
            r = _first(f.value())
            return r.to(orig.dtype)
        return fut.then(back)
    return wrapped


def fp16_compress_wrapper(hook):
    """Wrap ``hook`` so that it sees the bucket rounded to float16 and its result is cast
    back to the bucket's dtype.

    NOTE: unlike PyTorch (which hands the hook a float16 buffer), the wrapped hook sees a
    buffer of the original dtype holding float16-rounded values.

    Example::

        >>> ddp.register_comm_hook(state, fp16_compress_wrapper(powerSGD_hook))
    """
    from .... import _dtype as D
    return _compress_wrapper(D.float16, hook)


def bf16_compress_wrapper(hook):
    """As :func:`fp16_compress_wrapper`, with bfloat16.

    Example::

        >>> ddp.register_comm_hook(state, bf16_compress_wrapper(powerSGD_hook))
    """
    from .... import _dtype as D
    return _compress_wrapper(D.bfloat16, hook)
