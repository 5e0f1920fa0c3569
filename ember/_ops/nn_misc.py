"""The small remaining names of ``torch.nn.functional``: ``bilinear`` (and
``torch.bilinear``), ``conv_tbc`` (and ``torch.conv_tbc``), ``grouped_mm``, ``scaled_mm``,
``scaled_grouped_mm``, the helper functions and constants PyTorch's functional module
exposes (``boolean_dispatch``, ``assert_int_or_pair``, ``BroadcastingList1/2/3``, the
typing names, the grid-sample mode tables, the doc-note dicts, ``ScalingType`` /
``SwizzleType``), and the ``__torch_function__`` helpers, which are ``ember.overrides``'
own functions (loaded lazily: that namespace sits above the op library).

``__all__`` lists the names ``ember.nn.functional`` re-exports."""
import collections.abc
import enum
import typing

import numpy as np

from .._tensor import Tensor, _Mode, _legacy_name
from .._backend import array_module
from . import _args
from ._util import wrap, Node, register, record

__all__ = ['bilinear', 'conv_tbc', 'grouped_mm', 'scaled_mm', 'scaled_grouped_mm',
           'boolean_dispatch', 'assert_int_or_pair', 'BroadcastingList1', 'BroadcastingList2',
           'BroadcastingList3', 'Callable', 'DType', 'Optional', 'TYPE_CHECKING',
           'GRID_SAMPLE_INTERPOLATION_MODES', 'GRID_SAMPLE_PADDING_MODES',
           'reproducibility_notes', 'sparse_support_notes', 'tf32_notes', 'ScalingType',
           'SwizzleType']
# (F.has_torch_function & co are ember.overrides' functions: nn/functional.py re-exports them)


# ------------------------------------------------------------------ typing names, tables
Callable = collections.abc.Callable
Optional = typing.Optional
DType = int
TYPE_CHECKING = False

GRID_SAMPLE_INTERPOLATION_MODES = {'bilinear': 0, 'nearest': 1, 'bicubic': 2}
GRID_SAMPLE_PADDING_MODES = {'zeros': 0, 'border': 1, 'reflection': 2}

reproducibility_notes = {
    'forward_reproducibility_note':
        "This operation may be nondeterministic on an accelerator; ember's CPU kernels "
        "are deterministic.",
    'backward_reproducibility_note':
        "The backward pass of this operation may be nondeterministic on an accelerator; "
        "ember's CPU kernels are deterministic.",
    'cudnn_reproducibility_note':
        "With cuDNN on a GPU this operation may choose a nondeterministic algorithm; see "
        "the notes on reproducibility.",
}
sparse_support_notes = {
    'sparse_beta_warning':
        ".. warning:: Sparse support is a beta feature; ember computes sparse layouts "
        "densely.",
}
tf32_notes = {
    'tf32_note':
        "On Ampere and newer NVIDIA GPUs this operation may use TensorFloat-32 for float32 "
        "inputs; on the CPU it computes in full float32.",
}


class BroadcastingListCls:
    """TorchScript's ``BroadcastingListN[T]`` annotation (a ``T`` or a list of ``N`` of
    them). In eager Python it only has to be subscriptable; the result is None.

    Example::

        >>> F.BroadcastingList2[int] is None
        True
    """

    def __getitem__(self, types):
        return None


BroadcastingList1 = BroadcastingList2 = BroadcastingList3 = BroadcastingListCls()


def boolean_dispatch(arg_name, arg_index, default, if_true, if_false, module_name, func_name):
    """A function that calls ``if_true`` or ``if_false`` depending on a boolean argument,
    found as keyword ``arg_name``, else at position ``arg_index``, else ``default`` (how
    ``F.max_pool2d`` picks its ``return_indices`` form).

    Args:
        arg_name (str): keyword name of the flag.
        arg_index (int): its position.
        default (bool): its value when not passed.
        if_true, if_false (callable): the two implementations (at most one documented).
        module_name (str): ``__module__`` of the result.
        func_name (str): ``__name__`` of the result.

    Example::

        >>> f = F.boolean_dispatch('twice', 1, False, lambda x, twice=False: 2 * x,
        ...                        lambda x, twice=False: x, 'mod', 'f')
        >>> f(3), f(3, True), f.__name__
        (3, 6, 'f')
    """
    def fn(*args, **kwargs):
        if arg_name in kwargs:
            flag = kwargs[arg_name]
        elif arg_index < len(args):
            flag = args[arg_index]
        else:
            flag = default
        return if_true(*args, **kwargs) if flag else if_false(*args, **kwargs)

    # the one docstring is shared by both implementations and the dispatcher (as PyTorch)
    if if_true.__doc__ is None and if_false.__doc__ is not None:
        if_true.__doc__ = fn.__doc__ = if_false.__doc__
    elif if_false.__doc__ is None and if_true.__doc__ is not None:
        if_false.__doc__ = fn.__doc__ = if_true.__doc__
    elif if_false.__doc__ is not None and if_true.__doc__ is not None:
        raise RuntimeError("only one function can have a docstring")
    fn.__module__ = module_name
    fn.__name__ = func_name
    return fn


def assert_int_or_pair(arg, arg_name, message):
    """Asserts that ``arg`` is an int or has two entries; ``message.format(arg_name)`` is
    the AssertionError's text.

    Args:
        arg: the value checked.
        arg_name (str): its name, for the message.
        message (str): a format string with one ``{}``.

    Example::

        >>> F.assert_int_or_pair((2, 3), 'kernel_size', '{} must be int or pair')
    """
    assert isinstance(arg, int) or len(arg) == 2, message.format(arg_name)


class _IntEnum(enum.Enum):
    """An enum whose members convert to int (as PyTorch's bound C++ enums do) and print as
    ``Type.Member``."""

    def __int__(self):
        return self.value

    __index__ = __int__


class _ScalingType(_IntEnum):
    """How the scales of a :func:`scaled_mm` operand are laid out."""
    TensorWise = 0
    RowWise = 1
    BlockWise1x16 = 2
    BlockWise1x32 = 3
    BlockWise1x128 = 4
    BlockWise128x128 = 5


class _SwizzleType(_IntEnum):
    """The swizzle pattern of a :func:`scaled_mm` scale tensor."""
    NO_SWIZZLE = 0
    SWIZZLE_32_4_4 = 1


_ScalingType.__module__ = _SwizzleType.__module__ = 'ember.nn.functional'
ScalingType = _ScalingType
SwizzleType = _SwizzleType


# ------------------------------------------------------------------------------ bilinear
class TrilinearBackward0(Node):
    def backward(self, g):
        x1, w, x2 = self.saved_tensors
        from .products import einsum
        n = self.needs
        g1 = einsum('bo,oij,bj->bi', g, w, x2) if n[0] else None
        gw = einsum('bo,bi,bj->oij', g, x1, x2) if n[1] else None
        g2 = einsum('bo,oij,bi->bj', g, w, x1) if n[2] else None
        return g1, gw, g2


def _trilinear(x1, w, x2):
    """``out[b, o] = sum_ij x1[b, i] w[o, i, j] x2[b, j]`` for 2-D ``x1``, ``x2``."""
    a, W, c = x1._data, w._data, x2._data
    xp = array_module(a)
    B, i = a.shape
    o, _, j = W.shape
    if B == 0 or o == 0:
        res = xp.zeros((B, o), np.result_type(a.dtype, W.dtype, c.dtype))
    else:
        t = (a @ W.transpose(1, 0, 2).reshape(i, o * j)).reshape(B, o, j)
        res = xp.matmul(t, c[:, :, None])[..., 0]
    out = wrap(res)
    if _Mode.grad and (x1._rg or w._rg or x2._rg):
        record(out, TrilinearBackward0(), (x1, w, x2), save=(x1, w, x2))
    return out


def _dtname(t):
    return {'Float': 'float', 'Double': 'double', 'Long': 'long int', 'Int': 'int',
            'Half': 'c10::Half', 'BFloat16': 'c10::BFloat16'}.get(_legacy_name(t.dtype),
                                                                   _legacy_name(t.dtype))


@register(method=False)
def bilinear(input1, input2, weight, bias=None):
    """Applies a bilinear transformation: ``y = x1^T A x2 + b``, i.e.
    ``y[..., o] = sum_ij x1[..., i] weight[o, i, j] x2[..., j] + bias[o]``.

    Args:
        input1 (Tensor): ``(*, in1_features)``.
        input2 (Tensor): ``(*, in2_features)``, same leading dims.
        weight (Tensor): ``(out_features, in1_features, in2_features)``.
        bias (Tensor, optional): ``(out_features)``.

    Shape:
        - output: ``(*, out_features)``.

    Example::

        >>> F.bilinear(ember.ones(2, 3), ember.ones(2, 4), ember.ones(5, 3, 4)).shape
        torch.Size([2, 5])
    """
    for t, arg, pos in ((input1, 'input1', 1), (input2, 'input2', 2), (weight, 'weight', 3)):
        if not isinstance(t, Tensor):
            _args.tensor(t, 'bilinear', arg, pos)
    if bias is not None and not isinstance(bias, Tensor):
        _args.tensor(bias, 'bilinear', 'bias', 4)
    ts = (input1, input2, weight) + ((bias,) if bias is not None else ())
    if any(t.dtype != input1.dtype for t in ts):
        raise RuntimeError(
            f"All tensors must have the same dtype, got input1: {_dtname(input1)}, input2: "
            f"{_dtname(input2)}, weight: {_dtname(weight)}, bias: "
            f"{_dtname(bias) if bias is not None else 'undefined'}")
    n1, n2 = input1.dim(), input2.dim()
    if n1 != n2:
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {n1} and {n2}")
    s1, s2 = input1.shape, input2.shape
    for i in range(n1 - 1):
        if s1[i] != s2[i]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {i}: "
                               f"got {s1[i]} and {s2[i]}")
    if input1.size(-1) != weight.size(1):
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got "
                           f"{input1.size(-1)} but expected {weight.size(1)}")
    if input2.size(-1) != weight.size(2):
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got "
                           f"{input2.size(-1)} but expected {weight.size(2)}")
    if bias is not None and bias.size(0) != weight.size(0):
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got "
                           f"{bias.size(0)} but expected {weight.size(0)}")
    out_shape = tuple(s1[:-1]) + (weight.size(0),)
    x1 = input1.reshape(-1, s1[-1])
    x2 = input2.reshape(-1, s2[-1])
    out = _trilinear(x1, weight, x2).reshape(out_shape)
    if bias is not None:
        out = out + bias
    return out


# ------------------------------------------------------------------------------ conv_tbc
class ConvTbcBackward0(Node):
    __slots__ = ('pad',)

    def backward(self, g):
        x, w, b = self.saved_tensors
        pad = self.pad
        n = self.needs
        k = w.shape[0]
        gx = gw = gb = None
        if n[0]:
            t = x.shape[0]
            if g.shape[0] == 0:
                gx = x.new_zeros(x.shape).to(g.dtype)
            else:
                wf = w.flip(0).transpose(1, 2)
                full = conv_tbc(g, wf, g.new_zeros((wf.shape[2],)), k - 1)   # (T + 2 pad)
                gx = _pad_time(full, -pad) if pad else full
                if gx.shape[0] != t:
                    gx = gx.narrow(0, 0, t)
        if n[1]:
            from .products import einsum
            xp_ = _pad_time(x, pad) if pad else x
            if g.shape[0] == 0:
                gw = w.new_zeros(w.shape)
            else:
                win = xp_.unfold(0, g.shape[0], 1)                  # (K, B, C, T_out)
                gw = einsum('kbct,tbo->kco', win, g)
        if n[2]:
            gb = g.sum((0, 1))
        return gx, gw, gb


def _pad_time(x, pad):
    """Zero-pad (``pad > 0``) or crop (``pad < 0``) dim 0 of ``x`` by ``pad`` at each end."""
    if pad >= 0:
        from .shape import cat
        z = x.new_zeros((pad,) + tuple(x.shape[1:]))
        return cat([z, x, z], 0)
    return x.narrow(0, -pad, x.shape[0] + 2 * pad)


@register(method=False)
def conv_tbc(input, weight, bias, pad=0):
    """A 1-D convolution over sequences laid out as (time, batch, channels):
    ``out[t, b, o] = bias[o] + sum_k sum_c x[t + k, b, c] weight[k, c, o]``, ``x`` being
    ``input`` zero-padded by ``pad`` steps at both ends (cropped when ``pad`` < 0).

    Args:
        input (Tensor): ``(T, B, C_in)``.
        weight (Tensor): ``(K, C_in, C_out)``.
        bias (Tensor): ``(C_out)``.
        pad (int): time steps of zero padding at each end. Default: 0

    Shape:
        - output: ``(T + 2 * pad - K + 1, B, C_out)``.

    Example::

        >>> F.conv_tbc(ember.ones(5, 2, 3), ember.ones(3, 3, 4), ember.zeros(4)).shape
        torch.Size([3, 2, 4])
    """
    for t, arg, pos in ((input, 'self', 1), (weight, 'weight', 2), (bias, 'bias', 3)):
        if not isinstance(t, Tensor):
            _args.tensor(t, 'conv_tbc', arg, pos)
    if type(pad) is not int:
        pad = _args.as_int(pad, 'conv_tbc', 'pad', 4)
    if input.dim() != 3:
        raise RuntimeError("Input must have 3 dims: time, batch, in_channel")
    if weight.dim() != 3:
        raise RuntimeError("Weight tensor must have 3 dims: kernel_width, in_channels, "
                           "out_channels.")
    if bias.dim() != 1:
        raise RuntimeError("Bias must be 1-D")
    T, B, C = input.shape
    K, Cw, O = weight.shape
    if bias.shape[0] != O:
        raise RuntimeError("Bias size must equal dim 2 in the weight tensor (output channels).")
    if C != Cw:
        raise RuntimeError("Input dim 2 (input channels) is not == dim 1 in the weight tensor")
    if input.dtype != weight.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got "
                           f"{_legacy_name(input.dtype)} and {_legacy_name(weight.dtype)}")
    t_out = T + 2 * pad - K + 1
    if t_out < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {t_out}: "
                           f"[{t_out}, {B}, {O}]")
    a, w = input._data, weight._data
    xp = array_module(a)
    if pad > 0:
        z = xp.zeros((pad, B, C), a.dtype)
        a = xp.concatenate([z, a, z], 0)
    elif pad < 0:
        a = a[-pad:T + pad]
    out = xp.empty((t_out, B, O), a.dtype)
    out[...] = bias._data
    if t_out and K and B and C:
        win = xp.lib.stride_tricks.sliding_window_view(a, K, axis=0)   # (T_out, B, C, K)
        out += xp.tensordot(win, w, axes=([3, 2], [0, 1])).astype(a.dtype, copy=False)
    res = wrap(out)
    if _Mode.grad and (input._rg or weight._rg or bias._rg):
        node = ConvTbcBackward0()
        node.pad = pad
        record(res, node, (input, weight, bias), save=(input, weight, bias))
    return res


# ---------------------------------------------------------------------------- grouped_mm
_GMM_DTYPES = {'float32', 'bfloat16', 'float16'}


class GroupedMmBackward0(Node):
    __slots__ = ('offs',)

    def backward(self, g):
        # every layout's gradients are grouped products again, with the same groups:
        # d a = g @ b^T and d b = a^T @ g, group by group
        a, b = self.saved_tensors
        n = self.needs
        ga = _gmm(g, b.transpose(-2, -1), self.offs) if n[0] else None
        gb = _gmm(a.transpose(-2, -1), g, self.offs) if n[1] else None
        return ga, gb


def _gmm_check_strides(t):
    st, sz, isz = t.stride(), t.shape, t._data.dtype.itemsize
    for s, n in zip(st, sz):
        if s != 1 and n > 1 and (s * isz) % 16:
            raise RuntimeError("strides should be multiple of 16 bytes")


def _host(a):
    return a if type(a) is np.ndarray else a.get()


def grouped_mm(mat_a, mat_b, *, offs=None, bias=None, out_dtype=None):
    """A grouped matrix product, as in Mixture-of-Experts layers: groups of rows (or
    columns, or of the contraction dim) of one operand, given by the ends ``offs``, are
    multiplied with one matrix each of the other.

    * 3-D x 3-D (no ``offs``): a batched product, ``out[g] = a[g] @ b[g]``.
    * 2-D ``(M, K)`` x 3-D ``(G, K, N)``: ``out[s:e] = a[s:e] @ b[g]`` for the rows of group g.
    * 3-D ``(G, M, K)`` x 2-D ``(K, N)``: ``out[:, s:e] = a[g] @ b[:, s:e]``.
    * 2-D ``(M, K)`` x 2-D ``(K, N)``: ``out[g] = a[:, s:e] @ b[s:e]``, shape ``(G, M, N)``.

    Inputs are float32, bfloat16 or float16; ``offs`` is an int32 1-D tensor of increasing
    group ends. NOTE: unlike PyTorch, where the rows/columns past ``offs[-1]`` of the
    result are left uninitialised, ember writes zeros there.

    Args:
        mat_a (Tensor): the left operand (2-D or 3-D).
        mat_b (Tensor): the right operand (2-D or 3-D).
        offs (Tensor, optional): int32 group ends (needed when an operand is 2-D).
        bias (Tensor, optional): not supported (RuntimeError, as in PyTorch).
        out_dtype (dtype, optional): must be ``mat_a``'s dtype.

    Example::

        >>> a, b = ember.ones(6, 8), ember.ones(3, 8, 4)
        >>> F.grouped_mm(a, b, offs=ember.tensor([2, 4, 6], dtype=ember.int32)).shape
        torch.Size([6, 4])
    """
    for t, arg, pos in ((mat_a, 'self', 1), (mat_b, 'mat2', 2)):
        if not isinstance(t, Tensor):
            _args.tensor(t, '_grouped_mm', arg, pos)
    for t, nm in ((mat_a, 'mat_a'), (mat_b, 'mat_b')):
        if str(t._data.dtype) not in _GMM_DTYPES:
            raise RuntimeError(f"Expected {nm} to be Float32, BFloat16 or Float16 matrix, got "
                               f"{_legacy_name(t.dtype)}")
    da, db = mat_a.dim(), mat_b.dim()
    if da not in (2, 3):
        raise RuntimeError("mat_a has to be 2 or 3d")
    if db not in (2, 3):
        raise RuntimeError("mat_b has to be 2 or 3d")
    if (offs is not None) != (da == 2 or db == 2):
        raise RuntimeError("Have to provide offsets if there is a 2d matrix, or no offset if "
                           "both matrices are 3d")
    if offs is not None and offs.dtype._np != np.int32:
        raise RuntimeError("Offsets have to be int32")
    if bias is not None:
        raise RuntimeError("Bias not supported yet")
    if out_dtype is not None and out_dtype != mat_a.dtype:
        raise RuntimeError("Grouped gemm output dtype must match `mat_a` dtype")
    if mat_a.dtype != mat_b.dtype:
        raise RuntimeError(f"Expected out tensor to have dtype {_dtname(mat_a)}, but got "
                           f"{_dtname(mat_b)} instead")
    if mat_a.shape[-1] != mat_b.shape[-2]:
        raise RuntimeError("contraction dimension of mat_a and mat_b must match")
    if da == 3 and db == 3 and mat_a.shape[0] != mat_b.shape[0]:
        raise RuntimeError("batched dimension has to match")
    ends = None
    if offs is not None:
        if offs.dim() != 1:
            raise RuntimeError("offs has to be 1D")
        ends = [int(v) for v in _host(offs._data)]
        groups = mat_b.shape[0] if db == 3 else (mat_a.shape[0] if da == 3 else None)
        if groups is not None and groups != len(ends):
            raise RuntimeError("matrix batch sizes have to match")
    _gmm_check_strides(mat_a)
    _gmm_check_strides(mat_b)
    return _gmm(mat_a, mat_b, offs, ends)


def _gmm(mat_a, mat_b, offs, ends=None):
    """The grouped product of checked operands (also the backward's)."""
    if offs is not None and ends is None:
        ends = [int(v) for v in _host(offs._data)]
    a, b = mat_a._data, mat_b._data
    da, db = a.ndim, b.ndim
    xp = array_module(a)
    dt = a.dtype
    low = dt.itemsize < 4 or dt.kind == 'V'
    A = a.astype(np.float32) if low else a
    Bm = b.astype(np.float32) if low else b
    if ends is None:
        r = xp.matmul(A, Bm)
    else:
        starts = [0] + ends[:-1]
        if da == 2 and db == 3:
            r = xp.zeros((A.shape[0], Bm.shape[2]), A.dtype)
            for g, (s, e) in enumerate(zip(starts, ends)):   # one product per group
                r[s:e] = A[s:e] @ Bm[g]
        elif da == 3:
            r = xp.zeros((A.shape[1], Bm.shape[1]), A.dtype)
            for g, (s, e) in enumerate(zip(starts, ends)):
                r[:, s:e] = A[g] @ Bm[:, s:e]
        else:
            r = xp.zeros((len(ends), A.shape[0], Bm.shape[1]), A.dtype)
            for g, (s, e) in enumerate(zip(starts, ends)):
                r[g] = A[:, s:e] @ Bm[s:e]
    res = wrap(r.astype(dt) if low else r)
    if _Mode.grad and (mat_a._rg or mat_b._rg):
        node = GroupedMmBackward0()
        node.offs = offs
        record(res, node, (mat_a, mat_b), save=(mat_a, mat_b))
    return res


# --------------------------------------------------------------------- scaled (float8) mm
def _scale_desc(t):
    if isinstance(t, (list, tuple)):
        t = t[0] if t else None
    if not isinstance(t, Tensor):
        return 'undefined', '[]', '[]'
    return (_legacy_name(t.dtype), '[' + ', '.join(map(str, t.shape)) + ']',
            '[' + ', '.join(map(str, t.stride())) + ']')


def scaled_mm(mat_a, mat_b, scale_a, scale_recipe_a, scale_b, scale_recipe_b, swizzle_a=None,
              swizzle_b=None, bias=None, output_dtype=None, contraction_dim=(),
              use_fast_accum=False):
    """A matrix product of scaled low-precision (float8 / float4) operands:
    ``(mat_a * scale_a) @ (mat_b * scale_b)`` with the scales laid out as
    ``scale_recipe_a`` / ``scale_recipe_b`` say.

    NOTE: unlike PyTorch, ember has no float8 or float4 dtypes, so no valid operands can
    be built: this always raises PyTorch's ValueError for operands that are not float8
    ("Invalid scaling configuration ...").

    Args:
        mat_a, mat_b (Tensor): the operands (float8 in PyTorch).
        scale_a, scale_b (Tensor or list): decoding scales.
        scale_recipe_a, scale_recipe_b (ScalingType or list): their layouts.
        swizzle_a, swizzle_b (SwizzleType, optional): scale swizzling.
        bias (Tensor, optional): added to the output.
        output_dtype (dtype, optional): output dtype (PyTorch's default: bfloat16).
        contraction_dim (tuple of ints): which dims are K.
        use_fast_accum (bool): fast accumulation (Hopper GPUs).

    Example::

        >>> try:
        ...     F.scaled_mm(ember.ones(4, 4), ember.ones(4, 4), ember.tensor(1.),
        ...                 F.ScalingType.TensorWise, ember.tensor(1.), F.ScalingType.TensorWise)
        ... except ValueError as e:
        ...     print(str(e).splitlines()[0])
        Invalid scaling configuration.
    """
    for t, arg, pos in ((mat_a, 'self', 1), (mat_b, 'mat2', 2)):
        if not isinstance(t, Tensor):
            _args.tensor(t, '_scaled_mm_v2', arg, pos)
    m = mat_a.shape[0] if mat_a.dim() else 1
    n = mat_b.shape[-1] if mat_b.dim() else 1
    da, db = _legacy_name(mat_a.dtype), _legacy_name(mat_b.dtype)
    sa_dt, sa_sz, sa_st = _scale_desc(scale_a)
    sb_dt, sb_sz, sb_st = _scale_desc(scale_b)
    raise ValueError(
        "Invalid scaling configuration.\n"
        "- For TensorWise scaling, a and b should be float8, scales should be float and "
        "singletons.\n"
        f"- For RowWise scaling, a and b should be float8, scales should be float, scale_a "
        f"should be ({m}, 1) and scale_b should be (1, {n}), and both should be contiguous.\n"
        f"Got mat_a.dtype()={da}, scale_a.dtype()={sa_dt}, scale_a.size()={sa_sz}, "
        f"scale_a.stride()={sa_st}, mat_b.dtype()={db}, scale_b.dtype()={sb_dt}, "
        f"scale_b.size()={sb_sz} and scale_b.stride()={sb_st}")


def scaled_grouped_mm(mat_a, mat_b, scale_a, scale_recipe_a, scale_b, scale_recipe_b,
                      swizzle_a=None, swizzle_b=None, bias=None, offs=None, output_dtype=None,
                      contraction_dim=(), use_fast_accum=False):
    """The grouped form of :func:`scaled_mm` (see :func:`grouped_mm` for the groups).

    NOTE: as PyTorch's CPU build, ember has no kernel for it: it raises
    NotImplementedError (PyTorch runs it on CUDA only).

    Args:
        mat_a, mat_b, scale_a, scale_recipe_a, scale_b, scale_recipe_b, swizzle_a,
            swizzle_b, bias, output_dtype, contraction_dim, use_fast_accum: as for
            :func:`scaled_mm`.
        offs (Tensor, optional): int32 group ends.

    Example::

        >>> try:
        ...     F.scaled_grouped_mm(ember.ones(4, 4), ember.ones(4, 4), ember.tensor(1.),
        ...                         F.ScalingType.TensorWise, ember.tensor(1.),
        ...                         F.ScalingType.TensorWise)
        ... except NotImplementedError:
        ...     print('no CPU kernel')
        no CPU kernel
    """
    raise NotImplementedError(
        "Could not run 'aten::_scaled_grouped_mm_v2' with arguments from the 'CPU' backend. "
        "This could be because the operator doesn't exist for this backend, or was omitted "
        "during the selective/custom build process (if using custom build). "
        "'aten::_scaled_grouped_mm_v2' is only available for these backends: [CUDA].")
