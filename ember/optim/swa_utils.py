"""Stochastic weight averaging and exponential moving averages of a model's weights
(``AveragedModel``), the SWA learning-rate schedule (``SWALR``) and the recomputation of
BatchNorm statistics for averaged weights (``update_bn``)."""
import itertools
import math
import warnings
from copy import deepcopy

from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..nn.modules.module import Module
from .lr_scheduler import LRScheduler, _per_group

__all__ = ['AveragedModel', 'update_bn', 'SWALR', 'get_ema_multi_avg_fn',
           'get_swa_multi_avg_fn', 'get_ema_avg_fn', 'get_swa_avg_fn']


def _check_decay(decay):
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in "
                         "[0,1] range.")


def get_ema_multi_avg_fn(decay=0.999):
    """An in-place exponential-moving-average update over lists of tensors, for
    :class:`AveragedModel`'s ``multi_avg_fn``: ``ema = decay * ema + (1 - decay) * p``.

    Args:
        decay (float): the EMA decay, in [0, 1] (default 0.999).

    Example::

        >>> ema_model = AveragedModel(model, multi_avg_fn=get_ema_multi_avg_fn(0.999))
    """
    _check_decay(decay)

    def ema_update(ema_param_list, current_param_list, _):
        with no_grad():
            if ema_param_list[0].is_floating_point() or ema_param_list[0].is_complex():
                for e, c in zip(ema_param_list, current_param_list):
                    e.lerp_(c, 1 - decay)
            else:
                for e, c in zip(ema_param_list, current_param_list):
                    e.copy_(e * decay + c * (1 - decay))
    return ema_update


def get_swa_multi_avg_fn():
    """An in-place running-mean update over lists of tensors, for :class:`AveragedModel`'s
    ``multi_avg_fn``: ``avg += (p - avg) / (n_averaged + 1)``.

    Example::

        >>> swa_model = AveragedModel(model, multi_avg_fn=get_swa_multi_avg_fn())
    """
    def swa_update(averaged_param_list, current_param_list, num_averaged):
        with no_grad():
            if averaged_param_list[0].is_floating_point() or averaged_param_list[0].is_complex():
                w = 1 / (num_averaged + 1)
                w = w.item() if isinstance(w, Tensor) else w
                for a, c in zip(averaged_param_list, current_param_list):
                    a.lerp_(c, w)
            else:
                for a, c in zip(averaged_param_list, current_param_list):
                    d = c - a
                    if isinstance(num_averaged, Tensor):
                        a.addcdiv_(d, num_averaged + 1)
                    else:
                        a.add_(d, alpha=1.0 / (num_averaged + 1))
    return swa_update


def get_ema_avg_fn(decay=0.999):
    """An exponential-moving-average function for :class:`AveragedModel`'s ``avg_fn``:
    returns ``decay * ema + (1 - decay) * p``.

    Args:
        decay (float): the EMA decay, in [0, 1] (default 0.999).

    Example::

        >>> ema_model = AveragedModel(model, avg_fn=get_ema_avg_fn(0.99))
    """
    _check_decay(decay)

    def ema_update(ema_param, current_param, num_averaged):
        with no_grad():
            return decay * ema_param + (1 - decay) * current_param
    return ema_update


def get_swa_avg_fn():
    """A running-mean function for :class:`AveragedModel`'s ``avg_fn``: returns
    ``avg + (p - avg) / (n_averaged + 1)``.

    Example::

        >>> swa_model = AveragedModel(model, avg_fn=get_swa_avg_fn())
    """
    def swa_update(averaged_param, current_param, num_averaged):
        with no_grad():
            return averaged_param + (current_param - averaged_param) / (num_averaged + 1)
    return swa_update


class AveragedModel(Module):
    """A copy of a model whose parameters are an average (SWA by default, or EMA with
    ``get_ema_*``) of the parameters seen by :meth:`update_parameters`.

    Args:
        model (Module): the model to average (deep-copied).
        device (device, optional): where to keep the averaged copy.
        avg_fn (callable, optional): ``avg_fn(averaged, current, n_averaged) -> new``.
        multi_avg_fn (callable, optional): in-place update over lists of tensors.
        use_buffers (bool): average the buffers too (else copy them) (default False).

    The number of averaged models is the buffer ``n_averaged`` (int64).

    Example::

        >>> swa_model = AveragedModel(model)
        >>> for epoch in range(epochs):
        ...     train(model); swa_model.update_parameters(model)
        >>> update_bn(loader, swa_model)
    """

    def __init__(self, model, device=None, avg_fn=None, multi_avg_fn=None, use_buffers=False):
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        from .. import tensor, long
        self.register_buffer('n_averaged', tensor(0, dtype=long, device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        """Run the averaged model."""
        return self.module(*args, **kwargs)

    def update_parameters(self, model):
        """Average ``model``'s current parameters (and buffers, with ``use_buffers``) into
        this model's; the first call copies them."""
        if self.use_buffers:
            mine = itertools.chain(self.module.parameters(), self.module.buffers())
            theirs = itertools.chain(model.parameters(), model.buffers())
        else:
            mine, theirs = self.parameters(), model.parameters()
        with no_grad():
            a_list, m_list = [], []
            first = bool(self.n_averaged == 0)
            for pa, pm in zip(mine, theirs):
                pm_ = pm.detach().to(pa.device)
                a_list.append(pa.detach())
                m_list.append(pm_)
                if first:
                    pa.detach().copy_(pm_)
            n = int(self.n_averaged)
            if n > 0:
                if self.multi_avg_fn is not None:
                    groups = {}
                    for a, m in zip(a_list, m_list):
                        groups.setdefault((str(a.device), a.dtype), ([], []))
                        groups[(str(a.device), a.dtype)][0].append(a)
                        groups[(str(a.device), a.dtype)][1].append(m)
                    for (dev, _), (aa, mm) in groups.items():
                        self.multi_avg_fn(aa, mm, self.n_averaged.to(dev))
                else:
                    fn = self.avg_fn if self.avg_fn is not None else get_swa_avg_fn()
                    for a, m in zip(a_list, m_list):
                        a.copy_(fn(a, m, self.n_averaged.to(a.device)))
            if not self.use_buffers:
                for bs, bm in zip(self.module.buffers(), model.buffers()):
                    bs.detach().copy_(bm.detach().to(bs.device))
            self.n_averaged += 1


def update_bn(loader, model, device=None):
    """Recompute the running statistics of every BatchNorm layer of ``model`` with one
    pass over ``loader`` (cumulative averages: momentum None), as needed after averaging
    weights.

    Args:
        loader (iterable): batches; a list/tuple batch uses its first element as input.
        model (Module): the model.
        device (device, optional): where to move each input.

    Example::

        >>> update_bn(train_loader, swa_model)
    """
    from ..nn.modules.batchnorm import _BatchNorm
    with no_grad():
        momenta = {}
        for m in model.modules():
            if isinstance(m, _BatchNorm):
                m.reset_running_stats()
                momenta[m] = m.momentum
        if not momenta:
            return
        was_training = model.training
        model.train()
        for m in momenta:
            m.momentum = None
        for x in loader:
            if isinstance(x, (list, tuple)):
                x = x[0]
            if device is not None:
                x = x.to(device)
            model(x)
        for m, mom in momenta.items():
            m.momentum = mom
        model.train(was_training)


class SWALR(LRScheduler):
    """Anneal each group's rate to a fixed ``swa_lr`` over ``anneal_epochs`` epochs
    (cosine or linear), then hold it: the schedule used during SWA.

    Args:
        optimizer (Optimizer): wrapped optimizer.
        swa_lr (float or list): the SWA rate(s).
        anneal_epochs (int): epochs of annealing (default 10).
        anneal_strategy (str): ``'cos'`` or ``'linear'`` (default 'cos').
        last_epoch (int): index of the last epoch (default -1).

    Example::

        >>> swa_scheduler = SWALR(optimizer, swa_lr=0.05, anneal_epochs=5)
    """

    def __init__(self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy='cos',
                 last_epoch=-1):
        for lr, group in zip(_per_group('swa_lr', optimizer, swa_lr), optimizer.param_groups):
            group['swa_lr'] = lr
        if anneal_strategy not in ['cos', 'linear']:
            raise ValueError("anneal_strategy must be one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got "
                             f"{anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t):
        return t

    @staticmethod
    def _cosine_anneal(t):
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr, swa_lr, alpha):
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self):
        """The annealed rates for the current step."""
        if not self._get_lr_called_within_step:
            warnings.warn("To get the last learning rate computed by the scheduler, please use "
                          "`get_last_lr()`.", UserWarning, stacklevel=2)
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        groups = self.optimizer.param_groups
        prev_t = max(0, min(1, (step - 1) / max(1, self.anneal_epochs)))
        prev_alpha = self.anneal_func(prev_t)
        prev = [self._get_initial_lr(g['lr'], g['swa_lr'], prev_alpha) for g in groups]
        t = max(0, min(1, step / max(1, self.anneal_epochs)))
        alpha = self.anneal_func(t)
        return [g['swa_lr'] * alpha + lr * (1 - alpha) for g, lr in zip(groups, prev)]

    def _set_anneal_func(self, strategy):
        self._anneal_strategy = strategy
        self.anneal_func = self._cosine_anneal if strategy == 'cos' else self._linear_anneal

    def state_dict(self):
        """The scheduler's state (without the optimizer and the anneal function)."""
        return {k: v for k, v in self.__dict__.items() if k not in ('optimizer', 'anneal_func')}

    def load_state_dict(self, state_dict):
        """Restore the state returned by :meth:`state_dict`."""
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
