"""``ember.ao.quantization.stubs``: the modules that mark where a model's tensors enter and
leave the quantized domain in eager-mode quantization (``QuantStub``, ``DeQuantStub``) and a
wrapper that puts both around a module (``QuantWrapper``), as ``torch.ao.quantization.stubs``.
"""
from ...nn.modules.module import Module

__all__ = ['QuantStub', 'DeQuantStub', 'QuantWrapper']


class QuantStub(Module):
    r"""Marks the point where a float tensor is to be quantized.

    Before :func:`~ember.ao.quantization.prepare` it is the identity; ``prepare`` attaches an
    observer to it (it observes the tensor that goes in), and
    :func:`~ember.ao.quantization.convert` swaps it for ``nn.quantized.Quantize`` with the
    observed scale and zero point.

    Args:
        qconfig (QConfig, optional): the quantization configuration of this tensor; when
            not given, the stub takes its parent module's. Default: ``None``

    Shape:
        - Input: :math:`(*)`
        - Output: :math:`(*)`, the input itself.

    Example::

        >>> stub = ember.ao.quantization.QuantStub()
        >>> x = ember.randn(2, 3)
        >>> stub(x) is x
        True
    """

    def __init__(self, qconfig=None):
        super().__init__()
        if qconfig:
            self.qconfig = qconfig

    def forward(self, x):
        """Return ``x`` unchanged (the observer attached by ``prepare`` sees it)."""
        return x


class DeQuantStub(Module):
    r"""Marks the point where a quantized tensor is to be turned back into a float one.

    It is the identity until :func:`~ember.ao.quantization.convert` swaps it for
    ``nn.quantized.DeQuantize``. ``prepare`` attaches no observer to it.

    Args:
        qconfig (QConfig, optional): the quantization configuration of this tensor; when
            not given, the stub takes its parent module's. Default: ``None``

    Shape:
        - Input: :math:`(*)`
        - Output: :math:`(*)`, the input itself.

    Example::

        >>> stub = ember.ao.quantization.DeQuantStub()
        >>> x = ember.randn(2, 3)
        >>> stub(x) is x
        True
    """

    def __init__(self, qconfig=None):
        super().__init__()
        if qconfig:
            self.qconfig = qconfig

    def forward(self, x):
        """Return ``x`` unchanged."""
        return x


class QuantWrapper(Module):
    r"""Wraps ``module`` between a :class:`QuantStub` (``quant``) and a :class:`DeQuantStub`
    (``dequant``): ``forward(x) = dequant(module(quant(x)))``.

    Both stubs take ``module``'s ``qconfig`` (when it has one), and the wrapper takes its
    training mode. After :func:`~ember.ao.quantization.convert` the wrapper quantizes its
    float input, runs the quantized module and returns a float output.

    Args:
        module (nn.Module): the module to wrap.

    Example::

        >>> import ember.nn as nn
        >>> w = ember.ao.quantization.QuantWrapper(nn.Linear(3, 2))
        >>> [name for name, _ in w.named_children()]
        ['quant', 'dequant', 'module']
    """

    def __init__(self, module):
        super().__init__()
        qconfig = getattr(module, 'qconfig', None)
        self.add_module('quant', QuantStub(qconfig))
        self.add_module('dequant', DeQuantStub(qconfig))
        self.add_module('module', module)
        self.train(module.training)

    def forward(self, X):
        """Quantize ``X``, run the wrapped module, dequantize its output."""
        return self.dequant(self.module(self.quant(X)))
