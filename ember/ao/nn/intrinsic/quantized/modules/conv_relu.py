"""Quantized ``ConvReLU1d/2d/3d``: quantized convolutions with ReLU fused."""
from ember.ao.nn.quantized.modules import conv as _conv

__all__ = ['ConvReLU1d', 'ConvReLU2d', 'ConvReLU3d']


def _fused(nd):
    base = getattr(_conv, f'Conv{nd}d')
    name = f'ConvReLU{nd}d'

    def _float_modules(cls):
        from ember.ao.nn import intrinsic
        return (getattr(intrinsic, name),)

    doc = f"""A quantized {nd}-d convolution followed by ReLU, in one kernel
    (``ember.ops.quantized.conv{nd}d_relu``); arguments as
    :class:`ember.ao.nn.quantized.Conv{nd}d`.

    Example::

        >>> m = nn.intrinsic.quantized.{name}(2, 3, 1)
        >>> x = ember.quantize_per_tensor(ember.ones(1, 2{', 4' * nd}), 0.1, 0, ember.quint8)
        >>> m(x).shape
        torch.Size([1, 3{', 4' * nd}])
    """
    return type(name, (base,), {
        '__doc__': doc, '_RELU': True, '__module__': __name__,
        '_float_modules': classmethod(_float_modules),
        '_get_name': lambda self, _n='QuantizedConvReLU' + f'{nd}d': _n,
    })


ConvReLU1d = _fused(1)
ConvReLU2d = _fused(2)
ConvReLU3d = _fused(3)
