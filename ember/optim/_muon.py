"""Muon: momentum SGD whose 2-D updates are orthogonalized by Newton-Schulz iterations."""
import math

from .._backend import array_module
from .._tensor import Tensor
from .optimizer import Optimizer
from ._functional import _scalar, _closure_loss, _arr, _bump, _zeros_like, _lerp_

__all__ = ['Muon']

EPS = 1e-7
DEFAULT_A = 3.4445
DEFAULT_B = -4.775
DEFAULT_C = 2.0315
DEFAULT_NS_STEPS = 5


def _orthogonalize(update, coefficients, steps, eps):
    """Approximate the orthogonal factor of a 2-D update array by quintic Newton-Schulz
    iterations at PyTorch's precision: every product accumulates in float32 and every
    intermediate result is rounded to bfloat16, as PyTorch's bfloat16 CPU kernels do.
    Returns a float32 array holding bfloat16 values."""
    if steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if update.ndim != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    xp = array_module(update)

    def rnd(v):
        # round float32 to the nearest bfloat16 (ties to even) with integer ops, so it runs
        # on any array module (CuPy has no bfloat16)
        f = xp.asarray(v, dtype=xp.float32)
        if not f.flags.c_contiguous:
            f = f.copy()
        u = f.view(xp.uint32)
        u = u + (xp.uint32(0x7FFF) + ((u >> xp.uint32(16)) & xp.uint32(1)))
        return (u & xp.uint32(0xFFFF0000)).view(xp.float32)
    a, b, c = coefficients
    x = rnd(update)
    tall = update.shape[0] > update.shape[1]
    if tall:
        x = x.T
    n = float(rnd(xp.asarray(max(float(xp.sqrt((x * x).sum(dtype=xp.float32))), eps),
                             dtype=xp.float32)))
    x = rnd(x / xp.float32(n))
    for _ in range(steps):
        gram = rnd(x @ x.T)
        gram = rnd(xp.float32(b) * gram + xp.float32(c) * (gram @ gram))
        x = rnd(xp.float32(a) * x + gram @ x)
    return x.T if tall else x


def _adjusted_lr(lr, adjust_lr_fn, shape):
    rows, cols = shape[:2]
    if adjust_lr_fn is None or adjust_lr_fn == 'original':
        ratio = math.sqrt(max(1, rows / cols))
    elif adjust_lr_fn == 'match_rms_adamw':
        ratio = 0.2 * math.sqrt(max(rows, cols))
    else:
        ratio = 1.0
    return lr * ratio


class Muon(Optimizer):
    r"""Muon (MomentUm Orthogonalized by Newton-schulz), for 2-D parameters.

    Per step::

        buf = lerp(buf, g, 1 - momentum)
        u = lerp(g, buf, momentum) (nesterov) or buf
        O = NewtonSchulz(u)   (bfloat16, ns_steps iterations with ns_coefficients)
        p *= 1 - lr * weight_decay;  p -= adjusted_lr * O

    Args:
        params (iterable): 2-D parameters or parameter groups.
        lr (float): learning rate (default 1e-3).
        weight_decay (float): decoupled weight decay (default 0.1).
        momentum (float): momentum factor (default 0.95).
        nesterov (bool): Nesterov-style update (default True).
        ns_coefficients (Tuple[float, float, float]): the quintic's coefficients.
        eps (float): floor of the norm that normalizes the update (default 1e-7).
        ns_steps (int): Newton-Schulz iterations (default 5).
        adjust_lr_fn (str): None/``'original'`` (``sqrt(max(1, A/B))``) or
            ``'match_rms_adamw'`` (``0.2 * sqrt(max(A, B))``).

    State per parameter: ``momentum_buffer``.

    NOTE: unlike PyTorch, the bfloat16 Newton-Schulz products are computed as float32
    products rounded to bfloat16 (PyTorch's CPU kernels do the same up to summation order),
    so the update agrees with PyTorch's to bfloat16 round-off.

    Example::

        >>> optimizer = ember.optim.Muon([model.weight], lr=0.02)
        >>> optimizer.step()
    """

    def __init__(self, params, lr=1e-3, weight_decay=0.1, momentum=0.95, nesterov=True,
                 ns_coefficients=(DEFAULT_A, DEFAULT_B, DEFAULT_C), eps=EPS,
                 ns_steps=DEFAULT_NS_STEPS, adjust_lr_fn=None):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn is not None and adjust_lr_fn not in ['original', 'match_rms_adamw']:
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        defaults = dict(lr=lr, weight_decay=weight_decay, momentum=momentum, nesterov=nesterov,
                        ns_coefficients=ns_coefficients, eps=eps, ns_steps=ns_steps,
                        adjust_lr_fn=adjust_lr_fn)
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group['params']:
                if p.dim() != 2:
                    raise ValueError("Muon only supports 2D parameters whereas we found a "
                                     f"parameter with size: {p.size()}")

    def step(self, closure=None):
        """Perform one optimization step.

        Args:
            closure (callable, optional): re-evaluates the model and returns the loss.
        """
        loss = _closure_loss(closure)
        for group in self.param_groups:
            lr = _scalar(group['lr'])
            wd, mom = group['weight_decay'], group['momentum']
            for p in group['params']:
                if p.grad is None:
                    continue
                if p.is_complex():
                    raise RuntimeError("Muon does not support complex parameters")
                state = self.state[p]
                if 'momentum_buffer' not in state:
                    state['momentum_buffer'] = _zeros_like(p.grad)
                g = _arr(p.grad)
                if g.ndim != 2:
                    raise ValueError("Param gradient must be a 2D matrix")
                buf = _arr(state['momentum_buffer'])
                _lerp_(buf, g, 1 - mom)
                upd = _lerp_(g.copy(), buf, mom) if group['nesterov'] else buf
                o = _orthogonalize(upd, group['ns_coefficients'], group['ns_steps'],
                                   group['eps'])
                x = _arr(p)
                x *= 1 - lr * wd
                o *= -_adjusted_lr(lr, group['adjust_lr_fn'], x.shape)
                x += o.astype(x.dtype, copy=False)
                _bump(p)
        return loss


Muon.__module__ = 'ember.optim'
