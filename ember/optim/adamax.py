"""Adamax: Adam with the infinity norm."""
from .._backend import array_module
from .optimizer import Optimizer
from .adam import _check_lr, _check_betas, _check_nonneg
from ._functional import (_scalar, _closure_loss, _arr, _bump, _grad, _zeros_like,
                          _incr_step, _lerp_, _scalar_tensor)

__all__ = ['Adamax']


class Adamax(Optimizer):
    r"""Adamax, the infinity-norm variant of Adam.

    Per step ``t``::

        g = g + weight_decay * p
        m = beta1 * m + (1 - beta1) * g
        u = max(beta2 * u, |g| + eps)
        p = p - lr / (1 - beta1**t) * m / u

    Args:
        params (iterable): parameters or parameter groups.
        lr (float or Tensor): learning rate (default 2e-3).
        betas (Tuple[float, float]): coefficients (default (0.9, 0.999)).
        eps (float): added to the norm (default 1e-8).
        weight_decay (float): L2 penalty (default 0).
        foreach, differentiable, capturable: accepted for compatibility.
        maximize (bool): maximize the objective (default False).

    State per parameter: ``step``, ``exp_avg``, ``exp_inf``.

    NOTE: unlike PyTorch, ``foreach``/``capturable`` select no different implementation
    and ``differentiable`` does not record the update.

    Example::

        >>> optimizer = ember.optim.Adamax(model.parameters())
        >>> optimizer.step()
    """

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 foreach=None, *, maximize=False, differentiable=False, capturable=False):
        _check_lr(lr)
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        _check_betas(betas)
        _check_nonneg(weight_decay, 'weight_decay')
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
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
            beta1, beta2 = (_scalar(b) for b in group['betas'])
            eps, wd = group['eps'], group['weight_decay']
            for p in group['params']:
                if p.grad is None:
                    continue
                state = self.state[p]
                if len(state) == 0:
                    state['step'] = _scalar_tensor(0.0, p)
                    state['exp_avg'] = _zeros_like(p)
                    state['exp_inf'] = _zeros_like(p)
                step = _incr_step(state, p)
                x = _arr(p)
                xp = array_module(x)
                g = _grad(p, group['maximize'])
                if wd != 0:
                    g = g + wd * x
                m, u = _arr(state['exp_avg']), _arr(state['exp_inf'])
                tmp = xp.empty_like(x)
                _lerp_(m, g, 1 - beta1, tmp)
                u *= beta2
                xp.abs(g, out=tmp)
                tmp += eps
                xp.maximum(u, tmp, out=u)
                clr = lr / (1 - beta1 ** step)
                xp.multiply(m, -clr, out=tmp)
                tmp /= u
                x += tmp
                _bump(p)
        return loss
