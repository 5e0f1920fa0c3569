"""``vmap``: map a function over a batch dimension of its inputs."""
from ._pytree import tree_flatten, tree_unflatten, broadcast_prefix

__all__ = []

_RANDOM_MSG = ("vmap: called random operation while in randomness error mode. Please either use "
               "the 'same' or 'different' randomness flags on vmap or perform the randomness "
               "operation out of vmap")


def _is_tensor(x):
    from .._tensor import Tensor
    return isinstance(x, Tensor)


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

    NOTE: unlike PyTorch, ember has no batching rules: the function runs once per sample
    (a Python loop) and the results are stacked, so any function works (data-dependent
    control flow, ``.item()``, in-place ops) and composes with ``grad``/``jacrev``, but the
    cost grows linearly with the batch size. Keyword arguments are passed unmapped.
    Random operations in ``'error'`` mode are detected after the first sample (the
    default generator's state changed).
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
        dims = broadcast_prefix(prefix, args, lambda x: x is None or isinstance(x, int))
        if dims is None:
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): in_dims is not "
                             f"compatible with the structure of `inputs`. in_dims has structure "
                             f"{tree_flatten(in_dims)[1]} but inputs has structure {spec}.")
        sizes = []
        norm = []
        for x, d in zip(leaves, dims):
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
    od = broadcast_prefix(out_dims, results[0], lambda x: x is None or isinstance(x, int))
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
