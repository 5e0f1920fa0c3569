"""Adagrad: per-coordinate learning rates from the accumulated squared gradients."""
from .._backend import array_module
from .optimizer import Optimizer
from .adam import _check_lr, _check_nonneg
from ._functional import (_scalar, _closure_loss, _arr, _bump, _grad, _full_like,
                          _incr_step, _scalar_tensor)

__all__ = ['Adagrad']


class Adagrad(Optimizer):
    r"""Adagrad.

    Per step ``t``::

        g = g + weight_decay * p
        clr = lr / (1 + (t - 1) * lr_decay)
        sum = sum + g * g
        p = p - clr * g / (sqrt(sum) + eps)

    Args:
        params (iterable): parameters or parameter groups.
        lr (float or Tensor): learning rate (default 1e-2).
        lr_decay (float): learning-rate decay (default 0).
        weight_decay (float): L2 penalty (default 0).
        initial_accumulator_value (float): start value of ``sum`` (default 0).
        eps (float): added to the denominator (default 1e-10).
        foreach, differentiable, fused: accepted for compatibility.
        maximize (bool): maximize the objective (default False).

    State per parameter (made at construction, as in PyTorch): ``step``, ``sum``.

    NOTE: unlike PyTorch, ``foreach``/``fused`` select no different implementation,
    ``differentiable`` does not record the update, and there are no sparse gradients.

    Example::

        >>> optimizer = ember.optim.Adagrad(model.parameters(), lr=0.1)
        >>> optimizer.step()
    """

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0,
                 initial_accumulator_value=0, eps=1e-10, foreach=None, *, maximize=False,
                 differentiable=False, fused=None):
        _check_lr(lr)
        _check_nonneg(lr_decay, 'lr_decay')
        _check_nonneg(weight_decay, 'weight_decay')
        _check_nonneg(initial_accumulator_value, 'initial_accumulator_value')
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value,
                        foreach=foreach, maximize=maximize, differentiable=differentiable,
                        fused=fused)
        super().__init__(params, defaults)
        if fused:
            if differentiable:
                raise RuntimeError("`fused` does not support `differentiable`")
            if foreach:
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
        for group in self.param_groups:
            for p in group['params']:
                state = self.state[p]
                state['step'] = _scalar_tensor(0.0, p)
                v = initial_accumulator_value
                state['sum'] = _full_like(p, complex(v, v) if p.is_complex() else v)

    # defaults for param groups of optimizers pickled before these options existed
    _group_setstate_defaults = {'foreach': None, 'maximize': False, 'differentiable': False,
                                 'fused': None}

    def share_memory(self):
        """Move the accumulators to shared memory (a no-op on ember's CPU arrays)."""
        for group in self.param_groups:
            for p in group['params']:
                self.state[p]['sum'].share_memory_()

    def step(self, closure=None):
        """Perform one optimization step.

        Args:
            closure (callable, optional): re-evaluates the model and returns the loss.
        """
        loss = _closure_loss(closure)
        for group in self.param_groups:
            lr = _scalar(group['lr'])
            eps, wd, lr_decay = group['eps'], group['weight_decay'], group['lr_decay']
            for p in group['params']:
                if p.grad is None:
                    continue
                state = self.state[p]
                step = _incr_step(state, p)
                x = _arr(p)
                xp = array_module(x)
                g = _grad(p, group['maximize'])
                if wd != 0:
                    g = g + wd * x
                clr = lr / (1 + (step - 1) * lr_decay)
                s = _arr(state['sum'])
                tmp = xp.multiply(g, g)
                s += tmp
                std = xp.sqrt(s)
                std += eps
                xp.multiply(g, -clr, out=tmp)
                tmp /= std
                x += tmp
                _bump(p)
        return loss
