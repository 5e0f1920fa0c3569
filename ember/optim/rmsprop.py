"""RMSprop."""
from .._backend import array_module
from .optimizer import Optimizer
from .adam import _check_lr, _check_nonneg
from ._functional import (_scalar, _closure_loss, _arr, _bump, _grad, _zeros_like,
                          _incr_step, _lerp_, _scalar_tensor)

__all__ = ['RMSprop']


class RMSprop(Optimizer):
    r"""RMSprop.

    Per step::

        g = g + weight_decay * p
        v = alpha * v + (1 - alpha) * g * g
        a = sqrt(v - mean_g ** 2) + eps    (centered: mean_g = running mean of g)
            sqrt(v) + eps                  (otherwise)
        buf = momentum * buf + g / a; p -= lr * buf   (momentum > 0)
        p -= lr * g / a                               (otherwise)

    Args:
        params (iterable): parameters or parameter groups.
        lr (float or Tensor): learning rate (default 1e-2).
        alpha (float): smoothing constant (default 0.99).
        eps (float): added to the denominator (default 1e-8).
        weight_decay (float): L2 penalty (default 0).
        momentum (float): momentum factor (default 0).
        centered (bool): normalize by an estimate of the gradient's variance (default False).
        capturable, foreach, differentiable: accepted for compatibility.
        maximize (bool): maximize the objective (default False).

    State per parameter: ``step``, ``square_avg``, ``momentum_buffer`` (momentum > 0),
    ``grad_avg`` (centered).

    NOTE: unlike PyTorch, ``foreach``/``capturable`` select no different implementation
    and ``differentiable`` does not record the update.

    Example::

        >>> optimizer = ember.optim.RMSprop(model.parameters(), lr=0.01)
        >>> optimizer.step()
    """

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, capturable=False, foreach=None, maximize=False,
                 differentiable=False):
        _check_lr(lr)
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        _check_nonneg(momentum, 'momentum')
        _check_nonneg(weight_decay, 'weight_decay')
        _check_nonneg(alpha, 'alpha')
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                        weight_decay=weight_decay, capturable=capturable, foreach=foreach,
                        maximize=maximize, differentiable=differentiable)
        super().__init__(params, defaults)

    # defaults for param groups of optimizers pickled before these options existed
    _group_setstate_defaults = {'momentum': 0, 'centered': False, 'foreach': None,
                                 'maximize': False, 'differentiable': False,
                                 'capturable': False}

    def step(self, closure=None):
        """Perform one optimization step.

        Args:
            closure (callable, optional): re-evaluates the model and returns the loss.
        """
        loss = _closure_loss(closure)
        for group in self.param_groups:
            lr = _scalar(group['lr'])
            alpha, eps, wd = group['alpha'], group['eps'], group['weight_decay']
            momentum, centered = group['momentum'], group['centered']
            for p in group['params']:
                if p.grad is None:
                    continue
                state = self.state[p]
                if len(state) == 0:
                    state['step'] = _scalar_tensor(0.0, p)
                    state['square_avg'] = _zeros_like(p)
                    if momentum > 0:
                        state['momentum_buffer'] = _zeros_like(p)
                    if centered:
                        state['grad_avg'] = _zeros_like(p)
                _incr_step(state, p)
                x = _arr(p)
                xp = array_module(x)
                g = _grad(p, group['maximize'])
                if wd != 0:
                    g = g + wd * x
                v = _arr(state['square_avg'])
                v *= alpha
                tmp = xp.multiply(g, 1 - alpha)
                tmp *= g
                v += tmp
                if centered:
                    ga = _arr(state['grad_avg'])
                    _lerp_(ga, g, 1 - alpha, tmp)
                    avg = xp.multiply(ga, -1.0)
                    avg *= ga
                    avg += v
                    xp.sqrt(avg, out=avg)
                else:
                    avg = xp.sqrt(v)
                avg += eps
                if momentum > 0:
                    buf = _arr(state['momentum_buffer'])
                    buf *= momentum
                    xp.divide(g, avg, out=tmp)
                    buf += tmp
                    xp.multiply(buf, -lr, out=tmp)
                    x += tmp
                else:
                    xp.multiply(g, -lr, out=tmp)
                    tmp /= avg
                    x += tmp
                _bump(p)
        return loss
