"""ASGD: averaged stochastic gradient descent."""
from .._backend import array_module
from .optimizer import Optimizer
from .adam import _check_lr, _check_nonneg
from ._functional import (_scalar, _closure_loss, _arr, _bump, _grad, _zeros_like,
                          _incr_step, _scalar_tensor)

__all__ = ['ASGD']


class ASGD(Optimizer):
    r"""Averaged SGD: plain SGD steps with a decaying step size ``eta``, while ``ax`` keeps
    the running average of the iterates from step ``t0`` on.

    Per step ``t``::

        g = g + weight_decay * p
        p = p * (1 - lambd * eta) - eta * g
        ax = ax + mu * (p - ax)      (ax = p while mu == 1)
        eta = lr / (1 + lambd * lr * t) ** alpha;  mu = 1 / max(1, t - t0)

    Args:
        params (iterable): parameters or parameter groups.
        lr (float or Tensor): learning rate (default 1e-2).
        lambd (float): decay term (default 1e-4).
        alpha (float): power of the eta update (default 0.75).
        t0 (float): step at which averaging starts (default 1e6).
        weight_decay (float): L2 penalty (default 0).
        foreach, differentiable, capturable: accepted for compatibility.
        maximize (bool): maximize the objective (default False).

    State per parameter: ``step``, ``eta``, ``mu``, ``ax``.

    NOTE: unlike PyTorch, ``foreach``/``capturable`` select no different implementation
    and ``differentiable`` does not record the update.

    Example::

        >>> optimizer = ember.optim.ASGD(model.parameters())
        >>> optimizer.step()
    """

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0,
                 foreach=None, maximize=False, differentiable=False, capturable=False):
        _check_lr(lr)
        _check_nonneg(weight_decay, 'weight_decay')
        defaults = dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay,
                        foreach=foreach, maximize=maximize, differentiable=differentiable,
                        capturable=capturable)
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
            lambd, alpha, t0 = group['lambd'], group['alpha'], group['t0']
            wd = group['weight_decay']
            for p in group['params']:
                if p.grad is None:
                    continue
                state = self.state[p]
                if len(state) == 0:
                    state['step'] = _scalar_tensor(0.0, p)
                    state['eta'] = _scalar_tensor(lr, p)
                    state['mu'] = _scalar_tensor(1.0, p)
                    state['ax'] = _zeros_like(p)
                step = _incr_step(state, p)
                x = _arr(p)
                xp = array_module(x)
                g = _grad(p, group['maximize'])
                if wd != 0:
                    g = g + wd * x
                eta = float(state['eta']._data)
                x *= 1 - lambd * eta
                tmp = xp.multiply(g, -eta)
                x += tmp
                ax = _arr(state['ax'])
                mu = float(state['mu']._data)
                if mu != 1:
                    xp.subtract(x, ax, out=tmp)
                    tmp *= mu
                    ax += tmp
                else:
                    ax[...] = x
                state['eta']._data[...] = lr / ((1 + lambd * lr * step) ** alpha)
                state['mu']._data[...] = 1 / max(1, step - t0)
                _bump(p)
        return loss
