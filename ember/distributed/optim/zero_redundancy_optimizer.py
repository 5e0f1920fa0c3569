"""``ZeroRedundancyOptimizer``: each rank keeps the optimizer state of only its share of the
parameters (ZeRO stage 1), steps those, and broadcasts them to the other ranks."""
from ...optim.optimizer import Optimizer
from ..algorithms.join import Join, JoinHook, Joinable

__all__ = ['ZeroRedundancyOptimizer']


def _dist():
    from ... import distributed
    return distributed


class _ZeROJoinHook(JoinHook):
    def __init__(self, zero):
        self.zero = zero

    def main_hook(self):
        """A joined rank steps its own shard (with the gradients it has) and takes part in
        the parameter broadcasts, as PyTorch's ZeRO join hook does."""
        self.zero.step()


class ZeroRedundancyOptimizer(Optimizer, Joinable):
    """Wraps an optimizer class so that its state is sharded across the ranks of
    ``process_group``: the parameters are partitioned (largest first, each to the rank
    holding the fewest elements so far, per parameter group), each rank runs a local
    ``optimizer_class`` on its partition only, and after each ``step`` every rank
    broadcasts its updated parameters to the others. Use it with
    ``DistributedDataParallel`` (the gradients are already averaged).

    Args:
        params (iterable): the parameters (tensors or parameter-group dicts), the same on
            every rank.
        optimizer_class (type): the local optimizer (e.g. ``ember.optim.Adam``).
        process_group (ProcessGroup, optional): the group (default: the world).
        parameters_as_bucket_view (bool): accepted (parameters are broadcast as one flat
            message per rank and dtype anyway).
        overlap_with_ddp (bool): NOTE: unlike PyTorch, not supported (``False`` only).
        **defaults: the local optimizer's options (``lr`` ...).

    Example::

        >>> opt = ZeroRedundancyOptimizer(ddp.parameters(), ember.optim.Adam, lr=1e-3)
        >>> loss.backward(); opt.step()
        >>> opt.consolidate_state_dict(to=0)
        >>> if rank == 0: ember.save(opt.state_dict(), 'opt.pt')
    """

    def __init__(self, params, optimizer_class, process_group=None,
                 parameters_as_bucket_view=False, overlap_with_ddp=False, **defaults):
        if overlap_with_ddp:
            raise NotImplementedError("NOTE: unlike PyTorch, overlap_with_ddp=True is not "
                                      "supported by ember's ZeroRedundancyOptimizer")
        Optimizer.__init__(self, params, defaults)
        Joinable.__init__(self)
        dist = _dist()
        self.process_group = process_group if process_group is not None else dist.group.WORLD
        if self.process_group is None:
            raise ValueError("Default process group has not been initialized, please make "
                             "sure to call init_process_group.")
        self.world_size = dist.get_world_size(self.process_group)
        self.rank = dist.get_rank(self.process_group)
        self.global_rank = dist.get_global_rank(self.process_group, self.rank) \
            if hasattr(dist, 'get_global_rank') else self.rank
        self.parameters_as_bucket_view = parameters_as_bucket_view
        self._overlap_with_ddp = False
        self._optim_defaults = defaults
        self._optim_constructor = optimizer_class
        self._all_state_dicts = []
        self._build()

    # ------------------------------------------------------------------ partition
    def _build(self):
        self._all_params = [p for g in self.param_groups for p in g['params']]
        self._param_to_index = {id(p): i for i, p in enumerate(self._all_params)}
        self._partition = self._partition_parameters()
        self._param_to_rank = {}
        for r, groups in enumerate(self._partition):
            for g in groups:
                for p in g['params']:
                    self._param_to_rank[id(p)] = r
        self.optim = self._optim_constructor(self._partition[self.rank], **self._optim_defaults)
        self._sync_groups(self.param_groups, self.optim.param_groups)

    def _partition_parameters(self, params_per_rank=None):
        """Per rank, its parameter groups: each group's parameters sorted by size (largest
        first), each given to the rank with the fewest elements so far."""
        out = [[] for _ in range(self.world_size)]
        for group in self.param_groups:
            sizes = [0] * self.world_size
            per_rank = [[] for _ in range(self.world_size)]
            for p in sorted(group['params'], key=lambda t: t.numel(), reverse=True):
                r = min(range(self.world_size), key=lambda k: sizes[k])
                per_rank[r].append(p)
                sizes[r] += p.numel()
            for r in range(self.world_size):
                g = {k: v for k, v in group.items() if k != 'params'}
                g['params'] = per_rank[r]
                out[r].append(g)
        return out

    @staticmethod
    def _sync_groups(src, dst):
        for s, d in zip(src, dst):
            for k, v in s.items():
                if k != 'params':
                    d[k] = v

    # ------------------------------------------------------------------ step
    def _sync_params(self):
        """Broadcast every rank's partition from that rank (one message per rank and dtype)."""
        dist = _dist()
        from ...autograd.grad_mode import no_grad
        from ..._ops.creation import empty
        with no_grad():
            for r in range(self.world_size):
                src = dist.get_global_rank(self.process_group, r) \
                    if hasattr(dist, 'get_global_rank') else r
                by_dt = {}
                for g in self._partition[r]:
                    for p in g['params']:
                        by_dt.setdefault(p.dtype, []).append(p)
                for dt, ps in by_dt.items():
                    n = sum(p.numel() for p in ps)
                    flat = empty(n, dtype=dt)
                    if r == self.rank:
                        o = 0
                        for p in ps:
                            flat[o:o + p.numel()].copy_(p.detach().reshape(-1))
                            o += p.numel()
                    dist.broadcast(flat, src=src, group=self.process_group)
                    if r != self.rank:
                        o = 0
                        for p in ps:
                            p.detach().copy_(flat[o:o + p.numel()].view(p.shape))
                            o += p.numel()

    def step(self, closure=None, **kwargs):
        """Step the local optimizer on this rank's partition, then broadcast the updated
        parameters of every rank.

        Args:
            closure (callable, optional): re-evaluates the model and returns the loss.

        Returns:
            The loss returned by ``closure`` (or None).
        """
        work = Join.notify_join_context(self)
        if work is not None:
            work.wait()
        self._sync_groups(self.param_groups, self.optim.param_groups)
        loss = self.optim.step(closure=closure, **kwargs) if closure is not None or kwargs \
            else self.optim.step()
        self._sync_groups(self.optim.param_groups, self.param_groups)
        self._sync_params()
        return loss

    def add_param_group(self, param_group):
        """Add a parameter group (re-partitions the parameters; the local optimizer is
        rebuilt, keeping the state of parameters it still owns)."""
        Optimizer.add_param_group(self, param_group)
        if hasattr(self, 'optim'):
            old = {id(p): st for p, st in self.optim.state.items()}
            self._build()
            for g in self.optim.param_groups:
                for p in g['params']:
                    if id(p) in old:
                        self.optim.state[p] = old[id(p)]

    # ------------------------------------------------------------------ state
    def consolidate_state_dict(self, to=0):
        """Gather every rank's optimizer state on rank ``to`` (call on all ranks); then
        :meth:`state_dict` works there.

        Args:
            to (int): the rank receiving the state. Default: 0.
        """
        dist = _dist()
        self._sync_groups(self.param_groups, self.optim.param_groups)
        local = self.optim.state_dict()
        dst = dist.get_global_rank(self.process_group, to) if hasattr(dist, 'get_global_rank') \
            else to
        out = [None] * self.world_size if self.rank == to else None
        dist.gather_object(local, out, dst=dst, group=self.process_group)
        self._all_state_dicts = out if self.rank == to else []

    def state_dict(self):
        """The optimizer state of every parameter, in the format of a plain optimizer over
        all the parameters (consolidated on this rank by :meth:`consolidate_state_dict`).

        Raises:
            RuntimeError: the state has not been consolidated on this rank.
        """
        if not self._all_state_dicts:
            raise RuntimeError("Optimizer state has not been consolidated on this rank. Please "
                               "call `consolidate_state_dict(to=0)` on all ranks beforehand if "
                               "you meant to save the global state.")
        sd = Optimizer.state_dict(self)
        sd['state'] = {}
        for r, local in enumerate(self._all_state_dicts):
            order = [p for g in self._partition[r] for p in g['params']]
            for k, v in local['state'].items():
                sd['state'][self._param_to_index[id(order[k])]] = v
        sd['state'] = dict(sorted(sd['state'].items()))
        return sd

    def load_state_dict(self, state_dict):
        """Load a state saved by :meth:`state_dict` (or by a plain optimizer over the same
        parameters); each rank keeps the state of its own partition.

        Args:
            state_dict (dict): the global optimizer state.
        """
        saved_groups = state_dict['param_groups']
        if len(saved_groups) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        for g, s in zip(self.param_groups, saved_groups):
            if len(g['params']) != len(s['params']):
                raise ValueError("loaded state dict contains a parameter group that doesn't "
                                 "match the size of optimizer's group")
            for k, v in s.items():
                if k != 'params':
                    g[k] = v
        # saved index -> global parameter, then global parameter -> local index
        idx_to_param = {}
        for g, s in zip(self.param_groups, saved_groups):
            for i, p in zip(s['params'], g['params']):
                idx_to_param[i] = p
        order = [p for g in self._partition[self.rank] for p in g['params']]
        local_index = {id(p): k for k, p in enumerate(order)}
        local_state = {}
        for i, st in state_dict['state'].items():
            p = idx_to_param.get(i)
            if p is not None and id(p) in local_index:
                local_state[local_index[id(p)]] = st
        local_groups = []
        start = 0
        for gl, gg in zip(self._partition[self.rank], self.param_groups):
            d = {k: v for k, v in gg.items() if k != 'params'}
            d['params'] = list(range(start, start + len(gl['params'])))
            start += len(gl['params'])
            local_groups.append(d)
        self.optim.load_state_dict({'state': local_state, 'param_groups': local_groups})
        self._sync_groups(self.param_groups, self.optim.param_groups)

    # ------------------------------------------------------------------ join
    def join_hook(self, **kwargs):
        """The :class:`JoinHook`: a joined rank shadows the parameter broadcasts of ``step``."""
        return _ZeROJoinHook(self)

    @property
    def join_device(self):
        """The device of the join collectives."""
        return self._all_params[0].device

    @property
    def join_process_group(self):
        """The process group of the join collectives."""
        return self.process_group
