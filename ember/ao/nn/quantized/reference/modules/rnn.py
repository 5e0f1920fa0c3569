"""The reference quantized recurrent cells and layers: float modules whose weights are
quantized and dequantized with their stored parameters on every call."""
from ...... import _dtype as D
from ......nn.modules import rnn as _rnn
from ......nn.utils.rnn import PackedSequence
from .utils import _quantize_and_dequantize_weight, _quantize_weight, _E

__all__ = ['RNNCellBase', 'RNNCell', 'LSTMCell', 'GRUCell', 'RNNBase', 'LSTM', 'GRU',
           'get_quantized_weight']

_DEFAULT_QPARAMS = {'qscheme': D.per_tensor_affine, 'dtype': D.quint8, 'scale': 1.0,
                    'zero_point': 0}


def _params(module, wn):
    return [getattr(module, wn)] + [getattr(module, wn + n, None) for n in (
        '_qscheme', '_dtype', '_scale', '_zero_point', '_axis_int')]


def get_quantized_weight(module, wn):
    """Weight ``wn`` of a reference recurrent module quantized with its parameters
    (``None`` when the module has no such weight).

    Args:
        module (Module): a reference cell or layer.
        wn (str): the weight's name, e.g. ``'weight_ih'`` or ``'weight_hh_l0'``.

    Example::

        >>> cell = ember.ao.nn.quantized.reference.RNNCell(2, 3)
        >>> get_quantized_weight(cell, 'weight_ih').dtype
        torch.quint8
    """
    if not hasattr(module, wn):
        return None
    return _quantize_weight(*_params(module, wn))


def _qdq_weight(module, wn):
    if not hasattr(module, wn):
        return None
    return _quantize_and_dequantize_weight(*_params(module, wn))


def _init_qparams_dict(module, weight_qparams_dict, device, schemes):
    E = _E()
    module.is_decomposed = weight_qparams_dict['is_decomposed']
    for key, qp in weight_qparams_dict.items():
        if key == 'is_decomposed':
            continue
        qscheme, dtype = qp['qscheme'], qp['dtype']
        setattr(module, key + '_qscheme', qscheme)
        setattr(module, key + '_dtype', dtype)
        if qscheme not in (None, D.per_tensor_affine, D.per_channel_affine):
            raise AssertionError(f"qscheme: {qscheme} is not supported in "
                                 f"{module._get_name()}")
        if qscheme is None:
            continue
        if schemes == 'cell':
            def buf(v, dt):
                return v.detach().clone() if isinstance(v, E.Tensor) else \
                    E.tensor(v, dtype=dt, device=device)
        else:
            def buf(v, dt):
                return E.tensor(v, dtype=dt, device=device)
        module.register_buffer(key + '_scale', buf(qp['scale'], D.float32))
        module.register_buffer(key + '_zero_point', buf(qp['zero_point'], D.int32))
        axis = qp['axis'] if qscheme is D.per_channel_affine else 0
        module.register_buffer(key + '_axis', buf(axis, D.int32) if qscheme is
                               D.per_channel_affine else E.tensor(0, dtype=D.int32,
                                                                  device=device))
        setattr(module, key + '_axis_int', getattr(module, key + '_axis').item())


class RNNCellBase(_rnn.RNNCellBase):
    """Base of the reference quantized cells: ``weight_qparams_dict`` maps ``'weight_ih'``
    and ``'weight_hh'`` to their quantization parameters (and ``'is_decomposed'`` to a
    bool); each becomes ``<name>_qscheme``, ``_dtype`` attributes and ``_scale``,
    ``_zero_point``, ``_axis`` buffers.

    Args:
        input_size, hidden_size, bias, num_chunks, device, dtype: as
            :class:`ember.nn.RNNCellBase`.
        weight_qparams_dict (dict, optional): default per tensor ``quint8``, scale 1,
            zero point 0 for both weights.

    Example::

        >>> cell = ember.ao.nn.quantized.reference.LSTMCell(2, 3)
        >>> cell.weight_ih_dtype
        torch.quint8
    """

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None,
                 weight_qparams_dict=None):
        super().__init__(input_size, hidden_size, bias, num_chunks, device=device,
                         dtype=dtype)
        if weight_qparams_dict is None:
            weight_qparams_dict = {'weight_ih': _DEFAULT_QPARAMS,
                                   'weight_hh': _DEFAULT_QPARAMS, 'is_decomposed': False}
        if len(weight_qparams_dict) != 3:
            raise AssertionError("Expected length for weight_qparams_dict to be 3 for "
                                 "QuantizedRNNCellBase(Reference), got "
                                 f"{len(weight_qparams_dict)}")
        _init_qparams_dict(self, weight_qparams_dict, device, 'cell')

    def _get_name(self):
        return 'QuantizedRNNCellBase(Reference)'

    def get_quantized_weight_ih(self):
        """``weight_ih`` quantized with its parameters."""
        return get_quantized_weight(self, 'weight_ih')

    def get_quantized_weight_hh(self):
        """``weight_hh`` quantized with its parameters."""
        return get_quantized_weight(self, 'weight_hh')

    def get_weight_ih(self):
        """``weight_ih`` quantized and dequantized (what the forward uses)."""
        return _qdq_weight(self, 'weight_ih')

    def get_weight_hh(self):
        """``weight_hh`` quantized and dequantized (what the forward uses)."""
        return _qdq_weight(self, 'weight_hh')

    def _batch(self, kind, input):
        if input.dim() not in (1, 2):
            raise AssertionError(f"{kind}: Expected input to be 1-D or 2-D but received "
                                 f"{input.dim()}-D tensor")
        batched = input.dim() == 2
        return (input if batched else input.unsqueeze(0)), batched

    def _zeros(self, input):
        return _E().zeros(input.size(0), self.hidden_size, dtype=input.dtype,
                          device=input.device)

    @classmethod
    def _from_float(cls, mod, weight_qparams_dict, *extra):
        ref = cls(mod.input_size, mod.hidden_size, mod.bias, *extra, mod.weight_ih.device,
                  mod.weight_ih.dtype, weight_qparams_dict)
        ref.weight_ih, ref.weight_hh = mod.weight_ih, mod.weight_hh
        ref.bias_ih, ref.bias_hh = mod.bias_ih, mod.bias_hh
        return ref


class RNNCell(RNNCellBase):
    """A reference quantized Elman cell (``torch.ao.nn.quantized.reference.RNNCell``).

    Args:
        input_size, hidden_size, bias, nonlinearity, device, dtype: as
            :class:`ember.nn.RNNCell`.
        weight_qparams_dict (dict, optional): see :class:`RNNCellBase`.

    Shape:
        - input: ``(N, H_in)`` or ``(H_in)``; output: ``(N, H)`` or ``(H)``.

    Example::

        >>> cell = ember.ao.nn.quantized.reference.RNNCell(2, 3)
        >>> cell(ember.ones(4, 2)).shape
        torch.Size([4, 3])
    """

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity='tanh', device=None,
                 dtype=None, weight_qparams_dict=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device,
                         dtype=dtype, weight_qparams_dict=weight_qparams_dict)
        self.nonlinearity = nonlinearity

    def _get_name(self):
        return 'QuantizedRNNCell(Reference)'

    def forward(self, input, hx=None):
        """One step with the quantized-dequantized weights; returns ``h'``."""
        input, batched = self._batch('RNNCell', input)
        hx = self._zeros(input) if hx is None else (hx if batched else hx.unsqueeze(0))
        E = _E()
        if self.nonlinearity == 'tanh':
            fn = E.rnn_tanh_cell
        elif self.nonlinearity == 'relu':
            fn = E.rnn_relu_cell
        else:
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        ret = fn(input, hx, self.get_weight_ih(), self.get_weight_hh(), self.bias_ih,
                 self.bias_hh)
        return ret if batched else ret.squeeze(0)

    @classmethod
    def from_float(cls, mod, weight_qparams_dict):
        """A reference cell sharing ``mod``'s parameters."""
        return cls._from_float(mod, weight_qparams_dict, mod.nonlinearity)


class LSTMCell(RNNCellBase):
    """A reference quantized LSTM cell (``torch.ao.nn.quantized.reference.LSTMCell``).

    Args:
        input_size, hidden_size, bias, device, dtype: as :class:`ember.nn.LSTMCell`.
        weight_qparams_dict (dict, optional): see :class:`RNNCellBase`.

    Shape:
        - input: ``(N, H_in)`` or ``(H_in)``; ``(h, c)``: each ``(N, H)`` or ``(H)``.

    Example::

        >>> cell = ember.ao.nn.quantized.reference.LSTMCell(2, 3)
        >>> cell(ember.ones(4, 2))[1].shape
        torch.Size([4, 3])
    """

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None,
                 weight_qparams_dict=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device,
                         dtype=dtype, weight_qparams_dict=weight_qparams_dict)

    def _get_name(self):
        return 'QuantizedLSTMCell(Reference)'

    def forward(self, input, hx=None):
        """One step with the quantized-dequantized weights; returns ``(h', c')``."""
        input, batched = self._batch('LSTMCell', input)
        if hx is None:
            z = self._zeros(input)
            hx = (z, z)
        elif not batched:
            hx = (hx[0].unsqueeze(0), hx[1].unsqueeze(0))
        h, c = _E().lstm_cell(input, hx, self.get_weight_ih(), self.get_weight_hh(),
                              self.bias_ih, self.bias_hh)
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))

    @classmethod
    def from_float(cls, mod, weight_qparams_dict, use_precomputed_fake_quant=False):
        """A reference cell sharing ``mod``'s parameters."""
        return cls._from_float(mod, weight_qparams_dict)


class GRUCell(RNNCellBase):
    """A reference quantized GRU cell (``torch.ao.nn.quantized.reference.GRUCell``).

    Args:
        input_size, hidden_size, bias, device, dtype: as :class:`ember.nn.GRUCell`.
        weight_qparams_dict (dict, optional): see :class:`RNNCellBase`.

    Shape:
        - input: ``(N, H_in)`` or ``(H_in)``; output: ``(N, H)`` or ``(H)``.

    Example::

        >>> cell = ember.ao.nn.quantized.reference.GRUCell(2, 3)
        >>> cell(ember.ones(4, 2)).shape
        torch.Size([4, 3])
    """

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None,
                 weight_qparams_dict=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device,
                         dtype=dtype, weight_qparams_dict=weight_qparams_dict)

    def _get_name(self):
        return 'QuantizedGRUCell(Reference)'

    def forward(self, input, hx=None):
        """One step with the quantized-dequantized weights; returns ``h'``."""
        input, batched = self._batch('GRUCell', input)
        hx = self._zeros(input) if hx is None else (hx if batched else hx.unsqueeze(0))
        ret = _E().gru_cell(input, hx, self.get_weight_ih(), self.get_weight_hh(),
                            self.bias_ih, self.bias_hh)
        return ret if batched else ret.squeeze(0)

    @classmethod
    def from_float(cls, mod, weight_qparams_dict):
        """A reference cell sharing ``mod``'s parameters."""
        return cls._from_float(mod, weight_qparams_dict)


class RNNBase(_rnn.RNNBase):
    """Base of the reference quantized LSTM and GRU: ``weight_qparams_dict`` maps each
    weight name of ``_flat_weights_names`` (``weight_ih_l0``...) to its quantization
    parameters, plus ``'is_decomposed'``.

    Args:
        mode, input_size, hidden_size, num_layers, bias, batch_first, dropout,
        bidirectional, proj_size, device, dtype: as :class:`ember.nn.RNNBase`.
        weight_qparams_dict (dict, optional): default per tensor ``quint8``, scale 1,
            zero point 0 for every weight.

    Example::

        >>> m = ember.ao.nn.quantized.reference.LSTM(2, 3)
        >>> m.weight_ih_l0_dtype
        torch.quint8
    """

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, proj_size=0,
                 device=None, dtype=None, weight_qparams_dict=None):
        super().__init__(mode, input_size, hidden_size, num_layers, bias, batch_first,
                         dropout, bidirectional, proj_size, device, dtype)
        if weight_qparams_dict is None:
            weight_qparams_dict = {'is_decomposed': False}
            for wn in self._flat_weights_names:
                if wn.startswith('weight'):
                    weight_qparams_dict[wn] = _DEFAULT_QPARAMS
        _init_qparams_dict(self, weight_qparams_dict, device, 'layer')

    def get_quantized_weight_bias_dict(self):
        """``{name: quantized weight or float bias (None if absent)}`` over the flat
        weights."""
        out = {}
        for wn in self._flat_weights_names:
            if not hasattr(self, wn):
                out[wn] = None
            elif wn.startswith('weight'):
                out[wn] = get_quantized_weight(self, wn)
            else:
                out[wn] = getattr(self, wn)
        return out

    def get_flat_weights(self):
        """The flat weights, each weight quantized and dequantized (what the forward
        uses)."""
        return [(_qdq_weight(self, wn) if wn.startswith('weight') else getattr(self, wn))
                if hasattr(self, wn) else None for wn in self._flat_weights_names]

    def _run(self, fn, input, hx, batch_sizes):
        args = (self.get_flat_weights(), self.bias, self.num_layers, self.dropout,
                self.training, self.bidirectional)
        if batch_sizes is None:
            return fn(input, hx, *args, self.batch_first)
        return fn(input, batch_sizes, hx, *args)

    @classmethod
    def from_float(cls, mod, weight_qparams_dict):
        """A reference layer sharing ``mod``'s parameters."""
        ref = cls(mod.input_size, mod.hidden_size, mod.num_layers, mod.bias, mod.batch_first,
                  mod.dropout, mod.bidirectional, weight_qparams_dict=weight_qparams_dict)
        for wn in mod._flat_weights_names:
            setattr(ref, wn, getattr(mod, wn))
        return ref


class LSTM(RNNBase):
    """A reference quantized LSTM (``torch.ao.nn.quantized.reference.LSTM``).

    Args:
        input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
        proj_size, device, dtype: as :class:`ember.nn.LSTM`.
        weight_qparams_dict (dict, optional): see :class:`RNNBase`.

    Shape:
        - as :class:`ember.nn.LSTM`.

    Example::

        >>> m = ember.ao.nn.quantized.reference.LSTM(2, 3)
        >>> m(ember.ones(5, 4, 2))[0].shape
        torch.Size([5, 4, 3])
    """

    def __init__(self, *args, **kwargs):
        super().__init__('LSTM', *args, **kwargs)

    get_expected_cell_size = _rnn.LSTM.get_expected_cell_size
    check_forward_args = _rnn.LSTM.check_forward_args
    permute_hidden = _rnn.LSTM.permute_hidden

    def _get_name(self):
        return 'QuantizedLSTM(Reference)'

    def forward(self, input, hx=None):
        """Run the sequence with the quantized-dequantized weights; returns
        ``(output, (h_n, c_n))``."""
        E = _E()
        packed = isinstance(input, PackedSequence)
        if packed:
            input, batch_sizes, sorted_indices, unsorted_indices = input
            max_batch = int(batch_sizes[0])
        else:
            batch_sizes = sorted_indices = unsorted_indices = None
            batched = input.dim() == 3
            batch_dim = 0 if self.batch_first else 1
            if not batched:
                input = input.unsqueeze(batch_dim)
            max_batch = input.size(0) if self.batch_first else input.size(1)
        if hx is None:
            nd = 2 if self.bidirectional else 1
            real = self.proj_size if self.proj_size > 0 else self.hidden_size
            hx = (E.zeros(self.num_layers * nd, max_batch, real, dtype=input.dtype,
                          device=input.device),
                  E.zeros(self.num_layers * nd, max_batch, self.hidden_size,
                          dtype=input.dtype, device=input.device))
        else:
            if not packed:
                want = 3 if batched else 2
                if hx[0].dim() != want or hx[1].dim() != want:
                    raise RuntimeError(
                        f"For {'batched 3-D' if batched else 'unbatched 2-D'} input, hx and "
                        f"cx should also be {want}-D but got ({hx[0].dim()}-D, "
                        f"{hx[1].dim()}-D) tensors")
                if not batched:
                    hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
            hx = self.permute_hidden(hx, sorted_indices)
        self.check_forward_args(input, hx, batch_sizes)
        output, h, c = self._run(E.lstm, input, hx, batch_sizes)
        hidden = (h, c)
        if packed:
            return (PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices),
                    self.permute_hidden(hidden, unsorted_indices))
        if not batched:
            output = output.squeeze(batch_dim)
            hidden = (h.squeeze(1), c.squeeze(1))
        return output, self.permute_hidden(hidden, unsorted_indices)


class GRU(RNNBase):
    """A reference quantized GRU (``torch.ao.nn.quantized.reference.GRU``).

    Args:
        input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
        device, dtype: as :class:`ember.nn.GRU`.
        weight_qparams_dict (dict, optional): see :class:`RNNBase`.

    Shape:
        - as :class:`ember.nn.GRU`.

    Example::

        >>> m = ember.ao.nn.quantized.reference.GRU(2, 3)
        >>> m(ember.ones(5, 4, 2))[1].shape
        torch.Size([1, 4, 3])
    """

    def __init__(self, *args, **kwargs):
        if 'proj_size' in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__('GRU', *args, **kwargs)

    def _get_name(self):
        return 'QuantizedGRU(Reference)'

    def forward(self, input, hx=None):
        """Run the sequence with the quantized-dequantized weights; returns
        ``(output, h_n)``."""
        E = _E()
        packed = isinstance(input, PackedSequence)
        if packed:
            input, batch_sizes, sorted_indices, unsorted_indices = input
            max_batch = int(batch_sizes[0])
        else:
            batch_sizes = sorted_indices = unsorted_indices = None
            if input.dim() not in (2, 3):
                raise AssertionError(f"GRU: Expected input to be 2-D or 3-D but received "
                                     f"{input.dim()}-D tensor")
            batched = input.dim() == 3
            batch_dim = 0 if self.batch_first else 1
            if not batched:
                input = input.unsqueeze(batch_dim)
                if hx is not None:
                    if hx.dim() != 2:
                        raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D "
                                           f"but got {hx.dim()}-D tensor")
                    hx = hx.unsqueeze(1)
            elif hx is not None and hx.dim() != 3:
                raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got "
                                   f"{hx.dim()}-D tensor")
            max_batch = input.size(0) if self.batch_first else input.size(1)
        if hx is None:
            nd = 2 if self.bidirectional else 1
            hx = E.zeros(self.num_layers * nd, max_batch, self.hidden_size, dtype=input.dtype,
                         device=input.device)
        else:
            hx = self.permute_hidden(hx, sorted_indices)
        self.check_forward_args(input, hx, batch_sizes)
        output, hidden = self._run(E.gru, input, hx, batch_sizes)
        if packed:
            return (PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices),
                    self.permute_hidden(hidden, unsorted_indices))
        if not batched:
            output = output.squeeze(batch_dim)
            hidden = hidden.squeeze(1)
        return output, self.permute_hidden(hidden, unsorted_indices)
