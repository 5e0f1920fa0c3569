"""``GradScaler``: loss scaling for mixed-precision training."""
import warnings

__all__ = ['GradScaler', 'OptState']


class OptState:
    """The stage an optimizer has reached in the current iteration of a :class:`GradScaler`:
    ``READY`` (0, nothing done yet), ``UNSCALED`` (1, :meth:`GradScaler.unscale_` ran) or
    ``STEPPED`` (2, :meth:`GradScaler.step` ran). :meth:`GradScaler.update` puts every
    optimizer back to ``READY``.

    Example::

        >>> from ember.amp.grad_scaler import OptState
        >>> OptState.READY, OptState.UNSCALED, OptState.STEPPED
        (0, 1, 2)
    """
    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _new_opt_state():
    return {'stage': OptState.READY, 'found_inf_per_device': {}}


class GradScaler:
    """Scales the loss so that low-precision gradients do not underflow, unscales the
    gradients before the optimizer step, skips steps whose gradients hold inf/NaN, and
    adapts the scale (back off on overflow, grow after ``growth_interval`` clean steps).

    Args:
        device (str): the device type of the gradients. Default: ``'cuda'``; a CUDA scaler
            without CUDA disables itself with a warning, as in PyTorch.
        init_scale (float): initial scale. Default: ``2.0**16``.
        growth_factor (float): factor applied after ``growth_interval`` steps without
            inf/NaN. Default: ``2.0``.
        backoff_factor (float): factor applied when a step has inf/NaN. Default: ``0.5``.
        growth_interval (int): clean steps between growths. Default: ``2000``.
        enabled (bool): if False, every method is a no-op pass-through. Default: ``True``.

    Example::

        >>> model = ember.nn.Linear(2, 1); opt = ember.optim.SGD(model.parameters(), lr=0.1)
        >>> scaler = ember.amp.GradScaler('cpu')
        >>> loss = model(ember.ones(4, 2)).sum()
        >>> scaler.scale(loss).backward()
        >>> scaler.step(opt)
        >>> scaler.update()
    """

    def __init__(self, device='cuda', init_scale=2.0 ** 16, growth_factor=2.0,
                 backoff_factor=0.5, growth_interval=2000, enabled=True):
        self._device = device
        self._enabled = enabled
        if self._device == 'cuda' and enabled:
            from .. import cuda
            if not cuda.is_available():
                warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  "
                              "Disabling.")
                self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
            self._init_scale = init_scale
            self._scale = None
            self._growth_factor = growth_factor
            self._backoff_factor = backoff_factor
            self._growth_interval = growth_interval
            self._init_growth_tracker = 0
            self._growth_tracker = None
            self._per_optimizer_states = {}

    # ------------------------------------------------------------------ helpers
    def _lazy_init(self, dev):
        import ember
        self._scale = ember.full((), float(self._init_scale), dtype=ember.float32, device=dev)
        self._growth_tracker = ember.full((), self._init_growth_tracker, dtype=ember.int32,
                                          device=dev)

    def _check_scale_growth_tracker(self, funcname):
        fix = "This may indicate your script did not use scaler.scale(loss or outputs) earlier in the iteration."
        if self._scale is None:
            raise AssertionError(f"Attempted {funcname} but _scale is None.  " + fix)
        if self._growth_tracker is None:
            raise AssertionError(f"Attempted {funcname} but _growth_tracker is None.  " + fix)
        return self._scale, self._growth_tracker

    def _state(self, optimizer):
        return self._per_optimizer_states.setdefault(id(optimizer), _new_opt_state())

    # ------------------------------------------------------------------ API
    def scale(self, outputs):
        """Multiply ``outputs`` (a tensor or an iterable of tensors) by the scale factor."""
        if not self._enabled:
            return outputs
        from .._tensor import Tensor
        if isinstance(outputs, Tensor):
            if self._scale is None:
                self._lazy_init(outputs.device)
            return outputs * self._scale.to(device=outputs.device)

        def apply(v):
            if isinstance(v, Tensor):
                if self._scale is None:
                    self._lazy_init(v.device)
                return v * self._scale.to(device=v.device)
            if isinstance(v, (list, tuple)):
                return type(v)(apply(x) for x in v)
            if hasattr(v, '__iter__'):
                return map(apply, v)
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")
        return apply(outputs)

    def _unscale_grads_(self, optimizer, inv_scale, found_inf, allow_fp16):
        import ember
        per_device = {}
        with ember.no_grad():
            for group in optimizer.param_groups:
                for p in group['params']:
                    g = p.grad
                    if g is None:
                        continue
                    if not allow_fp16 and g.dtype is ember.float16:
                        raise ValueError("Attempting to unscale FP16 gradients.")
                    dev = g.device
                    fi = per_device.get(dev)
                    if fi is None:
                        fi = per_device[dev] = found_inf.to(dev).clone()
                    if not bool(ember.isfinite(g).all()):
                        fi.fill_(1.0)
                    g.mul_(inv_scale.to(dev).to(g.dtype) if g.dtype is not ember.float32
                           else inv_scale.to(dev))
        return per_device

    def unscale_(self, optimizer):
        """Divide ``optimizer``'s gradients by the scale (in place) and record whether any
        is inf/NaN. Call it at most once per optimizer between updates (e.g. before
        gradient clipping); :meth:`step` calls it when you did not."""
        if not self._enabled:
            return
        self._check_scale_growth_tracker("unscale_")
        st = self._state(optimizer)
        if st['stage'] == OptState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the "
                               "last update().")
        if st['stage'] == OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        import ember
        inv_scale = self._scale.double().reciprocal().float()
        found_inf = ember.full((), 0.0, dtype=ember.float32, device=self._scale.device)
        st['found_inf_per_device'] = self._unscale_grads_(optimizer, inv_scale, found_inf, False)
        st['stage'] = OptState.UNSCALED

    def step(self, optimizer, *args, **kwargs):
        """Unscale (if not done yet) and call ``optimizer.step(*args, **kwargs)`` unless the
        gradients hold inf/NaN; returns what ``optimizer.step`` returned (None if skipped)."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if 'closure' in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._check_scale_growth_tracker("step")
        st = self._state(optimizer)
        if st['stage'] == OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if st['stage'] == OptState.READY:
            self.unscale_(optimizer)
        if len(st['found_inf_per_device']) == 0:
            raise AssertionError("No inf checks were recorded for this optimizer.")
        retval = None
        if not sum(float(v.item()) for v in st['found_inf_per_device'].values()):
            retval = optimizer.step(*args, **kwargs)
        st['stage'] = OptState.STEPPED
        return retval

    def update(self, new_scale=None):
        """Update the scale: ``new_scale`` if given, else back off if any step of this
        iteration saw inf/NaN, or grow after ``growth_interval`` clean iterations."""
        if not self._enabled:
            return
        import ember
        scale, tracker = self._check_scale_growth_tracker("update")
        if new_scale is not None:
            if isinstance(new_scale, float):
                self._scale.fill_(new_scale)
            else:
                reason = ("new_scale should be a float or a 1-element torch.cuda.FloatTensor or "
                          "torch.FloatTensor with requires_grad=False.")
                if not isinstance(new_scale, ember.Tensor) or new_scale.numel() != 1 or \
                        new_scale.requires_grad or new_scale.dtype is not ember.float32:
                    raise AssertionError(reason)
                self._scale.copy_(new_scale.reshape(()))
        else:
            found = [fi for st in self._per_optimizer_states.values()
                     for fi in st['found_inf_per_device'].values()]
            if len(found) == 0:
                raise AssertionError("No inf checks were recorded prior to update.")
            if sum(float(f.item()) for f in found):
                scale.mul_(self._backoff_factor)
                tracker.fill_(0)
            else:
                n = int(tracker.item()) + 1
                if n == self._growth_interval:
                    grown = float(scale.item()) * self._growth_factor
                    if grown != float('inf'):
                        scale.mul_(self._growth_factor)
                    tracker.fill_(0)
                else:
                    tracker.fill_(n)
        self._per_optimizer_states = {}

    def _get_scale_async(self):
        return self._scale

    def get_scale(self):
        """The current scale as a float (1.0 when disabled)."""
        if not self._enabled:
            return 1.0
        return float(self._init_scale) if self._scale is None else float(self._scale.item())

    def get_growth_factor(self):
        return self._growth_factor

    def set_growth_factor(self, new_factor):
        self._growth_factor = new_factor

    def get_backoff_factor(self):
        return self._backoff_factor

    def set_backoff_factor(self, new_factor):
        self._backoff_factor = new_factor

    def get_growth_interval(self):
        return self._growth_interval

    def set_growth_interval(self, new_interval):
        self._growth_interval = new_interval

    def _get_growth_tracker(self):
        if not self._enabled:
            return 0
        return self._init_growth_tracker if self._growth_tracker is None else int(self._growth_tracker.item())

    def is_enabled(self):
        """Whether this scaler is active."""
        return self._enabled

    def state_dict(self):
        """``{'scale', 'growth_factor', 'backoff_factor', 'growth_interval',
        '_growth_tracker'}`` (empty when disabled)."""
        if not self._enabled:
            return {}
        return {'scale': self.get_scale(), 'growth_factor': self._growth_factor,
                'backoff_factor': self._backoff_factor, 'growth_interval': self._growth_interval,
                '_growth_tracker': self._get_growth_tracker()}

    def load_state_dict(self, state_dict):
        """Restore the state from :meth:`state_dict`."""
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved "
                               "from a disabled instance of GradScaler.")
        self._init_scale = state_dict['scale']
        if self._scale is not None:
            self._scale.fill_(state_dict['scale'])
        self._growth_factor = state_dict['growth_factor']
        self._backoff_factor = state_dict['backoff_factor']
        self._growth_interval = state_dict['growth_interval']
        self._init_growth_tracker = state_dict['_growth_tracker']
        if self._growth_tracker is not None:
            self._growth_tracker.fill_(state_dict['_growth_tracker'])

    def __getstate__(self):
        state = self.__dict__.copy()
        if self._enabled:
            if len(self._per_optimizer_states) != 0:
                raise AssertionError("A GradScaler instance may only be pickled at the beginning "
                                     "of an iteration, or at the end after scaler.update().")
            state['_init_scale'] = self.get_scale()
            state['_init_growth_tracker'] = self._get_growth_tracker()
            state['_scale'] = None
            state['_growth_tracker'] = None
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
