"""AdamW: Adam with decoupled weight decay."""
from .adam import Adam

__all__ = ['AdamW']


class AdamW(Adam):
    r"""AdamW: Adam whose weight decay shrinks the weights directly
    (``p *= 1 - lr * weight_decay``) instead of adding to the gradient.

    Args:
        params (iterable): parameters or parameter groups.
        lr (float or Tensor): learning rate (default 1e-3).
        betas (Tuple[float, float]): averaging coefficients (default (0.9, 0.999)).
        eps (float): added to the denominator (default 1e-8).
        weight_decay (float): decoupled weight decay (default 1e-2).
        amsgrad (bool): AMSGrad variant (default False).
        maximize (bool): maximize the objective (default False).
        foreach, capturable, differentiable, fused: accepted for compatibility.

    NOTE: unlike PyTorch, ``foreach``/``fused``/``capturable`` select no different
    implementation and ``differentiable`` is not supported (the update is not recorded).

    Example::

        >>> optimizer = ember.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
        >>> optimizer.step()
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False, foreach=None, capturable=False,
                 differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable,
                         differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group['decoupled_weight_decay'] = True
