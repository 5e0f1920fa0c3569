"""Dynamically quantized recurrent layers (``LSTM``, ``GRU``) and cells (``LSTMCell``,
``GRUCell``, ``RNNCell``): int8 weights packed with their biases, float inputs, states and
outputs.

The computation is PyTorch's dynamic quantized RNN: each layer projects its whole input
sequence at once (one dynamic quantization over all time steps, ``reduce_range``), then per
step adds the projection of the hidden state (quantized on its own) and applies the gates in
float32.
"""

import numpy as np

import ember
from ember import _dtype as D
from ember import nn as _nn
from ember.nn import Module, ModuleList
from ember._quantized import ops as _qops
from ember._quantized.packed import _LinearFp16PackedParams
from ember.ao.nn.quantized.modules.utils import _quantize_weight, _hide_packed_params_repr

__all__ = ['LSTM', 'GRU', 'LSTMCell', 'GRUCell', 'RNNCell', 'PackedParameter']


def _weight_observer_method(mod):
    if getattr(mod, 'qconfig', None) is not None and mod.qconfig.weight is not None:
        return mod.qconfig.weight
    from ember.ao.quantization.qconfig import default_dynamic_qconfig
    return default_dynamic_qconfig.weight


def _pack(w, b, observer_method, dtype):
    """A float weight (and bias) quantized with a fresh weight observer and packed."""
    if dtype is D.float16:
        return _qops.linear_prepack_fp16(w, b)
    obs = observer_method()
    obs(w)
    qweight = _quantize_weight(w.detach().float(), obs)
    return _qops.linear_prepack(qweight, None if b is None else b.detach())


def _project(x, packed):
    if isinstance(packed, _LinearFp16PackedParams):
        return _qops.linear_dynamic_fp16(x, packed)
    return _qops.linear_dynamic(x, packed, reduce_range=True)


def _lstm_gates(gates, c):
    """One LSTM step from the summed gate projections: the new ``(h, c)``."""
    i, f, g, o = gates.chunk(4, -1)
    c = ember.sigmoid(f) * c + ember.sigmoid(i) * ember.tanh(g)
    return ember.sigmoid(o) * ember.tanh(c), c


def _gru_gates(gi, gh, h):
    """One GRU step from the input and hidden projections: the new ``h``."""
    ir, iz, in_ = gi.chunk(3, -1)
    hr, hz, hn = gh.chunk(3, -1)
    r = ember.sigmoid(ir + hr)
    z = ember.sigmoid(iz + hz)
    n = ember.tanh(in_ + r * hn)
    return n + z * (h - n)


class _CellParams:
    """One layer-direction's packed input and hidden weights (PyTorch's
    ``CellParamsBase`` of a dynamic quantized RNN)."""

    def __init__(self, packed_ih, packed_hh):
        self.packed_ih, self.packed_hh = packed_ih, packed_hh

    def __getstate__(self):
        return (self.packed_ih.unpack(), self.packed_hh.unpack())

    def __setstate__(self, state):
        (wi, bi), (wh, bh) = state
        self.packed_ih = _qops.linear_prepack(wi, bi)
        self.packed_hh = _qops.linear_prepack(wh, bh)

    def __repr__(self):
        return "<torch.ScriptObject object (CellParamsBase)>"


class PackedParameter(Module):
    """Holds one layer-direction's packed weights (``param``) in ``_all_weight_values``.

    Example::

        >>> m = nn.quantized.dynamic.LSTM(2, 3)
        >>> type(m._all_weight_values[0]).__name__
        'PackedParameter'
    """

    def __init__(self, param):
        super().__init__()
        self.param = param

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        super()._save_to_state_dict(destination, prefix, keep_vars)
        destination[prefix + 'param'] = self.param

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        if prefix + 'param' in state_dict:
            self.__dict__['_pending_param'] = state_dict.pop(prefix + 'param')
        else:
            missing_keys.append(prefix + 'param')
        super()._load_from_state_dict(state_dict, prefix, local_metadata, False, missing_keys,
                                      unexpected_keys, error_msgs)

    def _commit_loads(self):
        super()._commit_loads()
        if '_pending_param' in self.__dict__:
            self.param = self.__dict__.pop('_pending_param')


class _RNNBase(Module):
    _FLOAT_MODULE = None
    _version = 2
    _GATES = 4

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True,
                 batch_first=False, dropout=0., bidirectional=False, dtype=D.qint8):
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.dtype = dtype
        self.version = 2
        self.training = False
        num_directions = 2 if bidirectional else 1
        gate_size = self._GATES * hidden_size
        params = []
        for layer in range(num_layers):
            for _ in range(num_directions):
                layer_in = input_size if layer == 0 else hidden_size * num_directions
                w_ih = ember.randn(gate_size, layer_in)
                w_hh = ember.randn(gate_size, hidden_size)
                b_ih = ember.randn(gate_size) if bias else None
                b_hh = ember.randn(gate_size) if bias else None
                if dtype is D.qint8:
                    qi = ember.quantize_per_tensor(w_ih, 0.1, 0, D.qint8)
                    qh = ember.quantize_per_tensor(w_hh, 0.1, 0, D.qint8)
                    cell = _CellParams(_qops.linear_prepack(qi, b_ih),
                                       _qops.linear_prepack(qh, b_hh))
                else:
                    cell = _CellParams(_qops.linear_prepack_fp16(w_ih, b_ih),
                                       _qops.linear_prepack_fp16(w_hh, b_hh))
                params.append(PackedParameter(cell))
        self._all_weight_values = ModuleList(params)

    def _get_name(self):
        return 'DynamicQuantized' + self.mode

    def extra_repr(self):
        s = f'{self.input_size}, {self.hidden_size}'
        if self.num_layers != 1:
            s += f', num_layers={self.num_layers}'
        if self.bias is not True:
            s += f', bias={self.bias}'
        if self.batch_first is not False:
            s += f', batch_first={self.batch_first}'
        if self.dropout != 0:
            s += f', dropout={self.dropout}'
        if self.bidirectional is not False:
            s += f', bidirectional={self.bidirectional}'
        return s

    def __repr__(self):
        return _hide_packed_params_repr(self, ModuleList)

    def _weight_bias(self):
        """``{'weight': {'weight_ih_l0': ...}, 'bias': {'bias_ih_l0': ...}}``: the unpacked
        weights and biases of every layer and direction."""
        out = {'weight': {}, 'bias': {}}
        num_directions = 2 if self.bidirectional else 1
        for i, p in enumerate(self._all_weight_values):
            layer, direction = divmod(i, num_directions)
            suffix = '_reverse' if direction else ''
            for kind, packed in (('ih', p.param.packed_ih), ('hh', p.param.packed_hh)):
                w, b = packed.unpack()
                out['weight'][f'weight_{kind}_l{layer}{suffix}'] = w
                out['bias'][f'bias_{kind}_l{layer}{suffix}'] = b
        return out

    def get_weight(self):
        """The weights, by PyTorch's parameter names."""
        return self._weight_bias()['weight']

    def get_bias(self):
        """The biases, by PyTorch's parameter names."""
        return self._weight_bias()['bias']

    def _direction(self, xw, state, packed_hh, reverse, batch_sizes):
        """One layer-direction over the projected inputs ``xw``: ``(T, B, G)`` padded, or
        ``(N, G)`` packed with ``batch_sizes`` (the first ``batch_sizes[t]`` sequences are
        live at step ``t``). Returns the outputs (``(T, B, H)`` or ``(N, H)``) and the final
        state."""
        E = ember
        if batch_sizes is None:
            steps = range(xw.shape[0])
            seq = [None] * xw.shape[0]
            for t in (reversed(steps) if reverse else steps):
                state = self._step(xw[t], state, packed_hh)
                seq[t] = state[0]
            return (E.stack(seq) if seq else xw.new_zeros(0)), state
        starts = np.concatenate([[0], np.cumsum(batch_sizes)[:-1]]).tolist()
        seq = [None] * len(batch_sizes)
        steps = range(len(batch_sizes))
        for t in (reversed(steps) if reverse else steps):
            b, s0 = batch_sizes[t], starts[t]
            new = self._step(xw[s0:s0 + b], tuple(x[:b] for x in state), packed_hh)
            state = tuple(n if b == x.shape[0] else E.cat([n, x[b:]]) for n, x in
                          zip(new, state))
            seq[t] = new[0]
        return E.cat(seq), state

    def _run(self, input, hx, batch_sizes=None):
        num_directions = 2 if self.bidirectional else 1
        layer_input = input
        h_out, c_out = [], []
        E = ember
        for layer in range(self.num_layers):
            outs = []
            for direction in range(num_directions):
                idx = layer * num_directions + direction
                cell = self._all_weight_values[idx].param
                # the whole sequence is projected at once (one dynamic quantization)
                xw = _project(layer_input, cell.packed_ih)
                out, state = self._direction(xw, tuple(s[idx] for s in hx), cell.packed_hh,
                                             direction == 1, batch_sizes)
                outs.append(out)
                h_out.append(state[0])
                if len(state) > 1:
                    c_out.append(state[1])
            layer_input = outs[0] if num_directions == 1 else E.cat(outs, -1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                layer_input = E.nn.functional.dropout(layer_input, self.dropout, True)
        h = E.stack(h_out)
        return layer_input, (h, E.stack(c_out)) if c_out else h

    def _forward(self, input, hx, n_states):
        num_directions = 2 if self.bidirectional else 1
        PS = _nn.utils.rnn.PackedSequence
        if isinstance(input, PS):
            data, batch_sizes, sorted_indices, unsorted_indices = input
            B = int(batch_sizes[0])
            if hx is None:
                z = ember.zeros(self.num_layers * num_directions, B, self.hidden_size,
                                dtype=data.dtype)
                hx = (z,) * n_states
            else:
                hx = hx if isinstance(hx, tuple) else (hx,)
                if sorted_indices is not None:
                    hx = tuple(h.index_select(1, sorted_indices) for h in hx)
            out, states = self._run(data, hx, [int(b) for b in batch_sizes])
            if unsorted_indices is not None:
                states = tuple(st.index_select(1, unsorted_indices) for st in states) \
                    if isinstance(states, tuple) else states.index_select(1, unsorted_indices)
            return PS(out, batch_sizes, sorted_indices, unsorted_indices), states
        if input.dim() != 3:
            raise RuntimeError(f"input must have 3 dimensions, got {input.dim()}")
        if input.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {input.shape[-1]}")
        if self.batch_first:
            input = input.transpose(0, 1)
        expected = (self.num_layers * num_directions, input.shape[1], self.hidden_size)
        if hx is None:
            z = ember.zeros(*expected, dtype=input.dtype)
            hx = (z,) * n_states
        else:
            hx = hx if isinstance(hx, tuple) else (hx,)
            for i, h in enumerate(hx):
                if tuple(h.shape) != expected:
                    which = f'hidden[{i}]' if n_states > 1 else 'hidden'
                    raise RuntimeError(f"Expected {which} size {expected}, got "
                                       f"{list(h.shape)}")
        out, states = self._run(input, hx)
        if self.batch_first:
            out = out.transpose(0, 1)
        return out, states

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        """A dynamically quantized LSTM/GRU from a float ``nn.LSTM``/``nn.GRU`` with a
        ``qconfig``: each weight quantized with a fresh weight observer and packed with its
        bias."""
        if type(mod) not in (_nn.LSTM, _nn.GRU):
            raise AssertionError("nn.quantized.dynamic.RNNBase.from_float only works for "
                                 "nn.LSTM and nn.GRU")
        if not hasattr(mod, 'qconfig'):
            raise AssertionError("Input float module must have qconfig defined")
        method = _weight_observer_method(mod)
        dtype = method().dtype
        if dtype not in (D.qint8, D.float16):
            raise RuntimeError(f"Unsupported dtype for dynamic RNN quantization: {dtype}")
        target = LSTM if mod.mode == 'LSTM' else GRU
        if cls is not _RNNBase and cls is not target:
            raise AssertionError(f"nn.quantized.dynamic.{cls.__name__}.from_float got a "
                                 f"{mod.mode}")
        q = target(mod.input_size, mod.hidden_size, mod.num_layers, mod.bias, mod.batch_first,
                   mod.dropout, mod.bidirectional, dtype)
        num_directions = 2 if mod.bidirectional else 1
        if not mod.bias:
            raise AssertionError("mod.bias must be True")
        params = []
        for layer in range(mod.num_layers):
            for direction in range(num_directions):
                suffix = '_reverse' if direction else ''

                def wb(kind):
                    w = getattr(mod, f'weight_{kind}_l{layer}{suffix}')
                    b = getattr(mod, f'bias_{kind}_l{layer}{suffix}') if mod.bias else None
                    return w, b
                cell = _CellParams(_pack(*wb('ih'), method, dtype),
                                   _pack(*wb('hh'), method, dtype))
                params.append(PackedParameter(cell))
        q._all_weight_values = ModuleList(params)
        return q


class LSTM(_RNNBase):
    r"""A dynamically quantized LSTM (``torch.ao.nn.quantized.dynamic.LSTM``): int8
    weights, float32 input, states and output.

    Args:
        input_size (int): features of the input.
        hidden_size (int): features of the hidden state.
        num_layers (int): stacked layers. Default: 1.
        bias (bool): whether the layers have biases. Default: ``True``.
        batch_first (bool): input and output as ``(batch, seq, feature)``.
            Default: ``False``.
        dropout (float): dropout between layers while training. Default: 0.
        bidirectional (bool): a backward direction too. Default: ``False``.
        dtype (ember.dtype): ``ember.qint8`` or ``ember.float16``. Default: ``ember.qint8``.

    Shape:
        - Input: :math:`(L, N, H_{in})` (or batch first)
        - Output: :math:`(L, N, D * H_{out})`, and ``(h_n, c_n)``

    Example::

        >>> m = nn.quantized.dynamic.LSTM(3, 4)
        >>> out, (h, c) = m(ember.ones(5, 2, 3))
        >>> out.shape, h.shape
        (torch.Size([5, 2, 4]), torch.Size([1, 2, 4]))
    """
    _FLOAT_MODULE = _nn.LSTM
    _GATES = 4

    def __init__(self, *args, **kwargs):
        super().__init__('LSTM', *args, **kwargs)

    def _step(self, xw_t, state, packed_hh):
        h, c = state
        return _lstm_gates(xw_t + _project(h, packed_hh), c)

    def forward(self, input, hx=None):
        return self._forward(input, hx, 2)


class GRU(_RNNBase):
    r"""A dynamically quantized GRU (``torch.ao.nn.quantized.dynamic.GRU``): int8 weights,
    float32 input, state and output; arguments as :class:`LSTM`.

    Example::

        >>> m = nn.quantized.dynamic.GRU(3, 4)
        >>> out, h = m(ember.ones(5, 2, 3))
        >>> out.shape, h.shape
        (torch.Size([5, 2, 4]), torch.Size([1, 2, 4]))
    """
    _FLOAT_MODULE = _nn.GRU
    _GATES = 3

    def __init__(self, *args, **kwargs):
        super().__init__('GRU', *args, **kwargs)

    def _step(self, xw_t, state, packed_hh):
        (h,) = state
        return (_gru_gates(xw_t, _project(h, packed_hh), h),)

    def forward(self, input, hx=None):
        out, h = self._forward(input, hx, 1)
        return out, h[0] if isinstance(h, tuple) else h


class _CellBase(Module):
    _GATES = 1

    def __init__(self, input_size, hidden_size, bias=True, num_chunks=1, dtype=D.qint8):
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_dtype = dtype
        n = num_chunks * hidden_size
        b_ih = ember.randn(n) if bias else None
        b_hh = ember.randn(n) if bias else None
        if dtype is D.qint8:
            wi = ember.quantize_per_tensor(ember.randn(n, input_size), 1.0, 0, D.qint8)
            wh = ember.quantize_per_tensor(ember.randn(n, hidden_size), 1.0, 0, D.qint8)
            self._packed_weight_ih = _qops.linear_prepack(wi, b_ih)
            self._packed_weight_hh = _qops.linear_prepack(wh, b_hh)
        else:
            self._packed_weight_ih = _qops.linear_prepack_fp16(ember.randn(n, input_size), b_ih)
            self._packed_weight_hh = _qops.linear_prepack_fp16(ember.randn(n, hidden_size), b_hh)

    def _get_name(self):
        return 'DynamicQuantized' + type(self).__name__

    def extra_repr(self):
        s = f'{self.input_size}, {self.hidden_size}'
        if self.bias is not True:
            s += f', bias={self.bias}'
        nl = getattr(self, 'nonlinearity', 'tanh')
        if nl != 'tanh':
            s += f', nonlinearity={nl}'
        return s

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        super()._save_to_state_dict(destination, prefix, keep_vars)
        destination[prefix + '_packed_weight_ih'] = self._packed_weight_ih
        destination[prefix + '_packed_weight_hh'] = self._packed_weight_hh

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        pending = {}
        for k in ('_packed_weight_ih', '_packed_weight_hh'):
            if prefix + k in state_dict:
                pending[k] = state_dict.pop(prefix + k)
            else:
                missing_keys.append(prefix + k)
        self.__dict__['_pending_cell'] = pending
        super()._load_from_state_dict(state_dict, prefix, local_metadata, False, missing_keys,
                                      unexpected_keys, error_msgs)

    def _commit_loads(self):
        super()._commit_loads()
        for k, v in self.__dict__.pop('_pending_cell', {}).items():
            setattr(self, k, v)

    def _weight_bias(self):
        wi, bi = self._packed_weight_ih.unpack()
        wh, bh = self._packed_weight_hh.unpack()
        return {'weight_ih': wi, 'bias_ih': bi, 'weight_hh': wh, 'bias_hh': bh}

    def _hx(self, input, hx, n):
        if hx is None:
            shape = (input.shape[0], self.hidden_size) if input.dim() == 2 else (
                self.hidden_size,)
            z = ember.zeros(*shape, dtype=input.dtype)
            return (z,) * n
        return hx if isinstance(hx, tuple) else (hx,)

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        """A dynamically quantized cell from a float cell with a ``qconfig``."""
        floats = {'LSTMCell': _nn.LSTMCell, 'GRUCell': _nn.GRUCell, 'RNNCell': _nn.RNNCell}
        if type(mod) is not floats[cls.__name__]:
            raise AssertionError("nn.quantized.dynamic.RNNCellBase.from_float only works for "
                                 "nn.LSTMCell, nn.GRUCell and nn.RNNCell")
        if not hasattr(mod, 'qconfig'):
            raise AssertionError("Input float module must have qconfig defined")
        method = _weight_observer_method(mod)
        dtype = method().dtype
        if dtype not in (D.qint8, D.float16):
            raise RuntimeError(f"Unsupported dtype for dynamic RNN quantization: {dtype}")
        kwargs = {'nonlinearity': mod.nonlinearity} if cls is RNNCell else {}
        q = cls(mod.input_size, mod.hidden_size, mod.bias, dtype=dtype, **kwargs)
        q._packed_weight_ih = _pack(mod.weight_ih, mod.bias_ih, method, dtype)
        q._packed_weight_hh = _pack(mod.weight_hh, mod.bias_hh, method, dtype)
        return q


def _cell_doc(name, extra, example):
    return f"""A dynamically quantized {name} (``torch.ao.nn.quantized.dynamic.{name}``):
    int8 weights, float32 input and state.

    Args:
        input_size (int): features of the input.
        hidden_size (int): features of the hidden state.
        bias (bool): whether the cell has biases. Default: ``True``.{extra}
        dtype (ember.dtype): ``ember.qint8`` or ``ember.float16``. Default: ``ember.qint8``.

    Example::

        >>> m = nn.quantized.dynamic.{name}(3, 4)
        >>> {example}
        torch.Size([2, 4])
    """


class LSTMCell(_CellBase):
    __doc__ = _cell_doc('LSTMCell', '', 'm(ember.ones(2, 3))[0].shape')

    def __init__(self, input_size, hidden_size, bias=True, dtype=D.qint8):
        super().__init__(input_size, hidden_size, bias, 4, dtype)

    def forward(self, input, hx=None):
        h, c = self._hx(input, hx, 2)
        return _lstm_gates(_project(input, self._packed_weight_ih) +
                           _project(h, self._packed_weight_hh), c)


class GRUCell(_CellBase):
    __doc__ = _cell_doc('GRUCell', '', 'm(ember.ones(2, 3)).shape')

    def __init__(self, input_size, hidden_size, bias=True, dtype=D.qint8):
        super().__init__(input_size, hidden_size, bias, 3, dtype)

    def forward(self, input, hx=None):
        (h,) = self._hx(input, hx, 1)
        return _gru_gates(_project(input, self._packed_weight_ih),
                          _project(h, self._packed_weight_hh), h)


class RNNCell(_CellBase):
    __doc__ = _cell_doc('RNNCell', """
        nonlinearity (str): ``'tanh'`` or ``'relu'``. Default: ``'tanh'``.""",
                        'm(ember.ones(2, 3)).shape')

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity='tanh',
                 dtype=D.qint8):
        super().__init__(input_size, hidden_size, bias, 1, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        (h,) = self._hx(input, hx, 1)
        y = _project(input, self._packed_weight_ih) + _project(h, self._packed_weight_hh)
        if self.nonlinearity == 'tanh':
            return ember.tanh(y)
        if self.nonlinearity == 'relu':
            return ember.relu(y)
        raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
