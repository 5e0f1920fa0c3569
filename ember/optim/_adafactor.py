"""Adafactor: Adam-like steps with factored second moments (row and column averages)."""
from .._backend import array_module
from .optimizer import Optimizer
from ._functional import (_scalar, _closure_loss, _arr, _bump, _grad, _zeros_like,
                          _incr_step, _lerp_, _scalar_tensor)
from .._tensor import Tensor, _new_tensor

__all__ = ['Adafactor']


class Adafactor(Optimizer):
    r"""Adafactor (Shazeer & Stern), in PyTorch's variant.

    Per step ``t``, with ``w = t ** beta2_decay`` and ``rho = min(lr, 1 / sqrt(t))``::

        alpha = max(eps2, RMS(p)) * rho;  p *= 1 - lr * weight_decay
        matrices (dim > 1): R = lerp(R, mean(g*g, dim=-1), w); C = lerp(C, mean(g*g, dim=-2), w)
                            V = R @ C / max(mean(R, dim=-2), eps1)
        vectors:            V = lerp(V, g*g, w)
        U = g / sqrt(max(V, eps1**2));  p -= alpha / max(1, RMS(U) / d) * U

    Args:
        params (iterable): parameters or parameter groups.
        lr (float or Tensor): maximum relative step size and weight-decay scale (default 1e-2).
        beta2_decay (float): decay exponent of beta2, <= 0 (default -0.8).
        eps (Tuple[float or None, float]): eps1 (None: the dtype's machine epsilon) and
            eps2 (default (None, 1e-3)).
        d (float): update clipping threshold, >= 1 (default 1.0).
        weight_decay (float): decoupled weight decay (default 0.0).
        foreach: accepted for compatibility.
        maximize (bool): maximize the objective (default False).

    State per parameter: ``step`` and ``row_var``/``col_var`` (matrices) or ``variance``.

    NOTE: unlike PyTorch, ``foreach`` selects no different implementation.

    Example::

        >>> optimizer = ember.optim.Adafactor(model.parameters(), lr=1e-2)
        >>> optimizer.step()
    """

    def __init__(self, params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0,
                 weight_decay=0.0, *, foreach=None, maximize=False):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = dict(lr=lr, beta2_decay=beta2_decay, eps=eps, d=d,
                        weight_decay=weight_decay, foreach=foreach, maximize=maximize)
        super().__init__(params, defaults)

    # defaults for param groups of optimizers pickled before these options existed
    _group_setstate_defaults = {'foreach': None}

    def step(self, closure=None):
        """Perform one optimization step.

        Args:
            closure (callable, optional): re-evaluates the model and returns the loss.
        """
        loss = _closure_loss(closure)
        for group in self.param_groups:
            lr = _scalar(group['lr'])
            eps1, eps2 = group['eps']
            d, wd, decay = group['d'], group['weight_decay'], group['beta2_decay']
            for p in group['params']:
                if p.grad is None:
                    continue
                if p.is_complex():
                    raise RuntimeError("Adafactor does not support complex parameters")
                state = self.state[p]
                g = _grad(p, group['maximize'])
                if len(state) == 0:
                    state['step'] = _scalar_tensor(0.0, p)
                    if g.ndim > 1:
                        xp = array_module(g)
                        state['row_var'] = _new_tensor(xp.zeros(g.shape[:-1] + (1,), g.dtype))
                        state['col_var'] = _new_tensor(
                            xp.zeros(g.shape[:-2] + (1, g.shape[-1]), g.dtype))
                    else:
                        state['variance'] = _zeros_like(p.grad)
                x = _arr(p)
                xp = array_module(x)
                e1 = float(xp.finfo(x.dtype).eps) if eps1 is None else eps1
                t = _incr_step(state, p)
                w = t ** decay
                rho = min(lr, 1 / t ** 0.5)
                alpha = max(eps2, float(xp.sqrt((x * x).sum())) / x.size ** 0.5) * rho
                if wd != 0:
                    x *= 1 - lr * wd
                gg = g * g
                if g.ndim > 1:
                    R, C = _arr(state['row_var']), _arr(state['col_var'])
                    rm = xp.sqrt(gg.sum(axis=-1, keepdims=True))
                    rm *= rm
                    rm /= g.shape[-1]
                    _lerp_(R, rm, w)
                    cm = xp.sqrt(gg.sum(axis=-2, keepdims=True))
                    cm *= cm
                    cm /= g.shape[-2]
                    _lerp_(C, cm, w)
                    v = xp.matmul(R, C)
                    v /= xp.maximum(R.mean(axis=-2, keepdims=True), e1)
                else:
                    V = _arr(state['variance'])
                    _lerp_(V, gg, w)
                    v = V.copy()
                xp.maximum(v, e1 * e1, out=v)
                xp.sqrt(v, out=v)
                u = xp.divide(1.0, v, out=v)
                u *= g
                denom = max(1.0, float(xp.sqrt((u * u).sum())) / (u.size ** 0.5 * d))
                u *= -alpha / denom
                x += u
                _bump(p)
        return loss


Adafactor.__module__ = 'ember.optim'
