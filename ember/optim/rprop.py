"""Rprop: resilient backpropagation."""
from .._backend import array_module
from .optimizer import Optimizer
from .adam import _check_lr
from ._functional import (_scalar, _closure_loss, _arr, _bump, _grad, _zeros_like,
                          _full_like, _incr_step, _scalar_tensor)

__all__ = ['Rprop']


class Rprop(Optimizer):
    r"""Rprop: each coordinate has its own step size, multiplied by ``etaplus`` while the
    gradient keeps its sign and by ``etaminus`` when it flips (then that coordinate is not
    moved and its gradient is forgotten); the parameter moves by ``-sign(g) * step_size``.

    Args:
        params (iterable): parameters or parameter groups.
        lr (float or Tensor): initial step size (default 1e-2).
        etas (Tuple[float, float]): (etaminus, etaplus) (default (0.5, 1.2)).
        step_sizes (Tuple[float, float]): minimal and maximal step size (default (1e-6, 50)).
        capturable, foreach, differentiable: accepted for compatibility.
        maximize (bool): maximize the objective (default False).

    State per parameter: ``step``, ``prev``, ``step_size``.

    NOTE: unlike PyTorch, ``foreach``/``capturable`` select no different implementation
    and ``differentiable`` does not record the update.

    Example::

        >>> optimizer = ember.optim.Rprop(model.parameters())
        >>> optimizer.step()
    """

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        _check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach,
                        maximize=maximize, differentiable=differentiable,
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
            etaminus, etaplus = group['etas']
            smin, smax = group['step_sizes']
            for p in group['params']:
                if p.grad is None:
                    continue
                state = self.state[p]
                if len(state) == 0:
                    state['step'] = _scalar_tensor(0.0, p)
                    state['prev'] = _zeros_like(p)
                    lr = _scalar(group['lr'])
                    state['step_size'] = _full_like(
                        p.grad, complex(lr, lr) if p.is_complex() else lr)
                _incr_step(state, p)
                x = _arr(p)
                xp = array_module(x)
                g = _grad(p, group['maximize'])
                prev, ss = _arr(state['prev']), _arr(state['step_size'])
                prod = xp.multiply(g, prev)
                pos, neg = prod > 0, prod < 0
                factor = xp.ones_like(prod)
                factor[pos] = etaplus
                factor[neg] = etaminus
                ss *= factor
                xp.clip(ss, smin, smax, out=ss)
                g = g.copy()
                g[neg] = 0
                upd = xp.sign(g)
                upd *= ss
                x -= upd
                prev[...] = g
                _bump(p)
        return loss
