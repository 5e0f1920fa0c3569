"""Learning-rate schedulers: they rewrite ``param_group['lr']`` (and, for the cyclic ones,
the momentum) of an optimizer as training proceeds.

Each scheduler computes the next rates either in chainable form (from the group's current
``lr``, so several schedulers can act on one optimizer) or in closed form (from
``base_lrs`` and the epoch, used when ``step(epoch)`` is given), with PyTorch's formulas,
so the sequences of rates equal PyTorch's.
"""
import math
import types
import warnings
import weakref
from bisect import bisect_right
from collections import Counter
from functools import partial, wraps
from math import inf

from .._tensor import Tensor
from .optimizer import Optimizer

__all__ = ['LambdaLR', 'MultiplicativeLR', 'StepLR', 'MultiStepLR', 'ConstantLR', 'LinearLR',
           'ExponentialLR', 'SequentialLR', 'CosineAnnealingLR', 'ChainedScheduler',
           'ReduceLROnPlateau', 'CyclicLR', 'CosineAnnealingWarmRestarts', 'OneCycleLR',
           'PolynomialLR', 'LRScheduler']

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being "
    "deprecated where possible. Please use `scheduler.step()` to step the "
    "scheduler. During the deprecation, if epoch is different from None, the "
    "closed form is used instead of the new chainable form, where available. "
    "Please open an issue if you are unable to replicate your use case: "
    "https://github.com/pytorch/pytorch/issues/new/choose."
)

_ORDER_WARNING = (
    "Detected call of `lr_scheduler.step()` before `optimizer.step()`. "
    "In PyTorch 1.1.0 and later, you should call them in the opposite order: "
    "`optimizer.step()` before `lr_scheduler.step()`.  Failure to do this "
    "will result in PyTorch skipping the first value of the learning rate schedule. "
    "See more details at "
    "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate"
)

_OVERRIDDEN_WARNING = (
    "Seems like `optimizer.step()` has been overridden after learning rate scheduler "
    "initialization. Please, make sure to call `optimizer.step()` before "
    "`lr_scheduler.step()`. See more details at "
    "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate"
)


def _copy(v):
    return v.clone() if isinstance(v, Tensor) else v


def _per_group(name, optimizer, value):
    """``value`` repeated for each param group, or checked to have one entry per group."""
    if isinstance(value, (list, tuple)):
        if len(value) != len(optimizer.param_groups):
            raise ValueError(f"{name} must have the same length as optimizer.param_groups. "
                             f"{name} has {len(value)} values, param_groups has "
                             f"{len(optimizer.param_groups)}.")
        return [_copy(v) for v in value]
    return [_copy(value) for _ in optimizer.param_groups]


def _group_values(optimizer, key):
    return [_copy(g[key]) for g in optimizer.param_groups]


def _set_group_value(group, key, value):
    """Write a group's value; a tensor lr is filled in place (never aliased)."""
    cur = group[key]
    if isinstance(cur, Tensor):
        cur.fill_(value.item() if isinstance(value, Tensor) else value)
    else:
        group[key] = value


def _check_optimizer(optimizer):
    if not isinstance(optimizer, Optimizer):
        raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")


class LRScheduler:
    """Base class of learning-rate schedulers.

    Subclasses implement :meth:`get_lr` (the chainable form) and optionally
    ``_get_closed_form_lr``. Creating a scheduler records ``initial_lr`` in each param group
    (when ``last_epoch == -1``) and takes the first step, which sets the epoch-0 rates.

    Args:
        optimizer (Optimizer): the optimizer whose learning rates are scheduled.
        last_epoch (int): index of the last epoch (default -1: start afresh); a resumed
            scheduler needs ``initial_lr`` in the param groups.

    Example::

        >>> scheduler = ember.optim.lr_scheduler.StepLR(optimizer, step_size=30)
        >>> for epoch in range(100):
        ...     train(...); optimizer.step()
        ...     scheduler.step()
    """

    _get_lr_called_within_step = False
    _is_initial = False

    def __init__(self, optimizer, last_epoch=-1):
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault('initial_lr', _copy(group['lr']))
        else:
            for i, group in enumerate(optimizer.param_groups):
                if 'initial_lr' not in group:
                    raise KeyError(
                        f"param 'initial_lr' is not specified in param_groups[{i}] when "
                        "resuming scheduler with last_epoch >= 0.\n"
                        "This typically happens when:\n"
                        "1. You're trying to resume training from a checkpoint but haven't "
                        "properly loaded the optimizer state\n"
                        "2. You're using last_epoch >= 0 for a fresh training run (not "
                        "recommended)")
        self.base_lrs = _group_values(optimizer, 'initial_lr')
        self.last_epoch = last_epoch
        self._track_optimizer_steps()
        self._initial_step()

    def _track_optimizer_steps(self):
        """Wrap the optimizer's ``step`` (once) so the scheduler can tell whether it was
        called before its own first ``step``."""
        opt = self.optimizer
        if hasattr(opt.step, '_wrapped_by_lr_sched'):
            return
        func = opt.step.__func__
        opt_ref = weakref.ref(opt)

        @wraps(func)
        def step(*args, **kwargs):
            o = opt_ref()
            o._opt_called = True
            return func.__get__(o, o.__class__)(*args, **kwargs)
        step._wrapped_by_lr_sched = True
        opt.step = step

    def _initial_step(self):
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def state_dict(self):
        """The scheduler's state: every attribute except the optimizer."""
        return {k: v for k, v in self.__dict__.items() if k != 'optimizer'}

    def load_state_dict(self, state_dict):
        """Restore the state returned by :meth:`state_dict`."""
        self.__dict__.update(state_dict)

    def get_last_lr(self):
        """The learning rates set by the last :meth:`step` (one per param group)."""
        return self._last_lr

    def get_lr(self):
        """The next learning rates (chainable form); subclasses implement it."""
        raise NotImplementedError

    def step(self, epoch=None):
        """Advance one epoch (or, deprecated, jump to ``epoch``) and set the rates.

        Args:
            epoch (int, optional): deprecated; uses the closed form where there is one.
        """
        if self._step_count == 1:
            if not hasattr(self.optimizer.step, '_wrapped_by_lr_sched'):
                warnings.warn(_OVERRIDDEN_WARNING, UserWarning, stacklevel=2)
            elif not getattr(self.optimizer, '_opt_called', False):
                warnings.warn(_ORDER_WARNING, UserWarning, stacklevel=2)
        self._step_count += 1
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self._update_lr(epoch)

    def _update_lr(self, epoch=None):
        self._get_lr_called_within_step = True
        try:
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                self.last_epoch = epoch
                if hasattr(self, '_get_closed_form_lr'):
                    values = self._get_closed_form_lr()
                else:
                    values = self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, values):
            _set_group_value(group, 'lr', lr)
        self._last_lr = _group_values(self.optimizer, 'lr')

    def _warn_outside_step(self):
        if not self._get_lr_called_within_step:
            warnings.warn("To get the last learning rate computed by the scheduler, "
                          "please use `get_last_lr()`.", UserWarning, stacklevel=3)

    def _current(self):
        return _group_values(self.optimizer, 'lr')


class _LRScheduler(LRScheduler):
    """Deprecated alias of :class:`LRScheduler`."""


def _lambdas(optimizer, lr_lambda):
    if not isinstance(lr_lambda, (list, tuple)):
        return [lr_lambda] * len(optimizer.param_groups)
    if len(lr_lambda) != len(optimizer.param_groups):
        raise ValueError(f"Expected {len(optimizer.param_groups)} lr_lambdas, but got "
                         f"{len(lr_lambda)}")
    return list(lr_lambda)


class _LambdaState:
    """state_dict/load_state_dict keeping callable objects' attributes (not functions)."""

    def state_dict(self):
        """The scheduler's state; ``lr_lambdas`` holds the ``__dict__`` of callable
        objects (None for plain functions and lambdas)."""
        sd = {k: v for k, v in self.__dict__.items() if k not in ('optimizer', 'lr_lambdas')}
        sd['lr_lambdas'] = [None if isinstance(fn, types.FunctionType) else fn.__dict__.copy()
                            for fn in self.lr_lambdas]
        return sd

    def load_state_dict(self, state_dict):
        """Restore the state returned by :meth:`state_dict`."""
        state_dict = dict(state_dict)
        saved = state_dict.pop('lr_lambdas')
        self.__dict__.update(state_dict)
        for fn, d in zip(self.lr_lambdas, saved):
            if d is not None:
                fn.__dict__.update(d)


class LambdaLR(_LambdaState, LRScheduler):
    """Set each group's rate to ``initial_lr * lr_lambda(epoch)``.

    Args:
        optimizer (Optimizer): wrapped optimizer.
        lr_lambda (function or list): a function of the epoch, or one per param group.
        last_epoch (int): index of the last epoch (default -1).

    Example::

        >>> scheduler = LambdaLR(optimizer, lr_lambda=lambda epoch: 0.95 ** epoch)
    """

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        self.optimizer = optimizer
        self.lr_lambdas = _lambdas(optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        """``base_lr * lr_lambda(last_epoch)`` per group."""
        self._warn_outside_step()
        return [base * fn(self.last_epoch) for fn, base in zip(self.lr_lambdas, self.base_lrs)]


class MultiplicativeLR(_LambdaState, LRScheduler):
    """Multiply each group's rate by ``lr_lambda(epoch)`` every epoch.

    Args:
        optimizer (Optimizer): wrapped optimizer.
        lr_lambda (function or list): the factor as a function of the epoch, or one per group.
        last_epoch (int): index of the last epoch (default -1).

    Example::

        >>> scheduler = MultiplicativeLR(optimizer, lr_lambda=lambda epoch: 0.95)
    """

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        self.optimizer = optimizer
        self.lr_lambdas = _lambdas(optimizer, lr_lambda)
        for fn in self.lr_lambdas:
            if not callable(fn):
                raise TypeError(f"lr_lambda should be a function, but got {type(fn).__name__}")
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        """The current rates times ``lr_lambda(last_epoch)`` (unchanged on the first step)."""
        self._warn_outside_step()
        if self._is_initial:
            return self._current()
        return [g['lr'] * fn(self.last_epoch)
                for fn, g in zip(self.lr_lambdas, self.optimizer.param_groups)]


class StepLR(LRScheduler):
    """Multiply the rates by ``gamma`` every ``step_size`` epochs.

    Args:
        optimizer (Optimizer): wrapped optimizer.
        step_size (int): period of the decay.
        gamma (float): decay factor (default 0.1).
        last_epoch (int): index of the last epoch (default -1).

    Example::

        >>> scheduler = StepLR(optimizer, step_size=30, gamma=0.1)
    """

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        """The current rates, times ``gamma`` at multiples of ``step_size``."""
        self._warn_outside_step()
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return self._current()
        return [g['lr'] * self.gamma for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [b * self.gamma ** (self.last_epoch // self.step_size) for b in self.base_lrs]


class MultiStepLR(LRScheduler):
    """Multiply the rates by ``gamma`` at each milestone epoch.

    Args:
        optimizer (Optimizer): wrapped optimizer.
        milestones (list): epoch indices (a repeated milestone decays repeatedly).
        gamma (float): decay factor (default 0.1).
        last_epoch (int): index of the last epoch (default -1).

    Example::

        >>> scheduler = MultiStepLR(optimizer, milestones=[30, 80], gamma=0.1)
    """

    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1):
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        """The current rates, times ``gamma ** count`` at a milestone."""
        self._warn_outside_step()
        if self.last_epoch not in self.milestones:
            return self._current()
        k = self.milestones[self.last_epoch]
        return [g['lr'] * self.gamma ** k for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        ms = sorted(self.milestones.elements())
        return [b * self.gamma ** bisect_right(ms, self.last_epoch) for b in self.base_lrs]


class ConstantLR(LRScheduler):
    """Scale the rates by ``factor`` for the first ``total_iters`` epochs.

    Args:
        optimizer (Optimizer): wrapped optimizer.
        factor (float): scale in [0, 1] (default 1/3).
        total_iters (int): epochs scaled (default 5).
        last_epoch (int): index of the last epoch (default -1).

    Example::

        >>> scheduler = ConstantLR(optimizer, factor=0.5, total_iters=4)
    """

    def __init__(self, optimizer, factor=1.0 / 3, total_iters=5, last_epoch=-1):
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        """Scaled at epoch 0, restored at ``total_iters``."""
        self._warn_outside_step()
        if self.last_epoch == 0:
            return [g['lr'] * self.factor for g in self.optimizer.param_groups]
        if self.last_epoch != self.total_iters:
            return self._current()
        return [g['lr'] * (1.0 / self.factor) for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [b * (self.factor + (self.last_epoch >= self.total_iters) * (1 - self.factor))
                for b in self.base_lrs]


class LinearLR(LRScheduler):
    """Scale the rates by a factor going linearly from ``start_factor`` to ``end_factor``
    over ``total_iters`` epochs.

    Args:
        optimizer (Optimizer): wrapped optimizer.
        start_factor (float): first factor, in (0, 1] (default 1/3).
        end_factor (float): last factor, in [0, 1] (default 1.0).
        total_iters (int): epochs of the ramp (default 5).
        last_epoch (int): index of the last epoch (default -1).

    Example::

        >>> scheduler = LinearLR(optimizer, start_factor=0.5, total_iters=4)
    """

    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5,
                 last_epoch=-1):
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError("Starting multiplicative factor expected to be greater than 0 "
                             "and less or equal to 1.")
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        """The current rates times the ratio of consecutive ramp factors."""
        self._warn_outside_step()
        if self.last_epoch == 0:
            return [g['lr'] * self.start_factor for g in self.optimizer.param_groups]
        if self._is_initial or self.last_epoch > self.total_iters:
            return self._current()
        span = self.end_factor - self.start_factor
        ratio = 1.0 + span / (self.total_iters * self.start_factor + (self.last_epoch - 1) * span)
        return [g['lr'] * ratio for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [b * (self.start_factor + (self.end_factor - self.start_factor)
                     * min(self.total_iters, self.last_epoch) / self.total_iters)
                for b in self.base_lrs]


class ExponentialLR(LRScheduler):
    """Multiply the rates by ``gamma`` every epoch.

    Args:
        optimizer (Optimizer): wrapped optimizer.
        gamma (float): decay factor.
        last_epoch (int): index of the last epoch (default -1).

    Example::

        >>> scheduler = ExponentialLR(optimizer, gamma=0.9)
    """

    def __init__(self, optimizer, gamma, last_epoch=-1):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        """The current rates times ``gamma``."""
        self._warn_outside_step()
        if self._is_initial:
            return self._current()
        return [g['lr'] * self.gamma for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [b * self.gamma ** self.last_epoch for b in self.base_lrs]


def _check_schedulers(owner, schedulers, optimizer):
    name = owner.__class__.__name__
    for i, s in enumerate(schedulers):
        if not hasattr(s, 'optimizer'):
            raise TypeError(f"{name} at index {i} should have `optimizer` as its attribute.")
        if isinstance(s, ReduceLROnPlateau):
            raise ValueError(f"{name} does not support `ReduceLROnPlateau` scheduler as it "
                             "requires additional kwargs to be specified when calling `step`, "
                             f"but got one at index {i} in the given schedulers sequence.")
        if optimizer != s.optimizer:
            raise ValueError(f"{name} expects all schedulers to belong to the same optimizer, "
                             f"but got scheduler {s.__class__.__name__} at index {i} has "
                             f"{s.optimizer}, which is different from "
                             f"{optimizer.__class__.__name__}.")


class _Composite:
    """state_dict/load_state_dict of schedulers holding sub-schedulers."""

    def state_dict(self):
        """The scheduler's state, with each sub-scheduler's state dict."""
        sd = {k: v for k, v in self.__dict__.items() if k not in ('optimizer', '_schedulers')}
        sd['_schedulers'] = [s.state_dict() for s in self._schedulers]
        return sd

    def load_state_dict(self, state_dict):
        """Restore the state returned by :meth:`state_dict`."""
        state_dict = dict(state_dict)
        subs = state_dict.pop('_schedulers')
        self.__dict__.update(state_dict)
        for s, sd in zip(self._schedulers, subs):
            s.load_state_dict(sd)


class SequentialLR(_Composite, LRScheduler):
    """Run schedulers one after another, switching at the milestone epochs.

    Args:
        optimizer (Optimizer): wrapped optimizer.
        schedulers (list): the schedulers, in order.
        milestones (list): epochs at which the next scheduler takes over.
        last_epoch (int): index of the last epoch (default -1).

    Example::

        >>> s1 = ConstantLR(optimizer, factor=0.1, total_iters=2)
        >>> s2 = ExponentialLR(optimizer, gamma=0.9)
        >>> scheduler = SequentialLR(optimizer, schedulers=[s1, s2], milestones=[2])
    """

    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1):
        if len(schedulers) < 1:
            raise ValueError(f"{self.__class__.__name__} expects at least one scheduler, but "
                             "got no scheduler.")
        _check_schedulers(self, schedulers, optimizer)
        if len(milestones) != len(schedulers) - 1:
            raise ValueError("Sequential Schedulers expects number of schedulers provided to be "
                             "one more than the number of milestone points, but got number of "
                             f"schedulers {len(schedulers)} and the number of milestones to be "
                             f"equal to {len(milestones)}")
        self._schedulers = schedulers
        self._milestones = milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        for group in optimizer.param_groups:
            _set_group_value(group, 'lr', group['initial_lr'])
        self.recursive_undo()
        i = bisect_right(self._milestones, 0)
        self._schedulers[i]._initial_step()
        self._last_lr = schedulers[i].get_last_lr()

    def recursive_undo(self, sched=None):
        """Take back the initial step each (nested) sub-scheduler made when it was built."""
        s = self if sched is None else sched
        if hasattr(s, '_schedulers'):
            for sub in s._schedulers:
                self.recursive_undo(sub)
        elif hasattr(s, 'last_epoch'):
            s.last_epoch -= 1

    def step(self):
        """Advance one epoch with the scheduler of the current phase."""
        self.last_epoch += 1
        i = bisect_right(self._milestones, self.last_epoch)
        s = self._schedulers[i]
        if i > 0 and self._milestones[i - 1] == self.last_epoch:
            s._update_lr(0)
        else:
            s.step()
        self._last_lr = s.get_last_lr()


class PolynomialLR(LRScheduler):
    """Decay the rates by a polynomial of the remaining fraction of ``total_iters``.

    Args:
        optimizer (Optimizer): wrapped optimizer.
        total_iters (int): epochs of decay (default 5).
        power (float): the polynomial's power (default 1.0).
        last_epoch (int): index of the last epoch (default -1).

    Example::

        >>> scheduler = PolynomialLR(optimizer, total_iters=4, power=1.0)
    """

    def __init__(self, optimizer, total_iters=5, power=1.0, last_epoch=-1):
        self.total_iters = total_iters
        self.power = power
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        """The current rates times the ratio of consecutive decay factors."""
        self._warn_outside_step()
        if self._is_initial or self.last_epoch > self.total_iters:
            return self._current()
        n = self.total_iters
        f = ((1.0 - self.last_epoch / n) / (1.0 - (self.last_epoch - 1) / n)) ** self.power
        return [g['lr'] * f for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [b * (1.0 - min(self.total_iters, self.last_epoch) / self.total_iters) ** self.power
                for b in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """Anneal the rates along a cosine from ``initial_lr`` to ``eta_min`` over ``T_max``
    epochs (and back up, periodically, in the chainable form).

    Args:
        optimizer (Optimizer): wrapped optimizer.
        T_max (int): half period, in epochs.
        eta_min (float): minimal rate (default 0).
        last_epoch (int): index of the last epoch (default -1).

    Example::

        >>> scheduler = CosineAnnealingLR(optimizer, T_max=10)
    """

    def __init__(self, optimizer, T_max, eta_min=0.0, last_epoch=-1):
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        """The chainable cosine update."""
        self._warn_outside_step()
        T, lo, e = self.T_max, self.eta_min, self.last_epoch
        groups = self.optimizer.param_groups
        if self._is_initial:
            return self._current()
        if self._step_count == 1 and e > 0:
            return [lo + (b - lo) * (1 + math.cos(e * math.pi / T)) / 2 for b in self.base_lrs]
        if (e - 1 - T) % (2 * T) == 0:
            return [g['lr'] + (b - lo) * (1 - math.cos(math.pi / T)) / 2
                    for b, g in zip(self.base_lrs, groups)]
        return [(1 + math.cos(math.pi * e / T)) / (1 + math.cos(math.pi * (e - 1) / T))
                * (g['lr'] - lo) + lo for g in groups]

    def _get_closed_form_lr(self):
        return [self.eta_min + (b - self.eta_min)
                * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
                for b in self.base_lrs]


class ChainedScheduler(_Composite, LRScheduler):
    """Step several schedulers together; their changes compose.

    Args:
        schedulers (sequence): the chained schedulers.
        optimizer (Optimizer, optional): wrapped optimizer (default: the first scheduler's).

    Example::

        >>> scheduler = ChainedScheduler([ConstantLR(optimizer, factor=0.1, total_iters=2),
        ...                               ExponentialLR(optimizer, gamma=0.9)])
    """

    def __init__(self, schedulers, optimizer=None):
        if len(schedulers) < 1:
            raise ValueError(f"{self.__class__.__name__} expects at least one scheduler to be "
                             "chained, but got no scheduler.")
        optimizer = optimizer or schedulers[0].optimizer
        _check_schedulers(self, schedulers, optimizer)
        self._schedulers = schedulers
        self.optimizer = optimizer
        self._last_lr = _group_values(self._schedulers[-1].optimizer, 'lr')

    def step(self):
        """Step every chained scheduler."""
        for s in self._schedulers:
            s.step()
        self._last_lr = _group_values(self._schedulers[-1].optimizer, 'lr')


class ReduceLROnPlateau(LRScheduler):
    """Reduce the rates by ``factor`` when a metric has stopped improving for
    ``patience`` epochs.

    Args:
        optimizer (Optimizer): wrapped optimizer.
        mode (str): ``'min'`` (lower is better) or ``'max'`` (default 'min').
        factor (float): reduction factor, < 1 (default 0.1).
        patience (int): epochs without improvement tolerated (default 10).
        threshold (float): minimal significant change (default 1e-4).
        threshold_mode (str): ``'rel'`` or ``'abs'`` (default 'rel').
        cooldown (int): epochs to wait after a reduction (default 0).
        min_lr (float or list): lower bound(s) of the rates (default 0).
        eps (float): smaller reductions are skipped (default 1e-8).

    Example::

        >>> scheduler = ReduceLROnPlateau(optimizer, 'min')
        >>> scheduler.step(val_loss)
    """

    def __init__(self, optimizer, mode='min', factor=0.1, patience=10, threshold=1e-4,
                 threshold_mode='rel', cooldown=0, min_lr=0, eps=1e-8):
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        self.factor = factor
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != len(optimizer.param_groups):
                raise ValueError(f"expected {len(optimizer.param_groups)} min_lrs, got "
                                 f"{len(min_lr)}")
            self.default_min_lr = None
            self.min_lrs = list(min_lr)
        else:
            self.default_min_lr = min_lr
            self.min_lrs = [min_lr] * len(optimizer.param_groups)
        self.patience = patience
        self.cooldown = cooldown
        self.eps = eps
        self.last_epoch = 0
        self._last_lr = _group_values(optimizer, 'lr')
        self._init_is_better(mode=mode, threshold=threshold, threshold_mode=threshold_mode)
        self._reset()

    def _reset(self):
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    def step(self, metrics, epoch=None):
        """Record the epoch's metric and reduce the rates if it has plateaued.

        Args:
            metrics (float): the monitored quantity.
            epoch (int, optional): deprecated.
        """
        current = float(metrics)
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self.last_epoch = epoch
        if self._is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:
            self._reduce_lr(epoch)
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = _group_values(self.optimizer, 'lr')

    def _reduce_lr(self, epoch):
        groups = self.optimizer.param_groups
        if len(groups) != len(self.min_lrs):
            if self.default_min_lr is None:
                raise RuntimeError(
                    f"The number of param groups in the `optimizer` ({len(groups)}) differs "
                    f"from when `ReduceLROnPlateau` was initialized ({len(self.min_lrs)}), "
                    "usually due to a new param group being added to the optimizer. Please "
                    "modify the `min_lrs` field to match the length of the `optimizer` param "
                    "groups.")
            self.min_lrs = [self.default_min_lr] * len(groups)
        for i, group in enumerate(groups):
            old = float(group['lr'])
            new = max(old * self.factor, self.min_lrs[i])
            if old - new > self.eps:
                _set_group_value(group, 'lr', new)

    @property
    def in_cooldown(self):
        """Whether the scheduler is waiting after a reduction."""
        return self.cooldown_counter > 0

    def _is_better(self, a, best):
        if self.mode == 'min' and self.threshold_mode == 'rel':
            return a < best * (1.0 - self.threshold)
        if self.mode == 'min' and self.threshold_mode == 'abs':
            return a < best - self.threshold
        if self.mode == 'max' and self.threshold_mode == 'rel':
            return a > best * (self.threshold + 1.0)
        return a > best + self.threshold

    def _init_is_better(self, mode, threshold, threshold_mode):
        if mode not in {'min', 'max'}:
            raise ValueError('mode ' + mode + ' is unknown!')
        if threshold_mode not in {'rel', 'abs'}:
            raise ValueError('threshold mode ' + threshold_mode + ' is unknown!')
        self.mode_worse = inf if mode == 'min' else -inf
        self.mode = mode
        self.threshold = threshold
        self.threshold_mode = threshold_mode

    def load_state_dict(self, state_dict):
        """Restore the state returned by :meth:`state_dict`."""
        self.__dict__.update(state_dict)
        self._init_is_better(mode=self.mode, threshold=self.threshold,
                             threshold_mode=self.threshold_mode)


def _set_momentum(optimizer, use_beta1, group, value):
    if use_beta1:
        group['betas'] = (value, *group['betas'][1:])
    else:
        group['momentum'] = value


class CyclicLR(LRScheduler):
    """Cycle the rates between ``base_lr`` and ``max_lr`` (cyclical learning rates), and
    the momentum (or Adam's beta1) inversely, stepping after every batch.

    Args:
        optimizer (Optimizer): wrapped optimizer.
        base_lr (float or list): lower rate(s).
        max_lr (float or list): upper rate(s).
        step_size_up (int): iterations of the rising half (default 2000).
        step_size_down (int): iterations of the falling half (default: step_size_up).
        mode (str): ``'triangular'``, ``'triangular2'`` or ``'exp_range'``.
        gamma (float): base of exp_range's decay (default 1.0).
        scale_fn (function): custom amplitude scaling (overrides mode).
        scale_mode (str): ``'cycle'`` or ``'iterations'``: scale_fn's argument.
        cycle_momentum (bool): cycle the momentum too (default True).
        base_momentum (float or list): lower momentum (default 0.8).
        max_momentum (float or list): upper momentum (default 0.9).
        last_epoch (int): index of the last batch (default -1).

    Example::

        >>> scheduler = CyclicLR(optimizer, base_lr=0.01, max_lr=0.1)
    """

    def __init__(self, optimizer, base_lr, max_lr, step_size_up=2000, step_size_down=None,
                 mode='triangular', gamma=1.0, scale_fn=None, scale_mode='cycle',
                 cycle_momentum=True, base_momentum=0.8, max_momentum=0.9, last_epoch=-1):
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        base_lrs = _per_group('base_lr', optimizer, base_lr)
        if last_epoch == -1:
            for lr, group in zip(base_lrs, optimizer.param_groups):
                _set_group_value(group, 'lr', lr)
        self.max_lrs = _per_group('max_lr', optimizer, max_lr)
        up = float(step_size_up)
        down = float(step_size_down) if step_size_down is not None else up
        self.total_size = up + down
        self.step_ratio = up / self.total_size
        if mode not in ['triangular', 'triangular2', 'exp_range'] and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode = mode
        self.gamma = gamma
        self._scale_fn_custom = scale_fn
        self.scale_mode = scale_mode
        self._init_scale_fn()
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            if 'momentum' not in optimizer.defaults and 'betas' not in optimizer.defaults:
                raise ValueError("optimizer must support momentum or beta1 with "
                                 "`cycle_momentum` option enabled")
            self.use_beta1 = 'betas' in optimizer.defaults
            self.base_momentums = _per_group('base_momentum', optimizer, base_momentum)
            self.max_momentums = _per_group('max_momentum', optimizer, max_momentum)
            if last_epoch == -1:
                for mx, bs, group in zip(self.max_momentums, self.base_momentums,
                                         optimizer.param_groups):
                    _set_momentum(optimizer, self.use_beta1, group, mx)
                    group['max_momentum'] = mx
                    group['base_momentum'] = bs
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def _init_scale_fn(self):
        if self._scale_fn_custom is not None:
            return
        if self.mode == 'triangular':
            self._scale_fn_ref = self._triangular_scale_fn
            self.scale_mode = 'cycle'
        elif self.mode == 'triangular2':
            self._scale_fn_ref = self._triangular2_scale_fn
            self.scale_mode = 'cycle'
        elif self.mode == 'exp_range':
            self._scale_fn_ref = partial(self._exp_range_scale_fn, self.gamma)
            self.scale_mode = 'iterations'

    def scale_fn(self, x):
        """The amplitude scale at cycle (or iteration) ``x``."""
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        return self._scale_fn_ref(x)

    @staticmethod
    def _triangular_scale_fn(x):
        return 1.0

    @staticmethod
    def _triangular2_scale_fn(x):
        return 1 / (2.0 ** (x - 1))

    @staticmethod
    def _exp_range_scale_fn(gamma, x):
        return gamma ** x

    def get_lr(self):
        """The rates (and, with cycle_momentum, the momenta set in the groups) at the
        current iteration."""
        self._warn_outside_step()
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle
        if x <= self.step_ratio:
            frac = x / self.step_ratio
        else:
            frac = (x - 1) / (self.step_ratio - 1)
        arg = cycle if self.scale_mode == 'cycle' else self.last_epoch
        lrs = [b + (mx - b) * frac * self.scale_fn(arg)
               for b, mx in zip(self.base_lrs, self.max_lrs)]
        if self.cycle_momentum:
            moms = [mx - (mx - b) * frac * self.scale_fn(arg)
                    for b, mx in zip(self.base_momentums, self.max_momentums)]
            for group, m in zip(self.optimizer.param_groups, moms):
                _set_momentum(self.optimizer, self.use_beta1, group, m)
        return lrs

    def state_dict(self):
        """The scheduler's state (a custom ``scale_fn`` object's ``__dict__``; None for a
        function)."""
        sd = super().state_dict()
        sd.pop('_scale_fn_ref', None)
        fn = sd.pop('_scale_fn_custom')
        sd['_scale_fn_custom'] = None
        if fn is not None and not isinstance(fn, types.FunctionType):
            sd['_scale_fn_custom'] = fn.__dict__.copy()
        return sd

    def load_state_dict(self, state_dict):
        """Restore the state returned by :meth:`state_dict`."""
        state_dict = dict(state_dict)
        fn = state_dict.pop('_scale_fn_custom')
        super().load_state_dict(state_dict)
        if fn is not None:
            self._scale_fn_custom.__dict__.update(fn)
        self._init_scale_fn()


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing with warm restarts (SGDR): the rate follows a cosine from
    ``initial_lr`` down to ``eta_min`` over ``T_i`` epochs, then restarts with
    ``T_i *= T_mult``. ``step(epoch)`` accepts fractional epochs (per-batch updates).

    Args:
        optimizer (Optimizer): wrapped optimizer.
        T_0 (int): epochs until the first restart.
        T_mult (int): growth factor of the period (default 1).
        eta_min (float): minimal rate (default 0).
        last_epoch (int): index of the last epoch (default -1).

    Example::

        >>> scheduler = CosineAnnealingWarmRestarts(optimizer, T_0=10, T_mult=2)
        >>> for epoch in range(20):
        ...     for i in range(iters):
        ...         scheduler.step(epoch + i / iters)
    """

    def __init__(self, optimizer, T_0, T_mult=1, eta_min=0.0, last_epoch=-1):
        if T_0 <= 0 or not isinstance(T_0, int):
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        if not isinstance(eta_min, (float, int)):
            raise ValueError(f"Expected float or int eta_min, but got {eta_min} of type "
                             f"{type(eta_min)}")
        self.T_0 = T_0
        self.T_i = T_0
        self.T_mult = T_mult
        self.eta_min = eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        """The cosine rate at ``T_cur`` within the current period."""
        self._warn_outside_step()
        return [self.eta_min + (b - self.eta_min) * (1 + math.cos(math.pi * self.T_cur / self.T_i))
                / 2 for b in self.base_lrs]

    def step(self, epoch=None):
        """Advance one epoch, or go to (possibly fractional) ``epoch``.

        Args:
            epoch (float, optional): the epoch to go to.
        """
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:
                self.T_cur = self.T_cur % self.T_i
                self.T_i = self.T_i * self.T_mult
        else:
            if epoch < 0:
                raise ValueError(f"Expected non-negative epoch, but got {epoch}")
            if epoch >= self.T_0:
                if self.T_mult == 1:
                    self.T_cur = epoch % self.T_0
                else:
                    n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
                    self.T_cur = epoch - self.T_0 * (self.T_mult ** n - 1) / (self.T_mult - 1)
                    self.T_i = self.T_0 * self.T_mult ** n
            else:
                self.T_i = self.T_0
                self.T_cur = epoch
        self.last_epoch = math.floor(epoch)
        self._get_lr_called_within_step = True
        try:
            values = self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, values):
            _set_group_value(group, 'lr', lr)
        self._last_lr = _group_values(self.optimizer, 'lr')


class OneCycleLR(LRScheduler):
    """The 1cycle policy: the rate rises from ``max_lr / div_factor`` to ``max_lr`` and
    anneals to ``initial_lr / final_div_factor`` (the momentum moves inversely), stepping
    after every batch for ``total_steps`` steps.

    Args:
        optimizer (Optimizer): wrapped optimizer.
        max_lr (float or list): peak rate(s).
        total_steps (int): steps in the cycle (or give epochs and steps_per_epoch).
        epochs (int): epochs to train.
        steps_per_epoch (int): steps per epoch.
        pct_start (float): fraction of the cycle spent rising (default 0.3).
        anneal_strategy (str): ``'cos'`` or ``'linear'`` (default 'cos').
        cycle_momentum (bool): cycle the momentum too (default True).
        base_momentum (float or list): lower momentum (default 0.85).
        max_momentum (float or list): upper momentum (default 0.95).
        div_factor (float): ``initial_lr = max_lr / div_factor`` (default 25).
        final_div_factor (float): ``min_lr = initial_lr / final_div_factor`` (default 1e4).
        three_phase (bool): a symmetric warm-up/cool-down, then annihilation (default False).
        last_epoch (int): index of the last batch (default -1).

    Example::

        >>> scheduler = OneCycleLR(optimizer, max_lr=0.01, total_steps=1000)
    """

    def __init__(self, optimizer, max_lr, total_steps=None, epochs=None, steps_per_epoch=None,
                 pct_start=0.3, anneal_strategy='cos', cycle_momentum=True,
                 base_momentum=0.85, max_momentum=0.95, div_factor=25.0,
                 final_div_factor=1e4, three_phase=False, last_epoch=-1):
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        if total_steps is not None:
            if total_steps <= 0 or not isinstance(total_steps, int):
                raise ValueError(f"Expected positive integer total_steps, but got {total_steps}")
            self.total_steps = total_steps
        elif epochs is not None and steps_per_epoch is not None:
            if not isinstance(epochs, int) or epochs <= 0:
                raise ValueError(f"Expected positive integer epochs, but got {epochs}")
            if not isinstance(steps_per_epoch, int) or steps_per_epoch <= 0:
                raise ValueError("Expected positive integer steps_per_epoch, but got "
                                 f"{steps_per_epoch}")
            self.total_steps = epochs * steps_per_epoch
        else:
            raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")
        n = self.total_steps

        def phase(end, lr0, lr1, m0, m1):
            return {'end_step': end, 'start_lr': lr0, 'end_lr': lr1, 'start_momentum': m0,
                    'end_momentum': m1}
        if three_phase:
            self._schedule_phases = [
                phase(float(pct_start * n) - 1, 'initial_lr', 'max_lr', 'max_momentum',
                      'base_momentum'),
                phase(float(2 * pct_start * n) - 2, 'max_lr', 'initial_lr', 'base_momentum',
                      'max_momentum'),
                phase(n - 1, 'initial_lr', 'min_lr', 'max_momentum', 'max_momentum')]
        else:
            self._schedule_phases = [
                phase(float(pct_start * n) - 1, 'initial_lr', 'max_lr', 'max_momentum',
                      'base_momentum'),
                phase(n - 1, 'max_lr', 'min_lr', 'base_momentum', 'max_momentum')]
        if pct_start < 0 or pct_start > 1 or not isinstance(pct_start, float):
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in ['cos', 'linear']:
            raise ValueError("anneal_strategy must be one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        self._anneal_func_type = anneal_strategy
        max_lrs = _per_group('max_lr', optimizer, max_lr)
        if last_epoch == -1:
            for mx, group in zip(max_lrs, optimizer.param_groups):
                group['initial_lr'] = mx / div_factor
                group['max_lr'] = mx
                group['min_lr'] = group['initial_lr'] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            if 'momentum' not in optimizer.defaults and 'betas' not in optimizer.defaults:
                raise ValueError("optimizer must support momentum or beta1 with "
                                 "`cycle_momentum` option enabled")
            self.use_beta1 = 'betas' in optimizer.defaults
            mxs = _per_group('max_momentum', optimizer, max_momentum)
            bss = _per_group('base_momentum', optimizer, base_momentum)
            if last_epoch == -1:
                for mx, bs, group in zip(mxs, bss, optimizer.param_groups):
                    _set_momentum(optimizer, self.use_beta1, group, mx)
                    group['max_momentum'] = mx
                    group['base_momentum'] = bs
        super().__init__(optimizer, last_epoch)

    def _anneal_func(self, start, end, pct):
        kind = getattr(self, '_anneal_func_type', None)
        if kind == 'cos':
            return self._annealing_cos(start, end, pct)
        if kind == 'linear':
            return self._annealing_linear(start, end, pct)
        if kind is None:
            return self.anneal_func(start, end, pct)
        raise ValueError(f"Unknown _anneal_func_type: {kind}")

    @staticmethod
    def _annealing_cos(start, end, pct):
        return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)

    @staticmethod
    def _annealing_linear(start, end, pct):
        return (end - start) * pct + start

    def get_lr(self):
        """The rates (and momenta, set in the groups) at the current step."""
        self._warn_outside_step()
        step = self.last_epoch
        if step > self.total_steps:
            raise ValueError(f"Tried to step {step} times. The specified number of total "
                             f"steps is {self.total_steps}")
        lrs = []
        last = len(self._schedule_phases) - 1
        for group in self.optimizer.param_groups:
            start = 0.0
            for i, ph in enumerate(self._schedule_phases):
                end = ph['end_step']
                if step <= end or i == last:
                    pct = (step - start) / (end - start)
                    lr = self._anneal_func(group[ph['start_lr']], group[ph['end_lr']], pct)
                    if self.cycle_momentum:
                        mom = self._anneal_func(group[ph['start_momentum']],
                                                group[ph['end_momentum']], pct)
                    break
                start = ph['end_step']
            lrs.append(lr)
            if self.cycle_momentum:
                _set_momentum(self.optimizer, self.use_beta1, group, mom)
        return lrs
