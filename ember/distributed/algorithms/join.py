"""``Join``: training with uneven inputs. A rank whose inputs are exhausted "joins": it keeps
running the collectives the other ranks still issue (through each joinable's
:class:`JoinHook`) until every rank has joined, so nobody waits forever."""
import warnings
from abc import ABC, abstractmethod

__all__ = ['JoinHook', 'Joinable', 'Join']


class JoinHook:
    """What a joinable does on a joined rank: ``main_hook()`` once per iteration in which
    other ranks still train (shadowing their collectives), ``post_hook(is_last_joiner)``
    once every rank has joined.

    Example::

        >>> class Counter(JoinHook):
        ...     def main_hook(self): dist.all_reduce(zeros(1))
    """

    def main_hook(self):
        """Shadow one iteration of the collectives of the ranks still training."""

    def post_hook(self, is_last_joiner):
        """Clean up once all ranks have joined.

        Args:
            is_last_joiner (bool): whether this rank was among the last to join.
        """


class Joinable(ABC):
    """Base class of objects usable with :class:`Join` (``DistributedDataParallel``,
    ``ZeroRedundancyOptimizer``): they give a :meth:`join_hook`, a :attr:`join_device`
    and a :attr:`join_process_group`, and call :meth:`Join.notify_join_context` once per
    iteration before their own collectives.

    Example::

        >>> class MyJoinable(Joinable):
        ...     def join_hook(self, **kw): return JoinHook()
    """

    @abstractmethod
    def __init__(self):
        super().__init__()
        from ...nn.parallel.distributed import _JoinConfig
        self._join_config = _JoinConfig.construct_disabled_join_config()

    @abstractmethod
    def join_hook(self, **kwargs):
        """The :class:`JoinHook` of this joinable."""

    @property
    @abstractmethod
    def join_device(self):
        """The device of the join collectives."""

    @property
    @abstractmethod
    def join_process_group(self):
        """The process group of the join collectives."""


class Join:
    """Context manager for training with uneven inputs across ranks.

    Inside it, each joinable calls :meth:`notify_join_context` once per iteration (an
    all-reduce counting the ranks still training). When a rank leaves the ``with`` block
    its inputs are exhausted: it repeatedly takes part in that count and runs every
    joinable's ``main_hook`` until the count is zero, then runs the ``post_hook``\\ s.

    Args:
        joinables (list): the :class:`Joinable` objects (at least one).
        enable (bool): enable the uneven-input handling. Default: ``True``.
        throw_on_early_termination (bool): as soon as one rank is exhausted, raise
            ``RuntimeError`` on every rank. Default: ``False``.
        **kwargs: passed to each ``join_hook(**kwargs)``.

    Example::

        >>> with Join([ddp_model]):
        ...     for x in batches_of_this_rank:      # ranks may have different counts
        ...         ddp_model(x).sum().backward()
    """

    def __init__(self, joinables, enable=True, throw_on_early_termination=False, **kwargs):
        if len(joinables) == 0:
            raise ValueError("The join context manager requires at least one joinable")
        self._joinables = joinables
        self._join_hooks = [j.join_hook(**kwargs) for j in self._joinables]
        self._enable = enable
        self._throw_on_early_termination = throw_on_early_termination
        self._set_joinable_configs()
        self._extract_dist_info()

    def _set_joinable_configs(self):
        from ...nn.parallel.distributed import _JoinConfig
        first = True
        for j in self._joinables:
            j._join_config = _JoinConfig(self._enable, self._throw_on_early_termination, first)
            first = False

    def _extract_dist_info(self):
        pg, dev = None, None
        for j in self._joinables:
            if pg is None:
                pg = j.join_process_group
            elif pg != j.join_process_group:
                raise ValueError("Using join context manager with multiple process groups")
            dev = j.join_device
        self._process_group = pg
        from ... import distributed as dist
        self._rank = dist.get_rank(pg)
        self._device = dev

    def __enter__(self):
        return None

    def __exit__(self, exc_type, exc_value, tb):
        if not self._enable or exc_type:
            return None
        from ... import distributed as dist
        all_joined = False
        is_last_joiner = True
        i = 0
        warn_at = 1000
        while not all_joined:
            if i > warn_at:
                warnings.warn(f"Detected uneven input skew of greater than {warn_at}. This means "
                              f"that rank {self._rank} has at least {warn_at} fewer inputs than "
                              "other currently-active ranks. This level of skew could lead to "
                              "performance degradation during training.")
                warn_at = float('inf')
            n = self._get_num_nonjoined_procs()
            if n == 0:
                all_joined = True
            else:
                if self._throw_on_early_termination:
                    self._notify_procs_to_terminate()
                for h in self._join_hooks:
                    h.main_hook()
                is_last_joiner = False
            i += 1
        for h in self._join_hooks:
            h.post_hook(is_last_joiner)
        for j in self._joinables:   # leave the joinables usable outside the context
            from ...nn.parallel.distributed import _JoinConfig
            j._join_config = _JoinConfig.construct_disabled_join_config()
        del dist
        return None

    def _get_num_nonjoined_procs(self):
        from ._futures import all_reduce_future
        from ..._ops.creation import zeros
        z = zeros(1)
        # the same (nonblocking) call as notify_join_context's on the ranks still training
        all_reduce_future(z, self._process_group).wait()
        return int(z.item())

    def _notify_procs_to_terminate(self):
        from ... import distributed as dist
        from ..._ops.creation import ones
        dist.all_reduce(ones(1), group=self._process_group)
        raise RuntimeError(f"Rank {self._rank} exhausted all inputs.")

    @staticmethod
    def notify_join_context(joinable):
        """Called by a joinable once per iteration before its collectives: the all-reduce
        that counts the ranks still training (only for the first joinable of the context).

        Args:
            joinable (Joinable): the calling joinable.

        Returns:
            A handle whose ``wait()`` returns ``[count]`` (a tensor holding the number of
            ranks still training), or None when not the first joinable or disabled.

        Example::

            >>> Join.notify_join_context(self)   # inside a Joinable's per-iteration step
        """
        if not hasattr(joinable, '_join_config'):
            raise AssertionError(f"Check that the {type(joinable)} constructor calls the "
                                 "``Joinable`` constructor")
        cfg = joinable._join_config
        if not cfg.is_first_joinable or not cfg.enable:
            return None
        from ... import distributed as dist
        from ..._ops.creation import ones, zeros
        from ._futures import all_reduce_future
        pg = joinable.join_process_group
        work = all_reduce_future(ones(1), pg)
        if cfg.throw_on_early_termination:
            z = zeros(1)
            dist.all_reduce(z, group=pg)
            if z.item():
                raise RuntimeError("Detected at least one rank that exhausted inputs. "
                                   "Throwing across all ranks.")
        return work


def _register_ddp():
    # DistributedDataParallel is a Joinable (registered here so that ``import ember`` does
    # not load ember.distributed through ember.nn)
    from ...nn.parallel.distributed import DistributedDataParallel
    Joinable.register(DistributedDataParallel)


_register_ddp()
