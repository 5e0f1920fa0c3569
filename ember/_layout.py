"""Output layouts: the strides PyTorch gives the result of an op, so that a permuted or
channels_last input gives a result laid out the same way.

Two rules, both computed here from shapes and strides (in elements) only:

* the **elementwise rule** (PyTorch's TensorIterator: pointwise ops, comparisons,
  ``where``, ``clamp``...): when every tensor operand has the output's shape and all
  are contiguous, the result is contiguous; when all are channels_last (4-d), it is
  channels_last; when all are non-overlapping and dense with the same strides, it has
  those strides. Otherwise the dimensions are sorted by the operands' strides
  (broadcast dimensions, which have stride 0, do not take part), the first operand
  deciding, later ones breaking its ties; equal non-zero strides put the larger
  dimension outside. The result is dense in that order.
* the **preserve rule** (``memory_format=torch.preserve_format``: ``clone``,
  ``empty_like`` and the other ``*_like`` factories, ``.to(dtype)``): a
  non-overlapping dense input's strides are kept exactly; otherwise the result is
  channels_last(_3d) when the input's strides suggest it, else contiguous.

The callers keep NumPy's result when every operand is C-contiguous (the hot path: one
flag read per operand) and call :func:`elementwise` otherwise, which re-strides or
copies NumPy's result only when its layout is not PyTorch's.

Layer 0 (arrays and strides only): the ops and autograd's gradient-layout contract
(``AccumulateGrad``) both use it.
"""
from ._backend import array_module

__all__ = ['elementwise', 'elementwise_strides', 'preserve_strides', 'empty_strided_arr',
           'relayout', 'preserve']


def _estrides(a):
    isz = a.itemsize
    return tuple(s // isz for s in a.strides)


def contiguous_strides(shape):
    """PyTorch's contiguous strides (sizes 0 count as 1)."""
    out = [0] * len(shape)
    acc = 1
    for d in range(len(shape) - 1, -1, -1):
        out[d] = acc
        n = shape[d]
        acc *= n if n > 1 else 1
    return tuple(out)


def is_contiguous(shape, st):
    """``Tensor.is_contiguous()``: dims of size 1 are not looked at; empties are."""
    expected = 1
    for d in range(len(shape) - 1, -1, -1):
        n = shape[d]
        if n == 0:
            return True
        if n != 1:
            if st[d] != expected:
                return False
            expected *= n
    return True


_CL_ORDER = {4: (1, 3, 2, 0), 5: (1, 4, 3, 2, 0)}


def is_channels_last(shape, st):
    """``is_contiguous(memory_format=channels_last)`` (4-d) / ``channels_last_3d`` (5-d)."""
    order = _CL_ORDER.get(len(shape))
    if order is None:
        return False
    expected = 1
    for d in order:
        n = shape[d]
        if n != 1:
            if st[d] != expected:
                return False
            expected *= n
    return True


def _cl_strides(shape):
    out = [0] * len(shape)
    acc = 1
    for d in _CL_ORDER[len(shape)]:
        out[d] = acc
        n = shape[d]
        acc *= n if n > 1 else 1
    return tuple(out)


def is_dense(shape, st):
    """Non-overlapping and dense: a permutation of a contiguous layout (dims of size < 2
    do not count)."""
    dims = sorted((st[d], shape[d]) for d in range(len(shape)) if shape[d] >= 2)
    want = 1
    for s, n in dims:
        if s != want:
            return False
        want *= n
    return True


def _strides_like_cl(shape, st):
    """Whether the strides suggest channels_last(_3d) (PyTorch's suggest_memory_format);
    ambiguous cases (N111, trivial C) count as contiguous."""
    order = _CL_ORDER.get(len(shape))
    if order is None or st[1] == 0:
        return False
    low = 0
    for d in order:
        n = shape[d]
        if n == 0 or st[d] < low:
            return False
        if d == 0 and low == st[1]:
            return False
        low = st[d] * n if n > 1 else st[d]
    return True


def preserve_strides(shape, st):
    """Strides of a ``preserve_format`` copy of a tensor with ``shape``/``st``."""
    if is_dense(shape, st):
        return tuple(st)
    if len(shape) < 2:
        return contiguous_strides(shape)
    return _sorted_dense(tuple(shape), [list(st)]) or contiguous_strides(shape)


def elementwise_strides(shape, ops):
    """Strides of the result of an elementwise op over operands ``ops`` (a sequence of
    ``(shape, strides)`` of the tensor operands, first operand first; 0-dim ones
    included) broadcast to ``shape``. ``None`` means contiguous."""
    nd = len(shape)
    if not nd:
        return None
    shape = tuple(shape)
    if all(s == shape for s, _ in ops):
        if all(is_contiguous(s, t) for s, t in ops):
            return None
        if nd == 4 and all(is_channels_last(s, t) for s, t in ops):
            return _cl_strides(shape)
        st0 = tuple(ops[-1][1])
        if all(tuple(t) == st0 for _, t in ops) and is_dense(shape, st0):
            return st0
    if nd == 1:
        return None
    # the operands' strides after broadcasting to ``shape``
    return _sorted_dense(shape, _broadcast_strides(shape, ops))


def _broadcast_strides(shape, ops):
    nd = len(shape)
    bst = []
    for s, t in ops:
        off = nd - len(s)
        b = [0] * nd
        for i in range(len(s)):
            if not (s[i] == 1 and shape[off + i] != 1):
                b[off + i] = t[i]
        bst.append(b)
    return bst


def _sorted_dense(shape, bst):
    """Dense strides whose dimension order follows the strides ``bst`` of the operands
    (first operand first); ``None`` when that order is C's."""
    nd = len(shape)

    def order(d0, d1):   # 1: d0 goes inside of d1; -1: outside; 0: undecided
        for b in bst:
            s0, s1 = b[d0], b[d1]
            if s0 == 0 or s1 == 0:
                continue
            if s0 < s1:
                return -1
            if s0 > s1:
                return 1
            if shape[d0] > shape[d1]:
                return 1
        return 0

    # perm[0] is the innermost dimension; start from C order, insertion sort
    perm = list(range(nd - 1, -1, -1))
    for i in range(1, nd):
        j1 = i
        for j0 in range(i - 1, -1, -1):
            c = order(perm[j0], perm[j1])
            if c > 0:
                perm[j0], perm[j1] = perm[j1], perm[j0]
                j1 = j0
            elif c < 0:
                break
    if all(perm[j] == nd - 1 - j for j in range(nd)):
        return None
    out = [0] * nd
    acc = 1
    for d in perm:
        out[d] = acc
        acc *= shape[d]
    return tuple(out)


def empty_strided_arr(xp, shape, strides, dtype):
    """An uninitialised array of ``shape`` with exactly ``strides`` (elements, dense)."""
    n = 1
    for s in shape:
        n *= s
    buf = xp.empty(n, dtype=dtype)
    if n == 0:
        return buf.reshape(shape)
    isz = buf.itemsize
    return xp.lib.stride_tricks.as_strided(buf, tuple(shape), tuple(s * isz for s in strides))


def with_strides(a, strides):
    """Array ``a`` re-labelled with ``strides`` (elements): for empty arrays, and for
    strides that differ from ``a``'s only on dims of size 1."""
    isz = a.itemsize
    return array_module(a).lib.stride_tricks.as_strided(a, a.shape,
                                                         tuple(s * isz for s in strides))


def relayout(r, strides):
    """Array ``r`` with ``strides`` (``None``: contiguous): ``r`` itself, ``r``
    re-strided where only dims of size 1 differ, or a copy."""
    shape = r.shape
    if strides is None:
        strides = contiguous_strides(shape)
    have = _estrides(r)
    if have == strides:
        return r
    xp = array_module(r)
    isz = r.itemsize
    if not r.size or all(h == w for h, w, n in zip(have, strides, shape) if n != 1):
        return xp.lib.stride_tricks.as_strided(r, shape, tuple(s * isz for s in strides))
    out = empty_strided_arr(xp, shape, strides, r.dtype)
    out[...] = r
    return out


def elementwise(r, *arrays):
    """NumPy's result ``r`` of an elementwise op over ``arrays`` (the operands' arrays,
    first first; scalars allowed), laid out as PyTorch lays it out. Called when some
    operand is not C-contiguous."""
    if r.ndim < 2:
        return r
    ops = [(a.shape, _estrides(a)) for a in arrays if hasattr(a, 'strides')]
    st = elementwise_strides(r.shape, ops)
    if not r.size:   # an empty result: only its reported strides
        return with_strides(r, st or contiguous_strides(r.shape))
    return relayout(r, st)


def c_exact(a):
    """Whether array ``a`` is C-contiguous with C's strides on its dims of size 1 too
    (NumPy's flag does not look at those; PyTorch's stride() shows them)."""
    if not a.flags.c_contiguous:
        return False
    shape = a.shape
    if not a.size:
        return _estrides(a) == contiguous_strides(shape) or not any(a.strides)
    if 1 not in shape:
        return True
    isz = a.itemsize
    acc = isz
    for n, s in zip(reversed(shape), reversed(a.strides)):
        if s != acc:
            return False
        acc *= n
    return True


def preserve(a, dtype=None):
    """An uninitialised array like ``a`` (``dtype`` or ``a``'s) laid out by the preserve
    rule."""
    xp = array_module(a)
    dt = a.dtype if dtype is None else dtype
    if c_exact(a):
        return xp.empty(a.shape, dtype=dt)
    st = preserve_strides(a.shape, _estrides(a))
    if not a.size:
        return with_strides(xp.empty(a.shape, dtype=dt), st)
    return empty_strided_arr(xp, a.shape, st, dt)


def fill_like(values, like, memory_format=None):
    """Array ``values`` (C order, ``like``'s shape: values drawn in sequence) laid out as a
    ``preserve_format`` result of ``like``, the values taking memory in the order they
    were drawn (as PyTorch's random fills do)."""
    if values.ndim < 2 or (memory_format is not None and
                           str(memory_format) != 'torch.preserve_format') or c_exact(like):
        return values
    shape = like.shape
    st = preserve_strides(shape, _estrides(like))
    isz = values.itemsize
    return array_module(values).lib.stride_tricks.as_strided(
        values.reshape(-1), shape, tuple(s * isz for s in st))


def suggests_channels_last(a):
    """Whether array ``a`` (4-d or 5-d) is laid out channels_last(_3d) by PyTorch's
    ``suggest_memory_format`` (ambiguous layouts, such as N111, count as contiguous)."""
    if a.ndim not in (4, 5) or not a.size:
        return False
    return _strides_like_cl(a.shape, _estrides(a))


def channels_last_like(r, *arrays):
    """Result ``r`` (4-d or 5-d, C order) of a convolution or normalization, in
    channels_last(_3d) when any of ``arrays`` suggests it, as PyTorch's CPU kernels
    lay out their outputs."""
    if r.ndim not in (4, 5) or not any(suggests_channels_last(a) for a in arrays if a is not None):
        return r
    return relayout(r, _cl_strides(r.shape))
