"""Control flow: ``ember.cond``, PyTorch's data-dependent branch operator, run eagerly.

PyTorch runs ``torch.cond`` with a tensor predicate by tracing both branches (under
``torch.compile``) and checks what it traced: the branches must return the same structure of
tensors (same dtypes and number of dims; sizes may differ), must not return an operand (or a
view of one) and must not change an operand in place. Ember evaluates the branch the
predicate selects and makes the same checks on both branches' outputs (the other branch is run
on detached copies of the operands, without gradient, with the random state restored after),
so a program that PyTorch rejects is rejected here too.
"""
from .. import random as _random
from .._tensor import Tensor, _NoGrad
from .._backend import array_module
from ._util import register

__all__ = []

_OPERANDS = ("Expect operands to be a tuple of possibly nested dict/list/tuple that only "
             "consists of tensor leaves, but got {}.")


def _leaves(tree, out):
    """Flatten ``tree`` with ember's pytree rules; the leaves are appended to ``out``,
    the TreeSpec is returned."""
    from ..utils._pytree import tree_flatten
    leaves, spec = tree_flatten(tree)
    out.extend(leaves)
    return spec


def _rebuild(spec, leaves):
    return spec.unflatten(list(leaves))


def _hop_error(what):
    return RuntimeError("This higher order operator doesn't work unless it is captured "
                        f"completely with torch.compile. Got graph break/error:\n\n{what}\n"
                        "  Higher Order Operator: torch.cond")


def _check_branch_output(leaves, ops):
    for v in leaves:
        if isinstance(v, Tensor):
            for o in ops:
                a, b = v._data, o._data
                if a.size and b.size and array_module(a).may_share_memory(a, b):
                    raise _hop_error("Encountered aliasing during higher order op tracing\n"
                                     "  Explanation: Higher order ops do not support aliasing: "
                                     "a branch returned an operand or a view of one (return "
                                     "a clone instead).")
        elif type(v) is not int:
            raise _hop_error("torch.cond: unsupported branch return type (constant non-int)")


def _check_mutation(ops, vers):
    if any(t._version != v for t, v in zip(ops, vers)):
        raise _hop_error("Encountered input mutation during higher order op tracing\n"
                         "  Explanation: a branch of torch.cond modified an operand in place.")


@register(method=False)
def cond(pred, true_fn, false_fn, operands=()):
    """Return ``true_fn(*operands)`` if ``pred`` is true, else ``false_fn(*operands)``.

    Args:
        pred (bool or Tensor): the condition: a Python bool/number or a one-element tensor.
        true_fn (Callable): called with ``*operands`` when ``pred`` is true.
        false_fn (Callable): called with ``*operands`` otherwise.
        operands (tuple or list): the branches' arguments; with a tensor ``pred`` a (possibly
            nested list/tuple/dict) structure of tensors.

    With a Python ``pred`` the chosen branch is simply called. With a tensor ``pred`` both
    branches must be callable, must return the same structure of tensors (same dtype and
    number of dims; ints allowed, ``None`` and other constants not), must not return an
    operand or a view of one, and must not modify an operand in place; otherwise a
    ``RuntimeError`` is raised as PyTorch's tracing raises it.

    NOTE: unlike PyTorch, ember never compiles: the branch is evaluated eagerly (the other
    branch is run too, on detached copies without gradient and with the random state
    restored, for the checks above), and the result's ``grad_fn`` is that of the branch's
    last op rather than PyTorch's ``CondAutogradOpBackward``; the gradients are the same.
    An in-place change of an operand is detected after the branch ran.

    Example::

        >>> x = ember.tensor([1., 2.])
        >>> ember.cond(x.sum() > 0, lambda t: t * 2, lambda t: t - 1, (x,))
        tensor([2., 4.])
    """
    if isinstance(pred, Tensor):
        if pred.numel() != 1:
            raise RuntimeError("Expected pred to be bool or single-element tensor, but got "
                               f"{pred}.")
    elif not isinstance(pred, (bool, int, float)):
        raise RuntimeError(f"Expected pred to be bool or tensor, but got {pred}.")
    if not isinstance(pred, Tensor):
        return (true_fn if pred else false_fn)(*operands)
    if not (callable(true_fn) and callable(false_fn)):
        raise RuntimeError("Expect both branches to be callable.")
    ops = []
    if not isinstance(operands, (tuple, list)):
        raise RuntimeError(_OPERANDS.format(operands))
    spec_in = _leaves(operands, ops)
    if not all(isinstance(t, Tensor) for t in ops):
        raise RuntimeError(_OPERANDS.format(operands))
    take = bool(pred.item())
    # the branch not taken: run on detached copies, no gradient, random state restored
    state = _random.get_rng_state()
    try:
        with _NoGrad():
            cl = [t.detach().clone() for t in ops]
            vers = [t._version for t in cl]
            other = (false_fn if take else true_fn)(*_rebuild(spec_in, cl))
    finally:
        _random.set_rng_state(state)
    _check_mutation(cl, vers)
    ref = []
    spec_o = _leaves(other, ref)
    _check_branch_output(ref, cl)
    vers = [t._version for t in ops]
    res = (true_fn if take else false_fn)(*operands)
    _check_mutation(ops, vers)
    got = []
    spec = _leaves(res, got)
    _check_branch_output(got, ops)
    if spec != spec_o:
        raise RuntimeError("Unmatched output spec from torch.cond branches: the two branches "
                           "return different structures.")
    for a, b in zip(got, ref):
        if isinstance(a, Tensor) != isinstance(b, Tensor) or (
                isinstance(a, Tensor) and (a.dtype != b.dtype or a.dim() != b.dim())):
            raise RuntimeError("When merging two branches' output in torch.cond, expected the "
                               f"same dtype and number of dims, but got {_meta(a)} and "
                               f"{_meta(b)}.")
    return res


def _meta(v):
    return f"{v.dtype} with {v.dim()} dims" if isinstance(v, Tensor) else repr(v)
