"""Quantizable LSTM: the cell's gates as separate observable modules."""
import numbers
import warnings

import ember
from ember import nn as _nn

__all__ = ['LSTMCell', 'LSTM']


class LSTMCell(_nn.Module):
    r"""A quantizable LSTM cell (``torch.ao.nn.quantizable.LSTMCell``): ``igates`` and
    ``hgates`` linear layers (or one per gate with ``split_gates``), the gate activations as
    modules and the adds / multiplies as ``FloatFunctional``, so that each gets an observer.

    Args:
        input_dim (int): features of the input.
        hidden_dim (int): features of the hidden state.
        bias (bool): the linear layers have biases. Default: ``True``.
        device, dtype: factory arguments.
        split_gates (bool): one linear layer per gate. Default: ``False``.

    Shape:
        - x: ``(N, input_dim)``; hidden ``(h, c)``: each ``(N, hidden_dim)`` (zeros if
          omitted).

    Example::

        >>> cell = ember.ao.nn.quantizable.LSTMCell(10, 20)
        >>> h, c = cell(ember.randn(3, 10))
        >>> h.shape
        torch.Size([3, 20])
    """
    _FLOAT_MODULE = _nn.LSTMCell

    def __init__(self, input_dim, hidden_dim, bias=True, device=None, dtype=None, *,
                 split_gates=False):
        super().__init__()
        # (imported here: ember.ao.nn.quantized imports this module for its LSTM)
        from ember.ao.nn.quantized.modules.functional_modules import FloatFunctional
        kw = {'device': device, 'dtype': dtype}
        self.input_size = input_dim
        self.hidden_size = hidden_dim
        self.bias = bias
        self.split_gates = split_gates
        if not split_gates:
            self.igates = _nn.Linear(input_dim, 4 * hidden_dim, bias=bias, **kw)
            self.hgates = _nn.Linear(hidden_dim, 4 * hidden_dim, bias=bias, **kw)
            self.gates = FloatFunctional()
        else:
            self.igates, self.hgates, self.gates = (_nn.ModuleDict(), _nn.ModuleDict(),
                                                    _nn.ModuleDict())
            for g in ('input', 'forget', 'cell', 'output'):
                self.igates[g] = _nn.Linear(input_dim, hidden_dim, bias=bias, **kw)
                self.hgates[g] = _nn.Linear(hidden_dim, hidden_dim, bias=bias, **kw)
                self.gates[g] = FloatFunctional()
        self.input_gate = _nn.Sigmoid()
        self.forget_gate = _nn.Sigmoid()
        self.cell_gate = _nn.Tanh()
        self.output_gate = _nn.Sigmoid()
        self.fgate_cx = FloatFunctional()
        self.igate_cgate = FloatFunctional()
        self.fgate_cx_igate_cgate = FloatFunctional()
        self.ogate_cy = FloatFunctional()
        self.initial_hidden_state_qparams = (1.0, 0)
        self.initial_cell_state_qparams = (1.0, 0)
        self.hidden_state_dtype = ember.quint8
        self.cell_state_dtype = ember.quint8

    def forward(self, x, hidden=None):
        """One step; returns ``(h', c')``."""
        if hidden is None or hidden[0] is None or hidden[1] is None:
            hidden = self.initialize_hidden(x.shape[0], x.is_quantized)
        hx, cx = hidden
        if not self.split_gates:
            gates = self.gates.add(self.igates(x), self.hgates(hx))
            i, f, g, o = gates.chunk(4, 1)
        else:
            gate = {key: ff.add(ig(x), hg(hx)) for (key, ff), ig, hg in zip(
                self.gates.items(), self.igates.values(), self.hgates.values())}
            i, f, g, o = gate['input'], gate['forget'], gate['cell'], gate['output']
        i, f = self.input_gate(i), self.forget_gate(f)
        g, o = self.cell_gate(g), self.output_gate(o)
        cy = self.fgate_cx_igate_cgate.add(self.fgate_cx.mul(f, cx),
                                           self.igate_cgate.mul(i, g))
        hy = self.ogate_cy.mul(o, ember.tanh(cy))
        return hy, cy

    def initialize_hidden(self, batch_size, is_quantized=False):
        """Zero ``(h, c)`` for ``batch_size`` rows (quantized with the initial state
        parameters when ``is_quantized``)."""
        h = ember.zeros((batch_size, self.hidden_size))
        c = ember.zeros((batch_size, self.hidden_size))
        if is_quantized:
            hs, hz = self.initial_hidden_state_qparams
            cs, cz = self.initial_cell_state_qparams
            h = ember.quantize_per_tensor(h, scale=hs, zero_point=hz,
                                          dtype=self.hidden_state_dtype)
            c = ember.quantize_per_tensor(c, scale=cs, zero_point=cz,
                                          dtype=self.cell_state_dtype)
        return h, c

    def _get_name(self):
        return 'QuantizableLSTMCell'

    @classmethod
    def from_params(cls, wi, wh, bi=None, bh=None, split_gates=False):
        """A cell with the input/hidden weights ``wi``, ``wh`` and biases ``bi``, ``bh``
        (both or neither)."""
        if (bi is None) != (bh is None):
            raise AssertionError("bi and bh must both be None or both have values")
        cell = cls(input_dim=wi.shape[1], hidden_dim=wh.shape[1], bias=bi is not None,
                   split_gates=split_gates)
        P = _nn.Parameter
        if not split_gates:
            cell.igates.weight = P(wi)
            cell.hgates.weight = P(wh)
            if bi is not None:
                cell.igates.bias = P(bi)
                cell.hgates.bias = P(bh)
        else:
            for w, b, gates in ((wi, bi, cell.igates), (wh, bh, cell.hgates)):
                for w_chunk, lin in zip(w.chunk(4, dim=0), gates.values()):
                    lin.weight = P(w_chunk)
                if b is not None:
                    for b_chunk, lin in zip(b.chunk(4, dim=0), gates.values()):
                        lin.bias = P(b_chunk)
        return cell

    @classmethod
    def from_float(cls, other, use_precomputed_fake_quant=False, split_gates=False):
        """The quantizable cell of a float ``nn.LSTMCell`` that has a ``qconfig``."""
        if type(other) is not cls._FLOAT_MODULE:
            raise AssertionError(f"Expected module type {cls._FLOAT_MODULE}, got "
                                 f"{type(other)}")
        if not hasattr(other, 'qconfig'):
            raise AssertionError("The float module must have 'qconfig'")
        observed = cls.from_params(other.weight_ih, other.weight_hh, other.bias_ih,
                                   other.bias_hh, split_gates=split_gates)
        observed.qconfig = observed.igates.qconfig = observed.hgates.qconfig = other.qconfig
        if split_gates:
            for lin in list(observed.igates.values()) + list(observed.hgates.values()):
                lin.qconfig = other.qconfig
        return observed


class _LSTMSingleLayer(_nn.Module):
    """One direction of one layer: the cell run over the sequence."""

    def __init__(self, input_dim, hidden_dim, bias=True, device=None, dtype=None, *,
                 split_gates=False):
        super().__init__()
        self.cell = LSTMCell(input_dim, hidden_dim, bias=bias, split_gates=split_gates,
                             device=device, dtype=dtype)

    def forward(self, x, hidden=None):
        result = []
        for i in range(x.shape[0]):
            hidden = self.cell(x[i], hidden)
            result.append(hidden[0])
        return ember.stack(result, 0), hidden

    @classmethod
    def from_params(cls, *args, **kwargs):
        cell = LSTMCell.from_params(*args, **kwargs)
        layer = cls(cell.input_size, cell.hidden_size, cell.bias,
                    split_gates=cell.split_gates)
        layer.cell = cell
        return layer


class _LSTMLayer(_nn.Module):
    """One layer, both directions when ``bidirectional``."""

    def __init__(self, input_dim, hidden_dim, bias=True, batch_first=False,
                 bidirectional=False, device=None, dtype=None, *, split_gates=False):
        super().__init__()
        self.batch_first = batch_first
        self.bidirectional = bidirectional
        kw = {'bias': bias, 'split_gates': split_gates, 'device': device, 'dtype': dtype}
        self.layer_fw = _LSTMSingleLayer(input_dim, hidden_dim, **kw)
        if bidirectional:
            self.layer_bw = _LSTMSingleLayer(input_dim, hidden_dim, **kw)

    def forward(self, x, hidden=None):
        if self.batch_first:
            x = x.transpose(0, 1)
        hx_fw, cx_fw = (None, None) if hidden is None else hidden
        hidden_bw = None
        if self.bidirectional:
            hx_bw = None if hx_fw is None else hx_fw[1]
            hx_fw = None if hx_fw is None else hx_fw[0]
            cx_bw = None if cx_fw is None else cx_fw[1]
            cx_fw = None if cx_fw is None else cx_fw[0]
            if hx_bw is not None and cx_bw is not None:
                hidden_bw = hx_bw, cx_bw
        hidden_fw = None if hx_fw is None and cx_fw is None else (hx_fw, cx_fw)
        result_fw, hidden_fw = self.layer_fw(x, hidden_fw)
        if hasattr(self, 'layer_bw') and self.bidirectional:
            result_bw, hidden_bw = self.layer_bw(x.flip(0), hidden_bw)
            result = ember.cat([result_fw, result_bw.flip(0)], result_fw.dim() - 1)
            h = ember.stack([hidden_fw[0], hidden_bw[0]], 0)
            c = ember.stack([hidden_fw[1], hidden_bw[1]], 0)
        else:
            result = result_fw
            h, c = hidden_fw
        if self.batch_first:
            result.transpose_(0, 1)
        return result, (h, c)

    @classmethod
    def from_float(cls, other, layer_idx=0, qconfig=None, **kwargs):
        if not hasattr(other, 'qconfig') and qconfig is None:
            raise AssertionError("other must have qconfig or qconfig must be provided")
        split_gates = kwargs.get('split_gates', False)
        layer = cls(kwargs.get('input_size', other.input_size),
                    kwargs.get('hidden_size', other.hidden_size),
                    kwargs.get('bias', other.bias), kwargs.get('batch_first', other.batch_first),
                    kwargs.get('bidirectional', other.bidirectional), split_gates=split_gates)
        layer.qconfig = getattr(other, 'qconfig', qconfig)
        for sfx, attr in (('', 'layer_fw'), ('_reverse', 'layer_bw')):
            if sfx and not other.bidirectional:
                break
            p = [getattr(other, f'{n}_l{layer_idx}{sfx}', None)
                 for n in ('weight_ih', 'weight_hh', 'bias_ih', 'bias_hh')]
            setattr(layer, attr, _LSTMSingleLayer.from_params(*p, split_gates=split_gates))
        return layer


class LSTM(_nn.Module):
    r"""A quantizable LSTM (``torch.ao.nn.quantizable.LSTM``): ``layers``, one
    ``_LSTMLayer`` per layer, each running quantizable :class:`LSTMCell` s; what ``prepare``
    swaps in for ``nn.LSTM``.

    Args:
        input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
        device, dtype: as :class:`ember.nn.LSTM` (``dropout`` is ignored, with PyTorch's
        warning).
        split_gates (bool): one linear layer per gate. Default: ``False``.

    Shape:
        - as :class:`ember.nn.LSTM` (no packed sequences).

    Example::

        >>> rnn = ember.ao.nn.quantizable.LSTM(10, 20, 2)
        >>> out, (h, c) = rnn(ember.randn(5, 3, 10))
        >>> out.shape
        torch.Size([5, 3, 20])
    """
    _FLOAT_MODULE = _nn.LSTM

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, device=None, dtype=None, *,
                 split_gates=False):
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.training = False
        if not isinstance(dropout, numbers.Number) or isinstance(dropout, bool) or \
                not 0 <= dropout <= 1:
            raise ValueError("dropout should be a number in range [0, 1] representing the "
                             "probability of an element being zeroed")
        if dropout > 0:
            warnings.warn("dropout option for quantizable LSTM is ignored. If you are "
                          "training, please, use nn.LSTM version followed by `prepare` step.",
                          stacklevel=2)
            if num_layers == 1:
                warnings.warn("dropout option adds dropout after all but last recurrent "
                              "layer, so non-zero dropout expects num_layers greater than 1, "
                              f"but got dropout={dropout} and num_layers={num_layers}",
                              stacklevel=2)
        kw = {'batch_first': False, 'bidirectional': bidirectional, 'split_gates': split_gates,
              'device': device, 'dtype': dtype}
        self.layers = _nn.ModuleList(
            [_LSTMLayer(input_size, hidden_size, bias, **kw)] +
            [_LSTMLayer(hidden_size, hidden_size, bias, **kw) for _ in range(1, num_layers)])

    def forward(self, x, hidden=None):
        """Run the sequence; returns ``(output, (h_n, c_n))``."""
        if self.batch_first:
            x = x.transpose(0, 1)
        batch = x.size(1)
        nd = 2 if self.bidirectional else 1
        if hidden is None:
            zeros = ember.zeros(nd, batch, self.hidden_size, dtype=ember.float,
                                device=x.device)
            zeros.squeeze_(0)
            if x.is_quantized:
                zeros = ember.quantize_per_tensor(zeros, scale=1.0, zero_point=0,
                                                  dtype=x.dtype)
            hxcx = [(zeros, zeros) for _ in range(self.num_layers)]
        elif isinstance(hidden[0], ember.Tensor):
            hx = hidden[0].reshape(self.num_layers, nd, batch, self.hidden_size)
            cx = hidden[1].reshape(self.num_layers, nd, batch, self.hidden_size)
            hxcx = [(hx[i].squeeze(0), cx[i].squeeze(0)) for i in range(self.num_layers)]
        else:
            hxcx = hidden
        hs, cs = [], []
        for idx, layer in enumerate(self.layers):
            x, (h, c) = layer(x, hxcx[idx])
            hs.append(h)
            cs.append(c)
        h, c = ember.stack(hs), ember.stack(cs)
        h = h.reshape(-1, h.shape[-2], h.shape[-1])
        c = c.reshape(-1, c.shape[-2], c.shape[-1])
        if self.batch_first:
            x = x.transpose(0, 1)
        return x, (h, c)

    def _get_name(self):
        return 'QuantizableLSTM'

    @classmethod
    def from_float(cls, other, qconfig=None, split_gates=False):
        """The observed quantizable LSTM of a float ``nn.LSTM`` (weights shared), prepared
        (``prepare``, or ``prepare_qat`` in training mode)."""
        if not isinstance(other, cls._FLOAT_MODULE):
            raise AssertionError(f"Expected module type {cls._FLOAT_MODULE}, got "
                                 f"{type(other)}")
        if not hasattr(other, 'qconfig') and not qconfig:
            raise AssertionError("other must have qconfig or qconfig must be provided")
        observed = cls(other.input_size, other.hidden_size, other.num_layers, other.bias,
                       other.batch_first, other.dropout, other.bidirectional,
                       split_gates=split_gates)
        observed.qconfig = getattr(other, 'qconfig', qconfig)
        for idx in range(other.num_layers):
            observed.layers[idx] = _LSTMLayer.from_float(other, idx, qconfig, batch_first=False,
                                                         split_gates=split_gates)
        from ember.ao import quantization as Q
        if other.training:
            observed.train()
            return Q.prepare_qat(observed, inplace=True)
        observed.eval()
        return Q.prepare(observed, inplace=True)

    @classmethod
    def from_observed(cls, other):
        """Refused: a quantizable LSTM converts to ``nn.quantized.LSTM``."""
        raise NotImplementedError("It looks like you are trying to convert a non-quantizable "
                                  "LSTM module. Please, see the examples on quantizable LSTMs.")
