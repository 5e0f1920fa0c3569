"""RAdam: rectified Adam."""
import math

from .._backend import array_module
from .optimizer import Optimizer
from .adam import _check_lr, _check_betas, _check_nonneg
from ._functional import (_scalar, _closure_loss, _arr, _bump, _grad, _zeros_like,
                          _incr_step, _lerp_, _scalar_tensor)

__all__ = ['RAdam']


class RAdam(Optimizer):
    r"""RAdam: Adam whose adaptive term is switched on, with a variance rectification,
    once the approximated SMA length ``rho_t`` exceeds 5 (before that, SGD with momentum).

    Args:
        params (iterable): parameters or parameter groups.
        lr (float or Tensor): learning rate (default 1e-3).
        betas (Tuple[float, float]): coefficients (default (0.9, 0.999)).
        eps (float): added to the denominator (default 1e-8).
        weight_decay (float): weight decay (default 0).
        decoupled_weight_decay (bool): AdamW-style decay (default False).
        foreach, capturable, differentiable: accepted for compatibility.
        maximize (bool): maximize the objective (default False).

    State per parameter: ``step``, ``exp_avg``, ``exp_avg_sq``.

    NOTE: unlike PyTorch, ``foreach``/``capturable`` select no different implementation
    and ``differentiable`` does not record the update.

    Example::

        >>> optimizer = ember.optim.RAdam(model.parameters())
        >>> optimizer.step()
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False,
                 capturable=False, differentiable=False):
        _check_lr(lr)
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        _check_betas(betas)
        _check_nonneg(weight_decay, 'weight_decay')
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        maximize=maximize, foreach=foreach, capturable=capturable,
                        decoupled_weight_decay=decoupled_weight_decay,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    # defaults for param groups of optimizers pickled before these options existed
    _group_setstate_defaults = {'foreach': None, 'maximize': False, 'differentiable': False,
                                 'decoupled_weight_decay': False, 'capturable': False}

    def step(self, closure=None):
        """Perform one optimization step.

        Args:
            closure (callable, optional): re-evaluates the model and returns the loss.
        """
        loss = _closure_loss(closure)
        for group in self.param_groups:
            lr = _scalar(group['lr'])
            beta1, beta2 = (_scalar(b) for b in group['betas'])
            eps, wd = group['eps'], group['weight_decay']
            for p in group['params']:
                if p.grad is None:
                    continue
                state = self.state[p]
                if len(state) == 0:
                    state['step'] = _scalar_tensor(0.0, p)
                    state['exp_avg'] = _zeros_like(p)
                    state['exp_avg_sq'] = _zeros_like(p)
                step = _incr_step(state, p)
                x = _arr(p)
                xp = array_module(x)
                g = _grad(p, group['maximize'])
                if wd != 0:
                    if group['decoupled_weight_decay']:
                        x *= 1 - lr * wd
                    else:
                        g = g + wd * x
                m, v = _arr(state['exp_avg']), _arr(state['exp_avg_sq'])
                tmp = xp.empty_like(x)
                _lerp_(m, g, 1 - beta1, tmp)
                v *= beta2
                xp.multiply(g, 1 - beta2, out=tmp)
                tmp *= g
                v += tmp
                bc1 = 1 - beta1 ** step
                bc2 = 1 - beta2 ** step
                upd = xp.divide(m, bc1)
                upd *= lr
                rho_inf = 2 / (1 - beta2) - 1
                rho_t = rho_inf - 2 * step * (beta2 ** step) / bc2
                if rho_t > 5.0:
                    xp.sqrt(v, out=tmp)
                    tmp += eps
                    xp.divide(bc2 ** 0.5, tmp, out=tmp)
                    upd *= tmp
                    upd *= ((rho_t - 4) * (rho_t - 2) * rho_inf
                            / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
                x -= upd
                _bump(p)
        return loss
