"""Small public pieces of the ``ember`` namespace that belong to no op family:
legacy tensor types (``FloatTensor``...)."""
from . import _dtype as D
from ._tensor import Tensor, _LegacyTensor

__all__ = ['FloatTensor', 'DoubleTensor', 'HalfTensor', 'BFloat16Tensor', 'LongTensor',
           'IntTensor', 'ShortTensor', 'CharTensor', 'ByteTensor', 'BoolTensor']


class _LegacyMeta(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and obj.dtype is cls._legacy_dtype and obj.device.type == 'cpu'


def _legacy(name, dt):
    return _LegacyMeta(name, (_LegacyTensor,), {
        '_legacy_dtype': dt, '__slots__': (),
        '__doc__': f"Legacy constructor: ``{name}(*sizes)`` or ``{name}(data)`` makes a "
                   f"{dt._name} tensor (an ``ember.Tensor``)."})


FloatTensor = _legacy('FloatTensor', D.float32)
DoubleTensor = _legacy('DoubleTensor', D.float64)
HalfTensor = _legacy('HalfTensor', D.float16)
BFloat16Tensor = _legacy('BFloat16Tensor', D.bfloat16)
LongTensor = _legacy('LongTensor', D.int64)
IntTensor = _legacy('IntTensor', D.int32)
ShortTensor = _legacy('ShortTensor', D.int16)
CharTensor = _legacy('CharTensor', D.int8)
ByteTensor = _legacy('ByteTensor', D.uint8)
BoolTensor = _legacy('BoolTensor', D.bool)
