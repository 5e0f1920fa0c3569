"""The element-wise operators of ``ember.ops.quantized`` (``add``, ``mul`` and their ReLU and
scalar forms, ``cat``, ``relu6``, ``hardswish``, ``elu``, ``leaky_relu``, ``sigmoid``...), with
PyTorch's integers (see :mod:`ember._quantized.ops` for the rounding of each path)."""
import numpy as np

from .._tensor import Tensor
from .tensor import (_dequant_array, _ember, _ints, _is_q, _not_impl, _round_per_tensor)
from .ops import (_F32, _VEC, _check_q, _cl, _elu_f, _hardswish_f, _map_q, _new, _op, _pt, _relu6,
                  _requant_int, _scalar_deq, _scalar_q, _scalar_quant, _sigmoid_f, _threshold,
                  _vec_deq, _vec_q)
from .._dtype import _scalar_name

__all__ = []


# ------------------------------------------------------------------ element-wise binary ops
def _binary_check(qa, qb, op):
    _check_q(qa, op)
    if not _is_q(qb):
        raise _not_impl(op, 'CPU')
    if qa.dtype is not qb.dtype:
        raise RuntimeError(f"{op} operands should have same data type.")
    if len(qa._qp) != 3 or len(qb._qp) != 3:
        raise RuntimeError(f"Only per tensor quantization is supported in {op}.")
    if tuple(qa.shape) != tuple(qb.shape):
        ember = _ember()
        shape = ember.broadcast_shapes(qa.shape, qb.shape)
        return np.broadcast_to(_ints(qa), shape), np.broadcast_to(_ints(qb), shape)
    return _ints(qa), _ints(qb)


def _add_ints(qa, qb, scale, zero_point, relu=False, op='quantized::add'):
    a, b = _binary_check(qa, qb, op)
    sa, za = qa._qp[1:]
    sb, zb = qb._qp[1:]
    cl = _cl(_ints(qa))          # walked in memory order, laid out as ``qa``
    if cl:
        a, b = np.moveaxis(a, 1, -1), np.moveaxis(b, 1, -1)
    flat_a = np.ascontiguousarray(a).reshape(-1)
    flat_b = np.ascontiguousarray(b).reshape(-1)
    n = flat_a.size
    nv = n - n % _VEC
    out = np.empty(n, qa.dtype._int)
    if nv:
        y = _vec_deq(flat_a[:nv], sa, za) + _vec_deq(flat_b[:nv], sb, zb)
        out[:nv] = _vec_q(y, scale, zero_point, qa.dtype)
    if nv < n:
        y = _scalar_deq(flat_a[nv:], sa, za) + _scalar_deq(flat_b[nv:], sb, zb)
        out[nv:] = _scalar_q(y, scale, zero_point, qa.dtype)
    if relu:
        out = np.maximum(out, zero_point).astype(qa.dtype._int)
    out = out.reshape(a.shape)
    return _new(np.moveaxis(out, -1, 1) if cl else out, qa.dtype, scale, zero_point, like=qa)


def _out_qparams(scale, zero_point):
    if isinstance(scale, Tensor):
        scale = scale.item()
    if isinstance(zero_point, Tensor):
        zero_point = zero_point.item()
    return float(scale), int(zero_point)


@_op('add')
def add(qa, qb, scale, zero_point, *, out=None):
    """``torch.ops.quantized.add``: the sum of two quantized tensors, quantized with
    ``scale`` and ``zero_point``.

    Args:
        qa (Tensor): quantized tensor.
        qb (Tensor): quantized tensor of the same dtype.
        scale (float): output scale.
        zero_point (int): output zero point.

    Example::

        >>> a = ember.quantize_per_tensor(ember.tensor([1.0, 2.0]), 0.1, 0, ember.quint8)
        >>> ember.ops.quantized.add(a, a, 0.2, 0).int_repr()
        tensor([10, 20], dtype=torch.uint8)
    """
    return _add_ints(qa, qb, *_out_qparams(scale, zero_point))


@_op('add_relu')
def add_relu(qa, qb, scale, zero_point, *, out=None):
    """``torch.ops.quantized.add_relu``: :func:`add` followed by ReLU.

    Example::

        >>> a = ember.quantize_per_tensor(ember.tensor([-1.0, 2.0]), 0.1, 10, ember.quint8)
        >>> ember.ops.quantized.add_relu(a, a, 0.2, 10).int_repr()
        tensor([10, 30], dtype=torch.uint8)
    """
    return _add_ints(qa, qb, *_out_qparams(scale, zero_point), relu=True,
                     op='quantized::add_relu')


def _mul_ints(qa, qb, scale, zero_point, relu=False, op='quantized::mul'):
    a, b = _binary_check(qa, qb, op)
    sa, za = qa._qp[1:]
    sb, zb = qb._qp[1:]
    acc = (a.astype(np.int64) - za) * (b.astype(np.int64) - zb)
    r = _requant_int(acc, _F32(sa) * _F32(sb) * (_F32(1) / _F32(scale)), zero_point, qa.dtype)
    if relu:
        r = np.maximum(r, zero_point).astype(qa.dtype._int)
    return _new(r, qa.dtype, scale, zero_point, like=qa)


@_op('mul')
def mul(qa, qb, scale, zero_point, *, out=None):
    """``torch.ops.quantized.mul``: the element-wise product of two quantized tensors,
    quantized with ``scale`` and ``zero_point``.

    Example::

        >>> a = ember.quantize_per_tensor(ember.tensor([1.0, 2.0]), 0.5, 0, ember.quint8)
        >>> ember.ops.quantized.mul(a, a, 0.5, 0).int_repr()
        tensor([2, 8], dtype=torch.uint8)
    """
    return _mul_ints(qa, qb, *_out_qparams(scale, zero_point))


@_op('mul_relu')
def mul_relu(qa, qb, scale, zero_point, *, out=None):
    """``torch.ops.quantized.mul_relu``: :func:`mul` followed by ReLU.

    Example::

        >>> a = ember.quantize_per_tensor(ember.tensor([1.0, 2.0]), 0.5, 0, ember.quint8)
        >>> ember.ops.quantized.mul_relu(a, a, 0.5, 0).int_repr()
        tensor([2, 8], dtype=torch.uint8)
    """
    return _mul_ints(qa, qb, *_out_qparams(scale, zero_point), relu=True,
                     op='quantized::mul_relu')


def _scalar_arg(other, op):
    if isinstance(other, Tensor):
        if other.numel() != 1:
            raise RuntimeError(f"{op}: only a Scalar (one-element tensor) is supported")
        return float(other.item())
    return float(other)


def _add_scalar(qa, other, relu=False):
    _check_q(qa, 'quantized::add_scalar')
    s, z = _pt(qa)
    c = _scalar_arg(other, 'quantized::add_scalar')
    lo, hi = qa.dtype._qmin, qa.dtype._qmax
    c_q = float(np.rint(c / s))
    shifted = z - c_q
    if shifted < lo:
        scale = (hi - shifted) / (hi - lo) * s
        zp = lo
    elif shifted > hi:
        scale = (shifted - lo) / (hi - lo) * s
        zp = hi
    else:
        zp = int(shifted)
        r = _ints(qa)
        if relu:
            r = np.maximum(r, zp)
        return _new(r.copy(), qa.dtype, s, zp, like=qa)
    # the integers shifted by round(c / scale), requantized with scale / new scale
    acc = _ints(qa).astype(np.int64) - z + int(c_q)
    r = _requant_int(acc, _F32(s) * (_F32(1) / _F32(scale)), zp, qa.dtype)
    if relu:
        r = np.maximum(r, zp)
    return _new(r, qa.dtype, scale, zp, like=qa)


@_op('add_scalar')
def add_scalar(qa, b, *, out=None):
    """``torch.ops.quantized.add_scalar``: a quantized tensor plus a number. The integers
    stay and the zero point moves by ``round(b / scale)`` while it fits the dtype's range;
    otherwise the range is widened (new scale) and the values requantized, as PyTorch.

    Example::

        >>> a = ember.quantize_per_tensor(ember.tensor([1.0, 2.0]), 0.1, 10, ember.quint8)
        >>> ember.ops.quantized.add_scalar(a, 0.5).q_zero_point()
        5
    """
    return _add_scalar(qa, b)


@_op('add_scalar_relu')
def add_scalar_relu(qa, b, *, out=None):
    """``torch.ops.quantized.add_scalar_relu``: :func:`add_scalar` followed by ReLU.

    Example::

        >>> a = ember.quantize_per_tensor(ember.tensor([-1.0, 2.0]), 0.1, 20, ember.quint8)
        >>> ember.ops.quantized.add_scalar_relu(a, 0.5).int_repr()
        tensor([15, 40], dtype=torch.uint8)
    """
    return _add_scalar(qa, b, relu=True)


def _mul_scalar(qa, other, relu=False):
    _check_q(qa, 'quantized::mul_scalar')
    s, z = _pt(qa)
    c = _scalar_arg(other, 'quantized::mul_scalar')
    lo, hi = qa.dtype._qmin, qa.dtype._qmax
    a = _ints(qa)
    if c == 0.0:
        r = np.zeros(a.shape, qa.dtype._int)
        scale, zp = 1.0, 0
    elif c > 0:
        r, scale, zp = a.copy(), c * s, z
    else:
        r = (hi - (a.astype(np.int64) - lo)).astype(qa.dtype._int)
        scale, zp = abs(c) * s, hi - (z - lo)
    if relu:
        r = np.maximum(r, zp).astype(qa.dtype._int)
    return _new(r, qa.dtype, scale, zp, like=qa)


@_op('mul_scalar')
def mul_scalar(qa, b, *, out=None):
    """``torch.ops.quantized.mul_scalar``: a quantized tensor times a number. The
    integers stay and the scale is multiplied (a negative number mirrors the integers in
    the dtype's range and the zero point with them; zero gives scale 1, zero point 0).

    Example::

        >>> a = ember.quantize_per_tensor(ember.tensor([1.0, 2.0]), 0.1, 10, ember.quint8)
        >>> ember.ops.quantized.mul_scalar(a, 2.0).q_scale()
        0.2
    """
    return _mul_scalar(qa, b)


@_op('mul_scalar_relu')
def mul_scalar_relu(qa, b, *, out=None):
    """``torch.ops.quantized.mul_scalar_relu``: :func:`mul_scalar` followed by ReLU.

    Example::

        >>> a = ember.quantize_per_tensor(ember.tensor([-1.0, 2.0]), 0.1, 10, ember.quint8)
        >>> ember.ops.quantized.mul_scalar_relu(a, 2.0).int_repr()
        tensor([10, 30], dtype=torch.uint8)
    """
    return _mul_scalar(qa, b, relu=True)


@_op('cat')
def cat(qx, dim, scale, zero_point):
    """``torch.ops.quantized.cat``: quantized tensors concatenated along ``dim`` and
    requantized to ``scale`` and ``zero_point``.

    Example::

        >>> a = ember.quantize_per_tensor(ember.tensor([1.0, 2.0]), 0.1, 0, ember.quint8)
        >>> ember.ops.quantized.cat([a, a], 0, 0.2, 0).int_repr()
        tensor([ 5, 10,  5, 10], dtype=torch.uint8)
    """
    return _cat_q(qx, dim, scale, zero_point, False)


@_op('cat_relu')
def cat_relu(qx, dim, scale, zero_point):
    """``torch.ops.quantized.cat_relu``: :func:`cat` followed by ReLU.

    Example::

        >>> a = ember.quantize_per_tensor(ember.tensor([-1.0, 2.0]), 0.1, 20, ember.quint8)
        >>> ember.ops.quantized.cat_relu([a, a], 0, 0.1, 20).int_repr()
        tensor([20, 40, 20, 40], dtype=torch.uint8)
    """
    return _cat_q(qx, dim, scale, zero_point, True)


def _cat_q(qx, dim, scale, zero_point, relu):
    qx = list(qx)
    if not qx:
        raise RuntimeError("Expected a non-empty list of tensors")
    for t in qx:
        _check_q(t, 'quantized::cat')
        _pt(t)
        if t.dtype is not qx[0].dtype:
            raise RuntimeError("All dtypes must be the same.")
    scale, zero_point = _out_qparams(scale, zero_point)
    qdt = qx[0].dtype
    parts = []
    for t in qx:
        s, z = t._qp[1:]
        if (s, z) == (scale, zero_point):
            parts.append(_ints(t))
        else:
            parts.append(_round_per_tensor(_dequant_array(t), scale, zero_point, qdt))
    r = np.concatenate(parts, axis=dim % max(1, qx[0].dim()))
    if relu:
        r = np.maximum(r, zero_point).astype(qdt._int)
    return _new(r, qdt, scale, zero_point, like=qx[0])


# ------------------------------------------------------------------ activation operators
@_op('relu6')
def relu6(qx, inplace=False):
    """``torch.ops.quantized.relu6``: ``clamp(x, 0, 6)`` on the integers (same scale and
    zero point).

    Example::

        >>> q = ember.quantize_per_tensor(ember.tensor([-1.0, 7.0]), 0.1, 10, ember.quint8)
        >>> ember.ops.quantized.relu6(q).int_repr()
        tensor([10, 70], dtype=torch.uint8)
    """
    return _relu6(qx, inplace)


@_op('hardswish')
def hardswish(qx, output_scale, output_zero_point):
    """``torch.ops.quantized.hardswish``: ``x * relu6(x + 3) / 6`` of the real values,
    quantized with ``output_scale`` and ``output_zero_point``.

    Example::

        >>> q = ember.quantize_per_tensor(ember.tensor([-1.0, 1.0]), 0.1, 10, ember.quint8)
        >>> ember.ops.quantized.hardswish(q, 0.1, 10).int_repr()
        tensor([ 7, 17], dtype=torch.uint8)
    """
    _check_q(qx, 'quantized::hardswish')
    return _map_q(qx, _hardswish_f, *_out_qparams(output_scale, output_zero_point))


@_op('elu')
def elu(qx, output_scale, output_zero_point, alpha=1.0, scale=1.0, input_scale=1.0):
    """``torch.ops.quantized.elu``: ELU of the real values, quantized with
    ``output_scale`` and ``output_zero_point``.

    Example::

        >>> q = ember.quantize_per_tensor(ember.tensor([-1.0, 1.0]), 0.1, 10, ember.quint8)
        >>> ember.ops.quantized.elu(q, 0.1, 10).int_repr()
        tensor([ 4, 20], dtype=torch.uint8)
    """
    _check_q(qx, 'quantized::elu')
    # PyTorch's elu gives a contiguous result
    return _map_q(qx, _elu_f(alpha, scale, input_scale),
                  *_out_qparams(output_scale, output_zero_point), keep_layout=False)


@_op('celu')
def celu(qx, output_scale, output_zero_point, alpha=1.0):
    """``torch.ops.quantized.celu``: CELU of the real values, requantized.

    Example::

        >>> q = ember.quantize_per_tensor(ember.tensor([-1.0, 1.0]), 0.1, 10, ember.quint8)
        >>> ember.ops.quantized.celu(q, 0.1, 10).int_repr()
        tensor([ 4, 20], dtype=torch.uint8)
    """
    _check_q(qx, 'quantized::celu')
    return _map_q(qx, _elu_f(alpha, 1.0, 1.0 / alpha),
                  *_out_qparams(output_scale, output_zero_point), keep_layout=False)


@_op('leaky_relu')
def leaky_relu(qx, negative_slope, inplace, output_scale, output_zero_point):
    """``torch.ops.quantized.leaky_relu``: leaky ReLU of the real values, quantized with
    ``output_scale`` and ``output_zero_point``.

    Example::

        >>> q = ember.quantize_per_tensor(ember.tensor([-1.0, 1.0]), 0.1, 10, ember.quint8)
        >>> ember.ops.quantized.leaky_relu(q, 0.5, False, 0.1, 10).int_repr()
        tensor([ 5, 20], dtype=torch.uint8)
    """
    _check_q(qx, 'quantized::leaky_relu')
    n = _F32(negative_slope)
    r = _map_q(qx, lambda x: np.where(x > 0, x, x * n),
               *_out_qparams(output_scale, output_zero_point))
    return r


@_op('sigmoid')
def sigmoid(qx, output_scale, output_zero_point):
    """``torch.ops.quantized.sigmoid``: sigmoid of the real values, quantized with the
    given output parameters.

    Example::

        >>> q = ember.quantize_per_tensor(ember.tensor([0.0]), 0.1, 10, ember.quint8)
        >>> ember.ops.quantized.sigmoid(q, 1 / 256, 0).int_repr()
        tensor([128], dtype=torch.uint8)
    """
    _check_q(qx, 'quantized::sigmoid')
    return _map_q(qx, _sigmoid_f, *_out_qparams(output_scale, output_zero_point))


@_op('threshold')
def threshold(qx, threshold, value):
    """``torch.ops.quantized.threshold``: values at or below ``threshold`` become
    ``value`` (same scale and zero point).

    Example::

        >>> q = ember.quantize_per_tensor(ember.tensor([0.5, 1.5]), 0.1, 0, ember.quint8)
        >>> ember.ops.quantized.threshold(q, 1.0, 0.0).int_repr()
        tensor([ 0, 15], dtype=torch.uint8)
    """
    return _threshold(qx, threshold, value)


@_op('prelu')
def prelu(qx, weight, output_scale, output_zero_point):
    """``torch.ops.quantized.prelu``: PReLU of a quantized tensor with a quantized slope
    ``weight`` (one value, or one per channel of dimension 1), in integers as PyTorch's
    kernel: ``(max(q, zp) - zp) * (w(1) - w_zp) + (min(q, zp) - zp) * (w - w_zp)``, where
    ``w(1)`` is 1.0 quantized with the weight's parameters, requantized with the float32
    multiplier ``scale * w_scale * (1 / output_scale)``.

    Args:
        qx (Tensor): quantized input.
        weight (Tensor): quantized slopes of ``qx``'s dtype (``num_parameters`` values).
        output_scale (float): output scale.
        output_zero_point (int): output zero point.

    Example::

        >>> q = ember.quantize_per_tensor(ember.tensor([-1.0, 1.0]), 0.1, 10, ember.quint8)
        >>> w = ember.quantize_per_tensor(ember.tensor([0.25]), 0.01, 0, ember.quint8)
        >>> ember.ops.quantized.prelu(q, w, 0.1, 10).int_repr()
        tensor([ 8, 20], dtype=torch.uint8)
    """
    if not _is_q(qx):
        raise RuntimeError("Creation of quantized tensor requires quantized dtype like "
                           "torch.quint8")
    if not _is_q(weight):
        raise _not_impl('q_zero_point', 'CPU')
    if weight.dtype is not qx.dtype:
        raise RuntimeError(f"Found dtype {_scalar_name(weight.dtype)} but expected "
                           f"{_scalar_name(qx.dtype)}")
    if qx.dim() == 0:
        raise RuntimeError(f"prelu: Type promoting not supported. Got Float and "
                           f"{_scalar_name(qx.dtype)}")
    s, z = _pt(qx)
    ws, wz = _pt(weight)
    os_, oz = _out_qparams(output_scale, output_zero_point)
    w = _ints(weight).astype(np.int64)
    if qx.dim() != weight.dim():
        shape = [1] * qx.dim()
        if qx.dim() > 1:
            shape[1] = w.size
        w = w.reshape(shape)
    a = _ints(qx)
    nd = max(a.ndim, w.ndim)
    for i in range(1, nd + 1):
        da = a.shape[-i] if i <= a.ndim else 1
        dw = w.shape[-i] if i <= w.ndim else 1
        if da != dw and dw != 1:
            raise RuntimeError(f"The size of tensor a ({da}) must match the size of tensor b "
                               f"({dw}) at non-singleton dimension {nd - i}")
    one = _scalar_quant(1.0, ws, wz, qx.dtype) - wz
    x = a.astype(np.int64)
    acc = (np.maximum(x, z) - z) * one + (np.minimum(x, z) - z) * (w - wz)
    r = _requant_int(acc, _F32(s) * _F32(ws) * (_F32(1) / _F32(os_)), oz, qx.dtype)
    return _new(r, qx.dtype, os_, oz, like=qx)


@_op('dropout')
def dropout(self, output_scale, output_zero_point, p=0.5, training=False):
    """``torch.ops.quantized.dropout``: the quantized tensor itself (as PyTorch's, which
    drops nothing, in training too; the output parameters are not applied).

    Example::

        >>> q = ember.quantize_per_tensor(ember.tensor([1.0]), 0.1, 0, ember.quint8)
        >>> ember.ops.quantized.dropout(q, 0.2, 3) is q
        True
    """
    _check_q(self, 'quantized::dropout')
    return self
