"""``ember.types``: type aliases for annotations, as ``torch.types`` has them.

``Number`` (``int | float | bool``), ``Device`` (a device, its string, an index, or None),
``FileLike`` (a path or a binary file object), ``Storage`` (the storage protocol), and the
private aliases PyTorch code imports from here (``_size``, ``_TensorOrTensors``,
``_dtype``, ...).

Example::

    >>> import typing
    >>> from ember.types import Number
    >>> isinstance(3.0, typing.get_args(Number))
    True
"""
import os
import typing
from collections.abc import Sequence
from typing import IO, Union

from ._device import device as _device
from ._dtype import dtype as _dtype
from ._misc import SymBool, SymFloat, SymInt
from ._tensor import Size, Tensor
from .autograd.graph import Node as _Node

__all__ = ['Number', 'Device', 'FileLike', 'Storage']

_bool = bool
_complex = complex
_float = float
_int = int
_str = str
_bytes = bytes

_TensorOrTensors = Union[Tensor, Sequence[Tensor]]
_TensorOrOptionalTensors = Union[Tensor, Sequence[typing.Optional[Tensor]]]
_TensorOrTensorsOrGradEdge = Union[Tensor, Sequence[Tensor], _Node, Sequence[_Node]]
_size = Union[Size, list[int], tuple[int, ...]]
_symsize = Union[Size, Sequence[Union[int, SymInt]]]
_dispatchkey = str

IntLikeType = Union[int, SymInt]
FloatLikeType = Union[float, SymFloat]
BoolLikeType = Union[bool, SymBool]
py_sym_types = (SymInt, SymFloat, SymBool)
PySymType = Union[SymInt, SymFloat, SymBool]

Number = Union[int, float, bool]
_Number = (int, float, bool)
Device = Union[_device, str, int, None]
FileLike = Union[str, os.PathLike[str], IO[bytes]]


class Storage:
    """The interface of a storage (what ``Tensor.untyped_storage()`` returns): its
    ``device``, ``dtype``, byte size and element access, for annotations.

    Example::

        >>> def nbytes(s: ember.types.Storage) -> int:
        ...     return s.nbytes()
    """
    _cdata: int
    device: _device
    dtype: _dtype
    _torch_load_uninitialized: bool

    def __deepcopy__(self, memo):
        raise NotImplementedError

    def _new_shared(self, size):
        raise NotImplementedError

    def _write_file(self, f, is_real_file, save_size, element_size):
        raise NotImplementedError

    def element_size(self):
        raise NotImplementedError

    def is_shared(self):
        raise NotImplementedError

    def share_memory_(self):
        raise NotImplementedError

    def nbytes(self):
        raise NotImplementedError

    def cpu(self):
        raise NotImplementedError

    def data_ptr(self):
        raise NotImplementedError

    def from_file(self, filename, shared=False, nbytes=0):
        raise NotImplementedError

