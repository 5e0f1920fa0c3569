"""``replicate``: copies of a module on several devices whose parameters are
differentiable copies of the original's (gradients flow back to the original)."""
from ..modules.module import Module
from . import _devices as _dev

__all__ = ['replicate']


def _replica(module, memo, device, detach):
    if module in memo:
        return memo[module]
    rep = module.__new__(type(module))
    d = dict(module.__dict__)
    d['_parameters'] = {}
    d['_buffers'] = dict(module._buffers)
    d['_modules'] = {}
    rep.__dict__.update(d)
    rep._is_replica = True
    memo[module] = rep
    for name, p in module._parameters.items():
        if p is None:
            object.__setattr__(rep, name, None)
            continue
        q = p.detach().to(device) if detach else p.to(device)
        if q is p:        # same device: a fresh non-leaf view that still reaches p
            q = p.view_as(p) if not detach else p.detach()
        object.__setattr__(rep, name, q)   # a plain attribute: a replica owns no Parameter
    for name, b in module._buffers.items():
        if b is not None:
            nb = b.to(device) if (b.requires_grad and not detach) else b.detach().to(device)
            rep._buffers[name] = nb
    for name, sub in module._modules.items():
        rep._modules[name] = None if sub is None else _replica(sub, memo, device, detach)
    return rep


def _replicate(network, devices, detach=False):
    return [_replica(network, {}, d, detach) for d in devices]


def replicate(network, devices, detach=False):
    """Copies of ``network``, one per device. Each replica shares the module structure and
    attributes; its parameters are differentiable copies (``param.to(device)``) of the
    original's, so gradients of replica outputs reach the original parameters (unless
    ``detach``); buffers are copied to each device.

    Args:
        network (Module): the module to replicate.
        devices (list of int or device): accelerator devices.
        detach (bool): copy the parameters without autograd history. Default: False

    Returns:
        list of Module: the replicas (their ``parameters()`` are empty, as in PyTorch).

    Example::

        >>> from ember.nn.parallel import replicate
        >>> replicate(ember.nn.Linear(2, 2), [])
        []
    """
    if not isinstance(network, Module):
        raise TypeError(f"replicate() expects a Module, got {type(network).__name__}")
    if not devices:
        return []
    devs = [_dev.to_device(_dev.device_index(d)) for d in devices]
    if not _dev.accelerator_available() and any(True for _ in network.parameters()):
        raise AssertionError("Broadcast function not implemented for CPU tensors")
    return _replicate(network, devs, detach)
