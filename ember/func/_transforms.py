"""Function transforms built on ember's reverse-mode autograd: ``grad``, ``grad_and_value``,
``vjp``, ``jacrev``, and forward mode (``jvp``, ``jacfwd``, ``linearize``) through the
"double-vjp" identity.

How they compose: each transform marks the inputs it differentiates as fresh graph nodes
(a differentiable alias of an input that already requires grad, else a detached copy that
requires grad), runs the function with gradient recording on, and differentiates with
``create_graph=True`` whenever an enclosing transform (or the caller) may differentiate the
result again. Nesting (``grad(grad(f))``, ``jacfwd(jacrev(f))``) therefore works through
ember's higher-order autograd.

Forward mode without a per-op JVP table: for ``y = f(x)`` the vjp ``g(u) = J^T u`` is linear
in ``u``; recording it with ``create_graph=True`` for a dummy ``u`` that requires grad and
differentiating ``<g(u), v>`` with respect to ``u`` gives ``J v``.
"""
import threading

from ..utils._pytree import tree_flatten, tree_unflatten
from ._vmap import _is_tensor

__all__ = []


class _State(threading.local):
    depth = 0


_state = _State()


class _Level:
    def __enter__(self):
        _state.depth += 1
        return self

    def __exit__(self, *exc):
        _state.depth -= 1


def _no_batching():
    from . import _batching
    if _batching.active():
        raise _batching.Fallback()


def _lift(x):
    """A fresh differentiable node for ``x`` (the variable this transform differentiates)."""
    if x.requires_grad:
        return x.view_as(x)
    return x.detach().requires_grad_()


def _nested(leaves):
    """Whether the result must stay differentiable (an outer transform or the caller tracks
    these inputs)."""
    return _state.depth > 1 or any(t.requires_grad for t in leaves)


def _tracks_outer(outs, lifted):
    """Whether ``outs`` depend on a tensor requiring grad other than this transform's own
    inputs (e.g. a closure over a parameter): then results stay differentiable, as in
    PyTorch."""
    from ..autograd.graph import AccumulateGrad
    own = {id(t) for t in lifted}
    stack = [o.grad_fn for o in outs if _is_tensor(o) and o.grad_fn is not None]
    if any(_is_tensor(o) and o.requires_grad and o.grad_fn is None and id(o) not in own
           for o in outs):
        return True
    seen = set()
    while stack:
        n = stack.pop()
        if n is None or id(n) in seen:
            continue
        seen.add(id(n))
        if isinstance(n, AccumulateGrad):
            if id(n.variable) not in own:
                return True
            continue
        stack.extend(f for f, _ in n.next_functions)
    return False


def _unwrap(tree, nested):
    if nested:
        return tree
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([t.detach() if _is_tensor(t) else t for t in leaves], spec)


def _argnums_tuple(argnums, nargs, name='grad'):
    single = isinstance(argnums, int)
    nums = (argnums,) if single else tuple(argnums)
    if not single and not isinstance(argnums, tuple):
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    if not nums:
        raise RuntimeError("argnums must be non-empty")
    out = []
    for a in nums:
        if not isinstance(a, int):
            raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(a)}")
        if not -nargs <= a < nargs:
            raise RuntimeError(f"Got argnum={a}, but only {nargs} positional inputs")
        out.append(a % nargs)
    if len(set(out)) != len(out):
        raise RuntimeError(f"argnums must be unique, got {argnums}")
    return single, tuple(out)


def _lift_args(args, argnums):
    """Lift the tensors of ``args[argnums]``; returns (new_args, diff_leaves, originals,
    rebuild(flat_values) -> structure like the selected args)."""
    single, nums = _argnums_tuple(argnums, len(args))
    sel = args[nums[0]] if single else tuple(args[i] for i in nums)
    leaves, spec = tree_flatten(sel)
    for t in leaves:
        if not _is_tensor(t):
            raise RuntimeError(f"Expected tensors, got unsupported type {type(t)}")
    lifted = [_lift(t) for t in leaves]
    new_sel = tree_unflatten(lifted, spec)
    new_args = list(args)
    if single:
        new_args[nums[0]] = new_sel
    else:
        for i, v in zip(nums, new_sel):
            new_args[i] = v
    return tuple(new_args), lifted, leaves, (lambda flat: tree_unflatten(flat, spec))


def _grads(outs, ins, grad_outputs, create_graph, retain_graph=None):
    """``autograd.grad`` with zeros for unused inputs and outputs that need no grad."""
    from .. import autograd
    from .._ops.creation import zeros_like
    pairs = [(o, g) for o, g in zip(outs, grad_outputs) if o.requires_grad]
    if not pairs:
        return [zeros_like(i) for i in ins]
    res = autograd.grad([p[0] for p in pairs], ins, [p[1] for p in pairs],
                        retain_graph=retain_graph, create_graph=create_graph, allow_unused=True)
    return [zeros_like(i) if g is None else g for g, i in zip(res, ins)]


def _split_aux(out, has_aux, name):
    if not has_aux:
        return out, None
    if not (isinstance(out, tuple) and len(out) == 2):
        raise RuntimeError(f"{name}(f)(*args): output of function f should be a tuple: "
                           "(output, aux) if has_aux is True")
    return out


def grad_and_value(func, argnums=0, has_aux=False):
    """Returns a function computing both the gradient of ``func`` with respect to the
    arguments at ``argnums`` and the value of ``func``.

    Args:
        func (callable): returns a scalar tensor (or ``(scalar, aux)`` with ``has_aux``).
        argnums (int or tuple of ints): which positional arguments to differentiate; each
            may be a tensor or a pytree (tuple/list/dict) of tensors. Default: ``0``
        has_aux (bool): ``func`` returns ``(output, aux)``; aux is passed through.

    Returns:
        ``(grad, value)``; with ``has_aux``: ``(grad, (value, aux))``.

    Example::

        >>> g, v = ember.func.grad_and_value(lambda x: (x ** 2).sum())(ember.tensor([1., 2.]))
        >>> g
        tensor([2., 4.])
    """
    def wrapper(*args, **kwargs):
        from ..autograd.grad_mode import enable_grad
        from . import _batching
        if _batching.active():
            return _batched_grad_and_value(func, argnums, has_aux, args, kwargs)
        with _Level(), enable_grad():
            new_args, lifted, orig, rebuild = _lift_args(args, argnums)
            out = func(*new_args, **kwargs)
            out, aux = _split_aux(out, has_aux, 'grad_and_value')
            if not _is_tensor(out):
                raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a "
                                   f"Tensor, got {type(out)}")
            if out.dim() != 0:
                raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a "
                                   f"scalar Tensor, got tensor with {out.dim()} dims. Maybe you "
                                   "wanted to use the vjp or jacrev APIs instead?")
            nested = _nested(orig) or _tracks_outer([out], lifted)
            gs = _grads([out], lifted, [None], create_graph=nested)
        g = rebuild(gs)
        value = out if nested else out.detach()
        if has_aux:
            return g, (value, _unwrap(aux, nested))
        return g, value
    wrapper.__name__ = getattr(func, '__name__', 'func')
    return wrapper


def _batched_grad_and_value(func, argnums, has_aux, args, kwargs):
    """grad_and_value inside vmap's batched attempt: inputs are lifted to batched tensors
    (unbatched ones expanded along the batch), so the gradient of the per-sample outputs
    with respect to them is the per-sample gradient."""
    from .. import autograd
    from ..autograd.grad_mode import enable_grad
    from .._ops.creation import ones, zeros_like
    from . import _batching as bt
    B = bt.batch_size()
    with _Level(), enable_grad():
        with bt.suspend():
            single, nums = _argnums_tuple(argnums, len(args))
            sel = args[nums[0]] if single else tuple(args[i] for i in nums)
            leaves, spec = tree_flatten(sel)
            if not all(_is_tensor(t) for t in leaves):
                raise bt.Fallback()
            lifted, bases = [], []
            for t in leaves:
                base = t.view_as(t) if t.requires_grad else t.detach().requires_grad_()
                bases.append(base)
                lifted.append(bt.mark(base) if bt.is_batched(t) else
                              bt.mark(base.unsqueeze(0).expand((B,) + tuple(t.shape))))
            new_sel = tree_unflatten(lifted, spec)
            new_args = list(args)
            if single:
                new_args[nums[0]] = new_sel
            else:
                for i, v in zip(nums, new_sel):
                    new_args[i] = v
        out = func(*new_args, **kwargs)
        with bt.suspend():
            out, aux = _split_aux(out, has_aux, 'grad_and_value')
            if not _is_tensor(out) or not bt.is_batched(out) or out.dim() != 1:
                raise bt.Fallback()
            nested = _nested(leaves) or _tracks_outer([out], bases)
            if out.requires_grad:
                gs = autograd.grad([out], lifted, [ones(B, dtype=out.dtype, device=out.device)],
                                   create_graph=nested, allow_unused=True)
            else:
                gs = [None] * len(lifted)
            gs = [bt.mark(zeros_like(t) if g is None else g) for g, t in zip(gs, lifted)]
            value = out if nested else bt.mark(out.detach())
            if has_aux:
                aux_l, aux_s = tree_flatten(aux)
                if not nested:
                    aux_l = [bt.mark(a.detach()) if bt.is_batched(a) else
                             (a.detach() if _is_tensor(a) else a) for a in aux_l]
                aux = tree_unflatten(aux_l, aux_s)
    g = tree_unflatten(gs, spec)
    if has_aux:
        return g, (value, aux)
    return g, value


def grad(func, argnums=0, has_aux=False):
    """Returns a function computing the gradient of ``func`` with respect to the arguments
    at ``argnums``.

    Args:
        func (callable): returns a scalar tensor (or ``(scalar, aux)`` with ``has_aux``).
        argnums (int or tuple of ints): which positional arguments to differentiate (each a
            tensor or a pytree of tensors). Default: ``0``
        has_aux (bool): ``func`` returns ``(output, aux)``; the result is ``(grad, aux)``.

    Example::

        >>> x = ember.tensor([0.5, 1.0])
        >>> ember.func.grad(lambda x: x.sin().sum())(x)      # cos(x)
        tensor([0.8776, 0.5403])
    """
    gv = grad_and_value(func, argnums, has_aux)

    def wrapper(*args, **kwargs):
        g, v = gv(*args, **kwargs)
        if has_aux:
            return g, v[1]
        return g
    wrapper.__name__ = getattr(func, '__name__', 'func')
    return wrapper


def vjp(func, *primals, has_aux=False):
    """Run ``func(*primals)`` and return ``(output, vjp_fn)``: ``vjp_fn(cotangents)`` gives
    the vector-Jacobian products, one per primal (pytrees allowed).

    Args:
        func (callable): the function.
        *primals: its arguments (tensors or pytrees of tensors).
        has_aux (bool): ``func`` returns ``(output, aux)``; the result is
            ``(output, vjp_fn, aux)``.

    Example::

        >>> out, vjp_fn = ember.func.vjp(ember.sin, ember.tensor([0., 1.]))
        >>> vjp_fn(ember.ones(2))
        (tensor([1.0000, 0.5403]),)
    """
    _no_batching()
    from ..autograd.grad_mode import enable_grad, is_grad_enabled
    with _Level(), enable_grad():
        new_args, lifted, orig, rebuild = _lift_args(primals, tuple(range(len(primals)))) \
            if primals else ((), [], [], lambda flat: ())
        out = func(*new_args)
        out, aux = _split_aux(out, has_aux, 'vjp')
        out_leaves, out_spec = tree_flatten(out)
        for o in out_leaves:
            if not _is_tensor(o):
                raise RuntimeError("vjp(f, *primals): Expected f to be a function that has "
                                   "only Tensors or Tensor-like outputs, but got "
                                   f"{type(o)}")
        nested = _nested(orig) or _tracks_outer(out_leaves, lifted)

    def vjp_fn(*cotangents):
        """The vector-Jacobian products for ``cotangents`` (structured like the output)."""
        ct = cotangents[0] if len(cotangents) == 1 and not isinstance(out, tuple) \
            else cotangents
        if len(cotangents) == 1 and isinstance(out, tuple) and isinstance(cotangents[0], tuple):
            ct = cotangents[0]
        ct_leaves, ct_spec = tree_flatten(ct)
        if len(ct_leaves) != len(out_leaves):
            raise RuntimeError("Expected pytree structure of cotangents to be the same as "
                               f"pytree structure of outputs to the function. cotangents: "
                               f"{ct_spec}, primal output: {out_spec}")
        for c, o in zip(ct_leaves, out_leaves):
            if tuple(c.shape) != tuple(o.shape):
                raise RuntimeError(f"Mismatch in shape: grad_output[0] has a shape of "
                                   f"{c.shape} and output[0] has a shape of {o.shape}.")
        create = nested or (_state.depth > 0 and is_grad_enabled()) or \
            any(c.requires_grad for c in ct_leaves)
        with enable_grad():
            gs = _grads(out_leaves, lifted, ct_leaves, create_graph=create, retain_graph=True)
        res = rebuild(gs)
        return res if isinstance(res, tuple) else (res,)

    out_r = _unwrap(out, nested)
    if has_aux:
        return out_r, vjp_fn, _unwrap(aux, nested)
    return out_r, vjp_fn


def _basis(t, k):
    """The ``k``-th one-hot tensor shaped like ``t``."""
    from .._ops.creation import zeros
    e = zeros(t.numel(), dtype=t.dtype, device=t.device)
    e[k] = 1
    return e.view(t.shape)


def _stack_rows(rows, out_shape, in_shape, like):
    from .._ops.shape import stack
    from .._ops.creation import zeros
    if not rows:
        return zeros(tuple(out_shape) + tuple(in_shape), dtype=like.dtype, device=like.device)
    return stack(rows).reshape(tuple(out_shape) + tuple(in_shape))


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """Returns a function computing the Jacobian of ``func`` with respect to the arguments
    at ``argnums`` by reverse mode (one vector-Jacobian product per output element).

    Args:
        func (callable): returns a tensor or a pytree of tensors.
        argnums (int or tuple of ints): arguments to differentiate. Default: ``0``
        has_aux (bool): ``func`` returns ``(output, aux)``.
        chunk_size (int, optional): accepted for compatibility (must be ``None`` or >= 1).

    Returns:
        For each output tensor, a Jacobian of shape ``output.shape + input.shape`` (a tuple
        over ``argnums`` when it is a tuple; structured like the input pytree).

    Example::

        >>> ember.func.jacrev(ember.sin)(ember.tensor([0., 1.]))
        tensor([[1.0000, 0.0000],
                [0.0000, 0.5403]])
    """
    if chunk_size is not None and not (isinstance(chunk_size, int) and chunk_size > 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")

    def wrapper(*args, **kwargs):
        _no_batching()
        from ..autograd.grad_mode import enable_grad
        single = isinstance(argnums, int)
        with _Level(), enable_grad():
            new_args, lifted, orig, rebuild = _lift_args(args, argnums)
            out = func(*new_args, **kwargs)
            out, aux = _split_aux(out, has_aux, 'jacrev')
            out_leaves, out_spec = tree_flatten(out)
            nested = _nested(orig) or _tracks_outer(out_leaves, lifted)
            jacs = []
            for o in out_leaves:
                if not _is_tensor(o):
                    raise RuntimeError("jacrev(f, ...)(*args): expected f(*args) to return only "
                                       f"tensors, got unsupported type {type(o)}")
                flat = o.reshape(-1)
                rows = [[] for _ in lifted]
                for k in range(flat.numel()):
                    gs = _grads([flat], lifted, [_basis(flat, k)], create_graph=nested,
                                retain_graph=True)
                    for r, g in zip(rows, gs):
                        r.append(g)
                per_in = [_stack_rows(r, o.shape, t.shape, t) for r, t in zip(rows, lifted)]
                jacs.append(rebuild(per_in))
        res = tree_unflatten(jacs, out_spec)
        res = _unwrap(res, nested)
        if has_aux:
            return res, _unwrap(aux, nested)
        return res
    del _preallocate_and_copy
    return wrapper


def hessian(func, argnums=0):
    """Returns a function computing the Hessian of ``func`` (``jacfwd(jacrev(func))``).

    Example::

        >>> ember.func.hessian(lambda x: (x ** 3).sum())(ember.tensor([1., 2.]))
        tensor([[ 6.,  0.],
                [ 0., 12.]])
    """
    return jacfwd(jacrev(func, argnums), argnums)


# ------------------------------------------------------------------------------ forward mode

class _Linearized:
    """``J v`` for a recorded computation: a vjp with a dummy cotangent ``u`` recorded with
    ``create_graph=True``, differentiated with respect to ``u``."""

    def __init__(self, out_leaves, lifted):
        from .. import autograd
        from .._ops.creation import zeros_like
        self.lifted = lifted
        self.outs = out_leaves
        self.us = [zeros_like(o).requires_grad_() if o.requires_grad else None
                   for o in out_leaves]
        live = [(o, u) for o, u in zip(out_leaves, self.us) if u is not None]
        if live:
            g = autograd.grad([p[0] for p in live], lifted, [p[1] for p in live],
                              create_graph=True, retain_graph=True, allow_unused=True)
        else:
            g = [None] * len(lifted)
        self.g = list(g)

    def __call__(self, tangents, create_graph):
        from .. import autograd
        from .._ops.creation import zeros_like
        pairs = [(g, v) for g, v in zip(self.g, tangents) if g is not None and g.requires_grad]
        us = [u for u in self.us if u is not None]
        res = None
        if pairs and us:
            res = autograd.grad([p[0] for p in pairs], us, [p[1] for p in pairs],
                                create_graph=create_graph, retain_graph=True, allow_unused=True)
        out, it = [], iter(res or [None] * len(us))
        for o, u in zip(self.outs, self.us):
            t = next(it) if u is not None else None
            out.append(zeros_like(o) if t is None else t)
        return out


def _check_tangents(primals, tangents, name='jvp'):
    p_leaves, p_spec = tree_flatten(primals)
    t_leaves, t_spec = tree_flatten(tangents)
    if len(p_leaves) != len(t_leaves):
        raise RuntimeError(f"{name}(f, primals, tangents): Expected primals and tangents to "
                           f"have the same python structure. For example, if primals is a "
                           f"tuple of 3 tensors, tangents also must be. Got primals with "
                           f"structure {p_spec} and tangents with structure {t_spec}")
    for p, t in zip(p_leaves, t_leaves):
        if not _is_tensor(p) or not _is_tensor(t):
            raise RuntimeError(f"{name}(f, primals, tangents): Expected primals and tangents "
                               "to only contain Tensors")
        if tuple(p.shape) != tuple(t.shape):
            raise RuntimeError(f"{name}(f, primals, tangents): Expected primals and tangents "
                               f"to have the same shape, got {tuple(p.shape)} and "
                               f"{tuple(t.shape)}")
    return t_leaves


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """Run ``func(*primals)`` and return ``(output, jvp_out)``: the Jacobian of ``func`` at
    ``primals`` times ``tangents`` (forward-mode derivative).

    Args:
        func (callable): the function.
        primals (tuple): its arguments (tensors or pytrees of tensors).
        tangents (tuple): one tangent per primal, same structure and shapes.
        has_aux (bool): ``func`` returns ``(output, aux)``; the result is
            ``(output, jvp_out, aux)``.

    Example::

        >>> ember.func.jvp(ember.sin, (ember.tensor([0.]),), (ember.tensor([2.]),))
        (tensor([0.]), tensor([2.]))

    NOTE: unlike PyTorch, forward mode is computed from reverse mode ("double vjp": the
    vjp ``u -> J^T u`` is recorded and differentiated with respect to ``u``), so it costs
    about two backward passes and needs differentiable backward formulas (all ember ops
    have them) instead of per-op JVP rules.
    """
    _no_batching()
    if not isinstance(primals, tuple):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals to be a tuple. E.g. "
                           "it should be valid to call f(*primals).")
    if not isinstance(tangents, tuple):
        raise RuntimeError("jvp(f, primals, tangents): Expected tangents to be a tuple. E.g. "
                           "it should be valid to call f(*primals).")
    t_leaves = _check_tangents(primals, tangents)
    from ..autograd.grad_mode import enable_grad
    with _Level(), enable_grad():
        if primals:
            new_args, lifted, orig, _ = _lift_args(primals, tuple(range(len(primals))))
        else:
            new_args, lifted, orig = (), [], []
        out = func(*new_args)
        out, aux = _split_aux(out, has_aux, 'jvp')
        out_leaves, out_spec = tree_flatten(out)
        for o in out_leaves:
            if not _is_tensor(o):
                raise RuntimeError("jvp(f, primals, tangents): Expected f(*primals) to return "
                                   f"only tensors, got unsupported type {type(o)}")
        nested = _nested(orig) or any(t.requires_grad for t in t_leaves) or \
            _tracks_outer(out_leaves, lifted)
        lin = _Linearized(out_leaves, lifted)
        tans = lin(t_leaves, create_graph=nested)
    res = (_unwrap(out, nested), _unwrap(tree_unflatten(tans, out_spec), nested))
    if has_aux:
        return res + (_unwrap(aux, nested),)
    return res


def linearize(func, *primals):
    """Return ``(output, jvp_fn)`` where ``jvp_fn(*tangents)`` is the Jacobian-vector
    product of ``func`` at ``primals`` (the forward pass runs once).

    Example::

        >>> out, jvp_fn = ember.func.linearize(ember.sin, ember.tensor([0., 1.]))
        >>> jvp_fn(ember.ones(2))
        tensor([1.0000, 0.5403])

    NOTE: unlike PyTorch, ``jvp_fn`` differentiates a recorded vjp ("double vjp", see
    :func:`jvp`) instead of a traced forward-mode graph.
    """
    _no_batching()
    from ..autograd.grad_mode import enable_grad
    with _Level(), enable_grad():
        new_args, lifted, orig, _ = _lift_args(primals, tuple(range(len(primals))))
        out = func(*new_args)
        out_leaves, out_spec = tree_flatten(out)
        nested = _nested(orig) or _tracks_outer(out_leaves, lifted)
        lin = _Linearized(out_leaves, lifted)

    def jvp_fn(*tangents):
        """The Jacobian-vector product for ``tangents`` (one per primal)."""
        t_leaves = _check_tangents(primals, tangents, 'linearize')
        with enable_grad():
            tans = lin(t_leaves, create_graph=nested or any(t.requires_grad for t in t_leaves))
        return _unwrap(tree_unflatten(tans, out_spec), nested)

    return _unwrap(out, nested), jvp_fn


def jacfwd(func, argnums=0, has_aux=False, *, randomness='error'):
    """Returns a function computing the Jacobian of ``func`` with respect to the arguments
    at ``argnums`` column by column (one Jacobian-vector product per input element).

    Args:
        func (callable): returns a tensor or a pytree of tensors.
        argnums (int or tuple of ints): arguments to differentiate. Default: ``0``
        has_aux (bool): ``func`` returns ``(output, aux)``.
        randomness (str): ``'error'``, ``'different'`` or ``'same'`` (accepted; the
            function runs once).

    Example::

        >>> ember.func.jacfwd(lambda x: x ** 2)(ember.tensor([1., 2.]))
        tensor([[2., 0.],
                [0., 4.]])

    NOTE: unlike PyTorch, the columns come from the "double vjp" (see :func:`jvp`).
    """
    if randomness not in ('error', 'different', 'same'):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")

    def wrapper(*args, **kwargs):
        _no_batching()
        from ..autograd.grad_mode import enable_grad
        from .._ops.shape import stack
        from .._ops.creation import zeros
        with _Level(), enable_grad():
            new_args, lifted, orig, rebuild = _lift_args(args, argnums)
            out = func(*new_args, **kwargs)
            out, aux = _split_aux(out, has_aux, 'jacfwd')
            out_leaves, out_spec = tree_flatten(out)
            for o in out_leaves:
                if not _is_tensor(o):
                    raise RuntimeError("jacfwd(f, ...)(*args): expected f(*args) to return "
                                       f"only tensors, got unsupported type {type(o)}")
            nested = _nested(orig) or _tracks_outer(out_leaves, lifted)
            lin = _Linearized(out_leaves, lifted)
            cols = [[[] for _ in lifted] for _ in out_leaves]   # [out][in] -> columns
            for j, t in enumerate(lifted):
                for k in range(t.numel()):
                    tangents = [_basis(t, k) if i == j else zeros(s.shape, dtype=s.dtype,
                                                                  device=s.device)
                                for i, s in enumerate(lifted)]
                    res = lin(tangents, create_graph=nested)
                    for oi, r in enumerate(res):
                        cols[oi][j].append(r.reshape(-1))
            jacs = []
            for oi, o in enumerate(out_leaves):
                per_in = []
                for j, t in enumerate(lifted):
                    c = cols[oi][j]
                    if c:
                        m = stack(c, dim=-1).reshape(tuple(o.shape) + tuple(t.shape))
                    else:
                        m = zeros(tuple(o.shape) + tuple(t.shape), dtype=o.dtype,
                                  device=o.device)
                    per_in.append(m)
                jacs.append(rebuild(per_in))
        res = _unwrap(tree_unflatten(jacs, out_spec), nested)
        if has_aux:
            return res, _unwrap(aux, nested)
        return res
    return wrapper
