"""``ember.PyTorchFileReader``: the record reader of PyTorch's zip checkpoint format, as
``torch.PyTorchFileReader`` (lightning's lazy checkpoint loader reads records with it).

Record names are looked up under the archive's single top-level folder (``archive/``), as
PyTorch does; a missing record raises ``RuntimeError`` worded as PyTorch's.
"""
import os
import zipfile

__all__ = ['PyTorchFileReader']


class PyTorchFileReader:
    """Reads the records of a checkpoint written by ``torch.save``/``ember.save``.

    Args:
        file (str or file-like): the path, or a binary file object open for reading.

    Example::

        >>> import io
        >>> buf = io.BytesIO()
        >>> ember.save({'w': ember.ones(2)}, buf)
        >>> _ = buf.seek(0)
        >>> r = ember.PyTorchFileReader(buf)
        >>> r.has_record('data.pkl')
        True
    """

    def __init__(self, file):
        if isinstance(file, (str, os.PathLike)):
            path = os.fspath(file)
            if not os.path.exists(path):
                raise RuntimeError(f"open file failed because of errno 2 on fopen: No such "
                                   f"file or directory, file path: {path}")
            self._file = open(path, 'rb')
        else:
            self._file = file
        try:
            self._zip = zipfile.ZipFile(self._file)
        except zipfile.BadZipFile:
            raise RuntimeError("PytorchStreamReader failed reading zip archive: failed finding "
                               "central directory") from None
        infos = self._zip.infolist()
        self._prefix = infos[0].filename.split('/')[0] + '/' if infos else ''
        self._infos = {i.filename[len(self._prefix):]: i for i in infos
                       if i.filename.startswith(self._prefix)}

    def _info(self, name):
        info = self._infos.get(name)
        if info is None:
            raise RuntimeError(f"PytorchStreamReader failed locating file {name}: file not "
                               "found")
        return info

    def get_all_records(self):
        """The names of the records, in the archive's order."""
        return list(self._infos)

    def has_record(self, name):
        """Whether the record ``name`` exists."""
        return name in self._infos

    def get_record(self, name):
        """The bytes of record ``name``."""
        return self._zip.read(self._info(name))

    def get_record_size(self, name):
        """The (uncompressed) size of record ``name`` in bytes."""
        return self._info(name).file_size

    def get_record_offset(self, name):
        """The offset in the file of record ``name``'s data."""
        info = self._info(name)
        self._file.seek(info.header_offset + 26)
        head = self._file.read(4)
        n, m = int.from_bytes(head[:2], 'little'), int.from_bytes(head[2:], 'little')
        return info.header_offset + 30 + n + m

    def serialization_id(self):
        """The checkpoint's serialization id (``''`` when it has none)."""
        if self.has_record('.data/serialization_id'):
            return self.get_record('.data/serialization_id').decode()
        return ''

    def get_storage_from_record(self, name, numel, dtype):
        """Record ``name``'s first ``numel * dtype.itemsize`` bytes as the storage of an
        empty tensor of ``dtype`` (``UntypedStorage`` reads bytes), as PyTorch returns it.
        """
        from . import uint8
        from ._dtype import dtype as _dtype
        from ._misc import frombuffer
        dt = dtype if isinstance(dtype, _dtype) else uint8
        nbytes = numel * dt.itemsize
        data = bytearray(self.get_record(name)[:nbytes])
        if len(data) < nbytes:
            raise RuntimeError(f"PytorchStreamReader: record {name} holds {len(data)} bytes, "
                               f"fewer than the {nbytes} asked for")
        t = frombuffer(data, dtype=uint8) if nbytes else None
        if t is None:
            from ._ops.creation import empty
            return empty(0, dtype=dt)
        return t.view(dt)[:0]
