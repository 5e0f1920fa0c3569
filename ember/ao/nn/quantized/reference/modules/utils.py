"""The weight quantization parameters of the reference quantized modules and the
quantize / dequantize of their weights."""
from ...... import _dtype as D
from ......nn.modules.module import Module

__all__ = ['ReferenceQuantizedModule']

_QDTYPES = (D.quint8, D.qint8, D.quint4x2, D.qint32)
_INT_OF = {D.quint8: (D.uint8, 0, 255), D.qint8: (D.int8, -128, 127),
           D.qint32: (D.int32, -2 ** 31, 2 ** 31 - 1)}


def _E():
    import ember
    return ember


def _as_buffer(v, dtype, device):
    E = _E()
    if isinstance(v, E.Tensor):
        return v.detach().clone()
    return E.tensor(v, dtype=dtype, device=device)


class ReferenceQuantizedModule(Module):
    """Mixin of the reference quantized modules: the weight's quantization parameters as
    buffers (``weight_scale``, ``weight_zero_point``, ``weight_axis``) and attributes
    (``weight_qscheme``, ``weight_dtype``, ``is_decomposed``), saved in the state dict as
    PyTorch saves them.

    Example::

        >>> m = ember.ao.nn.quantized.reference.Linear(2, 2)
        >>> m.weight_qscheme
        torch.per_tensor_affine
    """

    def _init_weight_qparams(self, weight_qparams, device):
        if weight_qparams is None:
            weight_qparams = {'qscheme': D.per_tensor_affine, 'dtype': D.quint8, 'scale': 1.0,
                              'zero_point': 0}
        self.weight_qscheme = weight_qparams['qscheme']
        self.weight_dtype = weight_qparams['dtype']
        if self.weight_qscheme not in (None, D.per_tensor_affine, D.per_channel_affine,
                                       D.per_channel_affine_float_qparams):
            raise AssertionError(f"qscheme: {self.weight_qscheme} is not supported in "
                                 f"reference quantized {self._get_name()}")
        E = _E()
        if self.weight_dtype in _QDTYPES:
            zp = weight_qparams['zero_point']
            zp_dtype = zp.dtype if isinstance(zp, E.Tensor) else D.int32
            self.register_buffer('weight_scale', _as_buffer(weight_qparams['scale'],
                                                            D.float32, device))
            self.register_buffer('weight_zero_point', _as_buffer(zp, zp_dtype, device))
            axis = (weight_qparams['axis'] if self.weight_qscheme in (
                D.per_channel_affine, D.per_channel_affine_float_qparams) else 0)
            self.register_buffer('weight_axis', _as_buffer(axis, D.int32, device))
        else:
            self.register_buffer('weight_scale', E.tensor(1.0, dtype=D.float32, device=device))
            self.register_buffer('weight_zero_point', E.tensor(0, dtype=D.int32,
                                                               device=device))
            self.register_buffer('weight_axis', E.tensor(0, dtype=D.int32, device=device))
        self.is_decomposed = weight_qparams.get('is_decomposed', False)
        self.weight_axis_int = self.weight_axis.item()
        self.weight_quant_min = weight_qparams.get('quant_min')
        self.weight_quant_max = weight_qparams.get('quant_max')

    def _qparams(self):
        return (self.weight, self.weight_qscheme, self.weight_dtype, self.weight_scale,
                self.weight_zero_point, self.weight_axis_int)

    def get_weight(self):
        """The weight quantized and dequantized with its parameters (float), what the
        forward uses.

        Returns:
            Tensor
        """
        if self.is_decomposed:
            return _dequantize_decomposed(_quantize_decomposed(
                *self._qparams(), self.weight_quant_min, self.weight_quant_max),
                *self._qparams()[1:], self.weight_quant_min, self.weight_quant_max)
        return _quantize_and_dequantize_weight(*self._qparams())

    def get_quantized_weight(self):
        """The weight quantized with its parameters (a quantized tensor; with
        ``is_decomposed``, its integers).

        Returns:
            Tensor
        """
        if self.is_decomposed:
            return _quantize_decomposed(*self._qparams(), self.weight_quant_min,
                                        self.weight_quant_max)
        return _quantize_weight(*self._qparams())

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        super()._save_to_state_dict(destination, prefix, keep_vars)
        destination[prefix + 'weight_qscheme'] = self.weight_qscheme
        destination[prefix + 'weight_dtype'] = self.weight_dtype
        if self.weight_qscheme is not None:
            destination[prefix + 'weight_scale'] = self.weight_scale
            destination[prefix + 'weight_zero_point'] = self.weight_zero_point
            if self.weight_qscheme is D.per_channel_affine:
                destination[prefix + 'weight_axis'] = self.weight_axis

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        # as PyTorch: the qscheme, dtype, scale and zero point are set from the state dict
        # (the axis is loaded as a buffer), and the rest is loaded non-strictly
        keys = ['weight_qscheme', 'weight_dtype']
        if state_dict[prefix + 'weight_qscheme'] is not None:
            keys += ['weight_scale', 'weight_zero_point']
        for key in keys:
            setattr(self, key, state_dict.pop(prefix + key))
        super()._load_from_state_dict(state_dict, prefix, local_metadata, False, missing_keys,
                                      unexpected_keys, error_msgs)


def _quantize_weight(weight, qscheme, dtype, scale, zero_point, axis):
    E = _E()
    if dtype is D.float16:
        return weight.to(dtype)
    if qscheme is D.per_tensor_affine and dtype in (D.quint8, D.qint8, D.qint32):
        return E.quantize_per_tensor(weight, scale, zero_point, dtype)
    if qscheme in (D.per_channel_affine, D.per_channel_affine_float_qparams) and \
            dtype in _QDTYPES:
        return E.quantize_per_channel(weight, scale, zero_point, axis, dtype)
    raise ValueError(f"Unsupported dtype and qscheme: {dtype}, {qscheme}")


def _quantize_and_dequantize_weight(weight, qscheme, dtype, scale, zero_point, axis):
    if qscheme in (D.per_tensor_affine, D.per_channel_affine,
                   D.per_channel_affine_float_qparams):
        return _quantize_weight(weight, qscheme, dtype, scale, zero_point, axis).dequantize()
    return weight


def _channel_view(t, x, axis):
    shape = [1] * x.dim()
    shape[axis] = -1
    return t.reshape(shape)


def _bounds(dtype, qmin, qmax):
    if dtype not in _INT_OF:
        raise KeyError(dtype)
    int_dtype, lo, hi = _INT_OF[dtype]
    if qmin is None or qmax is None:
        qmin, qmax = lo, hi
    return int_dtype, qmin, qmax


def _quantize_decomposed(weight, qscheme, dtype, scale, zero_point, axis, qmin, qmax):
    """The integers (plain ``uint8``/``int8``/``int32``) of ``weight``:
    ``clamp(round(w * (1 / scale)) + zero_point, qmin, qmax)``, as PyTorch's
    ``quantized_decomposed`` ops."""
    E = _E()
    per_channel = qscheme in (D.per_channel_affine, D.per_channel_affine_float_qparams)
    if (qscheme is D.per_tensor_affine or per_channel) and dtype in _INT_OF:
        int_dtype, qmin, qmax = _bounds(dtype, qmin, qmax)
        w = weight.float() if weight.dtype in (D.float16, D.bfloat16) else weight
        s, z = scale, zero_point
        if per_channel:
            s, z = _channel_view(s, w, axis), _channel_view(z, w, axis)
        return E.clamp(E.round(w * (1.0 / s)) + z, qmin, qmax).to(int_dtype)
    raise ValueError(f"Unsupported dtype and qscheme: {dtype}, {qscheme}")


def _dequantize_decomposed(ints, qscheme, dtype, scale, zero_point, axis, qmin, qmax):
    """``(ints - zero_point) * scale`` in float32, as PyTorch's ``quantized_decomposed``
    ops."""
    _bounds(dtype, qmin, qmax)
    s, z = scale, zero_point
    if qscheme in (D.per_channel_affine, D.per_channel_affine_float_qparams):
        s, z = _channel_view(s, ints, axis), _channel_view(z, ints, axis)
    return ((ints.to(D.int32) - z) * s).float()
