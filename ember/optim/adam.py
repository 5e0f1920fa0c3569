"""Adam (and, with ``decoupled_weight_decay``, AdamW's update)."""
import math

from .._backend import array_module
from .._tensor import Tensor
from .optimizer import Optimizer
from ._functional import (_scalar, _closure_loss, _arr, _bump, _grad, _zeros_like,
                          _incr_step, _lerp_, _scalar_tensor, _scratch)

__all__ = ['Adam']


def _check_lr(lr):
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")


def _check_betas(betas):
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")


def _check_nonneg(value, what):
    if not 0.0 <= value:
        raise ValueError(f"Invalid {what} value: {value}")


class Adam(Optimizer):
    r"""Adam: adaptive moment estimation.

    For each parameter ``p`` with gradient ``g`` (negated with ``maximize``), at step ``t``::

        g = g + weight_decay * p            (or p *= 1 - lr * weight_decay, decoupled)
        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g * g
        v_max = max(v_max, v)               (amsgrad; used instead of v below)
        p = p - lr / (1 - beta1**t) * m / (sqrt(v) / sqrt(1 - beta2**t) + eps)

    Args:
        params (iterable): parameters or parameter groups.
        lr (float or Tensor): learning rate (default 1e-3).
        betas (Tuple[float, float]): averaging coefficients of the gradient and its
            square (default (0.9, 0.999)).
        eps (float): added to the denominator (default 1e-8).
        weight_decay (float): L2 penalty (default 0).
        amsgrad (bool): use the maximum of past squared-gradient averages (default False).
        foreach, capturable, differentiable, fused: accepted for compatibility.
        maximize (bool): maximize the objective (default False).
        decoupled_weight_decay (bool): AdamW's decay of the weights (default False).

    State per parameter: ``step`` (0-dim float tensor), ``exp_avg``, ``exp_avg_sq`` and,
    with amsgrad, ``max_exp_avg_sq``, as in PyTorch, so state dicts load either way.

    NOTE: unlike PyTorch, ember has a single implementation: ``foreach``, ``fused`` and
    ``capturable`` select nothing different, and ``differentiable=True`` does not make
    the update part of the autograd graph.

    Example::

        >>> optimizer = ember.optim.Adam(model.parameters(), lr=1e-3)
        >>> optimizer.zero_grad()
        >>> loss_fn(model(input), target).backward()
        >>> optimizer.step()
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False):
        if isinstance(lr, Tensor):
            if foreach and not capturable:
                raise ValueError("lr as a Tensor is not supported for capturable=False and "
                                 "foreach=True")
        _check_lr(lr)
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        _check_betas(betas)
        _check_nonneg(weight_decay, 'weight_decay')
        if not ((isinstance(betas[0], float) and isinstance(betas[1], float))
                or (isinstance(betas[0], Tensor) and isinstance(betas[1], Tensor))):
            raise ValueError("betas must be either both floats or both Tensors")
        for i in (0, 1):
            if isinstance(betas[i], Tensor):
                if not capturable and foreach:
                    raise ValueError(f"betas[{i}] as a Tensor is not supported for "
                                     "capturable=False and foreach=True")
                if betas[i].numel() != 1:
                    raise ValueError(f"Tensor betas[{i}] must be 1-element")
        betas = tuple(b.squeeze() if isinstance(b, Tensor) and b.dim() != 0 else b
                      for b in betas)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        amsgrad=amsgrad, maximize=maximize, foreach=foreach,
                        capturable=capturable, differentiable=differentiable, fused=fused,
                        decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)
        if fused:
            if differentiable:
                raise RuntimeError("`fused` does not support `differentiable`")
            if foreach:
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")

    # defaults for param groups of optimizers pickled before these options existed
    _group_setstate_defaults = {'amsgrad': False, 'maximize': False, 'foreach': None,
                                 'capturable': False, 'differentiable': False, 'fused': None,
                                 'decoupled_weight_decay': False}

    def step(self, closure=None):
        """Perform one optimization step.

        Args:
            closure (callable, optional): re-evaluates the model and returns the loss.
        """
        loss = _closure_loss(closure)
        for group in self.param_groups:
            lr = _scalar(group['lr'])
            beta1, beta2 = (_scalar(b) for b in group['betas'])
            eps = group['eps']
            wd = group['weight_decay']
            amsgrad = group['amsgrad']
            decoupled = group['decoupled_weight_decay']
            maximize = group['maximize']
            for p in group['params']:
                if p.grad is None:
                    continue
                state = self.state[p]
                if len(state) == 0:
                    state['step'] = _scalar_tensor(0.0, p)
                    state['exp_avg'] = _zeros_like(p)
                    state['exp_avg_sq'] = _zeros_like(p)
                    if amsgrad:
                        state['max_exp_avg_sq'] = _zeros_like(p)
                step = _incr_step(state, p)
                x = _arr(p)
                xp = array_module(x)
                g = _grad(p, maximize)
                if wd != 0:
                    if decoupled:
                        x *= 1 - lr * wd
                    else:
                        g = g + wd * x
                m = _arr(state['exp_avg'])
                v = _arr(state['exp_avg_sq'])
                tmp = _scratch(self, x)
                _lerp_(m, g, 1 - beta1, tmp)
                v *= beta2
                xp.multiply(g, 1 - beta2, out=tmp)
                tmp *= g
                v += tmp
                step_size = lr / (1 - beta1 ** step)
                bc2_sqrt = (1 - beta2 ** step) ** 0.5
                if amsgrad:
                    vm = _arr(state['max_exp_avg_sq'])
                    xp.maximum(vm, v, out=vm)
                    v = vm
                xp.sqrt(v, out=tmp)
                tmp /= bc2_sqrt
                tmp += eps
                u = xp.multiply(m, -step_size, out=_scratch(self, x, 1))
                u /= tmp
                x += u
                _bump(p)
        return loss
