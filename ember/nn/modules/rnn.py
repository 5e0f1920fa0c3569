"""Recurrent layers: ``RNNBase``, ``RNN``, ``LSTM``, ``GRU`` and the cells ``RNNCellBase``,
``RNNCell``, ``LSTMCell``, ``GRUCell``.

Parameters are named, shaped and ordered as PyTorch's (``weight_ih_l0``, ``weight_hh_l0``,
``bias_ih_l0``, ``bias_hh_l0``, ``weight_hr_l0``, then ``..._reverse``), so state dicts
interchange and the default initialisation draws the same numbers after the same seed. The
layers call the ``ember.rnn_tanh`` / ``rnn_relu`` / ``lstm`` / ``gru`` ops (one autograd
node per layer and direction, see ``ember/_ops/rnn.py``)."""
import math
import numbers
import sys
import warnings
import weakref

from ..._ops.creation import empty, zeros
from .. import init
from ..parameter import Parameter
from ..utils.rnn import PackedSequence
from .module import Module

__all__ = ['RNNBase', 'RNN', 'LSTM', 'GRU', 'RNNCellBase', 'RNNCell', 'LSTMCell', 'GRUCell']


def _vf():
    # the ``ember`` namespace, looked up at call time (PyTorch's modules call ``_VF.lstm``
    # and friends): its bindings are the ones that modes and ``__torch_function__`` observe
    return sys.modules['ember']


def _apply_permutation(tensor, permutation, dim=1):
    return tensor.index_select(dim, permutation)


_GATES = {'LSTM': 4, 'GRU': 3, 'RNN_TANH': 1, 'RNN_RELU': 1}


class RNNBase(Module):
    """Base class of :class:`RNN`, :class:`LSTM` and :class:`GRU`: builds the parameters of
    every layer and direction, checks arguments and hidden sizes.

    Args:
        mode (str): ``'LSTM'``, ``'GRU'``, ``'RNN_TANH'`` or ``'RNN_RELU'``.
        input_size (int): features of the input.
        hidden_size (int): features of the hidden state.
        num_layers (int): stacked layers. Default: 1.
        bias (bool): use ``b_ih`` and ``b_hh``. Default: ``True``.
        batch_first (bool): input and output are ``(N, L, H)``. Default: ``False``.
        dropout (float): dropout on the outputs of every layer but the last. Default: 0.
        bidirectional (bool): two directions. Default: ``False``.
        proj_size (int): LSTM projection size (0: none). Default: 0.
        device, dtype: factory arguments of the parameters.

    Example::

        >>> m = nn.RNNBase('GRU', 4, 3)
        >>> [n for n, _ in m.named_parameters()]
        ['weight_ih_l0', 'weight_hh_l0', 'bias_ih_l0', 'bias_hh_l0']
    """
    __constants__ = ['mode', 'input_size', 'hidden_size', 'num_layers', 'bias', 'batch_first',
                     'dropout', 'bidirectional', 'proj_size']
    __jit_unused_properties__ = ['all_weights']

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, proj_size=0,
                 device=None, dtype=None):
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        self._flat_weight_refs = []
        num_directions = 2 if bidirectional else 1
        if (not isinstance(dropout, numbers.Number) or isinstance(dropout, bool)
                or not 0 <= dropout <= 1):
            raise ValueError("dropout should be a number in range [0, 1] representing the "
                             "probability of an element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so "
                          "non-zero dropout expects num_layers greater than 1, but got "
                          f"dropout={dropout} and num_layers={num_layers}", stacklevel=2)
        if not isinstance(bias, bool):
            raise TypeError(f"bias should be of type bool, got: {type(bias).__name__}")
        if not isinstance(batch_first, bool):
            raise TypeError(f"batch_first should be of type bool, got: "
                            f"{type(batch_first).__name__}")
        if not isinstance(input_size, int):
            raise TypeError(f"input_size should be of type int, got: {type(input_size).__name__}")
        if input_size <= 0:
            raise ValueError("input_size must be greater than zero")
        if not isinstance(hidden_size, int):
            raise TypeError(f"hidden_size should be of type int, got: "
                            f"{type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable "
                             "projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        gate_size = _GATES[mode] * hidden_size
        fk = {'device': device, 'dtype': dtype}
        self._flat_weights_names = []
        self._all_weights = []
        real_hidden = proj_size if proj_size > 0 else hidden_size
        for layer in range(num_layers):
            for direction in range(num_directions):
                in_size = input_size if layer == 0 else real_hidden * num_directions
                suffix = '_reverse' if direction == 1 else ''
                names = [f'weight_ih_l{layer}{suffix}', f'weight_hh_l{layer}{suffix}']
                shapes = [(gate_size, in_size), (gate_size, real_hidden)]
                if bias:
                    names += [f'bias_ih_l{layer}{suffix}', f'bias_hh_l{layer}{suffix}']
                    shapes += [(gate_size,), (gate_size,)]
                if proj_size > 0:
                    names.append(f'weight_hr_l{layer}{suffix}')
                    shapes.append((proj_size, hidden_size))
                for name, shape in zip(names, shapes):
                    setattr(self, name, Parameter(empty(shape, **fk)))
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self._init_flat_weights()
        self.reset_parameters()

    def _init_flat_weights(self):
        self._flat_weights = [getattr(self, wn) if hasattr(self, wn) else None
                              for wn in self._flat_weights_names]
        self._flat_weight_refs = [weakref.ref(w) if w is not None else None
                                  for w in self._flat_weights]
        self.flatten_parameters()

    def __setattr__(self, attr, value):
        if hasattr(self, '_flat_weights_names') and attr in self._flat_weights_names:
            # keep _flat_weights current when a weight is reassigned
            self._flat_weights[self._flat_weights_names.index(attr)] = value
        super().__setattr__(attr, value)

    def flatten_parameters(self):
        """Compact the weights into one buffer for cuDNN.

        NOTE: unlike PyTorch on a GPU, a no-op (ember's kernels read the parameters as they
        are), as PyTorch's is on the CPU.

        Example::

            >>> nn.LSTM(2, 3).flatten_parameters()
        """
        return None

    def _apply(self, fn, recurse=True):
        self._flat_weight_refs = []
        ret = super()._apply(fn, recurse)
        self._init_flat_weights()
        return ret

    def reset_parameters(self):
        """Draw every weight and bias from ``U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))``
        in parameter order (as PyTorch, so the same seed gives the same weights)."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def check_input(self, input, batch_sizes):
        """Raise PyTorch's errors for an input of the wrong dtype, rank or feature size."""
        w0 = self._flat_weights[0]
        if input.dtype != w0.dtype:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype "
                             f"({w0.dtype}). Convert input: input.to({w0.dtype}), or convert "
                             f"model: model.to({input.dtype})")
        expected_input_dim = 2 if batch_sizes is not None else 3
        if input.dim() != expected_input_dim:
            raise RuntimeError(f"input must have {expected_input_dim} dimensions, got "
                               f"{input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {input.size(-1)}")

    def get_expected_hidden_size(self, input, batch_sizes):
        """``(num_layers * num_directions, batch, proj_size or hidden_size)``."""
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        size = self.proj_size if self.proj_size > 0 else self.hidden_size
        return (self.num_layers * num_directions, mini_batch, size)

    def check_hidden_size(self, hx, expected_hidden_size, msg='Expected hidden size {}, got {}'):
        """Raise PyTorch's ``RuntimeError`` when ``hx`` is not ``expected_hidden_size``."""
        if tuple(hx.size()) != tuple(expected_hidden_size):
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.size())))

    def _weights_have_changed(self):
        for ref, name in zip(self._flat_weight_refs, self._flat_weights_names):
            weight = getattr(self, name) if hasattr(self, name) else None
            if weight is not None and ref is not None and ref() is not weight:
                return True
        return False

    def check_forward_args(self, input, hidden, batch_sizes):
        """Check input and hidden state against the layer's sizes."""
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx, permutation):
        """Reorder the batch dimension of ``hx`` (``None``: unchanged)."""
        if permutation is None:
            return hx
        return _apply_permutation(hx, permutation)

    def extra_repr(self):
        s = '{input_size}, {hidden_size}'
        if self.proj_size != 0:
            s += ', proj_size={proj_size}'
        if self.num_layers != 1:
            s += ', num_layers={num_layers}'
        if self.bias is not True:
            s += ', bias={bias}'
        if self.batch_first is not False:
            s += ', batch_first={batch_first}'
        if self.dropout != 0:
            s += ', dropout={dropout}'
        if self.bidirectional is not False:
            s += ', bidirectional={bidirectional}'
        return s.format(**self.__dict__)

    def _update_flat_weights(self):
        if self._weights_have_changed():
            self._init_flat_weights()

    def __getstate__(self):
        self._update_flat_weights()
        state = super().__getstate__() if hasattr(super(), '__getstate__') else self.__dict__
        state = dict(state)
        state.pop('_flat_weight_refs', None)
        return state

    def __setstate__(self, d):
        super().__setstate__(d)
        if 'all_weights' in d:
            self._all_weights = d['all_weights']
        if 'proj_size' not in d:
            self.proj_size = 0
        self._flat_weights = [getattr(self, wn) if hasattr(self, wn) else None
                              for wn in self._flat_weights_names]
        self._flat_weight_refs = [weakref.ref(w) if w is not None else None
                                  for w in self._flat_weights]

    @property
    def all_weights(self):
        """The parameters, one list per layer and direction."""
        return [[getattr(self, w) for w in ws] for ws in self._all_weights]

    def _replicate_for_data_parallel(self):
        replica = super()._replicate_for_data_parallel()
        replica._flat_weights = replica._flat_weights[:]
        replica._flat_weights_names = replica._flat_weights_names[:]
        return replica

    # ------------------------------------------------------------------ shared forward
    def _prepare(self, input, hx, kind):
        """Unpack the input and build/check the initial state. Returns ``(input,
        batch_sizes, sorted_indices, unsorted_indices, hx, is_batched, batch_dim)``."""
        lstm = self.mode == 'LSTM'
        num_directions = 2 if self.bidirectional else 1
        real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        if isinstance(input, PackedSequence):
            input, batch_sizes, sorted_indices, unsorted_indices = input
            max_batch = int(batch_sizes[0])
            is_batched, batch_dim = True, None
            if hx is not None:
                hx = self.permute_hidden(hx, sorted_indices)
        else:
            batch_sizes = sorted_indices = unsorted_indices = None
            if input.dim() not in (2, 3):
                sfx = '' if lstm else ' tensor'
                raise ValueError(f"{kind}: Expected input to be 2D or 3D, got {input.dim()}D"
                                 f"{sfx} instead")
            is_batched = input.dim() == 3
            batch_dim = 0 if self.batch_first else 1
            if not is_batched:
                input = input.unsqueeze(batch_dim)
            if hx is not None:
                if lstm:
                    if is_batched:
                        if hx[0].dim() != 3 or hx[1].dim() != 3:
                            raise RuntimeError("For batched 3-D input, hx and cx should also "
                                               f"be 3-D but got ({hx[0].dim()}-D, "
                                               f"{hx[1].dim()}-D) tensors")
                    else:
                        if hx[0].dim() != 2 or hx[1].dim() != 2:
                            raise RuntimeError("For unbatched 2-D input, hx and cx should also "
                                               f"be 2-D but got ({hx[0].dim()}-D, "
                                               f"{hx[1].dim()}-D) tensors")
                        hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
                else:
                    if is_batched and hx.dim() != 3:
                        raise RuntimeError("For batched 3-D input, hx should also be 3-D but "
                                           f"got {hx.dim()}-D tensor")
                    if not is_batched:
                        if hx.dim() != 2:
                            raise RuntimeError("For unbatched 2-D input, hx should also be "
                                               f"2-D but got {hx.dim()}-D tensor")
                        hx = hx.unsqueeze(1)
            max_batch = input.size(0) if self.batch_first else input.size(1)
        if hx is None:
            LD = self.num_layers * num_directions
            h = zeros((LD, max_batch, real_hidden), dtype=input.dtype, device=input.device)
            if lstm:
                c = zeros((LD, max_batch, self.hidden_size), dtype=input.dtype,
                          device=input.device)
                hx = (h, c)
            else:
                hx = h
        return input, batch_sizes, sorted_indices, unsorted_indices, hx, is_batched, batch_dim

    def _call(self, fn, input, hx, batch_sizes):
        args = (self._flat_weights, self.bias, self.num_layers, self.dropout, self.training,
                self.bidirectional)
        if batch_sizes is None:
            return fn(input, hx, *args, self.batch_first)
        return fn(input, batch_sizes, hx, *args)


class RNN(RNNBase):
    """A multi-layer Elman RNN: ``h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)``
    (``relu`` instead of ``tanh`` with ``nonlinearity='relu'``).

    Args:
        input_size (int): features of the input ``x``.
        hidden_size (int): features of the hidden state ``h``.
        num_layers (int): stacked layers. Default: 1.
        nonlinearity (str): ``'tanh'`` or ``'relu'``. Default: ``'tanh'``.
        bias (bool): use ``b_ih`` and ``b_hh``. Default: ``True``.
        batch_first (bool): input and output are ``(N, L, H)``. Default: ``False``.
        dropout (float): dropout on the outputs of every layer but the last (training only).
            Default: 0.
        bidirectional (bool): two directions. Default: ``False``.
        device, dtype: factory arguments of the parameters.

    Shape:
        - input: ``(L, H_in)`` unbatched, ``(L, N, H_in)``, ``(N, L, H_in)`` with
          ``batch_first``, or a :class:`~ember.nn.utils.rnn.PackedSequence`.
        - hx: ``(D * num_layers, H_out)`` or ``(D * num_layers, N, H_out)``; zeros if omitted.
        - output: ``(L, D * H_out)``, ``(L, N, D * H_out)`` / ``(N, L, D * H_out)``, or packed.
        - h_n: as hx.

    Attributes:
        weight_ih_l[k], weight_hh_l[k], bias_ih_l[k], bias_hh_l[k] (and ``_reverse``): the
            parameters, drawn from ``U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))``.

    NOTE: unlike PyTorch, the output of a one-direction layer has ember's own grad_fn
    (``RnnTanhLayerBackward0`` / ``RnnReluLayerBackward0``; PyTorch composes small ops).

    Example::

        >>> rnn = nn.RNN(10, 20, 2)
        >>> output, hn = rnn(ember.randn(5, 3, 10), ember.randn(2, 3, 20))
        >>> output.shape, hn.shape
        (torch.Size([5, 3, 20]), torch.Size([2, 3, 20]))
    """

    def __init__(self, *args, **kwargs):
        if 'proj_size' in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop('nonlinearity', 'tanh')
        if self.nonlinearity == 'tanh':
            mode = 'RNN_TANH'
        elif self.nonlinearity == 'relu':
            mode = 'RNN_RELU'
        else:
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' "
                             "or 'relu'.")
        super().__init__(mode, *args, **kwargs)

    def forward(self, input, hx=None):
        """Run the sequence; returns ``(output, h_n)``."""
        self._update_flat_weights()
        packed = isinstance(input, PackedSequence)
        input, bsz, si, ui, hx, batched, bdim = self._prepare(input, hx, 'RNN')
        self.check_forward_args(input, hx, bsz)
        fn = _vf().rnn_tanh if self.mode == 'RNN_TANH' else _vf().rnn_relu
        output, hidden = self._call(fn, input, hx, bsz)
        if packed:
            return PackedSequence(output, bsz, si, ui), self.permute_hidden(hidden, ui)
        if not batched:
            output = output.squeeze(bdim)
            hidden = hidden.squeeze(1)
        return output, self.permute_hidden(hidden, ui)


class LSTM(RNNBase):
    """A multi-layer long short-term memory RNN. Per step and layer (gates in PyTorch's
    order ``i, f, g, o``)::

        i = sigmoid(W_ii x + b_ii + W_hi h + b_hi)    f = sigmoid(W_if x + b_if + W_hf h + b_hf)
        g = tanh(W_ig x + b_ig + W_hg h + b_hg)       o = sigmoid(W_io x + b_io + W_ho h + b_ho)
        c' = f * c + i * g                            h' = o * tanh(c')

    With ``proj_size > 0`` the hidden state is projected: ``h' = W_hr (o * tanh(c'))``.

    Args:
        input_size (int): features of the input.
        hidden_size (int): features of the cell state (and of ``h`` without projection).
        num_layers (int): stacked layers. Default: 1.
        bias (bool): use ``b_ih`` and ``b_hh``. Default: ``True``.
        batch_first (bool): input and output are ``(N, L, H)``. Default: ``False``.
        dropout (float): dropout on the outputs of every layer but the last (training only).
            Default: 0.
        bidirectional (bool): two directions. Default: ``False``.
        proj_size (int): size of the projected hidden state (0: none). Default: 0.
        device, dtype: factory arguments of the parameters.

    Shape:
        - input: ``(L, H_in)``, ``(L, N, H_in)``, ``(N, L, H_in)`` with ``batch_first``, or a
          :class:`~ember.nn.utils.rnn.PackedSequence`.
        - (h_0, c_0): ``(D * num_layers, [N,] H_out)`` and ``(D * num_layers, [N,] H_cell)``;
          zeros if omitted (``H_out = proj_size or hidden_size``).
        - output: ``(L, [N,] D * H_out)`` (batch first with ``batch_first``), or packed.
        - (h_n, c_n): as (h_0, c_0).

    Example::

        >>> rnn = nn.LSTM(10, 20, 2)
        >>> output, (hn, cn) = rnn(ember.randn(5, 3, 10))
        >>> output.shape, cn.shape
        (torch.Size([5, 3, 20]), torch.Size([2, 3, 20]))
    """

    def __init__(self, *args, **kwargs):
        super().__init__('LSTM', *args, **kwargs)

    def get_expected_cell_size(self, input, batch_sizes):
        """``(num_layers * num_directions, batch, hidden_size)``."""
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        return (self.num_layers * num_directions, mini_batch, self.hidden_size)

    def check_forward_args(self, input, hidden, batch_sizes):
        """Check input, ``h_0`` and ``c_0`` against the layer's sizes."""
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),
                               'Expected hidden[0] size {}, got {}')
        self.check_hidden_size(hidden[1], self.get_expected_cell_size(input, batch_sizes),
                               'Expected hidden[1] size {}, got {}')

    def permute_hidden(self, hx, permutation):
        """Reorder the batch dimension of ``(h, c)`` (``None``: unchanged)."""
        if permutation is None:
            return hx
        return (_apply_permutation(hx[0], permutation), _apply_permutation(hx[1], permutation))

    def forward(self, input, hx=None):
        """Run the sequence; returns ``(output, (h_n, c_n))``."""
        self._update_flat_weights()
        packed = isinstance(input, PackedSequence)
        input, bsz, si, ui, hx, batched, bdim = self._prepare(input, hx, 'LSTM')
        self.check_forward_args(input, hx, bsz)
        output, h, c = self._call(_vf().lstm, input, hx, bsz)
        hidden = (h, c)
        if packed:
            return PackedSequence(output, bsz, si, ui), self.permute_hidden(hidden, ui)
        if not batched:
            output = output.squeeze(bdim)
            hidden = (h.squeeze(1), c.squeeze(1))
        return output, self.permute_hidden(hidden, ui)


class GRU(RNNBase):
    """A multi-layer gated recurrent unit RNN. Per step and layer (gates ``r, z, n``)::

        r = sigmoid(W_ir x + b_ir + W_hr h + b_hr)
        z = sigmoid(W_iz x + b_iz + W_hz h + b_hz)
        n = tanh(W_in x + b_in + r * (W_hn h + b_hn))
        h' = (1 - z) * n + z * h

    Args:
        input_size (int): features of the input.
        hidden_size (int): features of the hidden state.
        num_layers (int): stacked layers. Default: 1.
        bias (bool): use ``b_ih`` and ``b_hh``. Default: ``True``.
        batch_first (bool): input and output are ``(N, L, H)``. Default: ``False``.
        dropout (float): dropout on the outputs of every layer but the last (training only).
            Default: 0.
        bidirectional (bool): two directions. Default: ``False``.
        device, dtype: factory arguments of the parameters.

    Shape:
        - input: ``(L, H_in)``, ``(L, N, H_in)``, ``(N, L, H_in)`` with ``batch_first``, or a
          :class:`~ember.nn.utils.rnn.PackedSequence`.
        - h_0: ``(D * num_layers, [N,] H_out)``; zeros if omitted.
        - output: ``(L, [N,] D * H_out)`` (batch first with ``batch_first``), or packed.
        - h_n: as h_0.

    NOTE: unlike PyTorch, the output of a one-direction layer has ember's own grad_fn
    (``GruLayerBackward0``; PyTorch composes small ops).

    Example::

        >>> rnn = nn.GRU(10, 20, 2)
        >>> output, hn = rnn(ember.randn(5, 3, 10), ember.randn(2, 3, 20))
        >>> output.shape
        torch.Size([5, 3, 20])
    """

    def __init__(self, *args, **kwargs):
        if 'proj_size' in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__('GRU', *args, **kwargs)

    def forward(self, input, hx=None):
        """Run the sequence; returns ``(output, h_n)``."""
        self._update_flat_weights()
        packed = isinstance(input, PackedSequence)
        input, bsz, si, ui, hx, batched, bdim = self._prepare(input, hx, 'GRU')
        self.check_forward_args(input, hx, bsz)
        output, hidden = self._call(_vf().gru, input, hx, bsz)
        if packed:
            return PackedSequence(output, bsz, si, ui), self.permute_hidden(hidden, ui)
        if not batched:
            output = output.squeeze(bdim)
            hidden = hidden.squeeze(1)
        return output, self.permute_hidden(hidden, ui)


class RNNCellBase(Module):
    """Base class of the cells: ``weight_ih`` ``(num_chunks * hidden_size, input_size)``,
    ``weight_hh`` ``(num_chunks * hidden_size, hidden_size)``, ``bias_ih``, ``bias_hh``.

    Args:
        input_size (int): features of the input.
        hidden_size (int): features of the hidden state.
        bias (bool): use ``bias_ih`` and ``bias_hh``.
        num_chunks (int): gates per cell (1 RNN, 3 GRU, 4 LSTM).
        device, dtype: factory arguments of the parameters.

    Example::

        >>> nn.RNNCellBase(3, 2, True, 4).weight_ih.shape
        torch.Size([8, 3])
    """
    __constants__ = ['input_size', 'hidden_size', 'bias']

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        fk = {'device': device, 'dtype': dtype}
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(empty((num_chunks * hidden_size, input_size), **fk))
        self.weight_hh = Parameter(empty((num_chunks * hidden_size, hidden_size), **fk))
        if bias:
            self.bias_ih = Parameter(empty(num_chunks * hidden_size, **fk))
            self.bias_hh = Parameter(empty(num_chunks * hidden_size, **fk))
        else:
            self.register_parameter('bias_ih', None)
            self.register_parameter('bias_hh', None)
        self.reset_parameters()

    def extra_repr(self):
        s = '{input_size}, {hidden_size}'
        if 'bias' in self.__dict__ and self.bias is not True:
            s += ', bias={bias}'
        if 'nonlinearity' in self.__dict__ and self.nonlinearity != 'tanh':
            s += ', nonlinearity={nonlinearity}'
        return s.format(**self.__dict__)

    def reset_parameters(self):
        """Draw every parameter from ``U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))``."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)


def _cell_prep(kind, input, hx, hidden_size):
    if input.dim() not in (1, 2):
        raise ValueError(f"{kind}: Expected input to be 1D or 2D, got {input.dim()}D instead")
    if hx is not None and hx.dim() not in (1, 2):
        raise ValueError(f"{kind}: Expected hidden to be 1D or 2D, got {hx.dim()}D instead")
    batched = input.dim() == 2
    if not batched:
        input = input.unsqueeze(0)
    if hx is None:
        hx = zeros((input.size(0), hidden_size), dtype=input.dtype, device=input.device)
    elif not batched:
        hx = hx.unsqueeze(0)
    return input, hx, batched


class RNNCell(RNNCellBase):
    """An Elman RNN cell: ``h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)`` (or ``relu``).

    Args:
        input_size (int): features of the input.
        hidden_size (int): features of the hidden state.
        bias (bool): use ``bias_ih`` and ``bias_hh``. Default: ``True``.
        nonlinearity (str): ``'tanh'`` or ``'relu'``. Default: ``'tanh'``.
        device, dtype: factory arguments of the parameters.

    Shape:
        - input: ``(N, H_in)`` or ``(H_in)``.
        - hidden: ``(N, H)`` or ``(H)``; zeros if omitted.
        - output: ``(N, H)`` or ``(H)``.

    Example::

        >>> cell = nn.RNNCell(10, 20)
        >>> cell(ember.randn(3, 10)).shape
        torch.Size([3, 20])
    """
    __constants__ = ['input_size', 'hidden_size', 'bias', 'nonlinearity']

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity='tanh', device=None,
                 dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device,
                         dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        """One step; returns ``h'``."""
        input, hx, batched = _cell_prep('RNNCell', input, hx, self.hidden_size)
        if self.nonlinearity == 'tanh':
            fn = _vf().rnn_tanh_cell
        elif self.nonlinearity == 'relu':
            fn = _vf().rnn_relu_cell
        else:
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        ret = fn(input, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return ret if batched else ret.squeeze(0)


class LSTMCell(RNNCellBase):
    """A long short-term memory cell (gates ``i, f, g, o``; see :class:`LSTM`).

    Args:
        input_size (int): features of the input.
        hidden_size (int): features of the hidden and cell states.
        bias (bool): use ``bias_ih`` and ``bias_hh``. Default: ``True``.
        device, dtype: factory arguments of the parameters.

    Shape:
        - input: ``(N, H_in)`` or ``(H_in)``.
        - (h_0, c_0): each ``(N, H)`` or ``(H)``; zeros if omitted.
        - (h_1, c_1): as (h_0, c_0).

    Example::

        >>> cell = nn.LSTMCell(10, 20)
        >>> h, c = cell(ember.randn(3, 10))
        >>> h.shape
        torch.Size([3, 20])
    """

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device,
                         dtype=dtype)

    def forward(self, input, hx=None):
        """One step; returns ``(h', c')``."""
        if input.dim() not in (1, 2):
            raise ValueError(f"LSTMCell: Expected input to be 1D or 2D, got {input.dim()}D "
                             "instead")
        if hx is not None:
            for idx, value in enumerate(hx):
                if value.dim() not in (1, 2):
                    raise ValueError(f"LSTMCell: Expected hx[{idx}] to be 1D or 2D, got "
                                     f"{value.dim()}D instead")
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
        if hx is None:
            z = zeros((input.size(0), self.hidden_size), dtype=input.dtype, device=input.device)
            hx = (z, z)
        elif not batched:
            hx = (hx[0].unsqueeze(0), hx[1].unsqueeze(0))
        h, c = _vf().lstm_cell(input, hx, self.weight_ih, self.weight_hh, self.bias_ih,
                                  self.bias_hh)
        if not batched:
            return h.squeeze(0), c.squeeze(0)
        return h, c


class GRUCell(RNNCellBase):
    """A gated recurrent unit cell (gates ``r, z, n``; see :class:`GRU`).

    Args:
        input_size (int): features of the input.
        hidden_size (int): features of the hidden state.
        bias (bool): use ``bias_ih`` and ``bias_hh``. Default: ``True``.
        device, dtype: factory arguments of the parameters.

    Shape:
        - input: ``(N, H_in)`` or ``(H_in)``.
        - hidden: ``(N, H)`` or ``(H)``; zeros if omitted.
        - output: ``(N, H)`` or ``(H)``.

    Example::

        >>> cell = nn.GRUCell(10, 20)
        >>> cell(ember.randn(3, 10)).shape
        torch.Size([3, 20])
    """

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device,
                         dtype=dtype)

    def forward(self, input, hx=None):
        """One step; returns ``h'``."""
        input, hx, batched = _cell_prep('GRUCell', input, hx, self.hidden_size)
        ret = _vf().gru_cell(input, hx, self.weight_ih, self.weight_hh, self.bias_ih,
                                self.bias_hh)
        return ret if batched else ret.squeeze(0)
