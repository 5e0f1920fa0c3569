"""Forward-mode automatic differentiation: dual tensors (a primal with a tangent).

Custom autograd Functions (:class:`ember.autograd.Function`) that define ``jvp`` use it, as in PyTorch:
when an input of ``apply`` carries a tangent, the tangents of the inputs are passed to
``jvp`` and its result becomes the outputs' tangent (the outputs are then new dual
tensors: NOTE: unlike PyTorch, reverse-mode gradients do not flow from such an output back
to the Function's inputs while a dual level is active).

NOTE: unlike PyTorch, ember has no per-op forward derivatives. A dual tensor made by
:func:`make_dual` is a primal that records a reverse-mode graph (it ``requires_grad``), and
:func:`unpack_dual` of a result computes its tangent lazily through that graph with the
"double vjp": for ``y = f(x)`` the vjp ``g(u) = J^T u`` is recorded (``create_graph=True``)
for a dummy cotangent ``u`` and differentiated with respect to ``u`` against the tangent
``v``, giving ``J v``. Consequences: every op with a differentiable backward (all of
ember's) has a forward derivative, and custom autograd Functions without ``jvp`` use their
``backward``; operations must run with gradient recording enabled
(not under ``no_grad``); dual tensors report ``requires_grad=True``; each ``unpack_dual``
of a computed tensor costs about two backward passes.
"""
import threading
from collections import namedtuple

__all__ = ['UnpackedDualTensor', 'enter_dual_level', 'exit_dual_level', 'make_dual',
           'unpack_dual', 'dual_level']


class _State(threading.local):
    level = -1
    duals = None      # [(dual, tangent, primal)]


_state = _State()


def enter_dual_level():
    """Enter a new forward-AD level (returns its index); only one level can be active.

    Example::

        >>> lvl = ember.autograd.forward_ad.enter_dual_level()
        >>> ember.autograd.forward_ad.exit_dual_level()
    """
    if _state.level >= 0:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    _state.level = 0
    _state.duals = []
    return 0


def exit_dual_level(*, level=None):
    """Exit the forward-AD level; tangents made in it are discarded.

    Args:
        level (int, optional): keyword-only; the level to exit (the current one by
            default). Any other level raises ``RuntimeError``.

    Example::

        >>> lvl = ember.autograd.forward_ad.enter_dual_level()
        >>> ember.autograd.forward_ad.exit_dual_level(level=lvl)
    """
    if level is None:
        level = _state.level
    if level < 0:
        raise RuntimeError("Dual level must be a positive number.")
    if level != _state.level:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that "
                           "was created. This is not supported.")
    _state.level = -1
    _state.duals = None


def _check_level(level, what):
    if level is None:
        level = _state.level
    if level < 0:
        raise RuntimeError(f"Trying to {what} for forward AD but no level exists, make sure "
                           "to enter_dual_level() first.")
    if level != _state.level:
        raise RuntimeError(f"Trying to {what} for forward AD at a level that does not exist.")
    return level


def make_dual(tensor, tangent, *, level=None):
    """Associate ``tangent`` with ``tensor`` as its forward derivative and return the dual
    tensor (use it in computations, then :func:`unpack_dual` results).

    Args:
        tensor (Tensor): the primal (floating point or complex).
        tangent (Tensor): the tangent, same shape.
        level (int, optional): the level (default: the current one).

    Example::

        >>> import ember.autograd.forward_ad as fwAD
        >>> with fwAD.dual_level():
        ...     d = fwAD.make_dual(ember.tensor([0., 1.]), ember.tensor([1., 2.]))
        ...     fwAD.unpack_dual(d.sin()).tangent
        tensor([1.0000, 1.0806])
    """
    if _state.level < 0 and level is None:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level "
                           "exists, make sure to enter_dual_level() first.")
    _check_level(level, 'create a dual Tensor')
    if not (tensor.is_floating_point() or tensor.is_complex()):
        raise ValueError(f"Expected primal to be floating point or complex, but got: "
                         f"{tensor.dtype}")
    if not (tangent.is_floating_point() or tangent.is_complex()):
        raise ValueError(f"Expected tangent to be floating point or complex, but got: "
                         f"{tangent.dtype}")
    if tuple(tangent.shape) != tuple(tensor.shape):
        raise RuntimeError("Trying to set a forward gradient that has a different size than "
                           "that of the original Tensor, this is not supported. Tensor is of "
                           f"size {list(tensor.shape)} while the given forward gradient is of "
                           f"size {list(tangent.shape)}.")
    from .grad_mode import enable_grad
    with enable_grad():
        dual = tensor.view_as(tensor) if tensor.requires_grad else \
            tensor.detach().requires_grad_()
    _state.duals.append((dual, tangent, tensor))
    return dual


UnpackedDualTensor = namedtuple('UnpackedDualTensor', ['primal', 'tangent'])
UnpackedDualTensor.__doc__ = """The ``(primal, tangent)`` pair returned by
:func:`unpack_dual` (``tangent`` is ``None`` for a tensor without forward derivative).

Example::

    >>> import ember.autograd.forward_ad as fwAD
    >>> with fwAD.dual_level():
    ...     d = fwAD.make_dual(ember.tensor([1., 2.]), ember.tensor([1., 0.]))
    ...     primal, tangent = fwAD.unpack_dual(d * d)
    >>> primal, tangent
    (tensor([1., 4.]), tensor([2., 0.]))
"""


def unpack_dual(tensor, *, level=None):
    """Split a dual tensor (or a result computed from dual tensors) into
    ``UnpackedDualTensor(primal, tangent)``.

    Example::

        >>> with fwAD.dual_level():
        ...     p, t = fwAD.unpack_dual(fwAD.make_dual(x, v) ** 2)   # t == 2 * x * v
    """
    from .._tensor import Tensor
    if not isinstance(tensor, Tensor):
        raise TypeError(f"unpack_dual(): argument 'tensor' must be Tensor, not "
                        f"{type(tensor).__name__}")
    if _state.level < 0 or (level is not None and level != _state.level):
        return UnpackedDualTensor(tensor, None)
    duals = _state.duals
    for d, t, p in duals:
        if d is tensor:
            return UnpackedDualTensor(p if not p.requires_grad else d, t)
    any_rg = any(p.requires_grad for _, _, p in duals)
    primal = tensor if any_rg else tensor.detach()
    if not tensor.requires_grad or not duals or not (tensor.is_floating_point()
                                                     or tensor.is_complex()):
        return UnpackedDualTensor(primal, None)
    return UnpackedDualTensor(primal, _tangent_of(tensor, duals, create_graph=any_rg))


def _tangent_of(y, duals, create_graph):
    from ._backward import grad
    from .._ops.creation import zeros_like
    from .grad_mode import enable_grad
    with enable_grad():
        u = zeros_like(y).requires_grad_()
        ins = [d for d, _, _ in duals]
        g = grad([y], ins, [u], create_graph=True, retain_graph=True,
                          allow_unused=True)
        pairs = [(gi, t) for gi, (_, t, _) in zip(g, duals) if gi is not None]
        if not pairs:
            return None
        live = [(gi, t) for gi, t in pairs if gi.requires_grad]
        if not live:
            return zeros_like(y)
        (jv,) = grad([p[0] for p in live], [u], [p[1] for p in live],
                              create_graph=create_graph, retain_graph=True, allow_unused=True)
    return zeros_like(y) if jv is None else jv


class dual_level:
    """Context manager: a forward-AD level; dual tensors made inside lose their tangents
    on exit.

    Example::

        >>> with ember.autograd.forward_ad.dual_level():
        ...     d = fwAD.make_dual(x, v)
    """

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, *exc):
        exit_dual_level()


def _function_jvp(cls, ctx, args, is_t, res):
    """Forward AD through a custom Function that defines ``jvp``: its outputs become dual
    tensors whose tangents are ``jvp(ctx, *input tangents)``. ``res`` is returned as is
    when no input carries a tangent."""
    from .._ops.creation import zeros_like
    from .grad_mode import no_grad
    tans = []
    found = False
    for a, t in zip(args, is_t):
        if not t:
            tans.append(None)
            continue
        tan = unpack_dual(a).tangent
        if tan is not None:
            found = True
        tans.append(tan)
    if not found:
        return res
    tans = [zeros_like(a) if t and tn is None else tn for a, t, tn in zip(args, is_t, tans)]
    # jvp reads what forward saved with save_for_forward as ctx.saved_tensors (those of
    # save_for_backward are not visible there, as in PyTorch)
    d = ctx.__dict__
    keep = {k: d[k] for k in ('_saved', '_saved_ver', '_saved_outs', '_packed') if k in d}
    ctx.save(*getattr(ctx, 'saved_for_forward', ()))
    try:
        with no_grad():
            out_t = cls.jvp(ctx, *tans)
    finally:
        for k in ('_saved', '_saved_ver', '_saved_outs', '_packed'):
            d.pop(k, None)
        d.update(keep)
    single = not isinstance(res, tuple)
    outs = (res,) if single else res
    if not isinstance(out_t, tuple):
        out_t = (out_t,)
    if len(out_t) != len(outs):
        raise RuntimeError(f"jvp of {cls.__name__} returned an incorrect number of "
                           f"tangents (expected {len(outs)}, got {len(out_t)})")
    new = []
    for o, tn in zip(outs, out_t):
        if tn is None or not (o.is_floating_point() or o.is_complex()):
            new.append(o)
        else:
            new.append(make_dual(o.detach(), tn))
    return new[0] if single else tuple(new)
