"""``scatter`` / ``scatter_kwargs`` / ``gather``: split nested inputs over devices along a
dim and concatenate outputs back (both differentiable: the pieces are ``chunk`` and
``to`` / ``cat`` of ember ops)."""
import warnings

from ..._tensor import Tensor
from . import _devices as _dev

__all__ = ['scatter', 'scatter_kwargs', 'gather']


def _is_namedtuple(obj):
    return isinstance(obj, tuple) and hasattr(obj, '_asdict') and hasattr(obj, '_fields')


def _scatter(inputs, devices, dim):
    """``scatter`` over resolved ``devices`` (``torch.device`` objects)."""
    def scatter_map(obj):
        if isinstance(obj, Tensor):
            return [c.to(d) for c, d in zip(obj.chunk(len(devices), dim), devices)]
        if _is_namedtuple(obj):
            return [type(obj)(*args) for args in zip(*map(scatter_map, obj))]
        if isinstance(obj, tuple) and len(obj) > 0:
            return list(zip(*map(scatter_map, obj)))
        if isinstance(obj, list) and len(obj) > 0:
            return [list(i) for i in zip(*map(scatter_map, obj))]
        if isinstance(obj, dict) and len(obj) > 0:
            return [type(obj)(i) for i in zip(*map(scatter_map, obj.items()))]
        return [obj for _ in devices]
    try:
        return scatter_map(inputs)
    finally:
        scatter_map = None   # break the closure's reference cycle


def scatter(inputs, target_gpus, dim=0):
    """Splits the tensors in ``inputs`` (nested in tuples, lists, dicts, named tuples) into
    ``len(target_gpus)`` chunks along ``dim``, one per device; other objects are repeated.

    Args:
        inputs: a tensor or a nested structure of them.
        target_gpus (list of int or device): accelerator devices.
        dim (int): the dim to split. Default: 0

    Returns:
        list: one structure like ``inputs`` per device (fewer when a tensor has fewer
        slices than devices).

    Example::

        >>> from ember.nn.parallel import scatter
        >>> scatter('not a tensor', [0, 1])
        ['not a tensor', 'not a tensor']
    """
    devices = [_dev.to_device(_dev.device_index(d)) for d in target_gpus]
    return _scatter(inputs, devices, dim)


def _scatter_kwargs(inputs, kwargs, devices, dim):
    sin = _scatter(inputs, devices, dim) if inputs else []
    skw = _scatter(kwargs, devices, dim) if kwargs else []
    if len(sin) < len(skw):
        sin.extend(() for _ in range(len(skw) - len(sin)))
    elif len(skw) < len(sin):
        skw.extend({} for _ in range(len(sin) - len(skw)))
    return tuple(sin), tuple(skw)


def scatter_kwargs(inputs, kwargs, target_gpus, dim=0):
    """:func:`scatter` for positional and keyword arguments together; the shorter result
    is padded with ``()`` / ``{}`` so both have one entry per replica.

    Args:
        inputs (tuple): positional arguments.
        kwargs (dict or None): keyword arguments.
        target_gpus (list of int or device): accelerator devices.
        dim (int): the dim to split. Default: 0

    Example::

        >>> from ember.nn.parallel.scatter_gather import scatter_kwargs
        >>> scatter_kwargs(('a',), {'k': 1}, [0, 1])
        ((('a',), ('a',)), ({'k': 1}, {'k': 1}))
    """
    devices = [_dev.to_device(_dev.device_index(d)) for d in target_gpus]
    return _scatter_kwargs(inputs, kwargs, devices, dim)


def _gather(outputs, target, dim):
    """``gather`` onto a resolved ``target`` device."""
    def gather_map(outs):
        out = outs[0]
        if isinstance(out, Tensor):
            if all(o.dim() == 0 for o in outs) and dim == 0:
                warnings.warn("Was asked to gather along dimension 0, but all input tensors "
                              "were scalars; will instead unsqueeze and return a vector.",
                              stacklevel=4)
                outs = [o.reshape(1) for o in outs]
            from ..._ops.shape import cat
            return cat([o.to(target) for o in outs], dim)
        if out is None:
            return None
        if isinstance(out, dict):
            if not all(len(out) == len(d) for d in outs):
                raise ValueError("All dicts must have the same number of keys")
            return type(out)((k, gather_map([d[k] for d in outs])) for k in out)
        if _is_namedtuple(out):
            return type(out)._make(map(gather_map, zip(*outs)))
        return type(out)(map(gather_map, zip(*outs)))
    try:
        return gather_map(outputs)
    finally:
        gather_map = None


def gather(outputs, target_device, dim=0):
    """Concatenates per-device outputs (tensors, nested in tuples, lists, dicts, named
    tuples) along ``dim`` on ``target_device`` (``-1``: the CPU). Zero-dim tensors gathered
    along dim 0 become a vector (with PyTorch's warning).

    Args:
        outputs (list): one output structure per device.
        target_device (int or device): where the result goes (-1: CPU).
        dim (int): the dim to concatenate. Default: 0

    Example::

        >>> from ember.nn.parallel import gather
        >>> gather([None, None], -1) is None
        True
    """
    if isinstance(target_device, int) and target_device == -1:
        target = _dev.to_device(-1)
    else:
        target = _dev.to_device(_dev.device_index(target_device))
    if not _dev.accelerator_available() and _has_tensors(outputs):
        raise AssertionError("Gather function not implemented for CPU tensors")
    return _gather(outputs, target, dim)


def _has_tensors(obj):
    if isinstance(obj, Tensor):
        return True
    if isinstance(obj, dict):
        return any(_has_tensors(v) for v in obj.values())
    if isinstance(obj, (list, tuple)):
        return any(_has_tensors(v) for v in obj)
    return False
