"""SparseAdam: Adam that touches only the rows a (sparse) gradient reaches."""
import math

from .._backend import array_module
from .._tensor import Tensor
from .optimizer import Optimizer
from ._functional import _scalar, _closure_loss, _arr, _bump, _zeros_like

__all__ = ['SparseAdam']


class SparseAdam(Optimizer):
    r"""SparseAdam: a masked Adam for embedding-like parameters, where only the entries
    present in the gradient have their moments and values updated.

    Args:
        params (iterable): parameters or parameter groups.
        lr (float or Tensor): learning rate (default 1e-3).
        betas (Tuple[float, float]): coefficients (default (0.9, 0.999)).
        eps (float): added to the denominator (default 1e-8).
        maximize (bool): maximize the objective (default False).

    State per parameter: ``step`` (a Python int, as in PyTorch), ``exp_avg``,
    ``exp_avg_sq``.

    NOTE: unlike PyTorch, SparseAdam also accepts dense gradients (PyTorch raises for
    them), and reads a sparse COO gradient (``Embedding(sparse=True)``) through its dense
    form: either way the entries taken as present are the slices
    along dim 0 (rows, as an embedding's sparse gradient has) that hold any non-zero
    gradient value; a row whose gradient is exactly zero is treated as absent.

    Example::

        >>> emb = ember.nn.Embedding(10, 3)
        >>> optimizer = ember.optim.SparseAdam(emb.parameters())
        >>> emb(ember.tensor([1, 2])).sum().backward(); optimizer.step()
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, maximize=False):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 < lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        defaults = dict(lr=lr, betas=betas, eps=eps, maximize=maximize)
        super().__init__(params, defaults)
        complex_params = [[i, j] for i, g in enumerate(self.param_groups)
                          for j, p in enumerate(g['params']) if p.is_complex()]
        if complex_params:
            raise ValueError(f"Complex params at indices {complex_params}: SparseAdam does "
                             "not support complex parameters")

    def step(self, closure=None):
        """Perform one optimization step.

        Args:
            closure (callable, optional): re-evaluates the model and returns the loss.
        """
        loss = _closure_loss(closure)
        for group in self.param_groups:
            lr = _scalar(group['lr'])
            beta1, beta2 = group['betas']
            eps = group['eps']
            maximize = group.get('maximize', False)
            for p in group['params']:
                if p.grad is None:
                    continue
                state = self.state[p]
                if len(state) == 0:
                    state['step'] = 0
                    state['exp_avg'] = _zeros_like(p)
                    state['exp_avg_sq'] = _zeros_like(p)
                state['step'] += 1
                step = state['step']
                g = _arr(p.grad)
                if maximize:
                    g = -g
                xp = array_module(g)
                if g.ndim == 0:
                    rows = (g != 0).reshape(1)
                    sel = () if bool(rows[0]) else None
                else:
                    rows = (g != 0).reshape(g.shape[0], -1).any(axis=1)
                    sel = xp.nonzero(rows)[0]
                    if sel.size == 0:
                        sel = None
                if sel is None:
                    continue
                m, v, x = _arr(state['exp_avg']), _arr(state['exp_avg_sq']), _arr(p)
                gv = g[sel]
                old_m, old_v = m[sel], v[sel]
                dm = (gv - old_m) * (1 - beta1)
                dv = (gv ** 2 - old_v) * (1 - beta2)
                numer = dm + old_m
                denom = xp.sqrt(dv + old_v) + eps
                m[sel] = numer
                v[sel] = dv + old_v
                bc1 = 1 - beta1 ** step
                bc2 = 1 - beta2 ** step
                step_size = lr * math.sqrt(bc2) / bc1
                x[sel] += -step_size * (numer / denom)
                _bump(p)
        return loss
