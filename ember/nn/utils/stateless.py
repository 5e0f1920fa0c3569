"""Call a module with other parameters and buffers than its own:
``functional_call`` (deprecated in favour of ``torch.func.functional_call``)."""
import contextlib
import warnings

from ._named_member_accessor import NamedMemberAccessor

__all__ = ['functional_call']


def _untie_named_tensors_map(module, parameters_and_buffers):
    """Extend ``parameters_and_buffers`` to every name of a tied tensor when one of its
    names is given (raises when two names of the same tensor get different values)."""
    named = {}
    named.update(module.named_parameters(remove_duplicate=False))
    named.update(module.named_buffers(remove_duplicate=False))
    by_tensor = {}
    for name, t in named.items():
        by_tensor.setdefault(id(t), set()).add(name)
    tied = {}
    for names in by_tensor.values():
        if len(names) > 1:
            for n in names:
                tied[n] = names
    given = set(parameters_and_buffers)
    given_tied = {n for n in given if n in tied}
    for n in given_tied:
        names = tied[n]
        if (len(names & given_tied) > 1
                and len({id(parameters_and_buffers[t]) for t in names
                         if t in parameters_and_buffers}) != 1):
            raise ValueError(f'functional_call got multiple values for keys {sorted(names)}, '
                             'which are tied. Consider using tie_weights=False')
    out = dict(parameters_and_buffers)
    for n in given_tied:
        for t in tied[n]:
            out[t] = parameters_and_buffers[n]
    return out


@contextlib.contextmanager
def _reparametrize_module(module, parameters_and_buffers, tie_weights=False, strict=False,
                          stack_weights=False):
    """Context manager: ``module``'s tensors named in ``parameters_and_buffers`` are
    swapped for the given ones, and swapped back on exit."""
    pb = (_untie_named_tensors_map(module, parameters_and_buffers) if tie_weights
          else parameters_and_buffers)
    accessor = NamedMemberAccessor(module)
    if strict:
        missing, unexpected = accessor.check_keys(pb)
        msgs = []
        if unexpected:
            msgs.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
        if missing:
            msgs.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
        if msgs:
            raise RuntimeError('Error(s) in reparametrizing for {}:\n\t{}'.format(
                module._get_name(), '\n\t'.join(msgs)))
    orig = {}
    try:
        orig, _ = accessor.swap_tensors_dict(pb, allow_missing=True)
        yield
    finally:
        if stack_weights:
            orig = dict(reversed(orig.items()))
        new, _ = accessor.swap_tensors_dict(orig, allow_missing=True)
        parameters_and_buffers.update({k: new[k] for k in parameters_and_buffers if k in new})


def _functional_call(module, parameters_and_buffers, args=None, kwargs=None, *,
                     tie_weights=True, strict=False):
    from ..parallel import DataParallel
    if isinstance(module, DataParallel):
        raise RuntimeError("The stateless API can't be used with nn.DataParallel module")
    if kwargs is None:
        kwargs = {}
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrize_module(module, parameters_and_buffers, tie_weights=tie_weights,
                               strict=strict):
        return module(*args, **kwargs)


def functional_call(module, parameters_and_buffers, args=None, kwargs=None, *,
                    tie_weights=True, strict=False):
    """Call ``module(*args, **kwargs)`` with its parameters and buffers replaced by those in
    ``parameters_and_buffers`` (by dotted name); the module's own tensors are put back
    afterwards. Gradients flow to the given tensors.

    Deprecated (``FutureWarning``): use ``torch.func.functional_call``.

    Args:
        module (nn.Module): the module.
        parameters_and_buffers (dict[str, Tensor]): the tensors to use.
        args (Any or tuple): positional arguments (a non-tuple is one argument).
        kwargs (dict, optional): keyword arguments.
        tie_weights (bool): a tensor the module holds under several names (tied weights)
            is replaced under all of them when one name is given. Default: ``True``
        strict (bool): the dict must name exactly the module's parameters and buffers.
            Default: ``False``

    Returns:
        Any: the module's output.

    Example::

        >>> lin = nn.Linear(2, 1)
        >>> out = nn.utils.stateless.functional_call(
        ...     lin, {'weight': ember.ones(1, 2), 'bias': ember.zeros(1)}, (ember.ones(1, 2),))
        >>> out
        tensor([[2.]])
    """
    warnings.warn('`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 '
                  'and will be removed in a future version of PyTorch. Please use '
                  '`torch.func.functional_call` instead which is a drop-in replacement.',
                  FutureWarning, stacklevel=2)
    return _functional_call(module, parameters_and_buffers, args, kwargs,
                            tie_weights=tie_weights, strict=strict)
