"""``ember.distributed.fsdp.sharded_grad_scaler``: the gradient scaler for sharded models,
whose inf/NaN check is agreed across ranks."""
from ...amp.grad_scaler import GradScaler

__all__ = ['ShardedGradScaler']


class ShardedGradScaler(GradScaler):
    """A :class:`~ember.amp.GradScaler` for FSDP: each rank holds only its shard of the
    gradients, so the ranks add up their inf/NaN findings (an all-reduce over
    ``process_group``) and all skip the step, and back off the scale, together. Float16
    gradients may be unscaled.

    Args:
        device (str): the gradients' device type. Default: ``'cuda'``.
        init_scale, backoff_factor, growth_factor, growth_interval, enabled: as
            :class:`~ember.amp.GradScaler`.
        process_group (ProcessGroup, optional): the ranks that agree (default: the world).

    Example::

        >>> scaler = ShardedGradScaler('cpu')
        >>> scaler.scale(loss).backward()
        >>> scaler.step(opt); scaler.update()
    """

    def __init__(self, device='cuda', init_scale=2.0 ** 16, backoff_factor=0.5,
                 growth_factor=2.0, growth_interval=2000, enabled=True, process_group=None):
        super().__init__(device, init_scale=init_scale, growth_factor=growth_factor,
                         backoff_factor=backoff_factor, growth_interval=growth_interval,
                         enabled=enabled)
        self.process_group = process_group

    def _unscale_grads_(self, optimizer, inv_scale, found_inf, allow_fp16=True):
        return super()._unscale_grads_(optimizer, inv_scale, found_inf, True)

    def unscale_(self, optimizer):
        """Unscale this rank's gradients, then add up every rank's inf/NaN finding."""
        if not self._enabled:
            return
        super().unscale_(optimizer)
        from ... import distributed as dist
        if dist.is_initialized():
            for v in self._state(optimizer)['found_inf_per_device'].values():
                dist.all_reduce(v, group=self.process_group)
