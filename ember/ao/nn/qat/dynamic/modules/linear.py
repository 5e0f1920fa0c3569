"""``ember.ao.nn.qat.dynamic.Linear``: the QAT linear layer for dynamic quantization, as
``torch.ao.nn.qat.dynamic.Linear``."""
from ...modules.linear import Linear as _QATLinear

__all__ = ['Linear']


class Linear(_QATLinear):
    r"""A :class:`ember.ao.nn.qat.Linear` for dynamic quantization-aware training: its
    qconfig's activation must be memoryless (a moving-average observer with averaging
    constant 1), since dynamic quantization recomputes activation qparams per batch.
    ``quantize_dynamic`` turns it into ``nn.quantized.dynamic.Linear``.

    Args:
        in_features (int): size of each input sample.
        out_features (int): size of each output sample.
        bias (bool): learn an additive bias. Default: ``True``
        qconfig (QConfig): the quantization configuration. Required.
        device, dtype: factory arguments of the parameters.

    Shape:
        - Input: :math:`(*, H_{in})`
        - Output: :math:`(*, H_{out})`

    Example::

        >>> from ember.ao.quantization import QConfig, MovingAverageMinMaxObserver
        >>> from ember.ao.quantization import default_weight_fake_quant
        >>> act = MovingAverageMinMaxObserver.with_args(averaging_constant=1)
        >>> m = ember.ao.nn.qat.dynamic.Linear(
        ...     4, 2, qconfig=QConfig(activation=act, weight=default_weight_fake_quant))
    """

    def __init__(self, in_features, out_features, bias=True, qconfig=None, device=None,
                 dtype=None):
        super().__init__(in_features, out_features, bias, qconfig, device, dtype)
        from .....quantization.qconfig import _activation_is_memoryless
        if not _activation_is_memoryless(qconfig):
            raise ValueError('Dynamic QAT requires a memoryless observer.This means a '
                             'MovingAverage observer with averaging constant equal to 1')
