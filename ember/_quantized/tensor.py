"""Quantized tensors: ``quantize_per_tensor``, ``quantize_per_channel``, ``dequantize``,
``int_repr`` and the quantizer accessors (``q_scale``, ``q_zero_point``, ``qscheme``...).

A quantized tensor is an instance of ``_QTensor``, a ``Tensor`` subclass. Its data slot
holds the integers, viewed through the quantized dtype's one-field structured NumPy type
(``ember._dtype._QDtype``: NumPy cannot compute on it by mistake), so shape, strides,
storage and views read as for any tensor; ``_qp`` is the quantizer:

* per tensor: ``(qscheme, scale, zero_point)`` with a Python float and int;
* per channel: ``(qscheme, scales, zero_points, axis)`` with float64 scales and int64 (or,
  for ``per_channel_affine_float_qparams``, float) zero points as tensors.

Every op reaches ``__torch_function__`` while a quantized tensor lives (the observing
bindings are held, as for sparse tensors), which runs the ops written for quantized tensors
(:mod:`ember._quantized.ops`), the data movements (views, indexing, ``cat``, ``clone``...)
on the integers with the quantizer kept, or raises PyTorch's ``NotImplementedError`` for the
``QuantizedCPU`` backend.

The arithmetic is PyTorch's x86 CPU kernels', checked integer for integer:

* per-tensor quantization of float32 to 8 bits rounds ``x * (1 / scale) + zero_point``
  (float32, one rounding: a fused multiply-add) half to even; to ``qint32``, and per channel
  for every dtype, the product is rounded to float32 before ``zero_point`` is added;
* dequantization computes ``(q - zero_point) * scale`` in float32 per tensor and in float64
  (then rounded to float32) per channel.
"""
import numpy as np

from .. import _dtype as D
from .. import _layout as _L
from .._tensor import Tensor, _disabled_torch_function_impl, _new_tensor, _bind
from .._ops import _dispatch
from . import kernels as _K

__all__ = ['quantize_per_tensor', 'quantize_per_channel', 'dequantize',
           'quantize_per_tensor_dynamic', '_make_per_tensor_quantized_tensor', '_make_per_channel_quantized_tensor']

_BACKEND = 'QuantizedCPU'


def _not_impl(op, backend=_BACKEND):
    # ``op``: an aten op's name, or a qualified one (``quantized::conv2d.new``)
    name = op if '::' in op else f'aten::{op}'
    return NotImplementedError(
        f"Could not run '{name}' with arguments from the '{backend}' backend. This could "
        "be because the operator doesn't exist for this backend, or was omitted during the "
        "selective/custom build process (if using custom build).")


def _ember():
    import ember
    return ember


class _QTensor(Tensor):
    """A quantized tensor (``is_quantized`` is True): integers of a quantized dtype and the
    quantizer that maps them to real values; made by :func:`ember.quantize_per_tensor`,
    :func:`ember.quantize_per_channel` or the quantized modules.

    NOTE: unlike PyTorch, where a quantized tensor is a ``torch.Tensor``, its type is this
    subclass of ``ember.Tensor`` (``isinstance(q, ember.Tensor)`` holds).

    Example::

        >>> q = ember.quantize_per_tensor(ember.tensor([0.5, 1.0]), 0.5, 1, ember.quint8)
        >>> q.int_repr()
        tensor([2, 3], dtype=torch.uint8)
    """
    # the class is made with the disabled handler (defining it must not turn the observing
    # bindings on for good); the real one is set below, and each instance holds the
    # observing bindings while it lives
    __torch_function__ = _disabled_torch_function_impl

    is_quantized = True

    @property
    def requires_grad(self):
        """Always False: quantized tensors take no part in autograd."""
        return False

    @requires_grad.setter
    def requires_grad(self, r):
        if r:
            raise RuntimeError("only Tensors of floating point dtype can require gradients")

    def requires_grad_(self, requires_grad=True):
        """Raises for ``True`` (quantized tensors take no gradient), as PyTorch."""
        self.requires_grad = requires_grad
        return self

    def __repr__(self, *, tensor_contents=None):
        return _repr(self)

    def __array__(self, dtype=None, copy=None):
        raise TypeError(f"Got unsupported ScalarType {D._scalar_name(self.dtype)}")

    def numpy(self, *, force=False):
        """Raises: a quantized tensor has no NumPy form (use ``int_repr`` or
        ``dequantize``), as PyTorch."""
        raise TypeError(f"Got unsupported ScalarType {D._scalar_name(self.dtype)}")

    def tolist(self):
        """Raises, as PyTorch (``dequantize().tolist()`` gives the values)."""
        raise RuntimeError("load_scalar: invalid type")

    def item(self):
        """The one element's real value (dequantized), as a Python float."""
        if self.numel() != 1:
            raise RuntimeError(f"a Tensor with {self.numel()} elements cannot be converted to "
                               "Scalar")
        return float(_dequant_array(self).reshape(())[()])

    def __bool__(self):
        return bool(self.item())

    def __float__(self):
        return float(self.item())

    def __int__(self):
        return int(self.item())

    def __reduce_ex__(self, proto):
        # pickling and copy.copy: the integers as a plain tensor sharing the storage (so
        # views pickled together stay views, and copy.copy shares memory), the dtype and
        # the quantizer; rebuilt through _make, so the copy holds the observing bindings
        ints = _new_tensor(_ints(self))
        ints._st = self._storage_obj()
        return (_rebuild_pickled, (ints, self.dtype, self._qp, _extra_state(self)))

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        import copy
        new = _make(_ints(self).copy(), self.dtype, copy.deepcopy(self._qp, memo))
        memo[id(self)] = new
        for k, v in (_extra_state(self) or {}).items():
            new.__dict__[k] = copy.deepcopy(v, memo)
        return new


def _extra_state(q):
    """The attributes a user set on quantized tensor ``q`` (not its quantizer)."""
    d = {k: v for k, v in q.__dict__.items() if k not in ('_qp', '_retains_grad')}
    return d or None


def _rebuild_pickled(ints, qdtype, qp, state):
    """Inverse of ``_QTensor.__reduce_ex__``."""
    q = _make(ints._data, qdtype, qp, like=ints)
    if state:
        q.__dict__.update(state)
    return q


# ------------------------------------------------------------------ making and reading
def _ints(q):
    """The integers of quantized tensor ``q`` as a plain (host or device) array view."""
    return q._data.view(np.ndarray).view(q.dtype._int)


class _QData(np.ndarray):
    """The data slot of a quantized tensor: its integers in the structured quantized type,
    refusing NumPy's functions. An op reached through a binding taken before any quantized
    tensor existed (``f = ember.cat`` early in a program) does not pass the seam's
    ``__torch_function__``; its NumPy calls land here and raise PyTorch's error."""

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        raise _not_impl(ufunc.__name__)

    def __array_function__(self, func, types, args, kwargs):
        raise _not_impl(func.__name__)


_warned = []


def _warn_deprecated():
    # PyTorch 2.13 warns once per process when it first makes a quantized tensor
    if not _warned:
        _warned.append(True)
        import warnings
        warnings.warn("torch.quantize_per_tensor, torch.quantize_per_channel and other "
                      "quantized tensor creation functions that produce tensors with dtype "
                      "torch.quint8, torch.qint8, and torch.qint32 are deprecated and will be "
                      "removed in a future PyTorch release. Please see "
                      "https://github.com/pytorch/pytorch/issues/184982 for more information.",
                      UserWarning, stacklevel=3)


def _make(ints, qdtype, qp, like=None):
    """A quantized tensor of dtype ``qdtype`` over the integer array ``ints`` (its memory is
    used, not copied) with quantizer ``qp``. ``like``: a tensor whose storage ``ints``
    views (a view op's result), so that the result shares it."""
    t = _new_tensor(ints.view(qdtype._raw).view(_QData), _QTensor)
    if like is not None:
        t._st = like._st
    t._qp = qp
    # ops must reach __torch_function__ while a quantized tensor lives
    _dispatch._activate('quantized')
    _dispatch._release_when_collected(t, 'quantized')
    return t


def _is_q(x):
    return isinstance(x, _QTensor)


def _cl(a):
    """Whether array ``a`` (4-d or 5-d) reads as channels_last(_3d) to PyTorch's
    ``suggest_memory_format``: its quantized kernels then lay their outputs out so, and walk
    them in memory order."""
    return a.ndim in (4, 5) and _L.suggests_channels_last(a)


def _copy_laid_out(a, cl):
    """A copy of array ``a``: channels_last(_3d) if ``cl``, else contiguous."""
    if not cl:
        return np.array(a, order='C', copy=True)
    out = np.moveaxis(np.empty(np.moveaxis(a, 1, -1).shape, a.dtype), -1, 1)
    out[...] = a
    return out


def _check_qdtype(dtype):
    if not isinstance(dtype, D._QDtype):
        raise RuntimeError(f"ScalarType {D._scalar_name(dtype) if isinstance(dtype, D.dtype) else dtype} "
                           "is not supported in new_qtensor.")
    if dtype in (D.quint4x2, D.quint2x4):
        raise NotImplementedError(f"NOTE: unlike PyTorch, ember cannot make {dtype} tensors "
                                  "yet (PyTorch packs their values into bytes)")


def _float_input(input, what='Quantize'):
    if not isinstance(input, Tensor):
        raise TypeError(f"quantize_per_tensor(): argument 'input' (position 1) must be Tensor, "
                        f"not {type(input).__name__}")
    if input.dtype is not D.float32:
        raise RuntimeError(f"{what} only works on Float Tensor, got "
                           f"{D._scalar_name(input.dtype)}")
    return input._data


def _round_per_tensor(x, scale, zero_point, qdtype):
    """Float32 array ``x`` quantized per tensor: the integers (``qdtype._int`` array), by
    the kernel of ``ember/_quantized/kernels`` (PyTorch's rounding)."""
    return _K.quantize_per_tensor(x, scale, zero_point, qdtype._name)


def _scalar_param(v, name):
    if isinstance(v, Tensor):
        if v.numel() != 1:
            raise RuntimeError(f"quantize_per_tensor(): {name} must be a one-element tensor")
        return v.item()
    return v


def _check_zero_point(zp, qdtype, fn):
    if zp > qdtype._qmax:
        raise RuntimeError(f"{fn} zero_point {zp} is above upper bound.")
    if zp < qdtype._qmin:
        raise RuntimeError(f"{fn} zero_point {zp} is below lower bound.")


def quantize_per_tensor(input, scale, zero_point, dtype):
    r"""Quantizes a float32 tensor with one scale and zero point:
    ``q = clamp(round(x / scale) + zero_point, qmin, qmax)`` (half to even).

    Args:
        input (Tensor or list of Tensor): float32 tensor(s) to quantize.
        scale (float or Tensor): the real value of one integer step (one per tensor in a
            list, as a tensor).
        zero_point (int or Tensor): the integer that stands for 0.
        dtype (ember.dtype): ``ember.quint8``, ``ember.qint8`` or ``ember.qint32``.

    Returns:
        a quantized tensor (``per_tensor_affine``), or a list of them.

    NOTE: unlike PyTorch, the packed 4- and 2-bit dtypes (``quint4x2``, ``quint2x4``) are
    not made yet (NotImplementedError).

    Example::

        >>> q = ember.quantize_per_tensor(ember.tensor([-1.0, 0.0, 1.0, 2.0]), 0.1, 10, ember.quint8)
        >>> q.int_repr()
        tensor([ 0, 10, 20, 30], dtype=torch.uint8)
    """
    if isinstance(input, (list, tuple)):
        return [quantize_per_tensor(x, s, z, dtype)
                for x, s, z in zip(input, scale.tolist(), zero_point.tolist())]
    x = _float_input(input)
    scale = float(_scalar_param(scale, 'scale'))
    zero_point = int(_scalar_param(zero_point, 'zero_point'))
    _check_qdtype(dtype)
    _check_zero_point(zero_point, dtype, 'quantize_tensor_per_tensor_affine')
    ints = _round_per_tensor(x, scale, zero_point, dtype)
    if _cl(x):          # a channels_last input gives a channels_last result, as PyTorch's
        ints = _copy_laid_out(ints, True)
    _warn_deprecated()
    return _make(ints, dtype, (D.per_tensor_affine, scale, zero_point))


def quantize_per_channel(input, scales, zero_points, axis, dtype):
    r"""Quantizes a float32 tensor with one scale and zero point per slice along ``axis``.

    Args:
        input (Tensor): float32 tensor to quantize.
        scales (Tensor): 1-D, ``input.size(axis)`` scales.
        zero_points (Tensor): 1-D, ``input.size(axis)`` zero points (integers; floats give
            ``per_channel_affine_float_qparams``).
        axis (int): the channel dimension.
        dtype (ember.dtype): ``ember.quint8``, ``ember.qint8`` or ``ember.qint32``.

    Example::

        >>> x = ember.tensor([[1.0, 2.0], [1.0, 2.0]])
        >>> q = ember.quantize_per_channel(x, ember.tensor([0.1, 0.5]), ember.tensor([0, 1]), 0, ember.quint8)
        >>> q.int_repr()
        tensor([[10, 20],
                [ 3,  5]], dtype=torch.uint8)
    """
    for name, pos, v in (('scales', 2, scales), ('zero_points', 3, zero_points)):
        if not isinstance(v, Tensor):
            raise TypeError(f"quantize_per_channel(): argument '{name}' (position {pos}) must "
                            f"be Tensor, not {type(v).__name__}")
    x = _float_input(input)
    _check_qdtype(dtype)
    if scales.numel() != zero_points.numel():
        raise RuntimeError("number of elements in scales and zero_points must match")
    n = x.ndim
    if not 0 <= axis < n:
        raise RuntimeError(f"Channel axis out of range in per channel affine quantization. "
                           f"Got: {axis}Expected: [0, {n})")
    if scales.numel() != x.shape[axis]:
        raise RuntimeError(f"length of scales must equal to channel, expected {x.shape[axis]} "
                           f"got, {scales.numel()}")
    float_zp = zero_points.dtype.is_floating_point
    s64 = np.asarray(scales.detach().double()._data, dtype=np.float64).reshape(-1)
    shape = [1] * n
    shape[axis] = -1
    if float_zp:
        zf = np.asarray(zero_points.detach().float()._data, dtype=np.float32).reshape(-1)
        s32 = s64.astype(np.float32).reshape(shape)
        # float zero points (embedding tables): q = round(x / scale + zero_point)
        v = np.rint(x * (np.float32(1.0) / s32) + zf.reshape(shape))
        with np.errstate(invalid='ignore'):
            ints = np.clip(v, dtype._qmin, dtype._qmax).astype(dtype._int)
        qp = (D.per_channel_affine_float_qparams,
              _ember().tensor(s64.astype(np.float32)), _ember().tensor(zf), axis)
    else:
        z = np.asarray(zero_points.detach()._data).astype(np.int64).reshape(-1)
        for zi in z:
            _check_zero_point(int(zi), dtype, 'quantize_tensor_per_channel_affine')
        ints = _K.quantize_per_channel(x, s64, z, axis, dtype._name)
        qp = (D.per_channel_affine, _ember().tensor(s64), _ember().tensor(z), axis)
    _warn_deprecated()
    return _make(ints, dtype, qp)


def _dequant_array(q):
    """The float32 values of quantized tensor ``q`` (a new array)."""
    ints = _ints(q)
    qp = q._qp
    if len(qp) == 3:
        return _K.dequantize_per_tensor(ints, qp[1], qp[2])
    scheme, s, z, axis = qp
    if scheme is D.per_channel_affine_float_qparams:
        shape = [1] * ints.ndim
        shape[axis] = -1
        return (ints.astype(np.float32) - z._data.reshape(shape)) * s._data.reshape(shape)
    return _K.dequantize_per_channel(ints, s._data, z._data, axis)


def dequantize(tensor):
    r"""The real values of a quantized tensor, as float32: ``(q - zero_point) * scale``.

    Args:
        tensor (Tensor or list of Tensor): quantized tensor(s); a float tensor is returned
            as it is.

    Example::

        >>> q = ember.quantize_per_tensor(ember.tensor([0.3, 1.0]), 0.5, 0, ember.qint8)
        >>> ember.dequantize(q)
        tensor([0.5000, 1.0000])
    """
    if isinstance(tensor, (list, tuple)):
        return [dequantize(t) for t in tensor]
    if not _is_q(tensor):
        return tensor
    r = _dequant_array(tensor)
    cl = _cl(_ints(tensor))     # channels_last if the input suggests it, else contiguous
    if cl != _cl(r) or not (cl or r.flags.c_contiguous):
        r = _copy_laid_out(r, cl)
    return _ember().as_tensor(r)


def _int_param(t, fn):
    if not isinstance(t, Tensor):
        raise TypeError(f"{fn}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(t).__name__}")
    q = _INT_TO_Q.get(t.dtype)
    if q is None:
        raise RuntimeError("Creation of quantized tensor requires quantized dtype like "
                           "torch.quint8")
    return q


_INT_TO_Q = {D.int8: D.qint8, D.uint8: D.quint8, D.int32: D.qint32}


def _make_per_tensor_quantized_tensor(input, scale, zero_point):
    """A quantized tensor over the integers of ``input`` (uint8 -> quint8, int8 -> qint8,
    int32 -> qint32; copied), read with ``scale`` and ``zero_point``.

    Example::

        >>> q = ember._make_per_tensor_quantized_tensor(ember.tensor([1, 2], dtype=ember.uint8), 0.5, 1)
        >>> q.dequantize()
        tensor([0.0000, 0.5000])
    """
    qdt = _int_param(input, '_make_per_tensor_quantized_tensor')
    ints = input._data.copy()
    return _make(ints, qdt, (D.per_tensor_affine, float(_scalar_param(scale, 'scale')),
                             int(_scalar_param(zero_point, 'zero_point'))))


def _make_per_channel_quantized_tensor(input, scale, zero_point, axis):
    """A per-channel quantized tensor over the integers of ``input`` (copied), read with
    the 1-D ``scale`` and ``zero_point`` along ``axis``.

    Example::

        >>> i = ember.tensor([[1, 2], [3, 4]], dtype=ember.int8)
        >>> q = ember._make_per_channel_quantized_tensor(i, ember.tensor([1., 2.]), ember.tensor([0, 1]), 0)
        >>> q.dequantize()
        tensor([[1., 2.],
                [4., 6.]])
    """
    qdt = _int_param(input, '_make_per_channel_quantized_tensor')
    n = input.dim()
    if not 0 <= axis < n:
        raise RuntimeError(f"Channel axis out of range in per channel affine quantization. "
                           f"Got: {axis}Expected: [0, {n})")
    if scale.numel() != input.shape[axis]:
        raise RuntimeError(f"length of scales must equal to channel, expected "
                           f"{input.shape[axis]} got, {scale.numel()}")
    E = _ember()
    s = E.tensor(np.asarray(scale.detach().double()._data, dtype=np.float64).reshape(-1))
    z = E.tensor(np.asarray(zero_point.detach()._data).astype(np.int64).reshape(-1))
    return _make(input._data.copy(), qdt, (D.per_channel_affine, s, z, axis))


# ------------------------------------------------------------------ Tensor members
def _need_q(self, op):
    if not _is_q(self):
        raise _not_impl(op, 'CUDA' if self.device.type == 'cuda' else 'CPU')


def _need_per_tensor(self):
    if len(self._qp) != 3:
        raise RuntimeError("Expected quantizer->qscheme() == kPerTensorAffine to be true, but "
                           "got false.  (Could this error message be improved?  If so, please "
                           "report an enhancement request to PyTorch.)")


def _need_per_channel(self):
    if len(self._qp) != 4:
        raise RuntimeError("Expected quantizer->qscheme() == kPerChannelAffine || "
                           "quantizer->qscheme() == kPerChannelAffineFloatQParams to be true, "
                           "but got false.  (Could this error message be improved?  If so, "
                           "please report an enhancement request to PyTorch.)")


class _QuantizedMembers:
    """The quantizer accessors of ``Tensor`` (PyTorch's), bound onto it: a plain tensor
    raises PyTorch's ``NotImplementedError`` for the ``CPU`` backend."""

    def int_repr(self):
        """The integers of a quantized tensor as a plain integer tensor (uint8 for quint8,
        int8 for qint8, int32 for qint32), copied.

        Example::

            >>> ember.quantize_per_tensor(ember.tensor([1.0]), 0.5, 3, ember.qint8).int_repr()
            tensor([5], dtype=torch.int8)
        """
        _need_q(self, 'int_repr')
        a = _ints(self)
        return _ember().as_tensor(_copy_laid_out(a, _cl(a)))

    def dequantize(self):
        """The float32 values of a quantized tensor (``self`` for a float tensor); see
        :func:`ember.dequantize`."""
        return dequantize(self)

    def q_scale(self):
        """The scale of a per-tensor quantized tensor, as a Python float."""
        _need_q(self, 'q_scale')
        _need_per_tensor(self)
        return self._qp[1]

    def q_zero_point(self):
        """The zero point of a per-tensor quantized tensor, as a Python int."""
        _need_q(self, 'q_zero_point')
        _need_per_tensor(self)
        return self._qp[2]

    def q_per_channel_scales(self):
        """The scales of a per-channel quantized tensor (float64 tensor)."""
        _need_q(self, 'q_per_channel_scales')
        _need_per_channel(self)
        return self._qp[1].clone()

    def q_per_channel_zero_points(self):
        """The zero points of a per-channel quantized tensor (int64 tensor)."""
        _need_q(self, 'q_per_channel_zero_points')
        _need_per_channel(self)
        return self._qp[2].clone()

    def q_per_channel_axis(self):
        """The channel axis of a per-channel quantized tensor."""
        _need_q(self, 'q_per_channel_axis')
        _need_per_channel(self)
        return self._qp[3]

    def qscheme(self):
        """The :class:`ember.qscheme` of a quantized tensor.

        Example::

            >>> ember.quantize_per_tensor(ember.ones(2), 0.1, 0, ember.qint8).qscheme()
            torch.per_tensor_affine
        """
        _need_q(self, 'qscheme')
        return self._qp[0]


_bind(_QuantizedMembers)


# ------------------------------------------------------------------ printing
def _repr(t):
    from .._tensor_str import _add_suffixes, _body
    prefix = 'tensor('
    indent = len(prefix)
    a = _dequant_array(t)
    body = '[]' if a.size == 0 else _body(a, indent)
    suffixes = ['size=' + str(tuple(a.shape)), f'dtype={t.dtype}',
                f'quantization_scheme={t._qp[0]}']
    qp = t._qp
    if len(qp) == 3:
        suffixes += [f'scale={qp[1]!r}', f'zero_point={qp[2]}']
    else:
        suffixes += [f'scale={qp[1]!r}', f'zero_point={qp[2]!r}', f'axis={qp[3]}']
    return _add_suffixes(prefix + body, suffixes, indent)


# ------------------------------------------------------------------ the handler
def _plain(q):
    """A plain tensor of ``q``'s structured integer type sharing its storage (what the data
    movements run on)."""
    t = _new_tensor(q._data.view(np.ndarray))
    t._st = q._storage_obj()
    return t


def _rewrap(r, qp):
    """Results of a data movement on ``_plain`` tensors made quantized with ``qp``."""
    if isinstance(r, Tensor):
        if isinstance(r._data.dtype, np.dtype) and r._data.dtype.names is not None and \
                type(r) is Tensor and r.dtype in D._QUANTIZED:
            q = _make(r._data.view(np.ndarray).view(r.dtype._int), r.dtype, qp)
            q._st = r._st
            return q
        return r
    if isinstance(r, (list, tuple)):
        vals = [_rewrap(x, qp) for x in r]
        if type(r) in (list, tuple):
            return type(r)(vals)
        return type(r)(*vals) if hasattr(r, '_fields') else type(r)(vals)
    return r


def _unwrap(a):
    if _is_q(a):
        return _plain(a)
    if isinstance(a, (list, tuple)):
        return type(a)(_unwrap(x) for x in a)
    return a


# data movements: they run on the integers (a per-tensor quantizer is kept); PyTorch
# refuses views that set strides on a per-channel tensor
_MOVES = frozenset({
    'view', 'view_as', 'reshape', 'reshape_as', 'flatten', 'unflatten', 'squeeze', 'unsqueeze',
    't', 'transpose', 'permute', 'swapaxes', 'swapdims', 'movedim', 'moveaxis', 'getitem',
    'select', 'narrow', 'expand', 'expand_as', 'chunk', 'split', 'unbind', 'index_select',
    'as_strided', 'flip', 'repeat', 'stack', 'unfold', 'split_with_sizes', 'tensor_split',
    'squeeze_', 'unsqueeze_', 't_', 'transpose_', 'roll', 'diagonal', 'ravel', 'contiguous',
    'clone', 'detach', 'detach_', 'to', 'cpu', 'sort', 'topk', 'max', 'min', 'amax', 'amin',
})
_KEEPS_PER_CHANNEL = frozenset({'contiguous', 'clone', 'detach', 'detach_', 'to', 'cpu',
                                'reshape', 'view'})
_CASTS = frozenset({'float', 'double', 'half', 'bfloat16', 'int', 'long', 'short', 'char',
                    'byte', 'bool', 'type_as'})
_IMPL = {}     # op name -> function(*args, **kwargs) written for quantized tensors


def _q_torch_function(cls, func, types, args=(), kwargs=None):
    kwargs = kwargs or {}
    name = getattr(func, '_ember_op', None) or getattr(func, '__name__', '')
    impl = _IMPL.get(name)
    if impl is not None:
        return impl(*args, **kwargs)
    raw = getattr(func, '__wrapped__', func)
    if name in _MOVES or name in _QUANTIZED_MEMBERS:
        if name in _QUANTIZED_MEMBERS:
            return raw(*args, **kwargs)
        qs = [a for a in (list(args) + [x for a in args if isinstance(a, (list, tuple))
                                        for x in a]) if _is_q(a)]
        q = qs[0]
        if name == 'to' and any(isinstance(a, D.dtype) and a is not q.dtype
                                for a in list(args[1:]) + list(kwargs.values())):
            raise RuntimeError("Creation of quantized tensor requires quantized dtype like "
                               "torch.quint8")
        if len(q._qp) == 4 and name not in _KEEPS_PER_CHANNEL and name not in (
                'view', 'reshape', 'getitem', 'select', 'index_select'):
            raise RuntimeError("Setting strides is possible only on uniformly quantized tensor")
        if len(q._qp) == 4 and name in ('view', 'reshape'):
            n = q.shape[q._qp[3]]
            r = raw(*_unwrap(args), **kwargs)
            if r.dim() <= q._qp[3] or r.shape[q._qp[3]] != n:
                raise RuntimeError(f"length of scales must equal to channel, expected "
                                   f"{r.shape[q._qp[3]] if r.dim() > q._qp[3] else 0} got, {n}")
            return _rewrap(r, q._qp)
        if len(q._qp) == 4:
            return _per_channel_index(name, raw, q, args, kwargs)
        for other in qs[1:]:
            if other.dtype is not q.dtype:
                raise RuntimeError("All dtypes must be the same.")
        r = raw(*_unwrap(args), **kwargs)
        return _rewrap(r, q._qp)
    if name in _CASTS:
        raise RuntimeError("Creation of quantized tensor requires quantized dtype like "
                           "torch.quint8")
    if name in ('__repr__', '__str__', '__format__'):
        return _repr(args[0]) if name != '__format__' else format(_repr(args[0]), *args[1:])
    raise _not_impl(name.strip('_'))


_QUANTIZED_MEMBERS = frozenset(k for k in vars(_QuantizedMembers) if not k.startswith('__'))


def _per_channel_index(name, raw, q, args, kwargs):
    """Indexing a per-channel tensor: picking one channel gives a per-tensor tensor with
    that channel's parameters (as PyTorch); other indexings keep the per-channel quantizer
    when the channel axis stays whole and in place."""
    scheme, s, z, axis = q._qp
    r = raw(*_unwrap(args), **kwargs)
    if name == 'select' or name == 'getitem' and isinstance(args[1], int):
        d = args[1] if name == 'select' else 0
        i = args[2] if name == 'select' else args[1]
        if d % q.dim() == axis:
            c = i % q.shape[axis]
            return _rewrap(r, (D.per_tensor_affine, float(s[c].item()), int(z[c].item())))
        if d % q.dim() < axis:
            return _rewrap(r, (scheme, s, z, axis - 1))
    if r.dim() > axis and r.shape[axis] == q.shape[axis]:
        return _rewrap(r, q._qp)
    raise RuntimeError(f"Channel axis out of range in per channel affine dequantization. "
                       f"Got:{axis if r.dim() > axis else -1} Expected: [0, {r.dim()})")


_QTensor.__torch_function__ = classmethod(_q_torch_function)


def _cat(tensors, dim=0, *, out=None):
    """``cat`` of per-tensor quantized tensors: the result has the first tensor's scale and
    zero point; the others are requantized to them (PyTorch's quantized ``cat``)."""
    tensors = list(tensors)
    first = tensors[0]
    for t in tensors:
        if not _is_q(t):
            raise _not_impl('qscheme', 'CPU')
        if len(t._qp) != 3:
            raise RuntimeError("Only per-tensor quantization is supported in 'cat'!")
        if t.dtype is not first.dtype:
            raise RuntimeError("All dtypes must be the same.")
    _, scale, zp = first._qp
    parts = []
    for t in tensors:
        if t._qp[1:] == (scale, zp):
            parts.append(_plain(t))
        else:
            requant = _round_per_tensor(_dequant_array(t), scale, zp, first.dtype)
            parts.append(_new_tensor(requant.view(first.dtype._raw)))
    r = _ember().cat(parts, dim)
    return _rewrap(r, first._qp)


_IMPL['cat'] = _IMPL['concat'] = _IMPL['concatenate'] = _cat


def _stack(tensors, dim=0, *, out=None):
    """``stack`` of per-tensor quantized tensors: :func:`_cat` of the tensors unsqueezed at
    ``dim`` (the others requantized to the first's scale and zero point, as PyTorch)."""
    return _cat([t.unsqueeze(dim) if _is_q(t) else t for t in tensors], dim)


_IMPL['stack'] = _stack


def quantize_per_tensor_dynamic(input, dtype, reduce_range):
    r"""Quantizes a float32 tensor per tensor with a scale and zero point chosen from its
    own range (as dynamic quantization does for activations): the range ``[min, max]``
    widened to hold 0, mapped onto the dtype's integers (half of them with
    ``reduce_range``).

    Args:
        input (Tensor): float32 tensor.
        dtype (ember.dtype): ``ember.quint8`` or ``ember.qint8``.
        reduce_range (bool): use 7 bits instead of 8.

    Example::

        >>> q = ember.quantize_per_tensor_dynamic(ember.tensor([-1.0, 3.0]), ember.quint8, False)
        >>> q.q_zero_point()
        64
    """
    x = _float_input(input, 'Quantize')
    if dtype not in (D.quint8, D.qint8):
        raise RuntimeError(f"dtype {D._scalar_name(dtype) if isinstance(dtype, D.dtype) else dtype}"
                           "not supported")
    lo, hi = _K.tensor_min_max(x)
    scale, zp = _K.choose_qparams(lo, hi, dtype._qmin, dtype._qmax, reduce_range)
    return quantize_per_tensor(input, scale, zp, dtype)
