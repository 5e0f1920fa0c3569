"""Stochastic gradient descent (optionally with momentum, Nesterov, weight decay)."""
from .._backend import array_module
from .._tensor import Tensor, _new_tensor
from .optimizer import Optimizer
from ._functional import _scalar, _closure_loss, _arr, _bump, _grad

__all__ = ['SGD']


class SGD(Optimizer):
    """Stochastic gradient descent.

    For each parameter ``p`` with gradient ``g`` (negated with ``maximize``)::

        g = g + weight_decay * p
        buf = g (first step) or momentum * buf + (1 - dampening) * g
        g = g + momentum * buf (nesterov) or buf
        p = p - lr * g

    Args:
        params (iterable): parameters or parameter groups.
        lr (float): learning rate (default 1e-3).
        momentum (float): momentum factor (default 0).
        dampening (float): dampening of the momentum (default 0).
        weight_decay (float): L2 penalty (default 0).
        nesterov (bool): Nesterov momentum (default False).
        maximize (bool): maximize the objective (default False).
        foreach, differentiable, fused: accepted for compatibility.

    State per parameter (with momentum): ``momentum_buffer``, as in PyTorch.

    NOTE: unlike PyTorch, ``foreach`` and ``fused`` select no different implementation,
    and ``differentiable=True`` does not make the update part of the autograd graph.

    Example::

        >>> optimizer = ember.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        >>> optimizer.zero_grad()
        >>> loss_fn(model(input), target).backward()
        >>> optimizer.step()
    """

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0,
                 nesterov=False, *, maximize=False, foreach=None, differentiable=False,
                 fused=None):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening,
                        weight_decay=weight_decay, nesterov=nesterov, maximize=maximize,
                        foreach=foreach, differentiable=differentiable, fused=fused)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)

    # defaults for param groups of optimizers pickled before these options existed
    _group_setstate_defaults = {'nesterov': False, 'maximize': False, 'foreach': None,
                                 'differentiable': False, 'fused': None}

    def step(self, closure=None):
        """Perform one optimization step.

        Args:
            closure (callable, optional): re-evaluates the model and returns the loss.
        """
        loss = _closure_loss(closure)
        for group in self.param_groups:
            lr = _scalar(group['lr'])
            wd = group['weight_decay']
            momentum = group['momentum']
            dampening = group['dampening']
            nesterov = group['nesterov']
            maximize = group['maximize']
            for p in group['params']:
                if p.grad is None:
                    continue
                x = _arr(p)
                xp = array_module(x)
                g = _grad(p, maximize)
                if wd != 0:
                    g = g + wd * x
                if momentum != 0:
                    state = self.state[p]
                    buf_t = state.get('momentum_buffer')
                    if buf_t is None:
                        buf_t = _new_tensor(g.copy())
                        state['momentum_buffer'] = buf_t
                        buf = _arr(buf_t)
                    else:
                        buf = _arr(buf_t)
                        buf *= momentum
                        if dampening == 0:
                            buf += g
                        else:
                            buf += (1 - dampening) * g
                    g = g + momentum * buf if nesterov else buf
                if lr == 1:
                    x -= g
                else:
                    x += xp.multiply(g, -lr)
                _bump(p)
        return loss
