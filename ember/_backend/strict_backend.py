"""A strict check backend: NumPy arrays that only the backend's array module may touch.

Principle 5 of the design says that op bodies never call NumPy directly on tensor data:
they ask ``array_module(x)`` for ``xp`` and call ``xp.<function>``, so that the same body
runs on CuPy. Without a GPU nothing catches a body that writes ``np.exp(a)`` instead of
``xp.exp(a)``. This backend does.

:class:`StrictArray` is an ``ndarray`` subclass whose ``__array_function__`` and
``__array_ufunc__`` refuse to run, so a NumPy module function called on one raises
:class:`StrictBackendError`. :data:`STRICT` is the matching array module: ``STRICT.exp``,
``STRICT.linalg.svd``, ``STRICT.add.reduce``, ... run NumPy's function on plain views of
the arguments and hand the results back as ``StrictArray``. The array's own methods and
operators (``a.sum()``, ``a + b``, ``a.astype(t)``) work, as they do on CuPy. As on CuPy,
mixing a host ``numpy.ndarray`` (of one or more dims) into a call on strict arrays is
refused too: that catches a buffer made by ``np.zeros(...)`` in an op body.

``array_module(a)`` returns :data:`STRICT` for a ``StrictArray``. With :func:`enable` (or
``EMBER_STRICT_BACKEND=1`` in the environment when ember is imported) the strict module is
also the CPU device's module, so every CPU tensor that ember creates through the backend
lives on it.

Example::

    >>> from ember._backend import strict_backend as sb
    >>> a = sb.to_strict(numpy.arange(3.))
    >>> sb.STRICT.exp(a).sum() > 0
    True
    >>> numpy.exp(a)
    Traceback (most recent call last):
    ...
    StrictBackendError: numpy.exp called directly on a strict array; ...
"""
import functools
import os
import types

import numpy as np

__all__ = ['StrictArray', 'StrictBackendError', 'STRICT', 'to_strict', 'to_numpy', 'enable',
           'disable', 'enabled']


class StrictBackendError(TypeError):
    """A NumPy function was applied to a strict array without going through ``xp``."""


_ndarray = np.ndarray
_generic = np.generic


def _is_host(x):
    """A host array that a device backend would refuse: a plain ndarray of >= 1 dim."""
    return type(x) is _ndarray and x.ndim > 0


def _plain(x):
    """``x`` with every StrictArray (also inside lists and tuples) viewed as a plain
    ndarray. Returns ``(converted, saw_strict, saw_host)``."""
    t = type(x)
    if t is StrictArray:
        return x.view(_ndarray), True, False
    if t is list or t is tuple:
        out, ss, sh = [], False, False
        for v in x:
            p, s, h = _plain(v)
            out.append(p)
            ss |= s
            sh |= h
        return (out if t is list else tuple(out)), ss, sh
    return x, False, _is_host(x)


def _strict(r):
    """Results of a NumPy call as strict arrays (tuples, lists and named tuples too)."""
    t = type(r)
    if t is _ndarray:
        return r.view(StrictArray)
    if t is StrictArray or t is _generic or isinstance(r, _generic):
        return r
    if t is tuple or t is list:
        return t(_strict(v) for v in r)
    if isinstance(r, tuple) and hasattr(r, '_fields'):   # SVDResult, EighResult, ...
        return t(*(_strict(v) for v in r))
    return r


def _refuse(what):
    raise StrictBackendError(
        f"{what} called directly on a strict array; an op body must use the array module "
        "of its inputs (xp = array_module(a); xp.<function>(...)), not numpy")


def _call(fn, name, args, kwargs, convert=False):
    """Run NumPy's ``fn`` on plain views of ``args``; results come back strict.

    ``convert``: ``fn`` is a host-to-backend conversion (``asarray``...), which may take
    host arrays."""
    pa, saw_strict, saw_host = _plain(args)
    if kwargs:
        kw = {}
        for k, v in kwargs.items():
            p, s, h = _plain(v)
            kw[k] = p
            saw_strict |= s
            saw_host |= h and k != 'like'
    else:
        kw = kwargs
    if saw_host and not convert:
        raise StrictBackendError(
            f"{name}: a host numpy.ndarray was mixed with strict arrays; make it with the "
            "array module of the inputs (xp.asarray / xp.zeros ...), as a device backend "
            "would require")
    out = kw.get('out') if kw else None
    r = fn(*pa, **kw)
    if out is not None:   # give back the caller's own out arrays
        o = kwargs['out']
        if isinstance(o, tuple):
            return o if isinstance(r, tuple) else o[0]
        return o
    return _strict(r)


# functions that move host data onto the backend: they may take numpy arrays
_CONVERSIONS = frozenset({'asarray', 'array', 'asanyarray', 'ascontiguousarray',
                          'asfortranarray', 'copy', 'frombuffer', 'fromiter', 'from_dlpack'})


class _StrictUfunc:
    """A NumPy ufunc as the strict module exposes it (``__call__``, ``reduce``, ``at``...)."""
    __slots__ = ('_uf', '__name__')

    def __init__(self, uf):
        self._uf = uf
        self.__name__ = uf.__name__

    def __call__(self, *args, **kwargs):
        return _call(self._uf, self.__name__, args, kwargs)

    def __getattr__(self, name):
        attr = getattr(self._uf, name)
        if name in ('reduce', 'accumulate', 'reduceat', 'outer', 'at'):
            if name == 'at':   # in place on its first argument; returns None
                def at(a, *args, **kwargs):
                    _call(attr, f'{self.__name__}.at', (a,) + args, kwargs)
                return at
            return functools.partial(_call_named, attr, f'{self.__name__}.{name}')
        return attr

    def __repr__(self):
        return f"<strict ufunc '{self.__name__}'>"


def _call_named(fn, name, *args, **kwargs):
    return _call(fn, name, args, kwargs)


class _StrictModule(types.ModuleType):
    """An array module over NumPy whose functions take and return strict arrays. Names
    that are not functions (dtypes, constants, ``errstate``, ``ndarray``) pass through."""

    def __init__(self, name, base):
        super().__init__(name)
        self._base = base
        self._cache = {}

    def __getattr__(self, name):
        cache = self.__dict__.get('_cache')
        if cache is None:
            raise AttributeError(name)
        try:
            return cache[name]
        except KeyError:
            pass
        base = self.__dict__['_base']
        attr = getattr(base, name)
        if name == 'ndarray':
            attr = StrictArray
        elif isinstance(attr, np.ufunc):
            attr = _StrictUfunc(attr)
        elif isinstance(attr, types.ModuleType):
            attr = _StrictModule(f'{self.__name__}.{name}', attr)
        elif isinstance(attr, type) or not callable(attr) or name in _PASS:
            pass
        else:
            attr = _wrap_function(attr, f'{base.__name__}.{name}', name in _CONVERSIONS)
        cache[name] = attr
        return attr

    def __dir__(self):
        return dir(self.__dict__['_base'])


# callables that take no array data (or are context managers): used as they are
_PASS = frozenset({'errstate', 'dtype', 'finfo', 'iinfo', 'result_type', 'can_cast',
                   'promote_types', 'issubdtype', 'isscalar', 'ndim', 'shape', 'size',
                   'broadcast_shapes', 'get_printoptions', 'set_printoptions',
                   'printoptions', 'seterr', 'geterr', 'normalize_axis_index',
                   'normalize_axis_tuple', 'isdtype'})


def _wrap_function(fn, name, convert):
    def f(*args, **kwargs):
        return _call(fn, name, args, kwargs, convert)
    f.__name__ = getattr(fn, '__name__', name)
    f.__qualname__ = name
    f.__doc__ = f"``{name}`` on strict arrays (see ember._backend.strict_backend)."
    return f


class StrictArray(np.ndarray):
    """A NumPy array that refuses NumPy's module functions: only its own methods and
    operators, and the functions of :data:`STRICT`, may compute on it.

    ``get()`` returns a plain ``numpy.ndarray`` copy, as CuPy's arrays do."""

    def __array_function__(self, func, types, args, kwargs):
        _refuse(f"{func.__module__}.{func.__name__}")

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        # ``numpy_scalar * strict_array`` reaches here from the scalar's operator: allow
        # it, as CuPy does; any other direct ufunc call is refused.
        if method == '__call__' and len(inputs) == 2 and isinstance(inputs[0], _generic) \
                and type(inputs[1]) is StrictArray and not kwargs:
            return _call(ufunc, ufunc.__name__, inputs, kwargs)
        _refuse(f"numpy.{ufunc.__name__}" + ('' if method == '__call__' else '.' + method))

    def get(self, stream=None, order='C', out=None):
        """A host copy (a plain ``numpy.ndarray``), like ``cupy.ndarray.get``."""
        r = np.array(self.view(_ndarray), order=order)
        if out is not None:
            out[...] = r
            return out
        return r

    def __reduce__(self):   # pickles as a plain array, restored strict
        return (to_strict, (self.get(),))

    def __reduce_ex__(self, protocol):
        return self.__reduce__()


def _method(name):
    meth = getattr(_ndarray, name)

    def m(self, *args, **kwargs):
        pa, _, saw_host = _plain(args)
        if saw_host and name not in _HOST_OK:
            raise StrictBackendError(
                f"ndarray.{name}: a host numpy.ndarray was mixed with a strict array; make it "
                "with the array module of the inputs (xp.asarray / xp.zeros ...)")
        plain = self.view(_ndarray)
        if kwargs:
            kwargs = {k: _plain(v)[0] for k, v in kwargs.items()}
        r = meth(plain, *pa, **kwargs)
        if r is plain:   # in-place operators return self
            return self
        return _strict(r)
    m.__name__ = name
    m.__qualname__ = f'StrictArray.{name}'
    m.__doc__ = meth.__doc__
    return m


# methods where a host index/value array is fine (CuPy accepts them too)
_HOST_OK = frozenset({'__getitem__', '__setitem__', 'take', 'put', 'view', 'astype',
                      'reshape', 'transpose', 'fill', 'tobytes', 'tolist', 'item'})

_OPERATORS = [f'__{p}{op}__' for op in
              ('add', 'sub', 'mul', 'truediv', 'floordiv', 'mod', 'pow', 'matmul', 'and',
               'or', 'xor', 'lshift', 'rshift') for p in ('', 'r', 'i')]
_OPERATORS += ['__neg__', '__pos__', '__abs__', '__invert__', '__eq__', '__ne__', '__lt__',
               '__le__', '__gt__', '__ge__', '__divmod__', '__rdivmod__', '__round__',
               '__contains__', '__bool__', '__float__', '__int__', '__complex__', '__index__',
               '__copy__', '__deepcopy__', '__format__', '__repr__', '__str__']
_SKIP = {'view', 'get', 'tofile', 'dump', 'dumps', 'setflags', 'resize'}

for _name in _OPERATORS + [n for n in dir(_ndarray) if not n.startswith('_')]:
    if _name in _SKIP or not callable(getattr(_ndarray, _name, None)):
        continue
    setattr(StrictArray, _name, _method(_name))
del _name

STRICT = _StrictModule('ember.strict', np)
"""The strict array module: NumPy's namespace over :class:`StrictArray`."""


def to_strict(a):
    """``a`` (an ndarray or anything ``numpy.asarray`` takes) as a StrictArray sharing
    memory where it can."""
    if type(a) is StrictArray:
        return a
    return np.asarray(a).view(StrictArray)


def to_numpy(a):
    """A plain ``numpy.ndarray`` view of a strict array (other values pass through)."""
    return a.view(_ndarray) if type(a) is StrictArray else a


_enabled = False
# called with the new CPU array module on enable()/disable(): ``_backend/__init__`` registers
# its setter here when it is imported (this module does not import its package)
_on_switch = []


def enabled():
    """True when the strict module is the CPU device's array module."""
    return _enabled


def enable():
    """Make the strict module the CPU device's array module: tensors that ember creates on
    the CPU (``ember.zeros``, ``ember.tensor``, ...) hold StrictArrays from now on."""
    global _enabled
    _enabled = True
    for f in _on_switch:
        f(STRICT)


def disable():
    """Undo :func:`enable`."""
    global _enabled
    _enabled = False
    for f in _on_switch:
        f(np)


if os.environ.get('EMBER_STRICT_BACKEND', '') not in ('', '0'):
    _enabled = True   # _backend/__init__ reads this when it is imported
