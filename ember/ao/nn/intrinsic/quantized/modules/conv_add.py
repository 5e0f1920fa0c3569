"""Quantized ``ConvAdd2d`` / ``ConvAddReLU2d``: a quantized 2-d convolution plus a second
quantized input (then ReLU), which PyTorch runs on its ``onednn`` engine only."""
from ember.ao.nn.quantized.modules import conv as _conv

__all__ = ['ConvAdd2d', 'ConvAddReLU2d']


def _fused(relu):
    name = 'ConvAddReLU2d' if relu else 'ConvAdd2d'
    op = 'conv2d_add_relu' if relu else 'conv2d_add'

    def _float_modules(cls):
        from ember.ao.nn import intrinsic
        return (getattr(intrinsic, name),)

    def forward(self, input, extra_input):
        """The convolution of ``input`` plus ``extra_input``{relu} (``ops.quantized.{op}``)."""
        import ember
        if len(input.shape) != 4:
            raise ValueError("Input shape must be `(N, C, H, W)`!")
        if self.padding_mode != 'zeros':
            pad = []
            for p in reversed(self.padding):
                pad += [p, p]
            input = ember.nn.functional.pad(input, pad, mode=self.padding_mode)
        return getattr(ember.ops.quantized, op)(input, extra_input, self._packed_params,
                                                self.scale, self.zero_point)

    doc = f"""A quantized 2-d convolution whose result is added to a second quantized
    input{', then ReLU' if relu else ''} (``torch.ao.nn.intrinsic.quantized.{name}``);
    arguments as :class:`ember.ao.nn.quantized.Conv2d`.

    NOTE: unlike PyTorch, the forward raises ``NotImplementedError`` on the ``onednn``
    engine, the only one PyTorch runs it on (the others raise PyTorch's ``Didn't find
    engine`` error, as PyTorch).

    Example::

        >>> m = nn.intrinsic.quantized.{name}(2, 3, 1)
        >>> m
        Quantized{name}(2, 3, kernel_size=(1, 1), stride=(1, 1), scale=1.0, zero_point=0)
    """
    return type(name, (_conv.Conv2d,), {
        '__doc__': doc, '__module__': __name__, 'forward': forward,
        '_float_modules': classmethod(_float_modules),
        '_get_name': lambda self, _n='Quantized' + name: _n,
    })


ConvAdd2d = _fused(False)
ConvAddReLU2d = _fused(True)
