"""The quantized LSTM: a converted quantizable LSTM."""
from ember.ao.nn.quantizable.modules.rnn import LSTM as _QuantizableLSTM

__all__ = ['LSTM']


class LSTM(_QuantizableLSTM):
    r"""A quantized LSTM (``torch.ao.nn.quantized.LSTM``): an observed
    :class:`ember.ao.nn.quantizable.LSTM` converted (its linear layers, adds and multiplies
    quantized); made by ``convert`` through the custom-module configuration.

    Args:
        as :class:`ember.ao.nn.quantizable.LSTM`.

    Example::

        >>> m = nn.quantized.LSTM(2, 3)
        >>> m._get_name()
        'QuantizedLSTM'
    """
    _FLOAT_MODULE = _QuantizableLSTM

    def _get_name(self):
        return 'QuantizedLSTM'

    @classmethod
    def from_float(cls, *args, **kwargs):
        """Refused: the flow is float -> observed (quantizable) -> quantized."""
        raise NotImplementedError("It looks like you are trying to convert a non-observed LSTM "
                                  "module. Please, see the examples on quantizable LSTMs.")

    @classmethod
    def from_observed(cls, other):
        """The quantized LSTM of an observed quantizable one (converted, qconfigs removed)."""
        if not isinstance(other, cls._FLOAT_MODULE):
            raise AssertionError(f"Expected module type {cls._FLOAT_MODULE}, got "
                                 f"{type(other)}")
        from ember.ao import quantization as Q
        converted = Q.convert(other, inplace=False, remove_qconfig=True)
        converted.__class__ = cls
        return converted
