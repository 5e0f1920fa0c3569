"""Activation checkpointing: trade compute for memory by recomputing a function's
intermediate results during backward instead of keeping them from the forward pass."""
import contextlib
import enum
import warnings

__all__ = ['checkpoint', 'checkpoint_sequential', 'CheckpointError', 'CheckpointFunction',
           'check_backward_validity', 'detach_variable', 'get_device_states',
           'set_device_states', 'noop_context_fn', 'set_checkpoint_early_stop',
           'DefaultDeviceType', 'set_checkpoint_debug_enabled', 'CheckpointPolicy',
           'SelectiveCheckpointContext', 'create_selective_checkpoint_contexts',
           'SAC_IGNORED_OPS', 'GraphExecGroup']

_REENTRANT_WARNING = (
    "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. "
    "Starting in PyTorch 2.9, calling checkpoint without use_reentrant will raise an "
    "exception. use_reentrant=False is recommended, but if you need to preserve the current "
    "default behavior, you can pass use_reentrant=True. Refer to docs for more details on "
    "the differences between the two variants.")

SAC_IGNORED_OPS = set()

_early_stop_enabled = True
_debug_enabled = None


class CheckpointError(RuntimeError):
    """Raised when a recomputation does not reproduce the original forward pass (e.g. the
    saved tensors' shapes or dtypes differ).
    """


class CheckpointPolicy(enum.Enum):
    """What selective checkpointing does with an op's output: save it or recompute it."""
    MUST_SAVE = 0
    PREFER_SAVE = 1
    MUST_RECOMPUTE = 2
    PREFER_RECOMPUTE = 3
    MUST_CPU_OFFLOAD = 4
    PREFER_CPU_OFFLOAD = 5


class DefaultDeviceType:
    """The device type whose RNG state checkpointing saves and restores besides the CPU's
    (``'cuda'`` by default), read and written through two static methods.

    Example::

        >>> from ember.utils.checkpoint import DefaultDeviceType
        >>> DefaultDeviceType.get_device_type()
        'cuda'
        >>> DefaultDeviceType.set_device_type('cuda')
    """
    _default_device_type = 'cuda'

    @staticmethod
    def set_device_type(device='cuda'):
        """Set the default device type for checkpointing."""
        DefaultDeviceType._default_device_type = device

    @staticmethod
    def get_device_type():
        """The current default device type for checkpointing."""
        return DefaultDeviceType._default_device_type


class GraphExecGroup:
    """Context manager grouping several backward executions that share one recomputation.

    NOTE: unlike PyTorch, ember recomputes per checkpointed region as needed; the group is
    accepted and has no further effect.

    Example::

        >>> from ember.utils.checkpoint import GraphExecGroup, checkpoint
        >>> x = ember.ones(3, requires_grad=True)
        >>> y = checkpoint(lambda t: t.sin(), x, use_reentrant=False)
        >>> with GraphExecGroup():
        ...     y.sum().backward()
    """

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class SelectiveCheckpointContext:
    """Context handed to a selective-checkpoint ``policy_fn(ctx, op, *args, **kwargs)``.

    Args:
        is_recompute (bool): keyword-only; stored as the attribute of the same name.

    Attributes:
        is_recompute (bool): ``True`` during the recomputation.

    Example::

        >>> from ember.utils.checkpoint import SelectiveCheckpointContext
        >>> SelectiveCheckpointContext(is_recompute=False).is_recompute
        False
    """

    def __init__(self, *, is_recompute):
        self.is_recompute = is_recompute


def noop_context_fn():
    """The default ``context_fn`` of :func:`checkpoint`: two null context managers (one for
    the forward pass, one for the recomputation).

    Example::

        >>> fwd_ctx, recompute_ctx = ember.utils.checkpoint.noop_context_fn()
        >>> with fwd_ctx:
        ...     pass
    """
    return contextlib.nullcontext(), contextlib.nullcontext()


def create_selective_checkpoint_contexts(policy_fn_or_list, allow_cache_entry_mutation=False):
    """Build the ``context_fn`` pair for selective activation checkpointing.

    Args:
        policy_fn_or_list: a list of ops to save, or ``policy_fn(ctx, op, *args, **kwargs)``
            returning a :class:`CheckpointPolicy`.
        allow_cache_entry_mutation (bool, optional): accepted for compatibility.

    NOTE: unlike PyTorch, ember has no op-level dispatch to intercept, so every op inside
    the checkpointed region is recomputed (the policy is validated and otherwise ignored).
    Results are identical; only the compute/memory trade-off differs.

    Example::

        >>> import functools
        >>> from ember.utils.checkpoint import (checkpoint, CheckpointPolicy,
        ...                                     create_selective_checkpoint_contexts)
        >>> def policy(ctx, op, *args, **kwargs):
        ...     return CheckpointPolicy.PREFER_RECOMPUTE
        >>> x = ember.ones(3, requires_grad=True)
        >>> ctx_fn = functools.partial(create_selective_checkpoint_contexts, policy)
        >>> y = checkpoint(lambda t: t.sin().cos(), x, use_reentrant=False, context_fn=ctx_fn)
    """
    if isinstance(policy_fn_or_list, list):
        for op in policy_fn_or_list:
            if not callable(op):
                raise ValueError(f"Expected op in `op_list` to be an OpOverload but got {op} "
                                 f"of type {type(op)}. If you are using an OpOverloadPacket, "
                                 "e.g. torch.ops.aten.mm, you need to specify the overload, "
                                 "e.g. torch.ops.aten.mm.default.")
    elif not callable(policy_fn_or_list):
        raise TypeError("policy_fn_or_list must be either a function or a list of ops.")
    return contextlib.nullcontext(), contextlib.nullcontext()


@contextlib.contextmanager
def set_checkpoint_early_stop(enable):
    """Context manager: whether non-reentrant checkpointing stops recomputing once every
    tensor backward needs has been recomputed (default ``True``).

    Example::

        >>> with ember.utils.checkpoint.set_checkpoint_early_stop(False):
        ...     out = checkpoint(fn, x, use_reentrant=False)
    """
    global _early_stop_enabled
    prev = _early_stop_enabled
    _early_stop_enabled = enable
    try:
        yield
    finally:
        _early_stop_enabled = prev


@contextlib.contextmanager
def set_checkpoint_debug_enabled(enabled):
    """Context manager: override ``debug=`` of every :func:`checkpoint` call inside the
    block (``None`` leaves each call's own value).

    NOTE: unlike PyTorch, ember's checkpoint records no operator trace, so the override is
    only stored and has no visible effect.

    Args:
        enabled (bool or None): the ``debug`` value to force.

    Example::

        >>> from ember.utils.checkpoint import checkpoint, set_checkpoint_debug_enabled
        >>> x = ember.ones(3, requires_grad=True)
        >>> with set_checkpoint_debug_enabled(True):
        ...     y = checkpoint(lambda t: t.sin(), x, use_reentrant=False)
    """
    global _debug_enabled
    prev = _debug_enabled
    _debug_enabled = enabled
    try:
        yield
    finally:
        _debug_enabled = prev


def detach_variable(inputs):
    """Detach each tensor of the tuple ``inputs``, keeping its ``requires_grad`` flag.

    Example::

        >>> a, = detach_variable((x,))
    """
    from .._tensor import Tensor
    if not isinstance(inputs, tuple):
        raise RuntimeError("Only tuple of tensors is supported. Got Unsupported input type: "
                           f"{type(inputs).__name__}")
    out = []
    for inp in inputs:
        if not isinstance(inp, Tensor):
            out.append(inp)
            continue
        x = inp.detach()
        x.requires_grad = inp.requires_grad
        out.append(x)
    return tuple(out)


def check_backward_validity(inputs):
    """Warn (``UserWarning``) when none of ``inputs`` is a tensor that requires grad: the
    gradients of a checkpointed region would then all be ``None``.

    Args:
        inputs (iterable): the arguments of the checkpointed function.

    Example::

        >>> ember.utils.checkpoint.check_backward_validity((ember.ones(2),))   # warns
    """
    from .._tensor import Tensor
    if not any(isinstance(i, Tensor) and i.requires_grad for i in inputs):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None",
                      stacklevel=2)


def get_device_states(*args):
    """The devices of the accelerator tensors in ``args`` and their RNG states, as
    ``(device_ids, states)`` (two empty lists for CPU-only arguments). The device type is
    :meth:`DefaultDeviceType.get_device_type`.

    Args:
        *args: the arguments of a checkpointed function (non-tensors are skipped).

    Example::

        >>> ember.utils.checkpoint.get_device_states(ember.ones(2))
        ([], [])
    """
    from .._tensor import Tensor
    ids = []
    for a in args:
        if isinstance(a, Tensor) and a.device.type not in ('cpu', 'meta'):
            if a.get_device() not in ids:
                ids.append(a.get_device())
    from .. import random as _random
    from .._device import device as _device
    states = [_random._default_for(_device(DefaultDeviceType.get_device_type(), i)).get_state()
              for i in ids]
    return ids, states


def set_device_states(devices, states, *, device_type=None):
    """Restore the RNG states of accelerator devices, as saved by :func:`get_device_states`.

    Args:
        devices (list of int): the device indices.
        states (list of Tensor): their RNG states.
        device_type (str, optional): keyword-only; the device type (by default
            :meth:`DefaultDeviceType.get_device_type`).

    Example::

        >>> from ember.utils.checkpoint import get_device_states, set_device_states
        >>> ids, states = get_device_states(ember.ones(2))
        >>> set_device_states(ids, states)   # CPU tensors: nothing to restore
    """
    from .. import random as _random
    from .._device import device as _device
    dt = device_type or DefaultDeviceType.get_device_type()
    for d, s in zip(devices, states):
        _random._default_for(_device(dt, d)).set_state(s)


def _rng_state(args, preserve):
    if not preserve:
        return None
    from .. import random as _random
    return _random.get_rng_state(), get_device_states(*args)


@contextlib.contextmanager
def _replay_rng(state):
    """Run with the RNG state of the original forward; the outer state is restored after."""
    if state is None:
        yield
        return
    from .. import random as _random
    cpu, (ids, states) = state
    outer = _random.get_rng_state()
    outer_dev = get_device_states_by_id(ids)
    _random.set_rng_state(cpu)
    set_device_states(ids, states)
    try:
        yield
    finally:
        _random.set_rng_state(outer)
        set_device_states(ids, outer_dev)


def get_device_states_by_id(ids):
    from .. import random as _random
    from .._device import device as _device
    return [_random._default_for(_device(DefaultDeviceType.get_device_type(), i)).get_state()
            for i in ids]


# ----------------------------------------------------------------------------- reentrant

def _checkpoint_function_backward_cls():
    from ..autograd.function import Function
    from ..autograd.grad_mode import enable_grad

    class CheckpointFunction(Function):
        """The reentrant checkpoint, used by ``checkpoint(..., use_reentrant=True)``:
        ``forward`` runs ``run_function`` without recording a graph; ``backward`` runs it
        again (same RNG state) with recording on and backpropagates through that fresh
        graph.

        Args (of ``apply``):
            run_function (callable): the checkpointed function.
            preserve_rng_state (bool): whether the recomputation replays the RNG state.
            *args: the arguments of ``run_function``.

        Example::

            >>> from ember.utils.checkpoint import CheckpointFunction
            >>> x = ember.ones(3, requires_grad=True)
            >>> CheckpointFunction.apply(lambda t: (t * 2).sin(), True, x).sum().backward()
            >>> x.grad
            tensor([-0.8323, -0.8323, -0.8323])
        """

        @staticmethod
        def forward(ctx, run_function, preserve_rng_state, *args):
            from .._tensor import Tensor
            check_backward_validity(args)
            ctx.run_function = run_function
            ctx.preserve_rng_state = preserve_rng_state
            ctx.rng = _rng_state(args, preserve_rng_state)
            ctx.inputs = []
            ctx.tensor_indices = []
            tensors = []
            for i, a in enumerate(args):
                if isinstance(a, Tensor):
                    tensors.append(a)
                    ctx.tensor_indices.append(i)
                    ctx.inputs.append(None)
                else:
                    ctx.inputs.append(a)
            ctx.save_for_backward(*tensors)
            return run_function(*args)

        @staticmethod
        def backward(ctx, *grads):
            from .._tensor import Tensor
            from .. import autograd
            inputs = list(ctx.inputs)
            for i, t in zip(ctx.tensor_indices, ctx.saved_tensors):
                inputs[i] = t
            detached = detach_variable(tuple(inputs))
            with _replay_rng(ctx.rng), enable_grad():
                outputs = ctx.run_function(*detached)
            if isinstance(outputs, Tensor):
                outputs = (outputs,)
            outs, gs = [], []
            for o, g in zip(outputs, grads):
                if isinstance(o, Tensor) and o.requires_grad:
                    outs.append(o)
                    gs.append(g)
            if not outs:
                raise RuntimeError("none of output has requires_grad=True, this checkpoint() "
                                   "is not necessary")
            autograd.backward(outs, gs)
            res = tuple(d.grad if isinstance(d, Tensor) else None for d in detached)
            return (None, None) + res

    return CheckpointFunction


_CF = None


def __getattr__(name):
    if name == 'CheckpointFunction':
        global _CF
        if _CF is None:
            _CF = _checkpoint_function_backward_cls()
        return _CF
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# ------------------------------------------------------------------------- non-reentrant

class _StopRecompute(Exception):
    pass


class _Frame:
    """One checkpointed call: the recipe to recompute and the recomputed tensors."""

    def __init__(self, fn, args, kwargs, rng, recompute_ctx, early_stop, check):
        self.fn, self.args, self.kwargs = fn, args, kwargs
        self.rng, self.recompute_ctx = rng, recompute_ctx
        self.early_stop, self.check = early_stop, check
        self.metas = []          # (shape, dtype, device) of each tensor saved in forward
        self.recomputed = None   # {index: tensor}

    def pack(self, t):
        idx = len(self.metas)
        self.metas.append((tuple(t.shape), t.dtype, t.device))
        return (self, idx)

    def recompute(self, need):
        from ..autograd.graph import saved_tensors_hooks
        from ..autograd.grad_mode import enable_grad, is_grad_enabled
        # backward without create_graph only needs the recomputed values: keep them detached
        # and let the recomputed graph hold nothing (no reference cycle, freed at once)
        keep_graph = is_grad_enabled()
        got = {}
        count = [0]
        n = len(self.metas)

        def rpack(t):
            i = count[0]
            if self.early_stop and i >= n:
                # every saved tensor is recomputed (the node that saved the last one is
                # complete, so its outputs are safe to differentiate again)
                raise _StopRecompute()
            count[0] += 1
            if i < n:
                if self.check:
                    meta = (tuple(t.shape), t.dtype, t.device)
                    if meta != self.metas[i]:
                        raise CheckpointError(
                            "torch.utils.checkpoint: Recomputed values for the following "
                            f"tensors have different metadata than during the forward pass.\n"
                            f"tensor at position {i}:\nsaved metadata: "
                            f"{_meta_str(self.metas[i])}\nrecomputed metadata: "
                            f"{_meta_str(meta)}\n")
                got[i] = t if keep_graph else t.detach()
            return t if keep_graph else None

        try:
            with _replay_rng(self.rng), enable_grad(), self.recompute_ctx(), \
                    saved_tensors_hooks(rpack, lambda t: t):
                self.fn(*self.args, **self.kwargs)
        except _StopRecompute:
            pass
        if self.check and count[0] != n and not (self.early_stop and count[0] >= n):
            raise CheckpointError(
                "torch.utils.checkpoint: A different number of tensors was saved during the "
                "original forward and recomputation.\n"
                f"Number of tensors saved during forward: {n}\n"
                f"Number of tensors saved during recomputation: {count[0]}.\n")
        self.recomputed = got


def _meta_str(m):
    return f"{{'shape': {list(m[0])}, 'dtype': {m[1]}, 'device': {m[2]}}}"


def _unpack(handle):
    frame, idx = handle
    rec = frame.recomputed
    if rec is None or idx not in rec:
        frame.recompute(idx)
        rec = frame.recomputed
    if idx not in rec:
        raise CheckpointError("torch.utils.checkpoint: Unpack is being triggered for a tensor "
                              "that was already unpacked once. If you are calling ctx.saved_tensors"
                              " in backward, make sure to do so only once. Otherwise please open "
                              "an issue with details on your use case.")
    return rec[idx]


def _checkpoint_without_reentrant(function, preserve_rng_state, context_fn,
                                  determinism_check, debug, early_stop, args, kwargs):
    from ..autograd.graph import saved_tensors_hooks
    if determinism_check not in ('default', 'none'):
        raise ValueError(f"determinism_check should be one of ['default', 'none'], but got "
                         f"{determinism_check}")
    fwd_ctx, rec_ctx = context_fn()
    rng = _rng_state(args, preserve_rng_state)
    state = {}

    def recompute_ctx():
        if 'first' not in state:
            state['first'] = True
            return rec_ctx
        return context_fn()[1]

    frame = _Frame(function, args, kwargs, rng, recompute_ctx,
                   _early_stop_enabled if early_stop else False,
                   determinism_check == 'default')
    with fwd_ctx, saved_tensors_hooks(frame.pack, _unpack):
        out = function(*args, **kwargs)
    return out


def checkpoint(function, *args, use_reentrant=None, context_fn=noop_context_fn,
               determinism_check='default', debug=False, early_stop=True, **kwargs):
    """Run ``function(*args, **kwargs)`` without keeping its intermediate results for
    backward; they are recomputed (with the same RNG state, so dropout draws the same
    masks) when backward needs them.

    Args:
        function: the callable to checkpoint.
        *args: its arguments.
        use_reentrant (bool): ``True``: backward reruns ``function`` as a whole and
            backpropagates through the new graph (no keyword arguments, no ``context_fn``);
            ``False``: saved-tensor hooks recompute the saved tensors when first needed
            (supports nested checkpoints, ``autograd.grad`` and keyword arguments).
            Must be passed explicitly: omitting it warns and uses ``True``.
        context_fn (callable): returns two context managers, entered around the forward run
            and the recomputation (``use_reentrant=False`` only).
        determinism_check (str): ``'default'`` checks that the recomputed saved tensors have
            the original shapes/dtypes/devices; ``'none'`` skips it.
        debug (bool): accepted for compatibility.
        early_stop (bool): stop recomputing once every needed tensor is recomputed.
        preserve_rng_state (bool): replay the RNG state in the recomputation.
            Default: ``True``

    Returns:
        The output of ``function(*args, **kwargs)``.

    Example::

        >>> out = ember.utils.checkpoint.checkpoint(block, x, use_reentrant=False)
        >>> out.sum().backward()

    NOTE: unlike PyTorch, ``debug=True`` records no operator trace, and the reentrant
    variant does not detect ``autograd.grad`` / ``backward(inputs=...)`` (PyTorch raises;
    ember runs an inner ``backward``, so parameters used inside also get ``.grad``). The
    non-reentrant variant recomputes the whole region the first time backward needs one
    of its saved tensors (stopping early once all are recomputed) and keeps the
    recomputed tensors until the region's nodes have run.
    """
    if use_reentrant is None:
        warnings.warn(_REENTRANT_WARNING, stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop('preserve_rng_state', True)
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when "
                             "use_reentrant=False.")
        if kwargs:
            raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
        return __getattr__('CheckpointFunction').apply(function, preserve, *args)
    return _checkpoint_without_reentrant(function, preserve, context_fn, determinism_check,
                                         debug, early_stop, args, kwargs)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Checkpoint a sequential model in ``segments`` chunks: each chunk but the last runs
    under :func:`checkpoint`; the last runs normally.

    Args:
        functions: an ``nn.Sequential`` or a list of modules/functions run in order.
        segments (int): number of chunks.
        input (Tensor): the input of the first function.
        use_reentrant (bool): as in :func:`checkpoint` (must be passed explicitly).
        preserve_rng_state (bool): as in :func:`checkpoint`. Default: ``True``

    Example::

        >>> out = checkpoint_sequential(model, 2, x, use_reentrant=False)
    """
    if use_reentrant is None:
        warnings.warn(_REENTRANT_WARNING, stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop('preserve_rng_state', True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))

    def run_function(start, end, fns):
        def forward(x):
            for j in range(start, end + 1):
                x = fns[j](x)
            return x
        return forward

    from ..nn import Sequential
    if isinstance(functions, Sequential):
        functions = list(functions.children())
    segment_size = len(functions) // segments
    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(run_function(start, end, functions), input,
                           use_reentrant=use_reentrant, preserve_rng_state=preserve)
    return run_function(end + 1, len(functions) - 1, functions)(input)
