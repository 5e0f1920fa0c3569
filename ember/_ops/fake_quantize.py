"""Fake quantization: quantize and dequantize in one float-to-float step, as
``torch.fake_quantize_per_tensor_affine`` & co. compute it on the CPU.

Everything here computes in floating point; no quantized tensor is made. The rounding is
PyTorch's: the input is multiplied by ``inv_scale = 1 / scale`` (float32), rounded half to
even, the zero point added, the result clamped to ``[quant_min, quant_max]`` and mapped
back with ``(q - zero_point) * scale``. The gradient is PyTorch's straight-through
estimate: the upstream gradient where the rounded value fell inside the range, zero
elsewhere (kept as a mask from the forward pass). The learnable forms also give gradients
for ``scale`` and ``zero_point`` (the LSQ estimates PyTorch's kernels use).

``fused_moving_avg_obs_fake_quant`` updates a moving-average min/max observer, picks scale
and zero point as PyTorch's C++ ``ChooseQuantizationParams`` does, and fake-quantizes.
"""
import math

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor, _legacy_name, _Mode
from ._util import Node, record, register, wrap, grad_needed
from .._backend import array_module
from .. import return_types as _rt

__all__ = []

_QMIN_MSG = "`quant_min` should be less than or         equal to `quant_max`."
_ZP_MSG = "`zero_point` must be between `quant_min` and `quant_max`."
_I64_MIN = -2 ** 63



def _result_type(name):
    """PyTorch's named ``(output, mask)`` result type of op ``name``
    (``torch.return_types.<name>``), kept in ``ember.return_types``."""
    t = _rt._structseq(name, ('output', 'mask'))
    setattr(_rt, name, t)
    return t


_FQ_TQ_RESULT = _result_type('_fake_quantize_per_tensor_affine_cachemask_tensor_qparams')
_FUSED_RESULT = _result_type('_fused_moving_avg_obs_fq_helper')

# The quantized engine (``ember.backends.quantized.engine`` reads and sets it): kept in the
# op library, which the quantized kernels consult, below the ``backends`` namespace.
QENGINE = ['x86']


def _not_impl(kernel, t):
    raise NotImplementedError(f'"{kernel}" not implemented for \'{_legacy_name(t.dtype)}\'')


def _check_float_input(t, kernel):
    if not isinstance(t, Tensor):
        raise TypeError(f"fake_quantize: expected a Tensor as input, got {type(t).__name__}")
    if not t.dtype.is_floating_point:
        _not_impl(kernel, t)


def _not_differentiable(fname, **tensors):
    """PyTorch's error for a non-differentiable tensor argument that requires grad (while
    grad mode is on)."""
    if _Mode.grad:
        for arg, t in tensors.items():
            if isinstance(t, Tensor) and t.requires_grad:
                raise RuntimeError(f"The function '{fname}' is not differentiable with respect "
                                   f"to argument '{arg}'. This input cannot have "
                                   "requires_grad True.")


def _item(t):
    """A one-element tensor's value, with PyTorch's error for more elements."""
    n = t.numel()
    if n != 1:
        raise RuntimeError(f"a Tensor with {n} elements cannot be converted to Scalar")
    return t._data.reshape(-1)[0].item()


def _to_int64(xp, r, saturate):
    """float -> int64 as the C++ cast does on x86: values that do not fit (and NaN) give
    INT64_MIN; with ``saturate`` (PyTorch's per-tensor kernel) large positives give
    INT64_MAX instead."""
    big = float(2 ** 63)
    ok = (r < big) & (r >= -big)
    safe = xp.where(ok, r, 0).astype(np.int64)
    out = xp.where(ok, safe, np.int64(_I64_MIN))
    if saturate:
        out = xp.where(r >= big, np.int64(2 ** 63 - 1), out)
    return out


def _round_prod(a, inv):
    """``x * inv_scale`` as the kernels compute it: in double for a double input, in
    float32 otherwise (half and bfloat16 inputs are widened to float32 first)."""
    if a.dtype == np.float64:
        return a * np.float64(np.float32(inv))
    if a.dtype != np.float32:
        a = a.astype(np.float32)
    return a * np.float32(inv)


def _fq_tensor_arrays(a, scale, zp, qmin, qmax):
    """Per-tensor fake quantization of array ``a`` with a float32 ``scale`` and an int
    ``zp``: (output array of ``a``'s dtype, bool mask)."""
    xp = array_module(a)
    s = np.float32(scale)
    with np.errstate(divide='ignore', over='ignore', invalid='ignore'):
        inv = np.float32(1.0) / s
        p = _round_prod(a, inv)
        r = xp.rint(p) + p.dtype.type(zp)
        q = _to_int64(xp, r, True)
        mask = (q >= qmin) & (q <= qmax)
        c = xp.clip(q, qmin, qmax)
        out = ((c - zp).astype(np.float32) * s).astype(a.dtype)
    return out, mask


def _fq_channel_arrays(a, scale, zp, axis, qmin, qmax):
    """Per-channel fake quantization: ``scale`` (float32) and ``zp`` (int32 or float)
    arrays along ``axis`` of ``a``."""
    xp = array_module(a)
    shape = [1] * a.ndim
    shape[axis] = -1
    s = scale.astype(np.float32).reshape(shape)
    with np.errstate(divide='ignore', over='ignore', invalid='ignore'):
        inv = np.float32(1.0) / s
        if zp.dtype.kind == 'f':
            z = zp.astype(np.float32).reshape(shape)
            if a.dtype == np.float64:
                p = (a * inv.astype(np.float64) + z.astype(np.float64)).astype(np.float32)
            else:
                p = a.astype(np.float32) * inv + z
            q = _to_int64(xp, xp.rint(p), False)
            zd = z.astype(np.float64)
        else:
            z = zp.astype(np.int64).reshape(shape)
            p = _round_prod(a, inv)
            q = _to_int64(xp, xp.rint(p) + z.astype(p.dtype), False)
            zd = z.astype(np.float64)
        mask = (q >= qmin) & (q <= qmax)
        c = xp.clip(q, qmin, qmax).astype(np.float64)
        out = ((c - zd) * s.astype(np.float64))
        if a.dtype != np.float64:
            out = out.astype(np.float32)
        out = out.astype(a.dtype)
    return out, mask


class _MaskBackward(Node):
    """The straight-through gradient: ``grad * mask``."""

    def backward(self, g):
        mask, = self.saved_tensors
        return (g * mask,) + (None,) * (len(self.next_functions) - 1)


class FakeQuantizePerTensorAffineCachemaskBackward0(_MaskBackward):
    pass


class FakeQuantizePerTensorAffineCachemaskTensorQparamsBackward0(_MaskBackward):
    pass


class FakeQuantizePerChannelAffineCachemaskBackward0(_MaskBackward):
    pass


def _finish(input, out, mask, node_cls):
    res = wrap(out)
    if grad_needed(input):
        record(res, node_cls(), (input,), save=(wrap(mask),))
    return res


def _check_int_arg(v, fname, arg, pos):
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"{fname}(): argument '{arg}' (position {pos}) must be int, not "
                        f"{type(v).__name__}")
    return int(v)


@register(method=False)
def fake_quantize_per_tensor_affine(input, scale, zero_point, quant_min, quant_max):
    """Fake-quantize ``input`` with one scale and zero point:
    ``(clamp(round(input / scale) + zero_point, quant_min, quant_max) - zero_point) * scale``
    (``round`` is half-to-even of ``input * (1 / scale)`` in float32).

    Args:
        input (Tensor): a floating-point tensor.
        scale (float or Tensor): the quantization scale (a one-element tensor allowed).
        zero_point (int or Tensor): the zero point (a one-element tensor allowed).
        quant_min (int), quant_max (int): the quantized range.

    Returns:
        Tensor: ``input``'s shape and dtype. Its gradient is the upstream gradient where the
        quantized value lies in ``[quant_min, quant_max]`` and 0 elsewhere.

    Example::

        >>> x = ember.tensor([-1.0, 0.0, 0.26, 0.8])
        >>> ember.fake_quantize_per_tensor_affine(x, 0.1, 0, 0, 5)
        tensor([0.0000, 0.0000, 0.3000, 0.5000])
    """
    fname = 'fake_quantize_per_tensor_affine'
    tensor_qparams = isinstance(scale, Tensor) or isinstance(zero_point, Tensor)
    if tensor_qparams:
        if not (isinstance(scale, Tensor) and isinstance(zero_point, Tensor)):
            raise TypeError(f"{fname}() received an invalid combination of arguments - scale "
                            f"and zero_point must both be Tensors or a float and an int")
        _item(scale), _item(zero_point)
        on = wrap(array_module(scale._data).ones(1, dtype=np.int64))
        return _fake_quantize_per_tensor_affine_cachemask_tensor_qparams(
            input, scale, zero_point, on, quant_min, quant_max)[0]
    if isinstance(scale, bool) or not isinstance(scale, (int, float, np.floating, np.integer)):
        raise TypeError(f"{fname}(): argument 'scale' (position 2) must be float, not "
                        f"{type(scale).__name__}")
    zero_point = _check_int_arg(zero_point, fname, 'zero_point', 3)
    quant_min = _check_int_arg(quant_min, fname, 'quant_min', 4)
    quant_max = _check_int_arg(quant_max, fname, 'quant_max', 5)
    if quant_min > quant_max:
        raise RuntimeError(_QMIN_MSG)
    if not quant_min <= zero_point <= quant_max:
        raise RuntimeError(_ZP_MSG)
    _check_float_input(input, 'fake_quantize_tensor_cachemask_kernel_type_handling')
    out, mask = _fq_tensor_arrays(input._data, float(scale), zero_point, quant_min, quant_max)
    return _finish(input, out, mask, FakeQuantizePerTensorAffineCachemaskBackward0)


@register(method=False)
def _fake_quantize_per_tensor_affine_cachemask_tensor_qparams(input, scale, zero_point,
                                                              fake_quant_enabled, quant_min,
                                                              quant_max):
    """:func:`fake_quantize_per_tensor_affine` with tensor qparams that also returns the
    mask of in-range elements, ``(output, mask)``; with ``fake_quant_enabled[0] == 0`` the
    output is a copy of ``input`` and the mask all True.

    Args:
        input (Tensor): a floating-point tensor.
        scale (Tensor), zero_point (Tensor): one-element qparams.
        fake_quant_enabled (Tensor): one-element flag.
        quant_min (int), quant_max (int): the quantized range.

    Example::

        >>> r = ember._fake_quantize_per_tensor_affine_cachemask_tensor_qparams(
        ...     ember.tensor([-1.0, 0.26, 3.0]), ember.tensor([0.1]),
        ...     ember.tensor([0], dtype=ember.int32), ember.tensor([1]), 0, 5)
        >>> r.mask
        tensor([False,  True, False])
    """
    fname = '_fake_quantize_per_tensor_affine_cachemask_tensor_qparams'
    _not_differentiable(fname, scale=scale, zero_point=zero_point)
    quant_min = _check_int_arg(quant_min, fname, 'quant_min', 5)
    quant_max = _check_int_arg(quant_max, fname, 'quant_max', 6)
    if quant_min > quant_max:
        raise RuntimeError(_QMIN_MSG)
    _check_float_input(input, 'fake_quantize_tensor_cachemask_kernel_type_handling')
    a = input._data
    if int(_item(fake_quant_enabled)):
        out, mask = _fq_tensor_arrays(a, float(np.float32(_item(scale))), int(_item(zero_point)),
                                      quant_min, quant_max)
    else:
        out, mask = a.copy(), array_module(a).ones(a.shape, dtype=bool)
    res = wrap(out)
    m = wrap(mask)
    if grad_needed(input):
        record(res, FakeQuantizePerTensorAffineCachemaskTensorQparamsBackward0(), (input,),
               save=(m,))
    return _FQ_TQ_RESULT((res, m))


def _check_channel_args(input, scale, zero_point, axis, quant_min, quant_max,
                        int_zp_range=True):
    if scale.dtype not in (D.float32, D.bfloat16):
        raise RuntimeError(f"Scale must be Float or BFloat16, found {_legacy_name(scale.dtype)}")
    if zero_point.dtype not in (D.int32, D.float32, D.float16):
        raise RuntimeError(f"Zero-point must be Int32, Float or Half, found "
                           f"{_legacy_name(zero_point.dtype)}")
    if scale.dim() != 1:
        raise RuntimeError("scale should be a 1-D tensor")
    if zero_point.dim() != 1:
        raise RuntimeError("zero point should be a 1-D tensor")
    if scale.numel() != zero_point.numel():
        raise RuntimeError("scale and zero-point need to have the same dimensions")
    if scale.numel() != input.size(axis):
        raise RuntimeError("dimensions of scale and zero-point are not consistent with input "
                           "tensor")
    if quant_min > quant_max:
        raise RuntimeError(_QMIN_MSG)
    if int_zp_range and not zero_point.dtype.is_floating_point and zero_point.numel():
        zs = zero_point._data
        if int(zs.min()) < quant_min or int(zs.max()) > quant_max:
            raise RuntimeError(_ZP_MSG)
    if not 0 <= axis <= input.dim():
        raise RuntimeError("`axis` must be between 0 and number of dimensions of input")


@register(method=False)
def fake_quantize_per_channel_affine(input, scale, zero_point, axis, quant_min, quant_max):
    """Fake-quantize ``input`` with one scale and zero point per slice along ``axis``:
    ``(clamp(round(input / scale[c]) + zero_point[c], quant_min, quant_max) - zero_point[c])
    * scale[c]``.

    Args:
        input (Tensor): a floating-point tensor.
        scale (Tensor): 1-D float32 (or bfloat16) scales, ``input.size(axis)`` of them.
        zero_point (Tensor): 1-D int32, float32 or float16 zero points, as many. A float
            zero point is added before rounding (``round(input / scale + zero_point)``).
        axis (int): the channel dimension.
        quant_min (int), quant_max (int): the quantized range.

    Returns:
        Tensor: ``input``'s shape and dtype; its gradient is the upstream gradient where the
        quantized value lies in range and 0 elsewhere.

    Example::

        >>> x = ember.tensor([[0.26, 0.8], [0.26, 0.8]])
        >>> ember.fake_quantize_per_channel_affine(
        ...     x, ember.tensor([0.1, 0.2]), ember.tensor([0, 0], dtype=ember.int32), 0, 0, 5)
        tensor([[0.3000, 0.5000],
                [0.2000, 0.8000]])
    """
    fname = 'fake_quantize_per_channel_affine'
    _not_differentiable('fake_quantize_per_channel_affine_cachemask', scale=scale,
                        zero_point=zero_point)
    axis = _check_int_arg(axis, fname, 'axis', 4)
    quant_min = _check_int_arg(quant_min, fname, 'quant_min', 5)
    quant_max = _check_int_arg(quant_max, fname, 'quant_max', 6)
    _check_channel_args(input, scale, zero_point, axis, quant_min, quant_max)
    _check_float_input(input, 'fake_quantize_channel_cachemask_cpu_type_handling')
    out, mask = _fq_channel_arrays(input._data, scale._data.astype(np.float32),
                                   zero_point._data, axis, quant_min, quant_max)
    return _finish(input, out, mask, FakeQuantizePerChannelAffineCachemaskBackward0)


# ------------------------------------------------------------------ learnable forms


def _learnable_grads(xa, ga, s, z, qmin, qmax, grad_factor):
    """Per-element gradients of the learnable fake quantization (PyTorch's float32
    kernels): (dX, dScale, dZeroPoint) arrays of ``xa``'s shape; ``s`` and the integral
    zero point ``z`` broadcast to it. The quantized value is
    ``round(fma(x, 1 / scale, zero_point))``: the kernels' ``zero_point + x * inv_scale``
    is contracted to one fused multiply-add (emulated here in double)."""
    xp = array_module(xa)
    f32, f64 = np.float32, np.float64
    x = xa.astype(f32)
    g = ga.astype(f32)
    s = s.astype(f32)
    z = z.astype(f32)
    gf = f32(grad_factor)
    with np.errstate(divide='ignore', over='ignore', invalid='ignore'):
        inv = f32(1.0) / s
        p = (x.astype(f64) * inv.astype(f64) + z.astype(f64)).astype(f32)
        q = _to_int64(xp, xp.rint(p), False)
        inside = (q >= qmin) & (q <= qmax)
        dx = g * inside.astype(f32)
        c = xp.clip(q, qmin, qmax)
        xfq = ((c.astype(f64) - z.astype(f64)) * s.astype(f64)).astype(f32)
        dz_out = g * f32(-1) * s * gf
        ds_out = xp.where(q < qmin, g * (f32(qmin) - z), g * (f32(qmax) - z)) * gf
        ds_in = g * (xfq - x) * inv * gf
        ds = xp.where(inside, ds_in, ds_out)
        dz = xp.where(inside, f32(0), dz_out)
    return dx, ds, dz


def _check_learnable_grad_dtype(g):
    if g.dtype != D.float32:
        raise RuntimeError("Expected dY_.scalar_type() == ScalarType::Float to be true, but got "
                           "false.  (Could this error message be improved?  If so, please "
                           "report an enhancement request to PyTorch.)")


def _sum_to(xp, a, keep_axis):
    axes = tuple(i for i in range(a.ndim) if i != keep_axis)
    return a.sum(axis=axes, dtype=np.float32) if axes else a


class FakeQuantizeLearnablePerTensorAffineBackward0(Node):
    def backward(self, g):
        x, scale, zp = self.saved_tensors
        _check_learnable_grad_dtype(g)
        s = np.float32(_item(scale))
        zf = np.float32(_item(zp)) + np.float32(0.5)
        zint = int(min(max(zf, np.float32(self.qmin)), np.float32(self.qmax)))
        xa = x._data
        xp = array_module(xa)
        dx, ds, dz = _learnable_grads(xa, g._data, xp.asarray(s), xp.asarray(np.float32(zint)),
                                      self.qmin, self.qmax, self.grad_factor)
        ds_t = wrap(ds.sum(dtype=np.float32).reshape(1).astype(scale._data.dtype))
        dz_t = wrap(dz.sum(dtype=np.float32).reshape(1).astype(zp._data.dtype))
        return wrap(dx.astype(xa.dtype)), ds_t, dz_t


def _learnable_zero_point(zero_point, quant_min, quant_max):
    z = np.float32(_item(zero_point))
    z = np.float32(np.rint(z))
    return int(min(max(z, np.float32(quant_min)), np.float32(quant_max)))


@register(method=False)
def _fake_quantize_learnable_per_tensor_affine(input, scale, zero_point, quant_min, quant_max,
                                               grad_factor=1.0):
    """Per-tensor fake quantization whose ``scale`` and ``zero_point`` are learnable
    (LSQ): the forward pass is :func:`fake_quantize_per_tensor_affine` with
    ``scale[0]`` and ``clamp(round(zero_point[0]), quant_min, quant_max)``; backward gives
    gradients for ``input``, ``scale`` and ``zero_point`` (each summed over all elements and
    multiplied by ``grad_factor``), as PyTorch's kernel does.

    Args:
        input (Tensor): a floating-point tensor.
        scale (Tensor): one-element float tensor.
        zero_point (Tensor): one-element float tensor.
        quant_min (int), quant_max (int): the quantized range.
        grad_factor (float): multiplies the scale and zero point gradients.

    NOTE: as in PyTorch, the backward pass needs a float32 gradient.

    Example::

        >>> s = ember.tensor([0.1], requires_grad=True)
        >>> z = ember.tensor([0.], requires_grad=True)
        >>> y = ember._fake_quantize_learnable_per_tensor_affine(
        ...     ember.tensor([0.26, 0.8]), s, z, 0, 5)
        >>> y.detach()
        tensor([0.3000, 0.5000])
        >>> y.grad_fn.name()
        'FakeQuantizeLearnablePerTensorAffineBackward0'
    """
    fname = '_fake_quantize_learnable_per_tensor_affine'
    quant_min = _check_int_arg(quant_min, fname, 'quant_min', 4)
    quant_max = _check_int_arg(quant_max, fname, 'quant_max', 5)
    if scale.dim() == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    s = float(np.float32(scale._data.reshape(-1)[0]))
    z = _learnable_zero_point(zero_point[0], quant_min, quant_max)
    if quant_min > quant_max:
        raise RuntimeError(_QMIN_MSG)
    _check_float_input(input, 'fake_quantize_tensor_cachemask_kernel_type_handling')
    out, _ = _fq_tensor_arrays(input._data, s, z, quant_min, quant_max)
    res = wrap(out)
    if grad_needed(input, scale, zero_point):
        node = FakeQuantizeLearnablePerTensorAffineBackward0()
        node.qmin, node.qmax, node.grad_factor = quant_min, quant_max, float(grad_factor)
        record(res, node, (input, scale, zero_point), save=(input, scale, zero_point))
    return res


class FakeQuantizeLearnablePerChannelAffineBackward0(Node):
    def backward(self, g):
        x, scale, zp = self.saved_tensors
        _check_learnable_grad_dtype(g)
        xa = x._data
        xp = array_module(xa)
        axis = self.axis
        shape = [1] * xa.ndim
        shape[axis] = -1
        z = xp.clip(xp.rint(zp._data), self.qmin, self.qmax).astype(np.float32)
        dx, ds, dz = _learnable_grads(xa, g._data, scale._data.reshape(shape),
                                      z.reshape(shape), self.qmin, self.qmax,
                                      self.grad_factor)
        ds_t = wrap(_sum_to(xp, ds, axis).astype(scale._data.dtype))
        dz_t = wrap(_sum_to(xp, dz, axis).astype(zp._data.dtype))
        return wrap(dx.astype(xa.dtype)), ds_t, dz_t


@register(method=False)
def _fake_quantize_learnable_per_channel_affine(input, scale, zero_point, axis, quant_min,
                                                quant_max, grad_factor=1.0):
    """Per-channel fake quantization with learnable ``scale`` and ``zero_point`` (LSQ):
    the forward pass is :func:`fake_quantize_per_channel_affine` with the zero points
    rounded and clamped to ``[quant_min, quant_max]``; backward gives gradients for
    ``input``, ``scale`` and ``zero_point`` (summed over every dimension but ``axis``,
    multiplied by ``grad_factor``), as PyTorch's kernel does.

    Args:
        input (Tensor): a floating-point tensor.
        scale (Tensor): 1-D float32 scales, ``input.size(axis)`` of them.
        zero_point (Tensor): 1-D float zero points, as many.
        axis (int): the channel dimension.
        quant_min (int), quant_max (int): the quantized range.
        grad_factor (float): multiplies the scale and zero point gradients.

    NOTE: as in PyTorch, the backward pass needs a float32 gradient.

    Example::

        >>> y = ember._fake_quantize_learnable_per_channel_affine(
        ...     ember.tensor([[0.26], [0.8]]), ember.tensor([0.1, 0.2]),
        ...     ember.tensor([0., 0.]), 0, 0, 5)
        >>> y
        tensor([[0.3000],
                [0.8000]])
    """
    fname = '_fake_quantize_learnable_per_channel_affine'
    axis = _check_int_arg(axis, fname, 'axis', 4)
    quant_min = _check_int_arg(quant_min, fname, 'quant_min', 5)
    quant_max = _check_int_arg(quant_max, fname, 'quant_max', 6)
    xp = array_module(zero_point._data)
    with np.errstate(invalid='ignore'):
        zr = xp.clip(xp.rint(zero_point._data), quant_min, quant_max).astype(np.int32)
    zr_t = wrap(zr)
    _check_channel_args(input, scale, zr_t, axis, quant_min, quant_max)
    _check_float_input(input, 'fake_quantize_channel_cachemask_cpu_type_handling')
    out, _ = _fq_channel_arrays(input._data, scale._data.astype(np.float32), zr, axis,
                                quant_min, quant_max)
    res = wrap(out)
    if grad_needed(input, scale, zero_point):
        node = FakeQuantizeLearnablePerChannelAffineBackward0()
        node.qmin, node.qmax, node.grad_factor = quant_min, quant_max, float(grad_factor)
        node.axis = axis
        record(res, node, (input, scale, zero_point), save=(input, scale, zero_point))
    return res


# ------------------------------------------------------------------ choosing qparams


def _choose_qparams(mn, mx, qmin, qmax, preserve_sparsity=False, reduce_range=False,
                    fbgemm=True):
    """PyTorch's C++ ``ChooseQuantizationParams``: ``(scale, zero_point)`` for a float32
    range ``[mn, mx]``. ``fbgemm=True`` is fbgemm's version (what the fused observer op
    calls on x86: the scale is rounded to float32 before the zero point is computed);
    ``fbgemm=False`` is ATen's own (``_choose_qparams_per_tensor``: a double scale, and the
    zero point taken from the end whose ``|q| - |r / scale|`` is smaller)."""
    f32 = np.float32
    mn, mx = f32(mn), f32(mx)
    if reduce_range:
        qmin, qmax = int(qmin / 2), int(qmax / 2)
    with np.errstate(divide='ignore', over='ignore', invalid='ignore'):
        if mn < 0 and mx > 0 and preserve_sparsity:
            sym_qmin = -((qmax - qmin) // 2 + 1)
            sym_qmax = (qmax - qmin) // 2
            max_scale = max(float(abs(mn / f32(sym_qmin))), float(abs(mx / f32(sym_qmax))))
            mn = f32(max_scale * sym_qmin)
            mx = f32(max_scale * sym_qmax)
        mn = min(mn, f32(0.0))
        mx = max(mx, f32(0.0))
        scale = (float(mx) - float(mn)) / (qmax - qmin)
        if fbgemm:
            scale = float(f32(scale))
        if f32(scale) == 0 or math.isinf(f32(1.0) / f32(scale)):
            scale = float(f32(0.1)) if fbgemm else 0.1
        small = f32(6.1e-5)
        if scale < small:
            org = f32(scale)
            scale = float(small)
            if mn == 0:
                mx = small * f32(qmax - qmin)
            elif mx == 0:
                mn = -small * f32(qmax - qmin)
            else:
                amp = small / org
                mn = f32(mn * amp)
                mx = f32(mx * amp)
        sign = 1 if fbgemm else -1
        zp_min = qmin - float(mn) / scale
        zp_max = qmax - float(mx) / scale
        err_min = abs(qmin) + sign * abs(float(mn) / scale)
        err_max = abs(qmax) + sign * abs(float(mx) / scale)
        zp = zp_min if err_min < err_max else zp_max
        if mn < 0 and mx > 0 and preserve_sparsity:
            zp = (qmin + qmax) / 2
    if zp < qmin:
        nz = qmin
    elif zp > qmax:
        nz = qmax
    else:
        nz = int(np.rint(zp))
    return scale, nz


@register(method=False)
def _choose_qparams_per_tensor(input, reduce_range=False):
    """The scale and zero point PyTorch's dynamic quantization picks for ``input``: from
    its min and max over ``[0, 255]`` (``[0, 127]`` with ``reduce_range``, except under the
    ``qnnpack`` engine), as ``(float scale, int zero_point)``.

    Args:
        input (Tensor): a float tensor.
        reduce_range (bool): use 7 bits.

    Example::

        >>> ember._choose_qparams_per_tensor(ember.tensor([-1.0, 1.0]))
        (0.00784313725490196, 128)
    """
    a = input._data
    mn = float(a.min()) if a.size else 0.0
    mx = float(a.max()) if a.size else 0.0
    if reduce_range:
        if QENGINE[0] == 'qnnpack':
            reduce_range = False
    if not mn <= mx:
        raise RuntimeError("In ChooseQuantizationParams, min should be less than or equal to "
                           "max")
    return _choose_qparams(mn, mx, 0, 255, False, reduce_range, fbgemm=False)


# ------------------------------------------------------------------ fused observer + fq


def _moving_avg(run, cur, c):
    f32 = np.float32
    out = run.copy()
    for i in range(run.size):
        r = f32(run[i])
        out[i] = cur[i] if math.isinf(r) else f32(r + f32(c) * f32(f32(cur[i]) - r))
    return out


@register(method=False)
def _fused_moving_avg_obs_fq_helper(input, observer_on, fake_quant_on, running_min,
                                    running_max, scale, zero_point, averaging_const,
                                    quant_min, quant_max, ch_axis, per_row_fake_quant=False,
                                    symmetric_quant=False):
    """:func:`fused_moving_avg_obs_fake_quant` returning ``(output, mask)``, the mask being
    where the quantized value lay in range (the gradient's support).

    Args: as :func:`fused_moving_avg_obs_fake_quant`.

    Example::

        >>> mn, mx = ember.tensor(float('inf')), ember.tensor(float('-inf'))
        >>> s, z = ember.tensor([1.0]), ember.tensor([0], dtype=ember.int32)
        >>> out, mask = ember._fused_moving_avg_obs_fq_helper(
        ...     ember.tensor([0., 1.]), ember.tensor([1]), ember.tensor([1]), mn, mx, s, z,
        ...     0.01, 0, 255, 0)
        >>> mask
        tensor([True, True])
    """
    _not_differentiable('_fused_moving_avg_obs_fq_helper', running_min=running_min,
                        running_max=running_max, scale=scale, zero_point=zero_point)
    x = input
    a = x._data
    xp = array_module(a)
    if ch_axis >= x.dim():
        raise RuntimeError("Error in fused_moving_avg_obs_fake_quant_cpu: ch_axis must be < "
                           "self.dim()")
    if per_row_fake_quant:
        y = a
        if a.ndim != 2:
            perm = list(range(a.ndim))
            if ch_axis >= 0:   # (a negative index is not wrapped by the C++ kernel)
                perm[ch_axis] = 0
            perm[0] = ch_axis
            if len({p % a.ndim for p in perm}) != a.ndim:
                raise RuntimeError("permute(): duplicate dims are not allowed.")
            if a.ndim < 2:
                raise IndexError(f"Dimension out of range (expected to be in range of "
                                 f"[-{max(a.ndim, 1)}, {max(a.ndim, 1) - 1}], but got 1)")
            y = a.transpose(perm).reshape(a.shape[ch_axis], -1)
        size = a.shape[ch_axis]
        if running_min.numel() == 0:
            for t, v in ((running_min, np.inf), (running_max, -np.inf)):
                t.resize_(size)
                t.fill_(v)
            scale.resize_(size)
            zero_point.resize_(size)
    observe = int(_item(observer_on))
    if observe:
        if per_row_fake_quant and ch_axis != 0:
            raise RuntimeError("Per-channel FakeQuant in fused_moving_avg_obs_fake_quant is "
                               "only supported on axis == 0")
        if input.dtype != D.float32:
            raise RuntimeError("expected scalar type Float but found "
                               f"{_legacy_name(input.dtype)}")
        if per_row_fake_quant:
            cur_min = y.min(axis=1).astype(np.float32)
            cur_max = y.max(axis=1).astype(np.float32)
        else:
            cur_min = a.min().reshape(1).astype(np.float32)
            cur_max = a.max().reshape(1).astype(np.float32)
        for t, cur in ((running_min, cur_min), (running_max, cur_max)):
            new = _moving_avg(t._data.reshape(-1).astype(np.float32), cur, averaging_const)
            t.copy_(wrap(new.reshape(t._data.shape)))
    if int(_item(fake_quant_on)):
        rmin = running_min._data.reshape(-1)
        rmax = running_max._data.reshape(-1)
        sd = scale._data.reshape(-1).copy()
        zd = zero_point._data.reshape(-1).copy()
        n = rmin.size if per_row_fake_quant else 1
        for i in range(n):
            s_i, z_i = _choose_qparams(rmin[i], rmax[i], quant_min, quant_max,
                                       bool(symmetric_quant))
            sd[i] = s_i
            zd[i] = z_i
        scale.copy_(wrap(sd.reshape(scale._data.shape)))
        zero_point.copy_(wrap(zd.reshape(zero_point._data.shape)))
        if per_row_fake_quant:
            out, mask = _fq_channel_arrays(a, sd.astype(np.float32), zd, ch_axis,
                                           quant_min, quant_max)
        else:
            out, mask = _fq_tensor_arrays(a, float(np.float32(sd[0])), int(zd[0]),
                                          quant_min, quant_max)
    else:
        out, mask = a.copy(), xp.ones(a.shape, dtype=bool)
    res = wrap(out)
    m = wrap(mask)
    if grad_needed(input):
        record(res, FusedMovingAvgObsFqHelperBackward0(), (input,), save=(m,))
    return _FUSED_RESULT((res, m))


class FusedMovingAvgObsFqHelperBackward0(_MaskBackward):
    pass


@register(method=False)
def fused_moving_avg_obs_fake_quant(input, observer_on, fake_quant_on, running_min,
                                    running_max, scale, zero_point, averaging_const,
                                    quant_min, quant_max, ch_axis, per_row_fake_quant=False,
                                    symmetric_quant=False):
    """Observe and fake-quantize in one step, as ``FusedMovingAvgObsFakeQuantize`` does.

    When ``observer_on[0]`` is nonzero, ``running_min``/``running_max`` (float32, updated in
    place) follow the input's min/max as a moving average
    (``run + averaging_const * (cur - run)``; the first observation is taken as is). When
    ``fake_quant_on[0]`` is nonzero, ``scale`` and ``zero_point`` are recomputed in place
    from the running range (PyTorch's C++ ``ChooseQuantizationParams``; symmetric when
    ``symmetric_quant``) and the input is fake-quantized with them (per channel along
    ``ch_axis`` when ``per_row_fake_quant``); otherwise the input is returned (a copy).

    Args:
        input (Tensor): float tensor.
        observer_on (Tensor), fake_quant_on (Tensor): one-element flags.
        running_min (Tensor), running_max (Tensor): the observer's state (empty tensors
            are resized for per-channel use).
        scale (Tensor), zero_point (Tensor): the qparams, written in place.
        averaging_const (float): the moving average's constant.
        quant_min (int), quant_max (int): the quantized range.
        ch_axis (int): the channel axis (0 only for per-channel).
        per_row_fake_quant (bool): per-channel quantization.
        symmetric_quant (bool): symmetric (zero point in the middle of the range).

    Example::

        >>> mn, mx = ember.tensor(float('inf')), ember.tensor(float('-inf'))
        >>> s, z = ember.tensor([1.0]), ember.tensor([0], dtype=ember.int32)
        >>> ember.fused_moving_avg_obs_fake_quant(ember.tensor([-1., 1.]), ember.tensor([1]),
        ...     ember.tensor([1]), mn, mx, s, z, 0.01, 0, 255, 0)
        tensor([-0.9961,  0.9961])
    """
    return _fused_moving_avg_obs_fq_helper(input, observer_on, fake_quant_on, running_min,
                                           running_max, scale, zero_point, averaging_const,
                                           quant_min, quant_max, ch_axis, per_row_fake_quant,
                                           symmetric_quant)[0]


# ------------------------------------------------------------------ greedy range search


def _quant_loss(x, xmin, xmax, bit_width):
    """L2 error of quantizing ``x`` to ``bit_width`` bits over ``[xmin, xmax]`` with a
    float16-rounded minimum and scale (the embedding-bag 4/8-bit recipe), summed in order in
    float32 as PyTorch's loop does."""
    xp = array_module(x)
    f32 = np.float32
    xmin = f32(np.float16(xmin))
    data_range = f32(xmax - xmin)
    qmax = f32((1 << bit_width) - 1)
    scale = f32(1.0) if data_range == 0 else f32(np.float16(f32(data_range / qmax)))
    inv = f32(1.0) if scale == 0 else f32(f32(1.0) / scale)
    q = xp.maximum(f32(0), xp.minimum(xp.rint((x - xmin) * inv), qmax)).astype(f32)
    d = x - (q * scale + xmin)
    return f32(np.sqrt(xp.cumsum(d * d, dtype=f32)[-1]))


@register(method=False)
def choose_qparams_optimized(input, numel, n_bins, ratio, bit_width):
    """Search a range ``[xmin, xmax]`` for quantizing ``input`` to ``bit_width`` bits that
    has a small L2 quantization error: starting from the data's min and max, repeatedly cut
    ``(max - min) / n_bins`` from whichever end lowers the error more, down to
    ``(1 - ratio)`` of the bins, keeping the best local optimum (PyTorch's greedy search for
    embedding-bag quantization).

    Args:
        input (Tensor): float32 data.
        numel (int): how many leading elements to use.
        n_bins (int): the step is ``(max - min) / n_bins``.
        ratio (float): the largest fraction of the range that may be cut.
        bit_width (int): the number of bits.

    Returns:
        (Tensor, Tensor): ``(xmax, xmin)``, one-element float32 tensors.

    NOTE: unlike PyTorch, a ``numel`` beyond the input's size uses the whole input (PyTorch
    reads past its end).

    Example::

        >>> ember.choose_qparams_optimized(ember.tensor([0.0, 1.0, 2.0, 10.0]), 4, 100, 0.5, 4)
        (tensor([10.]), tensor([0.1000]))
    """
    if input.dtype != D.float32:
        raise RuntimeError(f"expected scalar type Float but found {_legacy_name(input.dtype)}")
    if input.numel() == 0:
        raise ValueError("input tensor is empty and has no data")
    f32 = np.float32
    x = input._data.reshape(-1)[:max(int(numel), 1)].astype(f32)
    xp = array_module(x)
    xmin, xmax = f32(x.min()), f32(x.max())
    step = f32((xmax - xmin) / f32(n_bins))
    min_bins = int(n_bins * (1.0 - float(f32(ratio))))
    cur_loss = best = _quant_loss(x, xmin, xmax, bit_width)
    cur_min, cur_max = xmin, xmax
    thr = f32(f32(min_bins) * step)
    while f32(cur_min + thr) < cur_max:
        loss1 = _quant_loss(x, f32(cur_min + step), cur_max, bit_width)
        loss2 = _quant_loss(x, cur_min, f32(cur_max - step), bit_width)
        if cur_loss < loss1 and cur_loss < loss2 and cur_loss < best:
            best, xmin, xmax = cur_loss, cur_min, cur_max
        if loss1 < loss2:
            cur_min, cur_loss = f32(cur_min + step), loss1
        else:
            cur_max, cur_loss = f32(cur_max - step), loss2
    return (wrap(xp.asarray([xmax], dtype=f32)), wrap(xp.asarray([xmin], dtype=f32)))
