"""dtype objects, PyTorch's type promotion, finfo/iinfo."""
import builtins
import sys
import numpy as np

__all__ = ['dtype', 'finfo', 'iinfo', 'get_default_dtype', 'set_default_dtype',
           'promote_types', 'can_cast']

# categories: 0 bool, 1 integer, 2 floating, 3 complex
_BOOL, _INT, _FLOAT, _COMPLEX = 0, 1, 2, 3


class dtype:
    """A tensor element type, like ``torch.dtype``.

    The 8-bit floats (``float8_e4m3fn``, ``float8_e4m3fnuz``, ``float8_e5m2``,
    ``float8_e5m2fnuz``, ``float8_e8m0fnu``) hold ml_dtypes arrays and cast, print, index
    and save as in PyTorch; promotion with any other dtype raises as in PyTorch.

    NOTE: unlike PyTorch, which refuses arithmetic on float8 tensors (NotImplementedError),
    ember computes it through ml_dtypes (the float32 result rounded to the float8 type; an
    overflow in float8_e4m3fn arithmetic gives NaN, where PyTorch's casts saturate).
    ``complex32`` tensors cannot be made; the raw-byte dtypes (float4_e2m1fn_x2, int1-7,
    uint1-7, bits*) hold bytes only (see ``_ByteDtype``).

    Example::

        >>> ember.float32.is_floating_point
        True
    """
    __slots__ = ('_name', '_np', '_cat', 'itemsize', 'is_signed', '_rank')

    def __init__(self, name, npdt, cat, signed, rank):
        self._name = name
        self._np = np.dtype(npdt)
        self._cat = cat
        self.itemsize = self._np.itemsize
        self.is_signed = signed
        self._rank = rank

    @property
    def is_floating_point(self):
        return self._cat == _FLOAT

    @property
    def is_complex(self):
        return self._cat == _COMPLEX

    def to_real(self):
        """The real counterpart of a complex dtype (itself otherwise)."""
        return {complex64: float32, complex128: float64}.get(self, self)

    def to_complex(self):
        """The complex counterpart of a floating dtype."""
        return {float32: complex64, float64: complex128, float16: complex64,
                bfloat16: complex64}.get(self, self)

    def __repr__(self):
        return 'torch.' + self._name

    def __reduce__(self):
        return (_dtype_by_name, (self._name,))


class _ExtDtype(dtype):
    """A dtype whose NumPy type lives in the ``ml_dtypes`` extension (bfloat16): the
    extension costs about a second to import, so it loads the first time the dtype's NumPy
    type is needed (a tensor of that dtype is made, ``finfo`` is asked...)."""
    __slots__ = ()

    def __init__(self, name, cat, signed, rank, itemsize):
        self._name = name
        self._cat = cat
        self.itemsize = itemsize
        self.is_signed = signed
        self._rank = rank

    @property
    def _np(self):
        try:
            return _np_slot.__get__(self)
        except AttributeError:
            _load_ml_dtypes()
            return _np_slot.__get__(self)


_np_slot = dtype.__dict__['_np']   # the slot descriptor the property above shadows


class _NpToDtype(dict):
    """NumPy dtype -> ember dtype. A miss may be an ml_dtypes type made outside ember before
    ember loaded ml_dtypes itself: resolve the extension dtypes and look again."""
    __slots__ = ()

    def __missing__(self, key):
        if 'ml_dtypes' in sys.modules and not _ext_loaded:
            _load_ml_dtypes()
            return dict.__getitem__(self, key)
        raise KeyError(key)

    def get(self, key, default=None):
        try:
            return self[key]
        except KeyError:
            return default

    def __contains__(self, key):
        try:
            self[key]
        except KeyError:
            return False
        return True


_ext_loaded = False


def _load_ml_dtypes():
    """Import ml_dtypes and give the extension dtypes their NumPy types (idempotent)."""
    global _ext_loaded
    if _ext_loaded:
        return
    import ml_dtypes
    for d in _ALL:
        if type(d) is _ExtDtype:
            npdt = np.dtype(getattr(ml_dtypes, d._name))
            _np_slot.__set__(d, npdt)
            _NP2DT[npdt] = d
            _NP2DT[npdt.type] = d
    _ext_loaded = True


def cast_array(arr, dt):
    """``arr`` cast to dtype ``dt`` as PyTorch casts. NumPy's cast is PyTorch's for every
    dtype but three 8-bit floats, where ml_dtypes rounds as PyTorch does but differs at the
    edges: float8_e4m3fn saturates out-of-range values (infinities too) to +-448 in PyTorch,
    float8_e5m2 writes NaN as 0x7f/0xff, float8_e8m0fnu takes the magnitude and writes zero
    as its smallest value (2**-127). Works on any array type (array methods only)."""
    src = arr.dtype
    if src.kind == 'V' and src.names is not None or dt in _BYTES:
        s = _NP2DT.get(src)
        if s is not dt:
            b = dt if dt in _BYTES else s
            raise NotImplementedError(f'"{"copy_kernel" if b is float4_e2m1fn_x2 else "copy_"}" '
                                      f"not implemented for '{_scalar_name(b)}'")
        return arr.copy()
    if src.itemsize == 1 and src.kind == 'V' and src.name.endswith('fnuz'):
        # the fnuz NaN (0x80) reads as a positive NaN in PyTorch (negative in ml_dtypes)
        arr = arr.astype(np.float32)
        nan = arr != arr
        if nan.any():
            arr[nan] = np.float32('nan')
        if dt is float32:
            return arr
    if dt not in _FLOAT8:
        return arr.astype(dt._np)
    k = arr.dtype.kind
    if k == 'c':
        arr = arr.real
    shape = arr.shape
    if not shape:   # 0-d: keep arrays (NumPy's abs of a 0-d array is a scalar)
        return cast_array(arr.reshape(1), dt).reshape(())
    f = arr if arr.dtype == np.float32 else arr.astype(np.float32)
    if dt is float8_e4m3fn:
        with np.errstate(invalid='ignore'):
            return f.clip(-448.0, 448.0).astype(dt._np)   # clip keeps NaN
    if dt is float8_e5m2:
        out = f.astype(dt._np)
        nan = f != f
        if nan.any():
            u = out.view(np.uint8)
            u[nan] = 0x7f | (f.view(np.uint32)[nan] >> 24).astype(np.uint8) & 0x80
        return out
    if dt is float8_e8m0fnu:
        a = abs(f)
        out = a.astype(dt._np)
        zero = a == 0
        if zero.any():
            out.view(np.uint8)[zero] = 0
        return out
    return f.astype(dt._np)


def _dtype_by_name(name):
    d = _BY_NAME.get(name)
    return d if d is not None else _NO_ARRAY_BY_NAME[name]


bool = dtype('bool', np.bool_, _BOOL, False, 0)
uint8 = dtype('uint8', np.uint8, _INT, False, 1)
int8 = dtype('int8', np.int8, _INT, True, 2)
int16 = dtype('int16', np.int16, _INT, True, 3)
int32 = dtype('int32', np.int32, _INT, True, 4)
int64 = dtype('int64', np.int64, _INT, True, 5)
float16 = dtype('float16', np.float16, _FLOAT, True, 6)
bfloat16 = _ExtDtype('bfloat16', _FLOAT, True, 7, 2)
float32 = dtype('float32', np.float32, _FLOAT, True, 8)
float64 = dtype('float64', np.float64, _FLOAT, True, 9)
complex64 = dtype('complex64', np.complex64, _COMPLEX, True, 10)
complex128 = dtype('complex128', np.complex128, _COMPLEX, True, 11)
uint16 = dtype('uint16', np.uint16, _INT, False, 1)
uint32 = dtype('uint32', np.uint32, _INT, False, 1)
uint64 = dtype('uint64', np.uint64, _INT, False, 1)
# the 8-bit floats (NumPy types from ml_dtypes): casts and printing, no arithmetic promotion
float8_e4m3fn = _ExtDtype('float8_e4m3fn', _FLOAT, True, 12, 1)
float8_e4m3fnuz = _ExtDtype('float8_e4m3fnuz', _FLOAT, True, 12, 1)
float8_e5m2 = _ExtDtype('float8_e5m2', _FLOAT, True, 12, 1)
float8_e5m2fnuz = _ExtDtype('float8_e5m2fnuz', _FLOAT, True, 12, 1)
float8_e8m0fnu = _ExtDtype('float8_e8m0fnu', _FLOAT, False, 12, 1)
_FLOAT8 = frozenset((float8_e4m3fn, float8_e4m3fnuz, float8_e5m2, float8_e5m2fnuz,
                     float8_e8m0fnu))


class _NoArrayDtype(dtype):
    """A PyTorch dtype that no NumPy element type holds: ``complex32`` (NumPy has no
    half-precision complex). The dtype object exists, with PyTorch's ``itemsize``,
    ``is_floating_point``, ``is_complex`` and ``is_signed``, but a tensor of it cannot be made.

    NOTE: unlike PyTorch, making a complex32 tensor raises a ``RuntimeError`` (PyTorch's CPU
    backend has experimental complex32 arithmetic).
    """
    __slots__ = ()

    def __init__(self, name, cat, signed, itemsize):
        self._name = name
        self._cat = cat
        self.itemsize = itemsize
        self.is_signed = signed
        self._rank = 13

    @property
    def _np(self):
        raise RuntimeError(f"ember cannot hold tensors of dtype {self!r}: NumPy has no such "
                           "element type (NOTE: unlike PyTorch)")


class _ByteDtype(_NoArrayDtype):
    """A dtype PyTorch's CPU backend stores but does not compute with: the packed 4-bit
    float ``float4_e2m1fn_x2``, the sub-byte integers ``int1``-``int7`` / ``uint1``-``uint7``
    (one element per byte) and the opaque ``bits`` types. Its tensors hold the raw bytes
    (a one-field structured NumPy dtype named after the dtype): they can be made (``empty``,
    ``zeros``), viewed from and as ``uint8`` (``view``), sliced, reshaped, concatenated,
    copied and saved; casts to or from other dtypes raise ``NotImplementedError``, as in
    PyTorch.

    NOTE: unlike PyTorch, some data movements PyTorch refuses for these dtypes (``clone``,
    ``contiguous`` of a transposed tensor, ``ones`` / ``full``, which write the value's
    bytes) work.
    """
    __slots__ = ('_raw',)

    def __init__(self, name, cat, signed, itemsize):
        _NoArrayDtype.__init__(self, name, cat, signed, itemsize)
        self._raw = np.dtype([(name, f'u{itemsize}')])

    @property
    def _np(self):
        return self._raw


_signed_slot = dtype.__dict__['is_signed']


class _BitsDtype(_ByteDtype):
    """The opaque bits dtypes (``bits8``...): PyTorch itself raises on ``is_signed``."""
    __slots__ = ()

    def __init__(self, name, itemsize):
        self._name = name
        self._cat = _INT
        self.itemsize = itemsize
        self._rank = 13
        self._raw = np.dtype([(name, f'u{itemsize}')])

    @property
    def is_signed(self):
        raise RuntimeError("Bits types are undefined")


complex32 = _NoArrayDtype('complex32', _COMPLEX, True, 4)


class _QDtype(_ByteDtype):
    """A quantized element type (``qint8``, ``quint8``, ``qint32``, ``quint4x2``,
    ``quint2x4``): the integers of a quantized tensor, read with its quantizer's scale and
    zero point. Its NumPy type is a one-field structured type over the integer (so NumPy
    cannot compute on it by mistake); ``_int`` is the plain integer type, ``_qmin``/``_qmax``
    the range. The packed sub-byte types keep one value per byte.

    As in PyTorch, quantized dtypes take part in no type promotion, and ``is_signed`` raises.
    """
    __slots__ = ('_int', '_qmin', '_qmax')

    def __init__(self, name, intdt, qmin, qmax):
        self._name = name
        self._cat = _INT
        self._int = np.dtype(intdt)
        self.itemsize = self._int.itemsize
        self._rank = 13
        self._raw = np.dtype([(name, self._int)])
        self._qmin, self._qmax = qmin, qmax

    @property
    def is_signed(self):
        raise RuntimeError("isSignedType not supported for quantized types")


qint8 = _QDtype('qint8', np.int8, -128, 127)
quint8 = _QDtype('quint8', np.uint8, 0, 255)
qint32 = _QDtype('qint32', np.int32, -2 ** 31, 2 ** 31 - 1)
quint4x2 = _QDtype('quint4x2', np.uint8, 0, 15)
quint2x4 = _QDtype('quint2x4', np.uint8, 0, 3)
_QUANTIZED = (qint8, quint8, qint32, quint4x2, quint2x4)


class qscheme:
    """A quantization scheme, like ``torch.qscheme``: how a quantized tensor maps its
    integers to real values (``ember.per_tensor_affine``: one scale and zero point;
    ``ember.per_channel_affine``: one pair per slice along an axis; the ``symmetric``
    forms say the zero point is the middle of the range; ``per_channel_affine_float_qparams``
    keeps float zero points).

    Example::

        >>> ember.per_tensor_affine
        torch.per_tensor_affine
    """
    __slots__ = ('_name',)

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return 'torch.' + self._name

    def __reduce__(self):
        return (_qscheme_by_name, (self._name,))


per_tensor_affine = qscheme('per_tensor_affine')
per_channel_affine = qscheme('per_channel_affine')
per_tensor_symmetric = qscheme('per_tensor_symmetric')
per_channel_symmetric = qscheme('per_channel_symmetric')
per_channel_affine_float_qparams = qscheme('per_channel_affine_float_qparams')
_QSCHEMES = {q._name: q for q in (per_tensor_affine, per_channel_affine, per_tensor_symmetric,
                                  per_channel_symmetric, per_channel_affine_float_qparams)}


def _qscheme_by_name(name):
    return _QSCHEMES[name]

float4_e2m1fn_x2 = _ByteDtype('float4_e2m1fn_x2', _FLOAT, True, 1)
bits1x8 = _BitsDtype('bits1x8', 1)
bits2x4 = _BitsDtype('bits2x4', 1)
bits4x2 = _BitsDtype('bits4x2', 1)
bits8 = _BitsDtype('bits8', 1)
bits16 = _BitsDtype('bits16', 2)
int1, int2, int3, int4, int5, int6, int7 = (
    _ByteDtype(f'int{_i}', _INT, True, 1) for _i in range(1, 8))
uint1, uint2, uint3, uint4, uint5, uint6, uint7 = (
    _ByteDtype(f'uint{_i}', _INT, False, 1) for _i in range(1, 8))
_NO_ARRAY = (complex32, float4_e2m1fn_x2, bits1x8, bits2x4, bits4x2, bits8, bits16,
             int1, int2, int3, int4, int5, int6, int7, uint1, uint2, uint3, uint4, uint5,
             uint6, uint7) + _QUANTIZED
_BYTES = frozenset(d for d in _NO_ARRAY if isinstance(d, _ByteDtype))

# aliases
half = float16
float = float32
double = float64
short = int16
int = int32
long = int64
cfloat = complex64
cdouble = complex128
chalf = complex32
bit = uint1

_ALL = [bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64,
        complex64, complex128, uint16, uint32, uint64, float8_e4m3fn, float8_e4m3fnuz,
        float8_e5m2, float8_e5m2fnuz, float8_e8m0fnu]
_BY_NAME = {d._name: d for d in _ALL}
_NO_ARRAY_BY_NAME = {d._name: d for d in _NO_ARRAY}   # dtypes outside the promotion table
_NP2DT = _NpToDtype()
for _d in _BYTES:
    _NP2DT[_d._raw] = _d
for _d in _ALL:
    if type(_d) is not _ExtDtype:
        _NP2DT[_d._np] = _d
        _NP2DT[_d._np.type] = _d
if 'ml_dtypes' in sys.modules:   # already paid for by the program: resolve now
    _load_ml_dtypes()

_default_dtype = float32

# Python's number types, which PyTorch accepts wherever it takes a dtype
_PY2DT = {builtins.bool: bool, builtins.int: int64, builtins.float: float64,
          builtins.complex: complex128}


def _dtype_arg(v, fname, arg, pos):
    """``v`` as a dtype for argument ``arg`` of ``fname``: a dtype, or a Python number
    type read as PyTorch reads it; anything else is PyTorch's TypeError."""
    if isinstance(v, dtype):
        return v
    d = _PY2DT.get(v) if v.__class__ is type else None
    if d is None:
        t = type(v)
        name = t.__name__ if t.__module__ != 'numpy' else 'numpy.' + t.__name__
        raise TypeError(f"{fname}(): argument '{arg}' (position {pos}) must be torch.dtype, "
                        f"not {name}")
    return d


def get_default_dtype():
    """Returns the current default floating point dtype (``torch.float32`` at start)."""
    return _default_dtype


def set_default_dtype(d):
    """Sets the default floating point dtype (float16, bfloat16, float32 or float64).

    Example::

        >>> ember.set_default_dtype(ember.float64)
    """
    global _default_dtype
    if not isinstance(d, dtype):
        raise TypeError("invalid dtype object: only floating-point types are supported as "
                        "the default type")
    if not d.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _default_dtype = d


def _default_complex():
    return complex128 if _default_dtype is float64 else complex64


def from_numpy_dtype(npdt):
    try:
        return _NP2DT[npdt]
    except KeyError:
        raise TypeError(f"can't convert np.ndarray of type {np.dtype(npdt)}. The only supported "
                        "types are: float64, float32, float16, complex64, complex128, int64, "
                        "int32, int16, int8, uint8, and bool.") from None


# ---------------------------------------------------------------- promotion
# table over the 12 "ranked" dtypes, following PyTorch's promoteTypes
_ORDER = [bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64,
          complex64, complex128]


# PyTorch's ScalarType names, used in its promotion errors
_SCALAR_NAMES = {'bool': 'Bool', 'uint8': 'Byte', 'int8': 'Char', 'int16': 'Short',
                 'int32': 'Int', 'int64': 'Long', 'float16': 'Half', 'bfloat16': 'BFloat16',
                 'float32': 'Float', 'float64': 'Double', 'complex64': 'ComplexFloat',
                 'complex128': 'ComplexDouble', 'complex32': 'ComplexHalf', 'uint16': 'UInt16',
                 'uint32': 'UInt32', 'uint64': 'UInt64', 'qint8': 'QInt8', 'quint8': 'QUInt8',
                 'qint32': 'QInt32', 'quint4x2': 'QUInt4x2', 'quint2x4': 'QUInt2x4'}


def _scalar_name(d):
    n = _SCALAR_NAMES.get(d._name)
    if n is not None:
        return n
    if d._name.startswith('uint'):
        return 'UInt' + d._name[4:]
    return d._name[0].upper() + d._name[1:]


def _promote_no_array(a, b):
    """PyTorch's promotion where one side is a dtype ember cannot hold in a tensor."""
    for x, o in ((a, b), (b, a)):
        if isinstance(x, _QDtype):
            raise RuntimeError("promoteTypes with quantized numbers is not handled yet; figure "
                               "out what the correct rules should be, offending types: "
                               f"{_scalar_name(a)} {_scalar_name(b)}")
        if isinstance(x, _BitsDtype):
            raise RuntimeError(f"Promotion from {_scalar_name(a)} and {_scalar_name(b)} is "
                               "unsupported.")
    if complex32 in (a, b):
        o = b if a is complex32 else a
        if isinstance(o, _NoArrayDtype):
            raise RuntimeError(f"Promotion of {_scalar_name(a)} and {_scalar_name(b)} is not "
                               "supported")
        if o._cat == _COMPLEX:
            return o
        if o is float64:
            return complex128
        if o is float32 or o is bfloat16:
            return complex64
        return complex32
    for x, o in ((a, b), (b, a)):
        if x._name.startswith('uint') and not isinstance(o, _NoArrayDtype):
            if o._cat == _FLOAT:
                return o
            raise RuntimeError(f"Promotion for uint16, uint32, uint64 types is not supported, "
                               f"attempted to promote {_scalar_name(a)} and {_scalar_name(b)}")
    raise RuntimeError(f"Promotion of {_scalar_name(a)} and {_scalar_name(b)} is not supported")


def _promote(a, b):
    if a is b:
        return a
    if isinstance(a, _NoArrayDtype) or isinstance(b, _NoArrayDtype):
        return _promote_no_array(a, b)
    if a in _FLOAT8 or b in _FLOAT8:
        raise RuntimeError(f"Promotion for Float8 Types is not supported, attempted to promote "
                           f"{_scalar_name(a)} and {_scalar_name(b)}")
    ca, cb = a._cat, b._cat
    if ca != cb:
        if ca < cb:
            a, b, ca, cb = b, a, cb, ca
        # a has the higher category
        if ca == _COMPLEX and cb == _FLOAT:
            if b is float64:
                return complex128
            return a
        return a
    if ca == _INT:
        # uint8 with signed types
        if a is uint8:
            return b if b.is_signed and b is not int8 else int16
        if b is uint8:
            return a if a.is_signed and a is not int8 else int16
        if a._rank == 1 or b._rank == 1:  # other unsigned types
            if a.itemsize == b.itemsize and a.is_signed != b.is_signed:
                raise TypeError(f"Promotion for uint16, uint32, uint64 types is not supported, "
                                f"attempted to promote {a._name} and {b._name}")
            return a if a.itemsize > b.itemsize else b
        return a if a._rank > b._rank else b
    if ca == _FLOAT:
        if {a, b} == {float16, bfloat16}:
            return float32
        return a if a._rank > b._rank else b
    return a if a._rank > b._rank else b


_PROMO = {}
for _a in _ALL:
    for _b in _ALL:
        try:
            _PROMO[(_a, _b)] = _promote(_a, _b)
        except (TypeError, RuntimeError):
            pass


def promote_types(type1, type2):
    """Returns the dtype with the smallest size and kind that both can be cast to.

    Example::

        >>> ember.promote_types(ember.int32, ember.float32)
        torch.float32
    """
    try:
        return _PROMO[(type1, type2)]
    except (KeyError, TypeError):
        type1 = _dtype_arg(type1, 'promote_types', 'type1', 1)
        type2 = _dtype_arg(type2, 'promote_types', 'type2', 2)
        return _promote(type1, type2)


def _scalar_category(x):
    t = type(x)
    if t is builtins.bool or t is np.bool_:
        return _BOOL
    if t is builtins.int or isinstance(x, np.integer):
        return _INT
    if t is builtins.float or isinstance(x, np.floating):
        return _FLOAT
    if t is builtins.complex or isinstance(x, np.complexfloating):
        return _COMPLEX
    raise TypeError(f"unsupported scalar type {t.__name__}")


def _scalar_dtype(x):
    c = _scalar_category(x)
    if c == _BOOL:
        return bool
    if c == _INT:
        return int64
    if c == _FLOAT:
        return _default_dtype
    return _default_complex()


def _cat_default(c):
    return (bool, int64, _default_dtype, _default_complex())[c]


def _promote_up(res, higher):
    """res is promoted into a higher category whose representative is ``higher``."""
    if higher._cat == _COMPLEX and res._cat == _FLOAT:
        return promote_types(res, higher) if res is float64 or higher is complex128 else higher
    return higher


def can_cast(from_, to):
    """Whether a cast from ``from_`` to ``to`` is allowed by PyTorch's casting rules
    (no casting to a lower category).

    Example::

        >>> ember.can_cast(ember.double, ember.float)
        True
        >>> ember.can_cast(ember.float, ember.int)
        False
    """
    from_ = _dtype_arg(from_, 'can_cast', 'from_', 1)
    to = _dtype_arg(to, 'can_cast', 'to', 2)
    return from_._cat <= to._cat


class finfo:
    """Numerical properties of a floating point dtype (``bits``, ``eps``, ``max``, ``min``,
    ``tiny``, ``smallest_normal``, ``resolution``).

    Example::

        >>> ember.finfo(ember.float32).eps
        1.1920928955078125e-07
    """

    def __init__(self, type=None):
        type = _default_dtype if type is None else _dtype_arg(type, 'finfo', 'type', 1)
        if not (type.is_floating_point or type.is_complex):
            raise TypeError("torch.finfo() requires a floating point input type. Use "
                            "torch.iinfo to handle 'torch.finfo'")
        t = type.to_real()
        if isinstance(t, _ExtDtype):
            _load_ml_dtypes()
            import ml_dtypes
            fi = ml_dtypes.finfo(t._np)
        else:
            fi = np.finfo(t._np)
        self.bits = fi.bits
        self.eps = builtins.float(fi.eps)
        self.max = builtins.float(fi.max)
        self.min = builtins.float(fi.min)
        self.tiny = builtins.float(fi.tiny)
        self.smallest_normal = self.tiny
        self.resolution = 10.0 ** -builtins.int(fi.precision)
        if t in _FLOAT8:
            # PyTorch: 10**-digits10, digits10 = floor(mantissa bits * log10(2)) = 0; its
            # float8_e5m2fnuz epsilon is 2**-3 (ml_dtypes says 2**-2)
            self.resolution = 1.0
            if t is float8_e5m2fnuz:
                self.eps = 0.125
        self.dtype = t._name

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.tiny:g}, tiny={self.tiny:g}, "
                f"dtype={self.dtype})")


class iinfo:
    """Numerical properties of an integer dtype (``bits``, ``max``, ``min``).

    Example::

        >>> ember.iinfo(ember.int8).max
        127
    """

    def __init__(self, type):
        type = _dtype_arg(type, 'iinfo', 'type', 1)
        if type.is_floating_point or type.is_complex:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo "
                            "to handle 'torch.iinfo'")
        if type is bool:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if isinstance(type, _QDtype):
            raise NotImplementedError(f'"dtype" not implemented for \'{_scalar_name(type)}\'')
        ii = np.iinfo(type._np) if type is not bool else None
        self.bits = type.itemsize * 8
        self.max = builtins.int(ii.max) if ii else 1
        self.min = builtins.int(ii.min) if ii else 0
        self.dtype = type._name

    def __repr__(self):
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"
