"""DDP communication hooks: ``default_hooks`` (``allreduce_hook``, ``fp16_compress_hook``,
``bf16_compress_hook`` and their wrappers) and ``powerSGD_hook`` (``PowerSGDState``,
``powerSGD_hook``, ``batched_powerSGD_hook``). Register one with
``DistributedDataParallel.register_comm_hook(state, hook)``."""
import enum
from functools import partial

from . import default_hooks, powerSGD_hook

__all__ = ['DDPCommHookType', 'register_ddp_comm_hook', 'default_hooks', 'powerSGD_hook']


def _hook(hook):
    return partial(lambda model, state, h=hook: model.register_comm_hook(state, h))


def _psgd(hook):
    return partial(lambda model, state, h=hook, **kw: model.register_comm_hook(
        powerSGD_hook.PowerSGDState(state, **kw), h))


class DDPCommHookType(enum.Enum):
    """The built-in hooks, by name: ``ALLREDUCE``, ``FP16_COMPRESS``, ``BF16_COMPRESS``,
    ``POWER_SGD``, ``BATCHED_POWER_SGD``.

    Example::

        >>> register_ddp_comm_hook(DDPCommHookType.ALLREDUCE, ddp_model)
    """
    ALLREDUCE = _hook(default_hooks.allreduce_hook)
    FP16_COMPRESS = _hook(default_hooks.fp16_compress_hook)
    BF16_COMPRESS = _hook(default_hooks.bf16_compress_hook)
    POWER_SGD = _psgd(powerSGD_hook.powerSGD_hook)
    BATCHED_POWER_SGD = _psgd(powerSGD_hook.batched_powerSGD_hook)


def register_ddp_comm_hook(comm_hook_type, model, state=None, **kwargs):
    """Register the built-in hook ``comm_hook_type`` (a :class:`DDPCommHookType`) on ``model``.

    Args:
        comm_hook_type (DDPCommHookType): which hook.
        model (DistributedDataParallel): the DDP module.
        state: the hook's state (the process group for the default hooks).
        **kwargs: PowerSGD options (``matrix_approximation_rank`` ...).

    Example::

        >>> register_ddp_comm_hook(DDPCommHookType.FP16_COMPRESS, ddp_model)
    """
    comm_hook_type.value(model=model, state=state, **kwargs)
