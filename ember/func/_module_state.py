"""``functional_call`` and ``stack_module_state``: modules as functions of their tensors."""

__all__ = []


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *,
                    tie_weights=True, strict=False):
    """Call ``module(*args, **kwargs)`` with its parameters and buffers replaced by the given
    tensors (by dotted name); the module's own tensors are put back afterwards, and gradients
    flow to the given tensors (so ``grad``/``vmap`` can differentiate a model's output with
    respect to its parameters).

    Args:
        module (nn.Module): the module.
        parameter_and_buffer_dicts (dict or sequence of dicts): name -> tensor; several
            dicts are merged (a name may appear in only one).
        args (Any or tuple): positional arguments (a non-tuple is one argument).
        kwargs (dict, optional): keyword arguments.
        tie_weights (bool): a tensor held under several names is replaced under all of
            them. Default: ``True``
        strict (bool): the names must be exactly the module's. Default: ``False``

    Example::

        >>> lin = ember.nn.Linear(2, 1)
        >>> params = {k: v.detach() for k, v in lin.named_parameters()}
        >>> ember.func.functional_call(lin, params, (ember.ones(1, 2),)).shape
        ember.Size([1, 1])
    """
    from ..nn.utils.stateless import _functional_call
    if isinstance(parameter_and_buffer_dicts, dict):
        pb = parameter_and_buffer_dicts
    elif isinstance(parameter_and_buffer_dicts, (list, tuple)):
        pb = {}
        for d in parameter_and_buffer_dicts:
            if not isinstance(d, dict):
                raise ValueError("Expected all elements of parameter_and_buffer_dicts to be "
                                 f"dictionaries")
        keys = [k for d in parameter_and_buffer_dicts for k in d]
        seen = set()
        dup = []
        for k in keys:
            if k in seen and k not in dup:
                dup.append(k)
            seen.add(k)
        if dup:
            raise ValueError(f"{repr(dup)} appeared in multiple dictionaries; behavior of "
                             "functional call is ambiguous")
        for d in parameter_and_buffer_dicts:
            pb.update(d)
    else:
        raise ValueError(f"Expected parameter_and_buffer_dicts to be a dict, or a list/tuple "
                         f"of dicts, but got {type(parameter_and_buffer_dicts)}")
    return _functional_call(module, pb, args, kwargs, tie_weights=tie_weights, strict=strict)


def stack_module_state(models):
    """Stack the parameters and buffers of same-class models into ``(params, buffers)``
    dicts whose tensors have a new leading dimension (one slice per model), for model
    ensembling with ``vmap`` and :func:`functional_call`.

    The stacked parameters are new leaf tensors (``requires_grad`` as the models').

    Example::

        >>> models = [ember.nn.Linear(3, 2) for _ in range(4)]
        >>> params, buffers = ember.func.stack_module_state(models)
        >>> params['weight'].shape
        ember.Size([4, 2, 3])
    """
    from .._ops.shape import stack
    models = list(models)
    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same "
                           "training/eval mode.")
    t0 = type(models[0])
    if not all(type(m) is t0 for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    names = [k for k, _ in models[0].named_parameters()]
    params = {}
    for k in names:
        ts = [dict(m.named_parameters())[k] for m in models]
        rg = {t.requires_grad for t in ts}
        if len(rg) > 1:
            raise RuntimeError(f"Expected {k} from each model to have the same .requires_grad")
        st = stack([t.detach() for t in ts])
        if ts[0].requires_grad:
            st.requires_grad_()
        params[k] = st
    bnames = [k for k, _ in models[0].named_buffers()]
    buffers = {k: stack([dict(m.named_buffers())[k] for m in models]) for k in bnames}
    return params, buffers
