"""``ember.backends.quantized``: the quantized engine, as ``torch.backends.quantized``.

``engine`` names the library whose kernels quantized ops emulate (``'x86'`` by default;
``'fbgemm'``, ``'qnnpack'``, ``'onednn'``); ``supported_engines`` lists the names that may be
set. Setting an unknown name raises PyTorch's ``RuntimeError``.

Example::

    >>> ember.backends.quantized.engine
    'x86'
    >>> ember.backends.quantized.supported_engines
    ['qnnpack', 'onednn', 'x86', 'fbgemm']

NOTE: unlike PyTorch, the engine does not pick a native library: it tells ember's NumPy
quantized kernels whose integer results to reproduce. It is process-wide, as in PyTorch.
"""
import sys
import types

from ..._ops import fake_quantize as _fq

_ENGINE_IDS = {'none': 0, '': 0, None: 0, 'fbgemm': 1, 'qnnpack': 2, 'onednn': 3, 'x86': 4}
_SUPPORTED = ['qnnpack', 'onednn', 'x86', 'fbgemm']


def _set_engine(val):
    if not isinstance(val, (str, type(None))) or val not in _ENGINE_IDS:
        raise RuntimeError(f"{val} is not a valid value for quantized engine")
    if _ENGINE_IDS[val] == 0:
        raise RuntimeError("quantized engine NoQEngine is not supported")
    _fq.QENGINE[0] = val


class _EngineProp:
    def __get__(self, obj, objtype=None):
        return _fq.QENGINE[0]

    def __set__(self, obj, val):
        _set_engine(val)


class _SupportedProp:
    def __get__(self, obj, objtype=None):
        return list(_SUPPORTED)

    def __set__(self, obj, val):
        raise RuntimeError("Assignment not supported")


class QuantizedEngine(types.ModuleType):
    """The module object of ``ember.backends.quantized``: ``engine`` and
    ``supported_engines`` are properties of it (as in PyTorch).

    Example::

        >>> q = ember.backends.quantized
        >>> old = q.engine
        >>> q.engine = 'qnnpack'
        >>> q.engine
        'qnnpack'
        >>> q.engine = old
    """

    def __init__(self, m, name):
        super().__init__(name)
        self.m = m
        self.__doc__ = m.__doc__
        self.__file__ = getattr(m, '__file__', None)
        self.__path__ = getattr(m, '__path__', [])
        self.__spec__ = getattr(m, '__spec__', None)

    def __getattr__(self, attr):
        return getattr(self.m, attr)

    engine = _EngineProp()
    supported_engines = _SupportedProp()


engine: str
supported_engines: list

sys.modules[__name__] = QuantizedEngine(sys.modules[__name__], __name__)
