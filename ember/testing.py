"""``ember.testing``: :func:`assert_close` (PyTorch's comparison with per-dtype default
tolerances and its failure messages) and :func:`make_tensor` (random test tensors)."""
import collections.abc
import math

import numpy as np

from . import _dtype as D
from ._tensor import Tensor

__all__ = ['assert_close', 'make_tensor', 'assert_allclose']

# default (rtol, atol) per dtype, as in PyTorch; other dtypes compare exactly
_TOLS = {
    D.float16: (1e-3, 1e-5), D.bfloat16: (1.6e-2, 1e-5), D.float32: (1.3e-6, 1e-5),
    D.float64: (1e-7, 1e-7), D.complex64: (1.3e-6, 1e-5), D.complex128: (1e-7, 1e-7),
}


class _Fail(Exception):
    """A comparison failure: ``exc_type`` and message, plus the path of the failing item."""

    def __init__(self, exc_type, msg):
        super().__init__(msg)
        self.exc_type = exc_type
        self.msg = msg
        self.path = ''


def _tols(dts):
    rt = at = 0.0
    for d in dts:
        r, a = _TOLS.get(d, (0.0, 0.0))
        rt, at = max(rt, r), max(at, a)
    return rt, at


def _scalar_tensor(x):
    from ._ops.creation import tensor
    if isinstance(x, bool):
        return tensor(x)
    if isinstance(x, int):
        return tensor(x, dtype=D.int64)
    if isinstance(x, float):
        return tensor(x, dtype=D.float64)
    return tensor(x, dtype=D.complex128)


def _host(t):
    a = t._data
    return a if type(a) is np.ndarray else a.get()


def _fmt_num(v):
    return repr(v)


def _compare_tensors(actual, expected, rtol, atol, equal_nan, check_device, check_dtype,
                     check_stride, scalars=False):
    if actual.shape != expected.shape:
        raise _Fail(AssertionError, f"The values for attribute 'shape' do not match: "
                                    f"{actual.shape} != {expected.shape}.")
    if check_stride and actual.stride() != expected.stride():
        raise _Fail(AssertionError, f"The values for attribute 'stride()' do not match: "
                                    f"{actual.stride()} != {expected.stride()}.")
    if check_device and actual.device != expected.device:
        raise _Fail(AssertionError, f"The values for attribute 'device' do not match: "
                                    f"{actual.device} != {expected.device}.")
    if check_dtype and actual.dtype is not expected.dtype:
        raise _Fail(AssertionError, f"The values for attribute 'dtype' do not match: "
                                    f"{actual.dtype} != {expected.dtype}.")
    if rtol is None:
        rtol, atol = _tols((actual.dtype, expected.dtype))
    common = D.promote_types(actual.dtype, expected.dtype)
    a = _host(actual)
    e = _host(expected)
    if a.dtype != common._np:
        a = a.astype(common._np)
    if e.dtype != common._np:
        e = e.astype(common._np)
    if common._cat < 2:
        a = a.astype(np.int64)
        e = e.astype(np.int64)
    with np.errstate(invalid='ignore', over='ignore', divide='ignore'):
        if common._cat < 2:
            diff = np.abs(a - e)
            close = diff == 0
        else:
            diff = np.abs(a - e)
            allowed = np.abs(e) * rtol + atol
            close = (a == e) | (np.isfinite(diff) & (diff <= allowed))
            if equal_nan:
                close |= np.isnan(a) & np.isnan(e)
    if close.all():
        return
    raise _Fail(AssertionError, _mismatch_msg(a, e, diff, close, rtol, atol, common, scalars
                                              or actual.dim() == 0))


def _mismatch_msg(a, e, diff, close, rtol, atol, common, scalar):
    equal = rtol == 0 and atol == 0
    kind = 'equal' if equal else 'close'
    rel_dt = np.float32 if common._cat < 2 else None
    with np.errstate(invalid='ignore', divide='ignore', over='ignore'):
        if rel_dt is not None:
            rel = (diff.astype(np.float64) / np.abs(e).astype(np.float64)).astype(rel_dt)
        else:
            rel = diff / np.abs(e)
    if rel.dtype.kind == 'c':
        rel = rel.real
    if scalar:
        av, ev = a.reshape(-1)[0].item(), e.reshape(-1)[0].item()
        if isinstance(av, float) and a.dtype.kind == 'V':
            av, ev = float(av), float(ev)
        ad = _item(diff.reshape(-1)[0])
        if isinstance(ad, complex):
            ad = ad.real
        den = abs(ev)
        rd = ad / den if den else (math.nan if ad == 0 or ad != ad else math.inf)
        lines = [f"Scalars are not {kind}!", "", f"Expected {ev} but got {av}.",
                 f"Absolute difference: {ad}"
                 + ('' if equal else f" (up to {atol} allowed)"),
                 f"Relative difference: {rd}"
                 + ('' if equal else f" (up to {rtol} allowed)")]
        return '\n'.join(lines)
    total = close.size
    bad = int(total - np.count_nonzero(close))
    d = diff.reshape(-1).copy()
    r = rel.reshape(-1).copy()
    m = close.reshape(-1)
    d[m] = 0
    r[m] = 0
    ia = _argmax_nan(d)
    ir = _argmax_nan(r)
    shape = close.shape
    lines = [f"Tensor-likes are not {kind}!", "",
             f"Mismatched elements: {bad} / {total} ({bad / total:.1%})",
             f"Greatest absolute difference: {_item(d[ia])} at index "
             f"{tuple(int(i) for i in np.unravel_index(ia, shape))}"
             + ('' if equal else f" (up to {atol} allowed)"),
             f"Greatest relative difference: {_item(r[ir])} at index "
             f"{tuple(int(i) for i in np.unravel_index(ir, shape))}"
             + ('' if equal else f" (up to {rtol} allowed)")]
    return '\n'.join(lines)


def _item(v):
    v = v.item() if hasattr(v, 'item') else v
    if not isinstance(v, (int, float, complex)):
        v = float(v)
    return v


def _argmax_nan(x):
    if x.dtype.kind not in 'fc' and x.dtype.kind != 'V':
        return int(np.argmax(x))
    xf = x.astype(np.float64) if x.dtype.kind == 'V' else x
    nan = np.isnan(xf)
    if nan.any():
        return int(np.argmax(nan))
    return int(np.argmax(xf))


def _compare(actual, expected, rtol, atol, equal_nan, check_device, check_dtype, check_stride,
             allow_subclasses):
    if actual is None or expected is None:
        if actual is None and expected is None:
            return
        raise _Fail(AssertionError, f"None mismatch: {actual} is not {expected}")
    ta, te = isinstance(actual, Tensor), isinstance(expected, Tensor)
    if ta or te:
        if not (ta and te):
            _no_pair(actual, expected)
        if not allow_subclasses and type(actual) is not type(expected):
            _no_pair(actual, expected)
        _compare_tensors(actual, expected, rtol, atol, equal_nan, check_device, check_dtype,
                         check_stride)
        return
    na, ne = isinstance(actual, np.ndarray), isinstance(expected, np.ndarray)
    if na or ne:
        if not (na and ne):
            _no_pair(actual, expected)
        from ._ops.creation import tensor
        _compare_tensors(tensor(actual), tensor(expected), rtol, atol, equal_nan,
                         check_device, check_dtype, check_stride)
        return
    if isinstance(actual, bool) or isinstance(expected, bool):
        if isinstance(actual, bool) and isinstance(expected, bool):
            if actual is not expected:
                raise _Fail(AssertionError, f"Booleans mismatch: {actual} is not {expected}")
            return
    num = (int, float, complex)
    if isinstance(actual, num) and isinstance(expected, num):
        if check_dtype and type(actual) is not type(expected):
            raise _Fail(AssertionError, f"The (d)types do not match: {type(actual)} != "
                                        f"{type(expected)}.")
        _compare_tensors(_scalar_tensor(actual), _scalar_tensor(expected), rtol, atol,
                         equal_nan, check_device, False, False, scalars=True)
        return
    if isinstance(actual, str) or isinstance(expected, str):
        _no_pair(actual, expected)
    if isinstance(actual, collections.abc.Mapping) and isinstance(expected, collections.abc.Mapping):
        ka, ke = set(actual), set(expected)
        if ka != ke:
            raise _Fail(AssertionError, "The keys of the mappings do not match:\n"
                        f"Missing keys in the actual mapping: {sorted(ke - ka, key=str)}\n"
                        f"Additional keys in the actual mapping: {sorted(ka - ke, key=str)}")
        for k in expected:
            try:
                _compare(actual[k], expected[k], rtol, atol, equal_nan, check_device,
                         check_dtype, check_stride, allow_subclasses)
            except _Fail as f:
                f.path = f"[{k!r}]" + f.path
                raise
        return
    if isinstance(actual, collections.abc.Sequence) and isinstance(expected, collections.abc.Sequence):
        if len(actual) != len(expected):
            raise _Fail(AssertionError, f"The length of the sequences mismatch: {len(actual)} "
                                        f"!= {len(expected)}")
        for i, (x, y) in enumerate(zip(actual, expected)):
            try:
                _compare(x, y, rtol, atol, equal_nan, check_device, check_dtype, check_stride,
                         allow_subclasses)
            except _Fail as f:
                f.path = f"[{i}]" + f.path
                raise
        return
    _no_pair(actual, expected)


def _no_pair(actual, expected):
    raise _Fail(TypeError, f"No comparison pair was able to handle inputs of type "
                           f"{type(actual)} and {type(expected)}.")


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None,
                 equal_nan=False, check_device=True, check_dtype=True, check_layout=True,
                 check_stride=False, msg=None):
    """Asserts that ``actual`` and ``expected`` are close:
    ``|actual - expected| <= atol + rtol * |expected|`` element-wise, with matching shape,
    device and (by default) dtype.

    Inputs may be tensors, NumPy arrays, Python numbers, or (nested) sequences and
    mappings of them. Default tolerances depend on the dtype (float32: rtol 1.3e-6,
    atol 1e-5; float64: 1e-7, 1e-7; float16: 1e-3, 1e-5; bfloat16: 1.6e-2, 1e-5; integers
    and bool: exact). ``rtol`` and ``atol`` must be given together.

    Args:
        equal_nan (bool): NaNs in the same places compare equal.
        check_dtype (bool): require equal dtypes (otherwise compare in the promoted dtype).
        check_stride (bool): require equal strides.
        msg (str or callable): replaces the failure message (a callable gets the default
            message and returns the new one).

    Raises:
        AssertionError: with the number of mismatched elements and the greatest absolute
            and relative differences.

    Example::

        >>> ember.testing.assert_close(ember.tensor([1., 2.]), ember.tensor([1., 2.]))
    """
    if (rtol is None) != (atol is None):
        raise ValueError(f"Both 'rtol' and 'atol' must be either specified or omitted, but got "
                         f"no {'rtol' if rtol is None else 'atol'}.")
    try:
        _compare(actual, expected, rtol, atol, equal_nan, check_device, check_dtype,
                 check_stride, allow_subclasses)
    except _Fail as f:
        m = f.msg
        if f.path:
            m += f"\n\nThe failure occurred for item {f.path}"
        if f.exc_type is AssertionError and msg is not None:
            m = msg(m) if callable(msg) else msg
        raise f.exc_type(m) from None


# the legacy assert_allclose's default (rtol, atol) per dtype; other dtypes compare exactly
_LEGACY_TOLS = {'float16': (1e-3, 1e-3), 'float32': (1e-4, 1e-5), 'float64': (1e-5, 1e-8)}


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg=''):
    """Deprecated form of :func:`assert_close` (it warns ``FutureWarning``).

    Non-tensor inputs become tensors (``expected`` in ``actual``'s dtype); dtypes need not
    match; NaNs compare equal by default; the default tolerances are the larger of the
    two dtypes' legacy ones (float16 1e-3/1e-3, float32 1e-4/1e-5, float64 1e-5/1e-8, others
    exact).

    Args:
        actual, expected: what to compare.
        rtol (float, optional), atol (float, optional): tolerances, given together.
        equal_nan (bool): NaNs in the same places compare equal. Default: ``True``.
        msg (str): replaces the failure message when non-empty.

    Example::

        >>> ember.testing.assert_allclose(ember.tensor([1., 2.]), [1., 2.])
    """
    import warnings
    from ._tensor import Tensor
    from ._ops.creation import tensor as _tensor
    warnings.warn('`torch.testing.assert_allclose()` is deprecated since 1.12 and will be '
                  'removed in a future release. Please use `torch.testing.assert_close()` '
                  'instead. You can find detailed upgrade instructions in '
                  'https://github.com/pytorch/pytorch/issues/61844.', FutureWarning,
                  stacklevel=2)
    if not isinstance(actual, Tensor):
        actual = _tensor(actual)
    if not isinstance(expected, Tensor):
        expected = _tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        tols = [_LEGACY_TOLS.get(str(t.dtype).split('.')[-1], (0.0, 0.0))
                for t in (actual, expected)]
        rtol, atol = max(t[0] for t in tols), max(t[1] for t in tols)
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan,
                 check_device=True, check_dtype=False, check_stride=False, msg=msg or None)


def make_tensor(*shape, dtype, device=None, low=None, high=None, requires_grad=False,
                noncontiguous=False, exclude_zero=False, memory_format=None):
    """A tensor of ``shape`` filled with random values uniform on ``[low, high)``.

    Defaults: bool ``{False, True}``; uint8 ``[0, 10)``; other integers ``[-9, 10)``;
    floating and complex (each part) ``[-9, 9)``. ``low``/``high`` are clamped to the
    dtype's range.

    Args:
        shape: ints or one sequence.
        dtype (ember.dtype): the result's dtype.
        device: NOTE: unlike PyTorch, optional (default ``'cpu'``).
        requires_grad (bool): make a leaf requiring grad (floating / complex).
        noncontiguous (bool): return a non-contiguous view (when it has > 1 element).
        exclude_zero (bool): replace zeros by a small non-zero value (1 for integers,
            the dtype's ``tiny`` for floats).

    Example::

        >>> ember.testing.make_tensor(2, 3, dtype=ember.float32).shape
        torch.Size([2, 3])
    """
    from ._ops.creation import _shape_args, tensor
    from ._ops import random_ops as R
    shape = _shape_args(shape, 'make_tensor') if shape else ()
    if dtype is D.bool:
        res = R.randint(0, 2, shape, dtype=D.int64).to(D.bool)
    elif dtype._cat == 1:
        ii = np.iinfo(dtype._np)
        lo, hi = _low_high(low, high, (0 if dtype is D.uint8 else -9), 10, ii.min, ii.max)
        lo, hi = math.floor(lo), math.ceil(hi)
        if lo >= hi:
            raise ValueError(f"`low` must be less than `high`, but got {lo} >= {hi}")
        res = R.randint(lo, hi, shape, dtype=dtype)
    elif dtype._cat in (2, 3):
        real = dtype.to_real()
        fi = D.finfo(real)
        lo, hi = _low_high(low, high, -9, 9, fi.min, fi.max)
        if lo == hi:
            from ._ops.creation import full
            res = full(shape, lo, dtype=dtype)
        else:
            if lo > hi:
                raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
            u = R.rand(shape, dtype=dtype)
            arr = u._data * (hi - lo) + (lo if dtype._cat == 2 else lo * (1 + 1j))
            res = tensor(np.asarray(arr).astype(dtype._np))
    else:
        raise TypeError(f"The requested dtype '{dtype}' is not supported by "
                        "torch.testing.make_tensor(). To request support, file an issue at: "
                        "https://github.com/pytorch/pytorch/issues")
    if device is not None and str(device) != 'cpu':
        res = res.to(device)
    if exclude_zero:
        a = res._data
        z = a == 0
        if z.any():
            repl = 1 if dtype._cat < 2 else D.finfo(dtype.to_real()).tiny
            a[z] = repl
    if noncontiguous and res.numel() > 1:
        from ._ops.creation import empty
        big = empty(shape[:-1] + (shape[-1] * 2,), dtype=dtype, device=res.device)
        st = big.stride()
        view = big.as_strided(shape, st[:-1] + (2,))
        view.copy_(res)
        res = view
    elif memory_format is not None:
        res = res.clone(memory_format=memory_format)
    if requires_grad:
        res.requires_grad_(True)
    return res


def _low_high(low, high, dlo, dhi, mn, mx):
    for v in (low, high):
        if v is not None and isinstance(v, float) and math.isnan(v):
            raise ValueError(f"`low` and `high` cannot be NaN, but got low={low} and "
                             f"high={high}")
    lo = dlo if low is None else max(low, mn)
    hi = dhi if high is None else min(high, mx)
    return lo, hi
