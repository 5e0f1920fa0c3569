"""Instance normalization layers: ``InstanceNorm1d/2d/3d`` and their lazy forms."""
import warnings

from .. import functional as F
from .batchnorm import _LazyNormBase, _NormBase

__all__ = ['InstanceNorm1d', 'InstanceNorm2d', 'InstanceNorm3d', 'LazyInstanceNorm1d',
           'LazyInstanceNorm2d', 'LazyInstanceNorm3d']


class _InstanceNorm(_NormBase):
    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False,
                 track_running_stats=False, device=None, dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device,
                         dtype, bias=bias)

    def _check_input_dim(self, input):
        raise NotImplementedError

    def _get_no_batch_dim(self):
        raise NotImplementedError

    def _handle_no_batch_input(self, input):
        return self._apply_instance_norm(input.unsqueeze(0)).squeeze(0)

    def _apply_instance_norm(self, input):
        return F.instance_norm(input, self.running_mean, self.running_var, self.weight,
                               self.bias, self.training or not self.track_running_stats,
                               self.momentum if self.momentum is not None else 0.0, self.eps)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        version = local_metadata.get('version', None)
        if version is None and not self.track_running_stats:
            # checkpoints from before 0.4.0 kept running statistics that are not used now
            keys = [prefix + n for n in ('running_mean', 'running_var')
                    if prefix + n in state_dict]
            if keys:
                name = self.__class__.__name__
                error_msgs.append(
                    "Unexpected running stats buffer(s) {names} for {klass} with "
                    "track_running_stats=False. If state_dict is a checkpoint saved before "
                    "0.4.0, this may be expected because {klass} does not track running stats "
                    "by default since 0.4.0. Please remove these keys from state_dict. If the "
                    "running stats are actually needed, instead set track_running_stats=True "
                    "in {klass} to enable them. See the documentation of {klass} for "
                    "details.".format(names=" and ".join(f'"{k}"' for k in keys), klass=name))
                for k in keys:
                    state_dict.pop(k)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)

    def forward(self, input):
        self._check_input_dim(input)
        feature_dim = input.dim() - self._get_no_batch_dim()
        if input.size(feature_dim) != self.num_features:
            if self.affine:
                raise ValueError(f"expected input's size at dim={feature_dim} to match "
                                 f"num_features ({self.num_features}), but got: "
                                 f"{input.size(feature_dim)}.")
            warnings.warn(f"input's size at dim={feature_dim} does not match num_features. You "
                          "can silence this warning by not passing in num_features, which is "
                          "not used because affine=False", stacklevel=2)
        if input.dim() == self._get_no_batch_dim():
            return self._handle_no_batch_input(input)
        return self._apply_instance_norm(input)


_DOC = """Applies instance normalization over a {shapes} input: every channel of every
    sample is normalized by its own mean and (biased) variance over the {what},
    ``y = (x - E[x]) / sqrt(Var[x] + eps) * weight + bias``. The statistics come from the
    input in training and evaluation mode alike, unless ``track_running_stats`` is set: then
    running estimates (updated with ``momentum``, from the unbiased variance) are kept in
    training and used in evaluation.

    Args:
        num_features (int): ``C``, the number of channels.
        eps (float): added to the variance. Default: 1e-5.
        momentum (float or None): factor of the running statistics. Default: 0.1.
        affine (bool): learnable per-channel ``weight`` (init 1) and ``bias`` (init 0).
            Default: ``False``.
        track_running_stats (bool): keep ``running_mean``/``running_var``. Default:
            ``False``.
        device, dtype: factory arguments of parameters and buffers.

    Shape:
        - Input: {ishapes}
        - Output: same shape as the input.

    Example::

        >>> m = nn.{name}(100)
        >>> m(ember.randn({example})).shape
        torch.Size([{sexample}])
"""


class InstanceNorm1d(_InstanceNorm):
    __doc__ = _DOC.format(shapes='2-d (unbatched) or 3-d', what='length dim',
                          ishapes='``(N, C, L)`` or ``(C, L)``', name='InstanceNorm1d',
                          example='20, 100, 40', sexample='20, 100, 40')

    def _get_no_batch_dim(self):
        return 2

    def _check_input_dim(self, input):
        if input.dim() not in (2, 3):
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class InstanceNorm2d(_InstanceNorm):
    __doc__ = _DOC.format(shapes='3-d (unbatched) or 4-d', what='spatial dims',
                          ishapes='``(N, C, H, W)`` or ``(C, H, W)``', name='InstanceNorm2d',
                          example='20, 100, 35, 45', sexample='20, 100, 35, 45')

    def _get_no_batch_dim(self):
        return 3

    def _check_input_dim(self, input):
        if input.dim() not in (3, 4):
            raise ValueError(f"expected 3D or 4D input (got {input.dim()}D input)")


class InstanceNorm3d(_InstanceNorm):
    __doc__ = _DOC.format(shapes='4-d (unbatched) or 5-d', what='spatial dims',
                          ishapes='``(N, C, D, H, W)`` or ``(C, D, H, W)``',
                          name='InstanceNorm3d', example='20, 100, 35, 45, 10',
                          sexample='20, 100, 35, 45, 10')

    def _get_no_batch_dim(self):
        return 4

    def _check_input_dim(self, input):
        if input.dim() not in (4, 5):
            raise ValueError(f"expected 4D or 5D input (got {input.dim()}D input)")


_LAZY_DOC = """An :class:`{base}` whose ``num_features`` is inferred from
    ``input.size(1)`` on the first call; the module then becomes an :class:`{base}`.
    Unlike the eager class, ``affine`` and ``track_running_stats`` default to ``True``
    (as in PyTorch).

    Args:
        eps (float): added to the variance. Default: 1e-5.
        momentum (float or None): factor of the running statistics. Default: 0.1.
        affine (bool): learnable per-channel ``weight`` and ``bias``. Default: ``True``.
        track_running_stats (bool): keep ``running_mean``/``running_var``. Default:
            ``True``.
        device, dtype: factory arguments of parameters and buffers.

    Shape:
        - Input: {ishapes}
        - Output: same shape as the input.

    Example::

        >>> m = nn.Lazy{base}()
        >>> m(ember.randn({example})).shape[1]
        100
"""


class LazyInstanceNorm1d(_LazyNormBase, _InstanceNorm):
    __doc__ = _LAZY_DOC.format(base='InstanceNorm1d', ishapes='``(N, C, L)`` or ``(C, L)``',
                               example='20, 100, 40')
    cls_to_become = InstanceNorm1d
    _get_no_batch_dim = InstanceNorm1d._get_no_batch_dim
    _check_input_dim = InstanceNorm1d._check_input_dim


class LazyInstanceNorm2d(_LazyNormBase, _InstanceNorm):
    __doc__ = _LAZY_DOC.format(base='InstanceNorm2d',
                               ishapes='``(N, C, H, W)`` or ``(C, H, W)``',
                               example='20, 100, 35, 45')
    cls_to_become = InstanceNorm2d
    _get_no_batch_dim = InstanceNorm2d._get_no_batch_dim
    _check_input_dim = InstanceNorm2d._check_input_dim


class LazyInstanceNorm3d(_LazyNormBase, _InstanceNorm):
    __doc__ = _LAZY_DOC.format(base='InstanceNorm3d',
                               ishapes='``(N, C, D, H, W)`` or ``(C, D, H, W)``',
                               example='20, 100, 35, 45, 10')
    cls_to_become = InstanceNorm3d
    _get_no_batch_dim = InstanceNorm3d._get_no_batch_dim
    _check_input_dim = InstanceNorm3d._check_input_dim
