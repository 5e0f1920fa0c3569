"""Adadelta."""
from .._backend import array_module
from .optimizer import Optimizer
from .adam import _check_lr, _check_nonneg
from ._functional import (_scalar, _closure_loss, _arr, _bump, _grad, _zeros_like,
                          _incr_step, _scalar_tensor)

__all__ = ['Adadelta']


class Adadelta(Optimizer):
    r"""Adadelta: an adaptive learning rate from running averages of squared gradients
    and squared updates.

    Per step::

        g = g + weight_decay * p
        v = rho * v + (1 - rho) * g * g
        delta = sqrt(u + eps) / sqrt(v + eps) * g
        u = rho * u + (1 - rho) * delta * delta
        p = p - lr * delta

    Args:
        params (iterable): parameters or parameter groups.
        lr (float or Tensor): scale of the update (default 1.0).
        rho (float): averaging coefficient (default 0.9).
        eps (float): added inside the square roots (default 1e-6).
        weight_decay (float): L2 penalty (default 0).
        foreach, capturable, differentiable: accepted for compatibility.
        maximize (bool): maximize the objective (default False).

    State per parameter: ``step``, ``square_avg``, ``acc_delta``.

    NOTE: unlike PyTorch, ``foreach``/``capturable`` select no different implementation
    and ``differentiable`` does not record the update.

    Example::

        >>> optimizer = ember.optim.Adadelta(model.parameters())
        >>> optimizer.step()
    """

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *,
                 capturable=False, maximize=False, differentiable=False):
        _check_lr(lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        _check_nonneg(weight_decay, 'weight_decay')
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay,
                        maximize=maximize, capturable=capturable, foreach=foreach,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    # defaults for param groups of optimizers pickled before these options existed
    _group_setstate_defaults = {'foreach': None, 'maximize': False, 'differentiable': False,
                                 'capturable': False}

    def step(self, closure=None):
        """Perform one optimization step.

        Args:
            closure (callable, optional): re-evaluates the model and returns the loss.
        """
        loss = _closure_loss(closure)
        for group in self.param_groups:
            lr = _scalar(group['lr'])
            rho, eps, wd = group['rho'], group['eps'], group['weight_decay']
            for p in group['params']:
                if p.grad is None:
                    continue
                state = self.state[p]
                if len(state) == 0:
                    state['step'] = _scalar_tensor(0.0, p)
                    state['square_avg'] = _zeros_like(p)
                    state['acc_delta'] = _zeros_like(p)
                _incr_step(state, p)
                x = _arr(p)
                xp = array_module(x)
                g = _grad(p, group['maximize'])
                if wd != 0:
                    g = g + wd * x
                v, u = _arr(state['square_avg']), _arr(state['acc_delta'])
                v *= rho
                tmp = xp.multiply(g, 1 - rho)
                tmp *= g
                v += tmp
                std = xp.add(v, eps)
                xp.sqrt(std, out=std)
                delta = xp.add(u, eps)
                xp.sqrt(delta, out=delta)
                delta /= std
                delta *= g
                u *= rho
                xp.multiply(delta, 1 - rho, out=tmp)
                tmp *= delta
                u += tmp
                delta *= -lr
                x += delta
                _bump(p)
        return loss
