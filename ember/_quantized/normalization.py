"""The quantized normalization operators of ``ember.ops.quantized`` (``batch_norm{1,2,3}d`` and
their ReLU forms, ``layer_norm``, ``group_norm``, ``instance_norm``) and ``softmax``/``matmul``,
which compute on the real values and requantize."""
import numpy as np

from .tensor import (_dequant_array, _ember, _ints, _round_per_tensor)
from .ops import (OPS, _F32, _check_q, _fma, _new, _op, _pt)
from .operators import _out_qparams

__all__ = []


# ------------------------------------------------------------------ normalization
def _batch_norm(qx, weight, bias, mean, var, eps, output_scale, output_zero_point, relu,
                nd, op):
    _check_q(qx, op)
    if qx.dim() != nd:
        raise RuntimeError(f"Expected {nd}D input tensor, got {qx.dim()}D")
    s, z = _pt(qx)
    os_, oz = _out_qparams(output_scale, output_zero_point)
    C = qx.shape[1]

    def arr(t, fill):
        if t is None:
            return np.full(C, fill, _F32)
        return np.asarray(t.detach().float()._data, _F32).reshape(-1)
    w, b, m, v = arr(weight, 1.0), arr(bias, 0.0), arr(mean, 0.0), arr(var, 1.0)
    alpha = w / np.sqrt(v + _F32(eps))
    beta = b - m * alpha
    inv = _F32(1) / _F32(os_)
    a = alpha * _F32(s) * inv
    c = beta * inv
    shape = (1, C) + (1,) * (qx.dim() - 2)
    acc = (_ints(qx).astype(np.int32) - z).astype(_F32)
    y = np.rint(_fma(acc, a.reshape(shape), c.reshape(shape))).astype(np.float64) + oz
    r = np.clip(y, oz if relu else qx.dtype._qmin, qx.dtype._qmax)
    return _new(r, qx.dtype, os_, oz, like=qx)


def _bn_op(name, dims, relu):
    """``torch.ops.quantized.<name>``: batch norm for inputs of ``dims`` dimensions."""
    def bn(qx, weight, bias, mean, var, eps, output_scale, output_zero_point):
        nd = qx.dim() if qx.dim() in dims else dims[0]
        return _batch_norm(qx, weight, bias, mean, var, eps, output_scale, output_zero_point,
                           relu, nd, f'quantized::{name}')
    then = ', then ReLU' if relu else ''
    bn.__name__ = name
    bn.__doc__ = f"""``torch.ops.quantized.{name}``: inference batch normalization of a
    quantized tensor (per channel ``x * alpha + beta`` from the running statistics){then},
    quantized with ``output_scale`` and ``output_zero_point``.

    Example::

        >>> q = ember.quantize_per_tensor(ember.ones(1, 1{', 1' * (dims[0] - 2)}), 0.1, 0, ember.quint8)
        >>> one, zero = ember.ones(1), ember.zeros(1)
        >>> ember.ops.quantized.{name}(q, one, zero, zero, one, 0.0, 0.1, 0).int_repr().flatten()
        tensor([10], dtype=torch.uint8)
    """
    return bn


for _nm, _dims in (('batch_norm1d', (2, 3)), ('batch_norm2d', (4,)), ('batch_norm3d', (5,))):
    for _fused in (False, True):
        _n = _nm + ('_relu' if _fused else '')
        OPS[_n] = _bn_op(_n, _dims, _fused)
OPS['batch_norm'] = OPS['batch_norm2d']
OPS['batch_norm_relu'] = OPS['batch_norm2d_relu']


def _requant_float(qx, y, output_scale, output_zero_point, like=None):
    """Float32 values ``y`` quantized per tensor (PyTorch's ``quantize_per_tensor``),
    channels_last when ``like`` is."""
    return _new(_round_per_tensor(np.asarray(y, _F32), output_scale, output_zero_point,
                                  qx.dtype), qx.dtype, output_scale, output_zero_point,
                like=like)


def _norm_via_float(qx, fn, output_scale, output_zero_point, op, keep_layout=False):
    _check_q(qx, op)
    _pt(qx)
    os_, oz = _out_qparams(output_scale, output_zero_point)
    x = _ember().as_tensor(_dequant_array(qx))
    return _requant_float(qx, np.asarray(fn(x)._data), os_, oz,
                          like=qx if keep_layout else None)


@_op('layer_norm')
def layer_norm(input, normalized_shape, weight, bias, eps, output_scale, output_zero_point):
    """``torch.ops.quantized.layer_norm``: layer normalization of the real values,
    quantized with ``output_scale`` and ``output_zero_point``.

    Example::

        >>> q = ember.quantize_per_tensor(ember.tensor([[0.0, 1.0]]), 0.1, 10, ember.quint8)
        >>> ember.ops.quantized.layer_norm(q, [2], None, None, 1e-5, 0.1, 10).int_repr()
        tensor([[ 0, 20]], dtype=torch.uint8)
    """
    F = _ember().nn.functional
    return _norm_via_float(input, lambda x: F.layer_norm(x, list(normalized_shape), weight,
                                                         bias, eps),
                           output_scale, output_zero_point, 'quantized::layer_norm')


@_op('group_norm')
def group_norm(input, num_groups, weight, bias, eps, output_scale, output_zero_point):
    """``torch.ops.quantized.group_norm``: group normalization of the real values,
    quantized with ``output_scale`` and ``output_zero_point``.

    Example::

        >>> q = ember.quantize_per_tensor(ember.tensor([[0.0, 1.0]]), 0.1, 10, ember.quint8)
        >>> ember.ops.quantized.group_norm(q, 1, None, None, 1e-5, 0.1, 10).int_repr()
        tensor([[ 0, 20]], dtype=torch.uint8)
    """
    F = _ember().nn.functional
    return _norm_via_float(input, lambda x: F.group_norm(x, num_groups, weight, bias, eps),
                           output_scale, output_zero_point, 'quantized::group_norm',
                           keep_layout=True)


@_op('instance_norm')
def instance_norm(input, weight, bias, eps, output_scale, output_zero_point):
    """``torch.ops.quantized.instance_norm``: instance normalization of the real values,
    quantized with ``output_scale`` and ``output_zero_point``.

    Example::

        >>> q = ember.quantize_per_tensor(ember.tensor([[[0.0, 1.0]]]), 0.1, 10, ember.quint8)
        >>> ember.ops.quantized.instance_norm(q, None, None, 1e-5, 0.1, 10).int_repr()
        tensor([[[ 0, 20]]], dtype=torch.uint8)
    """
    F = _ember().nn.functional
    return _norm_via_float(input, lambda x: F.instance_norm(x, weight=weight, bias=bias,
                                                            eps=eps),
                           output_scale, output_zero_point, 'quantized::instance_norm',
                           keep_layout=True)


@_op('softmax')
def softmax(qx, dim, output_scale, output_zero_point):
    """``torch.ops.quantized.softmax``: softmax of the real values along ``dim``,
    quantized with ``output_scale`` and ``output_zero_point``.

    Example::

        >>> q = ember.quantize_per_tensor(ember.tensor([[0.0, 0.0]]), 0.1, 10, ember.quint8)
        >>> ember.ops.quantized.softmax(q, 1, 1 / 256, 0).int_repr()
        tensor([[128, 128]], dtype=torch.uint8)
    """
    F = _ember().nn.functional
    return _norm_via_float(qx, lambda x: F.softmax(x, dim), output_scale, output_zero_point,
                           'quantized::softmax')


@_op('matmul')
def matmul(qa, qb, scale, zero_point):
    """``torch.ops.quantized.matmul``: the matrix product of two quantized tensors'
    real values, quantized with ``scale`` and ``zero_point``.

    Example::

        >>> a = ember.quantize_per_tensor(ember.tensor([[1.0, 2.0]]), 0.5, 0, ember.quint8)
        >>> ember.ops.quantized.matmul(a, a.t(), 0.5, 0).int_repr()
        tensor([[10]], dtype=torch.uint8)
    """
    _check_q(qa, 'quantized::matmul')
    _check_q(qb, 'quantized::matmul')
    if qa.dtype is not qb.dtype:
        raise RuntimeError("MatMul operands should have same data type.")
    E = _ember()
    y = E.matmul(E.as_tensor(_dequant_array(qa)), E.as_tensor(_dequant_array(qb)))
    so, zo = _out_qparams(scale, zero_point)
    return _requant_float(qa, np.asarray(y._data), so, zo)
