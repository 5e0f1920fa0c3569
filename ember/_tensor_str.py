"""Printing tensors the way PyTorch prints them.

The layout rules (reproduced here, written for NumPy arrays):

* One formatter is chosen for the whole tensor (or for the summarised corners of a big
  one). Integer and bool tensors print ``str(value)`` right-aligned to the widest value.
* Floating tensors look at their finite non-zero values. If all are whole numbers, they
  print as ``1.`` ("integer mode"); otherwise with ``precision`` decimals. Scientific
  notation is used when max/min of the magnitudes exceeds 1000, when the largest exceeds
  1e8, or (non-integer mode) when the smallest is below 1e-4.
* Complex tensors use one formatter for the real parts and one for the imaginary parts.
* More than ``threshold`` elements prints ``edgeitems`` entries at each end of every
  dimension with ``...`` between them.
* Rows are wrapped to ``linewidth``; suffixes (``dtype=``, ``grad_fn=`` ...) too.
"""
import math
import sys

import numpy as np

from . import _dtype as D
from ._tensor import Tensor, _bind

__all__ = ['set_printoptions', 'get_printoptions', 'printoptions']


class _PrintOptions:
    __slots__ = ('precision', 'threshold', 'edgeitems', 'linewidth', 'sci_mode')

    def __init__(self):
        self.precision = 4
        self.threshold = 1000
        self.edgeitems = 3
        self.linewidth = 80
        self.sci_mode = None


PRINT_OPTS = _PrintOptions()

_PROFILES = {
    'default': (4, 1000, 3, 80),
    'short': (2, 1000, 2, 80),
    'full': (4, math.inf, 3, 80),
}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     profile=None, sci_mode=None):
    """Set options for printing tensors.

    Args:
        precision: number of digits of precision for floating point output (default 4).
        threshold: total number of elements above which the repr is summarised
            (default 1000).
        edgeitems: number of items at the beginning and end of each dimension shown in a
            summary (default 3).
        linewidth: characters per line, for line breaks (default 80).
        profile: ``'default'``, ``'short'`` or ``'full'``; sets the four options above
            (explicit arguments override it).
        sci_mode: ``True``/``False`` force scientific notation on/off; ``None`` (default)
            lets ember decide. Every call sets it (to ``None`` when not given).

    Example::

        >>> ember.set_printoptions(precision=2)
        >>> ember.tensor([1.12345])
        tensor([1.12])
        >>> ember.set_printoptions(profile='default')
    """
    if profile is not None:
        if profile not in _PROFILES:
            raise ValueError(f"Unknown profile {profile!r}")
        (PRINT_OPTS.precision, PRINT_OPTS.threshold, PRINT_OPTS.edgeitems,
         PRINT_OPTS.linewidth) = _PROFILES[profile]
    if precision is not None:
        PRINT_OPTS.precision = precision
    if threshold is not None:
        PRINT_OPTS.threshold = threshold
    if edgeitems is not None:
        PRINT_OPTS.edgeitems = edgeitems
    if linewidth is not None:
        PRINT_OPTS.linewidth = linewidth
    PRINT_OPTS.sci_mode = sci_mode


def get_printoptions():
    """The current print options as a dict (``precision``, ``threshold``, ``edgeitems``,
    ``linewidth``, ``sci_mode``)."""
    return {k: getattr(PRINT_OPTS, k) for k in _PrintOptions.__slots__}


class printoptions:
    """Context manager that sets print options (as :func:`set_printoptions`) and restores
    the previous ones on exit.

    Example::

        >>> with ember._tensor_str.printoptions(precision=1):
        ...     print(ember.tensor([1.25]))
        tensor([1.2])
    """

    def __init__(self, **kwargs):
        self.kwargs = kwargs

    def __enter__(self):
        self.old = get_printoptions()
        set_printoptions(**self.kwargs)

    def __exit__(self, *exc):
        set_printoptions(**self.old)
        return False


# ----------------------------------------------------------------------------- formatter
class _Fmt:
    """How every element of one (real) array is turned into a fixed-width string."""
    __slots__ = ('floating', 'int_mode', 'sci_mode', 'width', 'prec')

    def __init__(self, a, e8m0=False):
        """``a``: a 1-D host array of the values that decide the format. ``e8m0``: the
        values are float8_e8m0fnu's, where PyTorch counts its smallest value (2**-127, what
        zero converts to) as zero and NaN as finite, which turns off the integer and
        scientific modes."""
        prec = self.prec = PRINT_OPTS.precision
        self.floating = a.dtype.kind == 'f'
        self.int_mode = True
        self.sci_mode = False
        self.width = 1
        if not self.floating:
            if a.size:
                if a.dtype.kind == 'b':
                    self.width = 5 if not a.all() else 4
                else:
                    self.width = max(len(str(a.max())), len(str(a.min())), 1)
        else:
            if e8m0:
                a = a[a != np.float32(2.0 ** -127)]
                nan = bool(np.isnan(a).any())
                a = a[~np.isnan(a)]
            vals = a[np.isfinite(a) & (a != 0)]
            if e8m0 and nan:
                self.int_mode = False
                if vals.size:
                    self.width = max(len(f"{float(v):.{prec}f}") for v in
                                     (vals.min(), vals.max()))
            elif vals.size:
                mag = np.abs(vals)
                lo = float(mag.min())
                hi = float(mag.max())
                self.int_mode = bool(np.all(vals == np.ceil(vals)))
                big = hi / lo > 1000.0 or hi > 1.0e8
                if self.int_mode:
                    self.sci_mode = big
                else:
                    self.sci_mode = big or lo < 1.0e-4
                if PRINT_OPTS.sci_mode is not None:
                    self.sci_mode = PRINT_OPTS.sci_mode
                # string width is largest at a magnitude extreme of either sign
                pos = vals[vals > 0]
                neg = vals[vals < 0]
                probe = []
                if pos.size:
                    probe += [float(pos.min()), float(pos.max())]
                if neg.size:
                    probe += [float(neg.min()), float(neg.max())]
                if self.sci_mode:
                    self.width = max(len(f"{v:.{prec}e}") for v in probe)
                elif self.int_mode:
                    self.width = max(len(f"{v:.0f}") + 1 for v in probe)
                else:
                    self.width = max(len(f"{v:.{prec}f}") for v in probe)
                self.width = max(self.width, 1)
        if PRINT_OPTS.sci_mode is not None:
            self.sci_mode = PRINT_OPTS.sci_mode

    def fmt(self, v):
        if self.floating:
            if self.sci_mode:
                s = f"{v:{self.width}.{self.prec}e}"
            elif self.int_mode:
                s = f"{v:.0f}"
                if v == v and v not in (math.inf, -math.inf):
                    s += '.'
            else:
                s = f"{v:.{self.prec}f}"
        else:
            s = f"{v}"
        n = self.width - len(s)
        return ' ' * n + s if n > 0 else s


def _summarize(a):
    """The corner values shown when summarising (each dim cut to 2*edgeitems)."""
    e = PRINT_OPTS.edgeitems
    if a.ndim == 0:
        return a
    if a.ndim > 1 and not e:
        return a[(slice(0, 0),) * a.ndim]
    idx = []
    for n in a.shape:
        if n > 2 * e:
            idx.append(np.r_[0:e, n - e:n])
        else:
            idx.append(np.arange(n))
    return a[np.ix_(*idx)]


def _cplx(fr, fi, v):
    re = fr.fmt(v.real)
    im = (fi.fmt(v.imag) + 'j').lstrip()
    if im[0] in '+-':
        return re + im
    return re + '+' + im


def _vector(a, indent, summarize, fr, fi):
    per = fr.width + 2
    if fi is not None:
        per += fi.width + 1
    per_line = max(1, int(math.floor((PRINT_OPTS.linewidth - indent) / per)))
    e = PRINT_OPTS.edgeitems
    if fi is None:
        f = fr.fmt
    else:
        def f(v):
            return _cplx(fr, fi, v)
    if summarize and not e:
        items = ['...']
    elif summarize and a.shape[0] > 2 * e:
        items = [f(v) for v in a[:e].tolist()] + [' ...'] + [f(v) for v in a[-e:].tolist()]
    else:
        items = [f(v) for v in a.tolist()]
    lines = [', '.join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
    return '[' + (',\n' + ' ' * (indent + 1)).join(lines) + ']'


def _nested(a, indent, summarize, fr, fi):
    nd = a.ndim
    if nd == 0:
        v = a.item()
        return fr.fmt(v) if fi is None else _cplx(fr, fi, v)
    if nd == 1:
        return _vector(a, indent, summarize, fr, fi)
    e = PRINT_OPTS.edgeitems
    n = a.shape[0]
    if summarize and n > 2 * e:
        parts = ([_nested(a[i], indent + 1, summarize, fr, fi) for i in range(e)] + ['...']
                 + [_nested(a[i], indent + 1, summarize, fr, fi) for i in range(n - e, n)])
    else:
        parts = [_nested(a[i], indent + 1, summarize, fr, fi) for i in range(n)]
    return '[' + (',' + '\n' * (nd - 1) + ' ' * (indent + 1)).join(parts) + ']'


def _host(a):
    if type(a) is not np.ndarray:
        a = a.get()
    return a


def _body(a, indent):
    """The bracketed values of host array ``a`` (non-empty)."""
    summarize = a.size > PRINT_OPTS.threshold
    e8m0 = a.dtype.name == 'float8_e8m0fnu'
    if a.dtype.names is not None:   # the raw-byte dtypes (ember/_dtype.py's _ByteDtype)
        name = a.dtype.names[0]
        if name != 'float4_e2m1fn_x2':   # PyTorch prints those bytes as numbers
            raise NotImplementedError(f'"_local_scalar_dense_cpu" not implemented for '
                                      f"'{D._scalar_name(D._NP2DT[a.dtype])}'")
        a = a.view(np.uint8).astype(np.float32)
    if a.dtype.kind == 'V' or a.dtype.itemsize <= 2 and a.dtype.kind == 'f':
        # bfloat16 / half / float8 print as float32 (ml_dtypes' float8_e5m2 has kind 'f')
        a = a.astype(np.float32)
    if a.dtype.kind == 'c':
        src = _summarize(a) if summarize else a
        fr = _Fmt(src.real.reshape(-1))
        fi = _Fmt(src.imag.reshape(-1))
        return _nested(a, indent, summarize, fr, fi)
    src = _summarize(a) if summarize else a
    return _nested(a, indent, summarize, _Fmt(src.reshape(-1), e8m0), None)


def _add_suffixes(s, suffixes, indent):
    out = [s]
    last = len(s) - s.rfind('\n') + 1
    for suf in suffixes:
        n = len(suf)
        if last + n + 2 > PRINT_OPTS.linewidth:
            out.append(',\n' + ' ' * indent + suf)
            last = indent + n
        else:
            out.append(', ' + suf)
            last += n + 2
    out.append(')')
    return ''.join(out)


def _is_parameter_cls(cls):
    m = sys.modules.get('ember.nn.parameter')
    P = getattr(m, 'Parameter', None) if m is not None else None
    return P is not None and cls is P


class _TensorRepr:
    """``Tensor.__repr__``, bound onto ``Tensor`` from here."""

    def __repr__(self, *, tensor_contents=None):
        return _str(self, tensor_contents=tensor_contents)


_bind(_TensorRepr)


def _str(t, tensor_contents=None):
    """``repr`` of tensor ``t`` as PyTorch writes it."""
    from ._tensor import Tensor
    cls = type(t)
    plain = cls is Tensor or _is_parameter_cls(cls) or cls.__name__ == '_LegacyTensor'
    prefix = 'tensor(' if plain else f"{cls.__name__}("
    indent = len(prefix)
    suffixes = []
    a = t._data
    dev = t.device
    if dev.type != 'cpu':
        suffixes.append(f"device='{dev}'")
    dt = t.dtype
    default = D.get_default_dtype()
    is_default = dt in (default, D._default_complex(), D.int64, D.bool)
    if a.size == 0 and not t.is_meta:
        if a.ndim != 1:
            suffixes.append('size=' + str(tuple(a.shape)))
        if dt is not default:
            suffixes.append(f"dtype={dt}")
        body = '[]'
    else:
        if not PRINT_OPTS.edgeitems:
            suffixes.append('size=' + str(tuple(a.shape)))
        if not is_default:
            suffixes.append(f"dtype={dt}")
        body = '...' if t.is_meta else _body(_host(a), indent)
    if t.is_meta:
        body = '...'
        suffixes = [s for s in suffixes if not s.startswith('size=') and not s.startswith('dtype=')]
        suffixes.append('size=' + str(tuple(a.shape)))
        if dt is not default:
            suffixes.append(f"dtype={dt}")
    if tensor_contents is not None:
        body = tensor_contents
    try:
        fn = t.grad_fn
        name = None if fn is None else _node_name(fn)
    except RuntimeError:
        name = 'Invalid'
    if name is not None:
        suffixes.append(f"grad_fn=<{name}>")
    elif t.requires_grad:
        suffixes.append('requires_grad=True')
    r = _add_suffixes(prefix + body, suffixes, indent)
    if not plain and _isinstance_parameter(t):
        r = f"Parameter({r})"
    return r


def _node_name(fn):
    n = getattr(fn, 'name', None)
    if callable(n):
        try:
            return n().rsplit('::', 1)[-1]   # torch::autograd::CopySlices -> CopySlices
        except Exception:
            pass
    return type(fn).__name__


def _isinstance_parameter(t):
    m = sys.modules.get('ember.nn.parameter')
    P = getattr(m, 'Parameter', None) if m is not None else None
    return P is not None and isinstance(t, P)
