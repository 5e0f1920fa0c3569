"""Packed weights and the quantized linear and convolution operators of ``ember.ops.quantized``
(``linear_prepack``/``linear``/``linear_dynamic`` and their ReLU and float16 forms,
``conv{1,2,3}d_prepack``/``conv{1,2,3}d``, transposed convolutions), over the integer kernels of
:mod:`ember._quantized.kernels`."""
import numpy as np

from .. import _dtype as D
from .._tensor import Tensor
from . import kernels as _K
from .tensor import (_ember, _ints, _is_q, _make, _not_impl)
from .ops import (OPS, _F32, _check_q, _new, _op, _pt)
from .operators import _out_qparams

__all__ = []


# ------------------------------------------------------------------ packed weights
def _weight_parts(w):
    """int8 integers, scale(s) and zero point(s) of a quantized weight, as the kernels
    take them."""
    if len(w._qp) == 3:
        return _ints(w), float(_F32(w._qp[1])), int(w._qp[2])
    return (_ints(w), np.asarray(w._qp[1]._data, np.float64),
            np.asarray(w._qp[2]._data).astype(np.int64))


def _bias_array(bias):
    if bias is None:
        return None
    if not isinstance(bias, Tensor) or bias.dtype is not D.float32:
        raise RuntimeError("bias should be a float tensor (float32)")
    return np.asarray(bias.detach()._data, np.float32)


def _rounded_scale(w):
    """``w`` with its scale(s) rounded to float32, as PyTorch's linear packing keeps them."""
    if len(w._qp) == 3:
        return _make(_ints(w).copy(), w.dtype, (w._qp[0], float(_F32(w._qp[1])), w._qp[2]))
    E = _ember()
    s = E.tensor(np.asarray(w._qp[1]._data, np.float64).astype(_F32).astype(np.float64))
    return _make(_ints(w).copy(), w.dtype, (w._qp[0], s, w._qp[2], w._qp[3]))


def _engine():
    """The quantized engine whose kernels are reproduced (``ember.backends.quantized``)."""
    try:
        from .._ops.fake_quantize import QENGINE
        return QENGINE[0]
    except ImportError:
        return 'x86'


class LinearPackedParamsBase:
    """A linear layer's int8 weight and float bias prepared for the quantized kernels
    (``torch.classes.quantized.LinearPackedParamsBase``, made by
    ``ember.ops.quantized.linear_prepack``).

    Args:
        weight (Tensor): ``qint8`` weight ``(out_features, in_features)``, per tensor or
            per output channel.
        bias (Tensor, optional): float32 bias of ``out_features`` values.

    Example::

        >>> w = ember.quantize_per_tensor(ember.ones(2, 3), 0.1, 0, ember.qint8)
        >>> p = ember.ops.quantized.linear_prepack(w, None)
        >>> p.unpack()[0].shape
        torch.Size([2, 3])
    """

    def __init__(self, weight, bias=None):
        _check_q(weight, 'quantized::linear_prepack')
        if weight.dtype is not D.qint8:
            raise RuntimeError(f"expected scalar type QInt8 but found "
                               f"{D._scalar_name(weight.dtype)}")
        if weight.dim() != 2:
            raise RuntimeError("quantized::linear_prepack (fbgemm): Weight tensor rank should "
                               "be == 2")
        if len(weight._qp) == 4 and weight._qp[3] != 0:
            raise RuntimeError("quantized::linear_prepack: per-channel weights must be "
                               "quantized along axis 0")
        if bias is not None:
            if not isinstance(bias, Tensor):
                raise RuntimeError("bias should be a float tensor (float32)")
            if bias.dim() != 1:
                raise RuntimeError("bias should be a vector (1D Tensor)")
            if bias.shape[0] != weight.shape[0]:
                raise RuntimeError(f"bias should have N elements: {weight.shape[0]}")
        # as PyTorch, a bias of another dtype is kept (and unpacked as it is); the layer
        # refuses it when it runs
        b = _bias_array(bias) if bias is None or bias.dtype is D.float32 else None
        self._weight = _rounded_scale(weight)
        self._bias = None if bias is None else bias.detach()
        ints, s, z = _weight_parts(self._weight)
        self._packed = _K.PackedLinearWeight(ints, s, z, b)

    def unpack(self):
        """The ``(weight, bias)`` the parameters were packed from."""
        return self._weight, self._bias

    def __getstate__(self):
        return (self._weight, self._bias)

    def __setstate__(self, state):
        self.__init__(*state)

    def __repr__(self):
        return "<torch.ScriptObject object (LinearPackedParamsBase)>"


@_op('linear_prepack', 'linear_prepack_legacy')
def linear_prepack(W, B=None):
    """``torch.ops.quantized.linear_prepack``: pack a ``qint8`` weight and a float bias
    for :func:`linear` / :func:`linear_dynamic`.

    Args:
        W (Tensor): ``qint8`` weight ``(out_features, in_features)``.
        B (Tensor, optional): float32 bias.

    Returns:
        LinearPackedParamsBase

    Example::

        >>> w = ember.quantize_per_tensor(ember.ones(2, 3), 0.1, 0, ember.qint8)
        >>> ember.ops.quantized.linear_prepack(w).unpack()[1] is None
        True
    """
    return LinearPackedParamsBase(W, B)


@_op('linear_unpack')
def linear_unpack(W_prepack):
    """``torch.ops.quantized.linear_unpack``: the ``(weight, bias)`` of packed linear
    parameters.

    Example::

        >>> w = ember.quantize_per_tensor(ember.ones(2, 3), 0.1, 0, ember.qint8)
        >>> ember.ops.quantized.linear_unpack(ember.ops.quantized.linear_prepack(w))[0].shape
        torch.Size([2, 3])
    """
    return W_prepack.unpack()


def _check_packed(p, cls, op):
    if not isinstance(p, cls):
        raise RuntimeError(f"{op}() Expected a value of type '__torch__.torch.classes."
                           f"quantized.{cls.__name__}' for argument 'W_prepack' but instead "
                           f"found type '{type(p).__name__}'.")


def _check_bias_dtype(p):
    b = p._bias
    if b is not None and b.dtype is not D.float32:
        raise RuntimeError(f"expected scalar type Float but found {D._scalar_name(b.dtype)}")


def _linear_static(X, W_prepack, Y_scale_i, Y_zero_point_i, relu, op):
    _check_q(X, op)
    _check_packed(W_prepack, LinearPackedParamsBase, op)
    if X.dtype is not D.quint8:
        raise RuntimeError(f"Expected input data type QUInt8 but got "
                           f"{D._scalar_name(X.dtype)}")
    k = W_prepack._packed
    if X.dim() == 0 or X.shape[-1] != k.in_features:
        raise RuntimeError(f"The number of rows in the packB should be equal to K: "
                           f"{X.shape[-1] if X.dim() else 1}")
    _check_bias_dtype(W_prepack)
    xs, xz = _pt(X)
    ys, yz = _out_qparams(Y_scale_i, Y_zero_point_i)
    out = _K.linear_static(_ints(X), xs, xz, k, out_scale=ys, out_zero_point=yz, relu=relu)
    return _new(out, D.quint8, ys, yz)


@_op('linear')
def linear(X, W_prepack, Y_scale_i, Y_zero_point_i):
    """``torch.ops.quantized.linear``: a statically quantized linear layer on a ``quint8``
    input; the result is quantized with ``Y_scale_i`` and ``Y_zero_point_i``.

    Args:
        X (Tensor): ``quint8`` input ``(*, in_features)``.
        W_prepack (LinearPackedParamsBase): from :func:`linear_prepack`.
        Y_scale_i (float): output scale.
        Y_zero_point_i (int): output zero point.

    Example::

        >>> w = ember.quantize_per_tensor(ember.ones(1, 2), 0.5, 0, ember.qint8)
        >>> x = ember.quantize_per_tensor(ember.tensor([[1.0, 2.0]]), 0.5, 0, ember.quint8)
        >>> ember.ops.quantized.linear(x, ember.ops.quantized.linear_prepack(w), 0.5, 0).int_repr()
        tensor([[6]], dtype=torch.uint8)
    """
    return _linear_static(X, W_prepack, Y_scale_i, Y_zero_point_i, False, 'quantized::linear')


@_op('linear_relu')
def linear_relu(X, W_prepack, Y_scale_i, Y_zero_point_i):
    """``torch.ops.quantized.linear_relu``: :func:`linear` followed by ReLU.

    Example::

        >>> w = ember.quantize_per_tensor(-ember.ones(1, 2), 0.5, 0, ember.qint8)
        >>> x = ember.quantize_per_tensor(ember.tensor([[1.0, 2.0]]), 0.5, 0, ember.quint8)
        >>> ember.ops.quantized.linear_relu(x, ember.ops.quantized.linear_prepack(w), 0.5, 3).int_repr()
        tensor([[3]], dtype=torch.uint8)
    """
    return _linear_static(X, W_prepack, Y_scale_i, Y_zero_point_i, True,
                          'quantized::linear_relu')


def _linear_dyn(X, W_prepack, reduce_range, relu, op):
    _check_packed(W_prepack, LinearPackedParamsBase, op)
    if _is_q(X):
        raise _not_impl(op, 'QuantizedCPU')
    if not isinstance(X, Tensor) or X.dtype is not D.float32:
        raise RuntimeError("expected scalar type Float but found "
                           f"{D._scalar_name(X.dtype) if isinstance(X, Tensor) else X}")
    k = W_prepack._packed
    if X.dim() == 0 or X.shape[-1] != k.in_features:
        raise RuntimeError(f"The number of rows in the packB should be equal to K: "
                           f"{X.shape[-1] if X.dim() else 1}")
    _check_bias_dtype(W_prepack)
    out = _K.linear_dynamic(np.asarray(X.detach()._data, np.float32), k,
                            reduce_range=bool(reduce_range), relu=relu)
    return _ember().as_tensor(out)


@_op('linear_dynamic')
def linear_dynamic(X, W_prepack, reduce_range=False):
    """``torch.ops.quantized.linear_dynamic``: a dynamically quantized linear layer: the
    float input is quantized to ``quint8`` with parameters read from its range, multiplied
    by the int8 weight in integers and scaled back to float32.

    Args:
        X (Tensor): float32 input ``(*, in_features)``.
        W_prepack (LinearPackedParamsBase): from :func:`linear_prepack`.
        reduce_range (bool): quantize the input to 7 bits. Default: ``False``.

    Example::

        >>> w = ember.quantize_per_tensor(ember.ones(1, 2), 0.5, 0, ember.qint8)
        >>> ember.ops.quantized.linear_dynamic(ember.tensor([[1.0, 2.0]]), ember.ops.quantized.linear_prepack(w))
        tensor([[3.0118]])
    """
    return _linear_dyn(X, W_prepack, reduce_range, False, 'quantized::linear_dynamic')


@_op('linear_relu_dynamic')
def linear_relu_dynamic(X, W_prepack, reduce_range=False):
    """``torch.ops.quantized.linear_relu_dynamic``: :func:`linear_dynamic` followed by
    ReLU.

    Example::

        >>> w = ember.quantize_per_tensor(-ember.ones(1, 2), 0.5, 0, ember.qint8)
        >>> ember.ops.quantized.linear_relu_dynamic(ember.tensor([[1.0, 2.0]]), ember.ops.quantized.linear_prepack(w))
        tensor([[0.]])
    """
    return _linear_dyn(X, W_prepack, reduce_range, True, 'quantized::linear_relu_dynamic')


class ConvPackedParamsBase:
    """A convolution's int8 weight, float bias and geometry prepared for the quantized
    kernels (``torch.classes.quantized.Conv2dPackedParamsBase`` and its 1-d / 3-d
    forms, made by ``ember.ops.quantized.conv2d_prepack`` & co.).

    Args:
        weight (Tensor): ``qint8`` weight ``(out_channels, in_channels / groups, *kernel)``
            (transposed: ``(in_channels, out_channels / groups, *kernel)``).
        bias (Tensor, optional): float32 bias.
        stride, padding, output_padding, dilation (list of int): one per spatial dim.
        groups (int): number of groups.
        transpose (bool): a transposed convolution.
        conv1d (bool): a 1-d convolution kept as 2-d (``unpack`` gives the 4-d weight, as
            PyTorch's).

    Example::

        >>> w = ember.quantize_per_tensor(ember.ones(2, 1, 3, 3), 0.1, 0, ember.qint8)
        >>> p = ember.ops.quantized.conv2d_prepack(w, None, [1, 1], [0, 0], [1, 1], 1)
        >>> p.stride()
        [1, 1]
    """

    def __init__(self, weight, bias, stride, padding, output_padding, dilation, groups,
                 transpose=False, conv1d=False):
        _check_q(weight, 'quantized::conv2d_prepack')
        if weight.dtype is not D.qint8:
            raise RuntimeError(f"expected scalar type QInt8 but found "
                               f"{D._scalar_name(weight.dtype)}")
        nd = weight.dim() - 2
        for name, v in (('stride', stride), ('padding', padding), ('dilation', dilation)):
            if len(v) != nd:
                raise RuntimeError(f"Specify {name} for all input dimensions (expected "
                                   f"{nd}, got {len(v)})")
        # fbgemm keeps the weight's scales as float32 (x86 keeps them as they are)
        self._weight = _rounded_scale(weight) if _engine() == 'fbgemm' else weight
        self._bias = None if bias is None else bias.detach()
        self._stride, self._padding = list(stride), list(padding)
        self._output_padding = list(output_padding)
        self._dilation, self._groups = list(dilation), int(groups)
        self._transpose, self._conv1d = bool(transpose), conv1d
        b = _bias_array(bias)
        ints, s, z = _weight_parts(self._weight)
        if transpose:
            self._packed = None
        else:
            self._packed = _K.PackedConvWeight(ints, s, z, b, stride, padding, dilation,
                                               groups)

    def unpack(self):
        """The ``(weight, bias)`` the parameters were packed from (a 1-d convolution's
        weight as 4-d, as PyTorch's)."""
        w = self._weight
        if self._conv1d:
            w = _make(_ints(w)[:, :, None, :].copy(), w.dtype, w._qp)
        return w, self._bias

    def stride(self):
        """The stride, one per spatial dimension."""
        return ([1] if self._conv1d else []) + list(self._stride)

    def padding(self):
        """The padding, one per spatial dimension."""
        return ([0] if self._conv1d else []) + list(self._padding)

    def output_padding(self):
        """The output padding (transposed convolutions), one per spatial dimension."""
        return ([0] if self._conv1d else []) + list(self._output_padding)

    def dilation(self):
        """The dilation, one per spatial dimension."""
        return ([1] if self._conv1d else []) + list(self._dilation)

    def groups(self):
        """The number of groups."""
        return self._groups

    def transpose(self):
        """Whether the convolution is transposed."""
        return self._transpose

    def __getstate__(self):
        return (self._weight, self._bias, self._stride, self._padding, self._output_padding,
                self._dilation, self._groups, self._transpose, self._conv1d)

    def __setstate__(self, state):
        self.__init__(*state)

    def __repr__(self):
        return f"<torch.ScriptObject object (Conv{2 if self._conv1d else len(self._stride)}" \
               f"dPackedParamsBase)>"


def _prepack(nd, transpose):
    def prepack(weight, bias, stride, padding, *rest):
        if transpose:
            output_padding, dilation, groups = rest
        else:
            (dilation, groups), output_padding = rest, [0] * nd
        return ConvPackedParamsBase(weight, bias, list(stride), list(padding),
                                    list(output_padding), list(dilation), groups, transpose,
                                    conv1d=(nd == 1))
    name = f"conv{'_transpose' if transpose else ''}{nd}d_prepack"
    prepack.__name__ = name
    prepack.__doc__ = f"""``torch.ops.quantized.{name}``: pack a ``qint8`` weight, a float
    bias and the geometry for :func:`conv{'_transpose' if transpose else ''}{nd}d`.

    Example::

        >>> w = ember.quantize_per_tensor(ember.ones({'2, 1, 3' + ', 3' * (nd - 1)}), 0.1, 0, ember.qint8)
        >>> p = ember.ops.quantized.{name}(w, None, {[1] * nd}, {[0] * nd}, {'[0] * nd, ' if transpose else ''}{[1] * nd}, 1)
        >>> p.groups()
        1
    """
    return prepack


for _nd in (1, 2, 3):
    for _tr in (False, True):
        _f = _prepack(_nd, _tr)
        OPS[_f.__name__] = _f


def _conv_unpack(packed):
    """``torch.ops.quantized.conv{1,2,3}d_unpack``: the ``(weight, bias)`` of packed
    convolution parameters (a 1-d weight as 3-d).

    Example::

        >>> w = ember.quantize_per_tensor(ember.ones(2, 1, 3, 3), 0.1, 0, ember.qint8)
        >>> p = ember.ops.quantized.conv2d_prepack(w, None, [1, 1], [0, 0], [1, 1], 1)
        >>> ember.ops.quantized.conv2d_unpack(p)[0].shape
        torch.Size([2, 1, 3, 3])
    """
    return packed._weight, packed._bias


for _n in ('conv1d_unpack', 'conv2d_unpack', 'conv3d_unpack', 'conv_transpose1d_unpack',
           'conv_transpose2d_unpack', 'conv_transpose3d_unpack'):
    OPS[_n] = _conv_unpack


def _conv_forward(input, packed, output_scale, output_zero_point, relu, op):
    _check_q(input, op)
    _check_packed(packed, ConvPackedParamsBase, op)
    if input.dtype is not D.quint8:
        raise RuntimeError(f"Expected input data type QUInt8 but got "
                           f"{D._scalar_name(input.dtype)}")
    xs, xz = _pt(input)
    ys, yz = _out_qparams(output_scale, output_zero_point)
    w = packed._weight
    nd = w.dim() - 2
    if input.dim() != nd + 2:
        raise RuntimeError(f"{op}: Expected {nd + 2}-D input (got {input.dim()}D input)")
    cin = w.shape[0] if packed._transpose else w.shape[1] * packed._groups
    if input.shape[1] != cin:
        raise RuntimeError(f"Given groups={packed._groups}, weight of size "
                           f"{', '.join(str(s) for s in w.shape)}, expected input "
                           f"{', '.join(str(s) for s in input.shape)} to have {cin} channels, "
                           f"but got {input.shape[1]} channels instead")
    if packed._transpose:
        out = _conv_transpose_ints(_ints(input), xs, xz, packed, ys, yz, relu)
    else:
        out = _K.conv_static(_ints(input), xs, xz, packed._packed, ys, yz, relu=relu)
        out = np.moveaxis(np.ascontiguousarray(np.moveaxis(out, 1, -1)), -1, 1)
    # as PyTorch's, the result is channels-last (``(N, C, *spatial)`` with stride 1 on C)
    return _make(out.astype(np.uint8, copy=False), D.quint8,
                 (D.per_tensor_affine, float(ys), int(yz)))


def _conv_transpose_ints(x, xs, xz, packed, ys, yz, relu):
    """A transposed convolution on integers: the exact accumulator of the centred input
    and weight (a float64 transposed convolution of small integers is exact), requantized
    as the forward convolution's."""
    w = packed._weight
    ints, s, z = _weight_parts(w)
    cin = ints.shape[0]
    shape = [cin] + [1] * (ints.ndim - 1)
    wz = np.broadcast_to(np.asarray(z, np.int64), (ints.shape[1] * packed._groups,))
    # the weight's zero point is per output channel: (in, out/groups, *k) -> per out column
    g = packed._groups
    wzc = wz.reshape(g, -1)[:, None, :, None].reshape(1, g, 1, -1)
    wc = ints.astype(np.float64).reshape(g, cin // g, ints.shape[1], -1) - wzc.reshape(
        g, 1, -1, 1)
    wc = wc.reshape(ints.shape)
    del shape
    E = _ember()
    F = E.nn.functional
    fn = {1: F.conv_transpose1d, 2: F.conv_transpose2d, 3: F.conv_transpose3d}[ints.ndim - 2]
    acc = fn(E.as_tensor(x.astype(np.float64) - xz), E.as_tensor(wc), None, packed._stride,
             packed._padding, packed._output_padding, g, packed._dilation)
    acc = np.moveaxis(np.asarray(acc._data), 1, -1)
    cout = acc.shape[-1]
    scales = np.broadcast_to(np.asarray(s, np.float64), (cout,)).astype(_F32)
    b = _bias_array(packed._bias)
    out = _K._requantize_u8(acc.astype(_F32), xs, scales, b, ys, yz, relu)
    return np.moveaxis(np.ascontiguousarray(out), -1, 1)


def _conv_op(nd, transpose, relu):
    name = f"conv{'_transpose' if transpose else ''}{nd}d{'_relu' if relu else ''}"

    # PyTorch's 2-d/3-d convolutions on packed parameters are the ``.new`` overloads
    overload = f"quantized::{name}{'.new' if nd > 1 and not transpose else ''}"

    def conv(qx, packed_weight, output_scale, output_zero_point):
        x = _check_q(qx, overload)
        if nd == 1 and not transpose and packed_weight._conv1d is False:
            raise RuntimeError(f"quantized::{name}: expected 1-d packed parameters")
        return _conv_forward(x, packed_weight, output_scale, output_zero_point, relu,
                             f'quantized::{name}')
    conv.__name__ = name
    conv.__doc__ = f"""``torch.ops.quantized.{name}``: a statically quantized
    {'transposed ' if transpose else ''}{nd}-d convolution{' followed by ReLU' if relu else ''}
    on a ``quint8`` input, quantized with ``output_scale`` and ``output_zero_point``.

    Args:
        qx (Tensor): ``quint8`` input ``(N, C_in, *spatial)``.
        packed_weight (ConvPackedParamsBase): from ``conv{'_transpose' if transpose else ''}{nd}d_prepack``.
        output_scale (float): output scale.
        output_zero_point (int): output zero point.

    Example::

        >>> w = ember.quantize_per_tensor(ember.ones(1, 1{', 1' * nd}), 0.5, 0, ember.qint8)
        >>> p = ember.ops.quantized.conv{'_transpose' if transpose else ''}{nd}d_prepack(w, None, {[1] * nd}, {[0] * nd}, {'[0] * nd, ' if transpose else ''}{[1] * nd}, 1)
        >>> x = ember.quantize_per_tensor(ember.ones(1, 1{', 2' * nd}), 0.5, 0, ember.quint8)
        >>> ember.ops.quantized.{name}(x, p, 0.25, 0).int_repr().flatten()[0]
        tensor(4, dtype=torch.uint8)
    """
    return conv


for _nd in (1, 2, 3):
    for _tr in (False, True):
        for _fused in ((False, True) if not _tr else (False,)):
            _f = _conv_op(_nd, _tr, _fused)
            OPS[_f.__name__] = _f




class _LinearFp16PackedParams(LinearPackedParamsBase):
    """A linear layer's weight rounded to float16 (kept as float32 values, which
    ``unpack`` gives, as PyTorch's) and its float bias."""

    def __init__(self, weight, bias=None):
        if _is_q(weight) or not weight.dtype.is_floating_point:
            raise RuntimeError("quantized::linear_prepack_fp16: expected a float weight")
        self._weight = weight.detach().float().half().float()
        self._bias = None if bias is None else bias.detach()
        self._packed = None

    def __setstate__(self, state):
        self.__init__(*state)


@_op('linear_prepack_fp16')
def linear_prepack_fp16(W, B=None):
    """``torch.ops.quantized.linear_prepack_fp16``: pack a float weight (rounded to
    float16) and bias for :func:`linear_dynamic_fp16`.

    Example::

        >>> p = ember.ops.quantized.linear_prepack_fp16(ember.tensor([[1.0001, 2.0]]))
        >>> p.unpack()[0]
        tensor([[1., 2.]])
    """
    return _LinearFp16PackedParams(W, B)


@_op('linear_unpack_fp16')
def linear_unpack_fp16(W_prepack):
    """``torch.ops.quantized.linear_unpack_fp16``: the ``(weight, bias)`` of float16
    packed linear parameters.

    Example::

        >>> p = ember.ops.quantized.linear_prepack_fp16(ember.ones(1, 2))
        >>> ember.ops.quantized.linear_unpack_fp16(p)[1] is None
        True
    """
    return W_prepack.unpack()


def _linear_fp16(X, W_prepack, relu):
    _check_packed(W_prepack, _LinearFp16PackedParams, 'quantized::linear_dynamic_fp16')
    w, b = W_prepack.unpack()
    y = _ember().nn.functional.linear(X, w, b)
    return _ember().relu(y) if relu else y


@_op('linear_dynamic_fp16')
def linear_dynamic_fp16(X, W_prepack):
    """``torch.ops.quantized.linear_dynamic_fp16``: a linear layer with a float16 weight
    (float32 input, products summed in float32).

    NOTE: unlike PyTorch (fbgemm's float16 GEMM), the float32 sums may differ in the last
    bit (summation order).

    Example::

        >>> p = ember.ops.quantized.linear_prepack_fp16(ember.ones(1, 2))
        >>> ember.ops.quantized.linear_dynamic_fp16(ember.ones(1, 2), p)
        tensor([[2.]])
    """
    return _linear_fp16(X, W_prepack, False)


@_op('linear_relu_dynamic_fp16')
def linear_relu_dynamic_fp16(X, W_prepack):
    """``torch.ops.quantized.linear_relu_dynamic_fp16``: :func:`linear_dynamic_fp16`
    followed by ReLU.

    Example::

        >>> p = ember.ops.quantized.linear_prepack_fp16(-ember.ones(1, 2))
        >>> ember.ops.quantized.linear_relu_dynamic_fp16(ember.ones(1, 2), p)
        tensor([[0.]])
    """
    return _linear_fp16(X, W_prepack, True)


# ------------------------------------------------------------------ oneDNN-only fusions
def _onednn_only(op, sep, x, packed, cls, engine_op=None):
    """PyTorch runs ``op`` on its oneDNN engine only: another engine raises its error; on
    ``onednn`` ember refuses (oneDNN's integers are not reproduced)."""
    _check_q(x, op)
    _check_packed(packed, cls, op)
    eng = _engine()
    if eng != 'onednn':
        raise RuntimeError(f"Didn't find engine for operation {engine_op or op}{sep}"
                           f"{eng.upper()}")
    raise NotImplementedError(f"NOTE: unlike PyTorch, ember does not run {op} (PyTorch runs "
                              f"it through oneDNN only, whose integers ember does not "
                              f"reproduce)")


@_op('linear_leaky_relu')
def linear_leaky_relu(X, W_prepack, Y_scale_i, Y_zero_point_i, negative_slope):
    """``torch.ops.quantized.linear_leaky_relu``: a quantized linear layer fused with
    LeakyReLU, which PyTorch runs on its ``onednn`` engine only.

    NOTE: unlike PyTorch, raises ``NotImplementedError`` on the ``onednn`` engine; on the
    other engines it raises PyTorch's ``Didn't find engine`` error.

    Example::

        >>> w = ember.quantize_per_tensor(ember.ones(1, 2), 0.5, 0, ember.qint8)
        >>> x = ember.quantize_per_tensor(ember.ones(1, 2), 0.5, 0, ember.quint8)
        >>> ember.ops.quantized.linear_leaky_relu(x, ember.ops.quantized.linear_prepack(w), 0.5, 0, 0.01)
        Traceback (most recent call last):
        RuntimeError: Didn't find engine for operation quantized::linear_leaky_relu X86
    """
    _onednn_only('quantized::linear_leaky_relu', ' ', X, W_prepack, LinearPackedParamsBase)


@_op('linear_tanh')
def linear_tanh(X, W_prepack, Y_scale_i, Y_zero_point_i):
    """``torch.ops.quantized.linear_tanh``: a quantized linear layer fused with tanh, which
    PyTorch runs on its ``onednn`` engine only.

    NOTE: unlike PyTorch, raises ``NotImplementedError`` on the ``onednn`` engine (see
    :func:`linear_leaky_relu`).

    Example::

        >>> w = ember.quantize_per_tensor(ember.ones(1, 2), 0.5, 0, ember.qint8)
        >>> x = ember.quantize_per_tensor(ember.ones(1, 2), 0.5, 0, ember.quint8)
        >>> ember.ops.quantized.linear_tanh(x, ember.ops.quantized.linear_prepack(w), 0.5, 0)
        Traceback (most recent call last):
        RuntimeError: Didn't find engine for operation quantized::linear_tanh X86
    """
    _onednn_only('quantized::linear_tanh', ' ', X, W_prepack, LinearPackedParamsBase)


def _conv_add_op(relu):
    name = 'conv2d_add_relu' if relu else 'conv2d_add'

    def conv_add(qx, qaccum, packed_weight, output_scale, output_zero_point):
        # (PyTorch names the unfused op in the engine error of both)
        _onednn_only(f'quantized::{name}', '.', qx, packed_weight, ConvPackedParamsBase,
                     'quantized::conv2d_add')
    conv_add.__name__ = name
    conv_add.__doc__ = f"""``torch.ops.quantized.{name}``: a quantized 2-d convolution
    plus ``qaccum``{' then ReLU' if relu else ''}, which PyTorch runs on its ``onednn``
    engine only.

    NOTE: unlike PyTorch, raises ``NotImplementedError`` on the ``onednn`` engine (see
    :func:`linear_leaky_relu`).

    Example::

        >>> w = ember.quantize_per_tensor(ember.ones(1, 1, 1, 1), 0.5, 0, ember.qint8)
        >>> p = ember.ops.quantized.conv2d_prepack(w, None, [1, 1], [0, 0], [1, 1], 1)
        >>> x = ember.quantize_per_tensor(ember.ones(1, 1, 2, 2), 0.5, 0, ember.quint8)
        >>> ember.ops.quantized.{name}(x, x, p, 0.5, 0)
        Traceback (most recent call last):
        RuntimeError: Didn't find engine for operation quantized::conv2d_add.X86
    """
    return conv_add


for _relu in (False, True):
    _f = _conv_add_op(_relu)
    OPS[_f.__name__] = _f
