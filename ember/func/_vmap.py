"""``vmap``: map a function over a batch dimension of its inputs."""
from .._tensor import Tensor as _Tensor
from ..utils._pytree import tree_flatten, tree_unflatten, _broadcast_to_and_flatten

__all__ = []

_RANDOM_MSG = ("vmap: called random operation while in randomness error mode. Please either use "
               "the 'same' or 'different' randomness flags on vmap or perform the randomness "
               "operation out of vmap")


def _is_tensor(x):
    return isinstance(x, _Tensor)


def _fname(func):
    return getattr(func, '__name__', repr(func))


def vmap(func, in_dims=0, out_dims=0, randomness='error', *, chunk_size=None):
    """Vectorizing map: ``vmap(func)(x)`` applies ``func`` to each slice of ``x`` along
    ``in_dims`` and stacks the results along ``out_dims``.

    Args:
        func (callable): a function of tensors (or pytrees of tensors) returning tensors.
        in_dims (int, None or pytree): the mapped dimension of each input (``None``: not
            mapped, passed whole); a single value applies to every input. Default: ``0``
        out_dims (int or tuple): where the mapped dimension goes in each output.
            Default: ``0``
        randomness (str): ``'error'`` (random ops inside raise), ``'different'`` (each
            sample draws its own numbers) or ``'same'`` (every sample draws the same
            numbers). Default: ``'error'``
        chunk_size (int, optional): accepted for compatibility (``None`` or >= 1).

    Example::

        >>> x = ember.randn(4, 3)
        >>> ember.func.vmap(ember.dot)(x, x).shape          # batched dot products
        ember.Size([4])
        >>> ember.func.vmap(lambda v, w: v @ w, in_dims=(0, None))(x, ember.randn(3)).shape
        ember.Size([4])

    NOTE: unlike PyTorch, batching works by a "try batched, else loop" strategy. vmap first
    runs ``func`` once on whole batches: while it runs, every op that touches a mapped
    tensor is rewritten by a batching rule into one op over the batch (pointwise ops,
    reductions and softmax over a dim, view/reshape/permute/unsqueeze/expand, indexing with
    ints, slices and unbatched index tensors, index_select/gather, cat/stack/split/chunk/
    unbind, matmul/linear with batched or shared weights, convolutions and pooling with
    shared weights, layer_norm, embedding, the element-wise and class-index losses, and
    ``grad``/``grad_and_value`` inside, so the per-sample-gradient and ensembling recipes
    are batched). Any op without
    a rule, a random op, an in-place op on an unmapped tensor, a nested transform other
    than ``grad``, or an error makes vmap fall back to running ``func`` once per sample (a
    Python loop) and stacking the results; the batched result is also checked against a
    per-sample run of the first sample (falling back on a mismatch). So results are those
    of the per-sample loop, but Python side effects of ``func`` (appending to a list,
    counters) may happen more than once per sample. Shape queries (``x.shape``,
    ``x.size()``) inside the batched attempt see the batch dim; the check catches the
    results that differ. Keyword arguments are passed unmapped. Random operations in
    ``'error'`` mode are detected after the first sample of the loop.
    """
    if randomness not in ('error', 'different', 'same'):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")
    if chunk_size is not None and not (isinstance(chunk_size, int) and chunk_size > 0):
        raise ValueError("vmap: chunk_size should be None or greater than 0. (got "
                         f"{chunk_size})")

    def wrapped(*args, **kwargs):
        name = _fname(func)
        if not isinstance(in_dims, (int, tuple)) and in_dims is not None:
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): expected "
                             f"`in_dims` to be int or a (potentially nested) tuple matching "
                             f"the structure of inputs, got: {type(in_dims)}.")
        if not args:
            raise ValueError(f"vmap({name})(<inputs>): got no inputs. Maybe you forgot to add "
                             "inputs, or you are trying to vmap over a function with no "
                             "inputs. The latter is unsupported.")
        leaves, spec = tree_flatten(args)
        prefix = in_dims if not isinstance(in_dims, tuple) else tuple(in_dims)
        if isinstance(prefix, tuple) and len(prefix) != len(args):
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): in_dims is not "
                             f"compatible with the structure of `inputs`. in_dims has structure "
                             f"{tree_flatten(in_dims)[1]} but inputs has structure {spec}.")
        dims = _broadcast_to_and_flatten(prefix, spec)
        if dims is None:
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): in_dims is not "
                             f"compatible with the structure of `inputs`. in_dims has structure "
                             f"{tree_flatten(in_dims)[1]} but inputs has structure {spec}.")
        sizes = []
        norm = []
        for x, d in zip(leaves, dims):
            if d is not None and not isinstance(d, int):
                raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim="
                                 f"{d} for an input but in_dim must be either an integer "
                                 "dimension or None.")
            if d is None:
                norm.append(None)
                continue
            if not _is_tensor(x):
                raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim="
                                 f"{d} for an input but the input is of type {type(x)}. We "
                                 "cannot vmap over non-Tensor arguments, please use None as "
                                 "the respective in_dim")
            nd = x.dim()
            if not -nd <= d < nd:
                raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim="
                                 f"{d} for some input, but that input is a Tensor of "
                                 f"dimensionality {nd} so expected in_dim to satisfy -{nd} <= "
                                 f"in_dim < {nd}.")
            d = d % nd
            norm.append(d)
            sizes.append(x.shape[d])
        if not sizes:
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): at least one "
                             "input must be a Tensor with a mapped dimension (in_dim not None)")
        if len(set(sizes)) != 1:
            raise ValueError("vmap: Expected all tensors to have the same size in the mapped "
                             f"dimension, got sizes {sizes} for the mapped dimension")
        B = sizes[0]
        from . import _batching
        if _batching.active():
            raise _batching.Fallback()   # nested vmap: the enclosing attempt loops instead
        res = _try_batched(func, leaves, norm, spec, kwargs, B, out_dims, name)
        if res is not None:
            return res
        from .. import random as _random
        start_state = _random.get_rng_state() if randomness != 'different' else None
        results = []
        for b in range(B):
            sample = [x if d is None else x.select(d, b) for x, d in zip(leaves, norm)]
            if randomness == 'same':
                _random.set_rng_state(start_state)
            out = func(*tree_unflatten(sample, spec), **kwargs)
            if b == 0 and randomness == 'error':
                after = _random.get_rng_state()
                if not bool((after == start_state).all()):
                    raise RuntimeError(_RANDOM_MSG)
            results.append(out)
        return _stack_outputs(results, out_dims, name)

    wrapped.__name__ = getattr(func, '__name__', 'vmap')
    return wrapped


def _stack_outputs(results, out_dims, name):
    from .._ops.shape import stack
    first_leaves, out_spec = tree_flatten(results[0])
    per = [tree_flatten(r)[0] for r in results]
    if isinstance(out_dims, tuple) and not isinstance(results[0], tuple):
        if len(out_dims) == 1:
            out_dims = out_dims[0]
    od = _broadcast_to_and_flatten(out_dims, out_spec)
    if od is None:
        raise ValueError(f"vmap({name}, ..., out_dims={out_dims})(<inputs>): out_dims is not "
                         f"compatible with the structure of `outputs`. out_dims has structure "
                         f"{tree_flatten(out_dims)[1]} but outputs has structure {out_spec}.")
    outs = []
    for i, d in enumerate(od):
        vals = [p[i] for p in per]
        if d is None:
            outs.append(vals[0])
            continue
        if not _is_tensor(vals[0]):
            raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got type "
                             f"{type(vals[0])}. Did you mean to set out_dims= to None for "
                             "output?")
        nd = vals[0].dim() + 1
        if not -nd <= d < nd:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, "
                             f"{nd - 1}], but got {d})")
        outs.append(stack(vals, dim=d))
    return tree_unflatten(outs, out_spec)


def _try_batched(func, leaves, norm, spec, kwargs, B, out_dims, name):
    """Run ``func`` once on whole batches (see ``_batching``); ``None`` when it cannot (or
    when the first sample's per-sample result disagrees)."""
    from . import _batching as bt
    from .. import random as _random
    state = _random.get_rng_state()
    mode = bt.batch_mode(B)
    try:
        with mode:
            with bt.suspend():
                phys = [x if d is None else bt.mark(x.movedim(d, 0)) for x, d in
                        zip(leaves, norm)]
            out = func(*tree_unflatten(phys, spec), **kwargs)
            with bt.suspend():
                o_leaves, o_spec = tree_flatten(out)
                flags = [bt.is_batched(o) for o in o_leaves]
    except Exception:   # no rule, or an op that bypasses the mode failed on a batch:
        _random.set_rng_state(state)   # the per-sample loop decides (and raises real errors)
        return None
    od = _broadcast_to_and_flatten(out_dims, o_spec)
    if od is None:
        return None
    res = []
    for o, b, d in zip(o_leaves, flags, od):
        if d is None:
            if b:
                return None
            res.append(o)
            continue
        if not _is_tensor(o):
            return None
        nd = o.dim() + (0 if b else 1)
        if not isinstance(d, int) or not -nd <= d < nd:
            return None
        if not b:
            o = o.unsqueeze(0).expand((B,) + tuple(o.shape)).contiguous()
        res.append(o.movedim(0, d))
    if not mode.observed:
        # every op on a batched tensor went through a batching rule and nothing looked at
        # a batched tensor's shape or values: the result is the per-sample loop's
        return tree_unflatten(res, o_spec)
    # guard: the first sample, run on its own, must give the same result
    sample = [x if d is None else x.select(d, 0) for x, d in zip(leaves, norm)]
    ref_leaves, ref_spec = tree_flatten(func(*tree_unflatten(sample, spec), **kwargs))
    if ref_spec != o_spec or len(ref_leaves) != len(res):
        return None
    for r, got, d in zip(ref_leaves, res, od):
        if d is None:
            continue
        if not _is_tensor(r):
            return None
        g0 = got.select(d % got.dim(), 0)
        if g0.shape != r.shape or g0.dtype != r.dtype:
            return None
        a, b = g0.detach(), r.detach()
        if a.is_floating_point() or a.is_complex():
            tol = 1e-3 if a.element_size() <= (4 if a.is_floating_point() else 8) else 1e-7
            if not a.allclose(b, rtol=tol, atol=tol, equal_nan=True):
                return None
        elif not a.equal(b):
            return None
    return tree_unflatten(res, o_spec)
