"""NAdam: Adam with Nesterov momentum."""
from .._backend import array_module
from .optimizer import Optimizer
from .adam import _check_lr, _check_betas, _check_nonneg
from ._functional import (_scalar, _closure_loss, _arr, _bump, _grad, _zeros_like,
                          _incr_step, _lerp_, _scalar_tensor)

__all__ = ['NAdam']


class NAdam(Optimizer):
    r"""NAdam: Adam with Nesterov momentum and a momentum schedule.

    Per step ``t``, with ``mu_t = beta1 * (1 - 0.5 * 0.96 ** (t * momentum_decay))``::

        m = beta1 * m + (1 - beta1) * g;  v = beta2 * v + (1 - beta2) * g * g
        d = sqrt(v / (1 - beta2**t)) + eps
        p -= lr * (1 - mu_t) / (1 - prod mu_1..t) * g / d
        p -= lr * mu_{t+1} / (1 - prod mu_1..t+1) * m / d

    Args:
        params (iterable): parameters or parameter groups.
        lr (float or Tensor): learning rate (default 2e-3).
        betas (Tuple[float, float]): coefficients (default (0.9, 0.999)).
        eps (float): added to the denominator (default 1e-8).
        weight_decay (float): weight decay (default 0).
        momentum_decay (float): momentum decay psi (default 4e-3).
        decoupled_weight_decay (bool): AdamW-style decay (NAdamW) (default False).
        foreach, capturable, differentiable: accepted for compatibility.
        maximize (bool): maximize the objective (default False).

    State per parameter: ``step``, ``mu_product``, ``exp_avg``, ``exp_avg_sq``.

    NOTE: unlike PyTorch, ``foreach``/``capturable`` select no different implementation
    and ``differentiable`` does not record the update.

    Example::

        >>> optimizer = ember.optim.NAdam(model.parameters())
        >>> optimizer.step()
    """

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 momentum_decay=4e-3, decoupled_weight_decay=False, *, foreach=None,
                 maximize=False, capturable=False, differentiable=False):
        _check_lr(lr)
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        _check_betas(betas)
        _check_nonneg(weight_decay, 'weight_decay')
        _check_nonneg(momentum_decay, 'momentum_decay')
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        momentum_decay=momentum_decay,
                        decoupled_weight_decay=decoupled_weight_decay, maximize=maximize,
                        foreach=foreach, capturable=capturable, differentiable=differentiable)
        super().__init__(params, defaults)

    # defaults for param groups of optimizers pickled before these options existed
    _group_setstate_defaults = {'maximize': False, 'foreach': None, 'capturable': False,
                                 'differentiable': False, 'decoupled_weight_decay': False}

    def step(self, closure=None):
        """Perform one optimization step.

        Args:
            closure (callable, optional): re-evaluates the model and returns the loss.
        """
        loss = _closure_loss(closure)
        for group in self.param_groups:
            lr = _scalar(group['lr'])
            beta1, beta2 = (_scalar(b) for b in group['betas'])
            eps, wd, psi = group['eps'], group['weight_decay'], group['momentum_decay']
            for p in group['params']:
                if p.grad is None:
                    continue
                state = self.state[p]
                if len(state) == 0:
                    state['step'] = _scalar_tensor(0.0, p)
                    state['mu_product'] = _scalar_tensor(1.0, p)
                    state['exp_avg'] = _zeros_like(p)
                    state['exp_avg_sq'] = _zeros_like(p)
                step = _incr_step(state, p)
                x = _arr(p)
                xp = array_module(x)
                g = _grad(p, group['maximize'])
                bc2 = 1 - beta2 ** step
                if wd != 0:
                    if group['decoupled_weight_decay']:
                        x *= 1 - lr * wd
                    else:
                        g = g + wd * x
                mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * psi)))
                mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * psi)))
                mp = state['mu_product']._data
                mp *= mu                      # kept in the state's precision, as PyTorch
                mu_prod = float(mp)
                m, v = _arr(state['exp_avg']), _arr(state['exp_avg_sq'])
                tmp = xp.empty_like(x)
                _lerp_(m, g, 1 - beta1, tmp)
                v *= beta2
                xp.multiply(g, 1 - beta2, out=tmp)
                tmp *= g
                v += tmp
                denom = xp.divide(v, bc2)
                xp.sqrt(denom, out=denom)
                denom += eps
                mu_prod_next = mu_prod * mu_next
                xp.multiply(g, -lr * (1.0 - mu) / (1.0 - mu_prod), out=tmp)
                tmp /= denom
                x += tmp
                xp.multiply(m, (-lr * mu_next) / (1.0 - mu_prod_next), out=tmp)
                tmp /= denom
                x += tmp
                _bump(p)
        return loss
