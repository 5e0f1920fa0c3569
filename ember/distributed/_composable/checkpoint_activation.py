"""``ember.distributed._composable.checkpoint_activation``: activation checkpointing applied
to a module in place (no wrapper: the module keeps its class and parameter names)."""
from .contract import contract

__all__ = ['checkpoint']


class _CheckpointState:
    """Per-module state of :func:`checkpoint`: ``enable_hook`` (False while the module is
    recomputed) and the open saved-tensor hooks of the running forward."""

    def __init__(self):
        self.enable_hook = False
        self.ctx = None


@contract(_CheckpointState)
def checkpoint(module, **kwargs):
    """Checkpoint ``module``'s activations: its forward keeps none of the intermediate
    results backward needs; they are recomputed (calling the module again, its hooks
    included, with the same random state) when backward reaches them. As
    ``ember.utils.checkpoint.checkpoint(..., use_reentrant=False)``, but applied to the
    module in place.

    Args:
        module (nn.Module): the module (returned, changed in place).
        preserve_rng_state (bool): replay the random state in the recomputation (default
            True).
        context_fn (callable, optional): returns the (forward, recompute) context managers.
        determinism_check (str): ``'default'`` (recomputed tensors' metadata checked) or
            ``'none'``.
        debug (bool): accepted.
        early_stop (bool): stop recomputing once every needed tensor is back (default True).

    Returns:
        the module.

    Example::

        >>> checkpoint(model.block)
        >>> model(x).sum().backward()     # model.block's forward runs twice
    """
    from ...utils import checkpoint as _cp
    if kwargs.pop('use_reentrant', False):
        raise NotImplementedError("use_reentrant=True is not supported in composable "
                                  "checkpoint. Please use torch.utils.checkpoint.checkpoint "
                                  "instead.")
    preserve = kwargs.pop('preserve_rng_state', True)
    context_fn = kwargs.pop('context_fn', None) or _cp.noop_context_fn
    check = kwargs.pop('determinism_check', 'default')
    kwargs.pop('debug', False)
    early_stop = kwargs.pop('early_stop', True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    st = checkpoint.state(module)
    st.enable_hook = True

    def rerun(*args, **kw):
        st.enable_hook = False
        try:
            module(*args, **kw)
        finally:
            st.enable_hook = True

    def pre(mod, args, kw):
        from ...autograd.grad_mode import is_grad_enabled
        from ...autograd.graph import saved_tensors_hooks
        if not (st.enable_hook and is_grad_enabled()):
            return None
        fwd_ctx, rec_ctx = context_fn()
        first = [rec_ctx]

        def recompute_ctx():
            return first.pop() if first else context_fn()[1]
        frame = _cp._Frame(rerun, args, kw, _cp._rng_state(args, preserve), recompute_ctx,
                           _cp._early_stop_enabled if early_stop else False,
                           check == 'default')
        hooks = saved_tensors_hooks(frame.pack, _cp._unpack)
        fwd_ctx.__enter__()
        hooks.__enter__()
        st.ctx = (fwd_ctx, hooks)
        return None

    def post(mod, args, output):
        if st.ctx is not None:
            fwd_ctx, hooks = st.ctx
            st.ctx = None
            hooks.__exit__(None, None, None)
            fwd_ctx.__exit__(None, None, None)
        return None

    module.register_forward_pre_hook(pre, with_kwargs=True)
    module.register_forward_hook(post, always_call=True)
    return module
