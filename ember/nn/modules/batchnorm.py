"""Batch normalization layers: ``BatchNorm1d/2d/3d``, their lazy forms, and
``SyncBatchNorm``."""
from ... import _dtype as D
from ..._ops.creation import empty, zeros, ones, tensor as _tensor
from .. import functional as F
from .. import init
from ..parameter import Parameter, UninitializedParameter, UninitializedBuffer
from .lazy import LazyModuleMixin
from .module import Module

__all__ = ['BatchNorm1d', 'BatchNorm2d', 'BatchNorm3d', 'LazyBatchNorm1d', 'LazyBatchNorm2d',
           'LazyBatchNorm3d', 'SyncBatchNorm']


class _NormBase(Module):
    """Parameters (``weight``, ``bias``) and running statistics (``running_mean``,
    ``running_var``, ``num_batches_tracked``) shared by the normalization layers."""
    _version = 2

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, device=None, dtype=None, *, bias=True):
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = Parameter(empty(num_features, device=device, dtype=dtype))
            if bias:
                self.bias = Parameter(empty(num_features, device=device, dtype=dtype))
            else:
                self.register_parameter('bias', None)
        else:
            self.register_parameter('weight', None)
            self.register_parameter('bias', None)
        if track_running_stats:
            self.register_buffer('running_mean', zeros(num_features, device=device, dtype=dtype))
            self.register_buffer('running_var', ones(num_features, device=device, dtype=dtype))
            self.register_buffer('num_batches_tracked',
                                 _tensor(0, dtype=D.long, device=device))
        else:
            self.register_buffer('running_mean', None)
            self.register_buffer('running_var', None)
            self.register_buffer('num_batches_tracked', None)
        self.reset_parameters()

    def reset_running_stats(self):
        """Running mean to 0, running variance to 1, batch counter to 0."""
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self):
        """Reset the running statistics, weight to 1 and bias to 0."""
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def _check_input_dim(self, input):
        raise NotImplementedError

    def extra_repr(self):
        return (f'{self.num_features}, eps={self.eps}, momentum={self.momentum}, '
                f'affine={self.affine}, bias={self.bias is not None}, '
                f'track_running_stats={self.track_running_stats}')

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        version = local_metadata.get('version', None)
        if (version is None or version < 2) and self.track_running_stats:
            # checkpoints from before num_batches_tracked existed
            key = prefix + 'num_batches_tracked'
            if key not in state_dict:
                state_dict[key] = (self.num_batches_tracked
                                   if self.num_batches_tracked is not None
                                   and not self.num_batches_tracked.is_meta
                                   else _tensor(0, dtype=D.long))
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)


class _BatchNorm(_NormBase):
    def forward(self, input):
        self._check_input_dim(input)
        if self.momentum is None:
            factor = 0.0
        else:
            factor = self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:   # cumulative moving average
                factor = 1.0 / float(self.num_batches_tracked)
        if self.training:
            bn_training = True
        else:
            bn_training = self.running_mean is None and self.running_var is None
        use_running = not self.training or self.track_running_stats
        return F.batch_norm(input, self.running_mean if use_running else None,
                            self.running_var if use_running else None, self.weight, self.bias,
                            bn_training, factor, self.eps)


class BatchNorm1d(_BatchNorm):
    """Applies batch normalization over a ``(N, C)`` or ``(N, C, L)`` input:
    ``y = (x - E[x]) / sqrt(Var[x] + eps) * weight + bias``, with the mean and the
    (biased) variance computed per channel over the batch (and spatial dimensions).
    In training mode running estimates are updated with ``momentum`` (the unbiased
    variance); in eval mode they are used instead.

    Args:
        num_features (int): ``C``, the number of channels.
        eps (float): added to the variance for stability. Default: 1e-5.
        momentum (float or None): factor of the running statistics (``None``: cumulative
            average). Default: 0.1.
        affine (bool): learnable ``weight`` and ``bias``. Default: ``True``.
        track_running_stats (bool): keep ``running_mean``/``running_var``. Default: ``True``.
        device, dtype: factory arguments of parameters and buffers.

    Shape:
        - Input: ``(N, C)`` or ``(N, C, L)``
        - Output: same shape as the input.

    Example::

        >>> m = nn.BatchNorm1d(100)
        >>> m(ember.randn(20, 100)).shape[1]
        100
    """

    def _check_input_dim(self, input):
        if input.dim() != 2 and input.dim() != 3:
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class BatchNorm2d(_BatchNorm):
    """Applies batch normalization over a ``(N, C, H, W)`` input:
    ``y = (x - E[x]) / sqrt(Var[x] + eps) * weight + bias``, with the mean and the
    (biased) variance computed per channel over the batch (and spatial dimensions).
    In training mode running estimates are updated with ``momentum`` (the unbiased
    variance); in eval mode they are used instead.

    Args:
        num_features (int): ``C``, the number of channels.
        eps (float): added to the variance for stability. Default: 1e-5.
        momentum (float or None): factor of the running statistics (``None``: cumulative
            average). Default: 0.1.
        affine (bool): learnable ``weight`` and ``bias``. Default: ``True``.
        track_running_stats (bool): keep ``running_mean``/``running_var``. Default: ``True``.
        device, dtype: factory arguments of parameters and buffers.

    Shape:
        - Input: ``(N, C, H, W)``
        - Output: same shape as the input.

    Example::

        >>> m = nn.BatchNorm2d(100)
        >>> m(ember.randn(20, 100, 35, 45)).shape[1]
        100
    """

    def _check_input_dim(self, input):
        if input.dim() != 4:
            raise ValueError(f"expected 4D input (got {input.dim()}D input)")


class BatchNorm3d(_BatchNorm):
    """Applies batch normalization over a ``(N, C, D, H, W)`` input:
    ``y = (x - E[x]) / sqrt(Var[x] + eps) * weight + bias``, with the mean and the
    (biased) variance computed per channel over the batch (and spatial dimensions).
    In training mode running estimates are updated with ``momentum`` (the unbiased
    variance); in eval mode they are used instead.

    Args:
        num_features (int): ``C``, the number of channels.
        eps (float): added to the variance for stability. Default: 1e-5.
        momentum (float or None): factor of the running statistics (``None``: cumulative
            average). Default: 0.1.
        affine (bool): learnable ``weight`` and ``bias``. Default: ``True``.
        track_running_stats (bool): keep ``running_mean``/``running_var``. Default: ``True``.
        device, dtype: factory arguments of parameters and buffers.

    Shape:
        - Input: ``(N, C, D, H, W)``
        - Output: same shape as the input.

    Example::

        >>> m = nn.BatchNorm3d(100)
        >>> m(ember.randn(20, 100, 35, 45, 10)).shape[1]
        100
    """

    def _check_input_dim(self, input):
        if input.dim() != 5:
            raise ValueError(f"expected 5D input (got {input.dim()}D input)")


class _LazyNormBase(LazyModuleMixin, _NormBase):
    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None, *, bias=True):
        super().__init__(0, eps, momentum, False, False, device, dtype)
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = UninitializedParameter(device=device, dtype=dtype)
            if bias:
                self.bias = UninitializedParameter(device=device, dtype=dtype)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(device=device, dtype=dtype)
            self.running_var = UninitializedBuffer(device=device, dtype=dtype)
            self.num_batches_tracked = _tensor(0, dtype=D.long, device=device)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        if self.has_uninitialized_params():
            self.num_features = input.shape[1]
            if self.affine:
                self.weight.materialize((self.num_features,))
                if self.bias is not None:
                    self.bias.materialize((self.num_features,))
            if self.track_running_stats:
                self.running_mean.materialize((self.num_features,))
                self.running_var.materialize((self.num_features,))
            self.reset_parameters()


class LazyBatchNorm1d(_LazyNormBase, _BatchNorm):
    """A :class:`BatchNorm1d` whose ``num_features`` is inferred from ``input.size(1)``
    on the first call; the module then becomes a :class:`BatchNorm1d`.

    Args:
        eps (float): added to the variance for stability. Default: 1e-5.
        momentum (float or None): factor of the running statistics (``None``: cumulative
            average). Default: 0.1.
        affine (bool): learnable ``weight`` and ``bias``. Default: ``True``.
        track_running_stats (bool): keep ``running_mean``/``running_var``. Default: ``True``.
        device, dtype: factory arguments of parameters and buffers.

    Shape:
        - Input: ``(N, C)`` or ``(N, C, L)``
        - Output: same shape as the input.

    Example::

        >>> m = nn.LazyBatchNorm1d()
        >>> m(ember.randn(20, 100)).shape[1]
        100
    """
    cls_to_become = BatchNorm1d
    _check_input_dim = BatchNorm1d._check_input_dim


class LazyBatchNorm2d(_LazyNormBase, _BatchNorm):
    """A :class:`BatchNorm2d` whose ``num_features`` is inferred from ``input.size(1)``
    on the first call; the module then becomes a :class:`BatchNorm2d`.

    Args:
        eps (float): added to the variance for stability. Default: 1e-5.
        momentum (float or None): factor of the running statistics (``None``: cumulative
            average). Default: 0.1.
        affine (bool): learnable ``weight`` and ``bias``. Default: ``True``.
        track_running_stats (bool): keep ``running_mean``/``running_var``. Default: ``True``.
        device, dtype: factory arguments of parameters and buffers.

    Shape:
        - Input: ``(N, C, H, W)``
        - Output: same shape as the input.

    Example::

        >>> m = nn.LazyBatchNorm2d()
        >>> m(ember.randn(20, 100, 35, 45)).shape[1]
        100
    """
    cls_to_become = BatchNorm2d
    _check_input_dim = BatchNorm2d._check_input_dim


class LazyBatchNorm3d(_LazyNormBase, _BatchNorm):
    """A :class:`BatchNorm3d` whose ``num_features`` is inferred from ``input.size(1)``
    on the first call; the module then becomes a :class:`BatchNorm3d`.

    Args:
        eps (float): added to the variance for stability. Default: 1e-5.
        momentum (float or None): factor of the running statistics (``None``: cumulative
            average). Default: 0.1.
        affine (bool): learnable ``weight`` and ``bias``. Default: ``True``.
        track_running_stats (bool): keep ``running_mean``/``running_var``. Default: ``True``.
        device, dtype: factory arguments of parameters and buffers.

    Shape:
        - Input: ``(N, C, D, H, W)``
        - Output: same shape as the input.

    Example::

        >>> m = nn.LazyBatchNorm3d()
        >>> m(ember.randn(20, 100, 35, 45, 10)).shape[1]
        100
    """
    cls_to_become = BatchNorm3d
    _check_input_dim = BatchNorm3d._check_input_dim


class SyncBatchNorm(_BatchNorm):
    """Applies batch normalization over an ``(N, C, *)`` input, with the batch statistics
    meant to be gathered over every process of ``process_group`` in distributed training:
    ``y = (x - E[x]) / sqrt(Var[x] + eps) * weight + bias``, per channel. In training mode
    running estimates are updated with ``momentum`` (the unbiased variance); in eval mode
    they are used instead.

    In training mode, with an initialised process group of more than one rank, the mean and
    variance are those of the whole batch across the ranks of ``process_group`` (the sums
    are all-reduced, and so are their gradients in backward); otherwise (one process, eval
    mode) they are the local batch's, as with ``BatchNorm``. Every rank of the group must
    call forward and backward together.

    NOTE: unlike PyTorch (whose synchronized path takes CUDA tensors only and raises
    ``ValueError`` for CPU input), CPU tensors are synchronized too.

    Args:
        num_features (int): ``C``, the number of channels.
        eps (float): added to the variance for stability. Default: 1e-5.
        momentum (float or None): factor of the running statistics (``None``: cumulative
            average). Default: 0.1.
        affine (bool): learnable ``weight`` and ``bias``. Default: ``True``.
        track_running_stats (bool): keep ``running_mean``/``running_var``. Default: ``True``.
        process_group: the group the statistics are reduced over (``None``: the world).
        device, dtype: factory arguments of parameters and buffers.

    Shape:
        - Input: ``(N, C, +)``
        - Output: same shape as the input.

    Example::

        >>> m = nn.SyncBatchNorm(100)
        >>> m(ember.randn(20, 100, 35, 45)).shape
        torch.Size([20, 100, 35, 45])
    """

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, process_group=None, device=None, dtype=None, *,
                 bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device,
                         dtype, bias=bias)
        self.process_group = process_group

    def _check_input_dim(self, input):
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")

    def _check_non_zero_input_channels(self, input):
        if input.size(1) == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")

    def forward(self, input):
        self._check_input_dim(input)
        self._check_non_zero_input_channels(input)
        if not (self.training and self._world_size() > 1):
            return super().forward(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:   # cumulative moving average
                factor = 1.0 / float(self.num_batches_tracked)
        return self._sync_forward(input, factor)

    def _world_size(self):
        from ... import distributed as dist
        if not dist.is_initialized():
            return 1
        n = dist.get_world_size(self.process_group)
        return n if n > 0 else 1

    def _sync_forward(self, input, factor):
        """Batch statistics over every rank: one differentiable all-reduce of the per-channel
        sums and the element count, a second one of the centred squares."""
        from ...distributed.nn.functional import all_reduce
        from ..._ops.creation import tensor as _t
        from ...autograd.grad_mode import no_grad
        import ember
        c = input.size(1)
        dims = [0] + list(range(2, input.dim()))
        shape = [1, c] + [1] * (input.dim() - 2)
        count = input.numel() // c
        stats = ember.cat([input.sum(dims), _t([float(count)], dtype=input.dtype)])
        stats = all_reduce(stats, group=self.process_group)
        total = stats[c]
        mean = stats[:c] / total
        xc = input - mean.view(shape)
        var = all_reduce((xc * xc).sum(dims), group=self.process_group) / total
        out = xc * ember.rsqrt(var + self.eps).view(shape)
        if self.weight is not None:
            out = out * self.weight.view(shape)
        if self.bias is not None:
            out = out + self.bias.view(shape)
        if self.track_running_stats and self.running_mean is not None:
            n = float(total.item())
            if n <= 1:
                raise ValueError(f"Expected more than 1 value per channel when training, got "
                                 f"input size {list(input.shape)}")
            with no_grad():
                self.running_mean.mul_(1 - factor).add_(mean.detach() * factor)
                self.running_var.mul_(1 - factor).add_(var.detach() * (n / (n - 1)) * factor)
        return out

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """Return ``module`` with every ``BatchNorm*d`` layer in it (itself included)
        replaced by a :class:`SyncBatchNorm` sharing its parameters and buffers and keeping
        its training flag.

        Args:
            module (nn.Module): the module (tree) to convert.
            process_group: the group given to the new layers. Default: ``None``.

        Example::

            >>> net = nn.Sequential(nn.Linear(20, 100), nn.BatchNorm1d(100))
            >>> sync = nn.SyncBatchNorm.convert_sync_batchnorm(net)
            >>> type(sync[1]).__name__
            'SyncBatchNorm'
        """
        out = module
        if isinstance(module, _BatchNorm):
            out = SyncBatchNorm(module.num_features, module.eps, module.momentum,
                                module.affine, module.track_running_stats, process_group,
                                bias=module.bias is not None)
            if module.affine:
                out.weight = module.weight
                out.bias = module.bias
            out.running_mean = module.running_mean
            out.running_var = module.running_var
            out.num_batches_tracked = module.num_batches_tracked
            out.training = module.training
            if hasattr(module, 'qconfig'):
                out.qconfig = module.qconfig
        for name, child in module.named_children():
            out.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        del module
        return out
