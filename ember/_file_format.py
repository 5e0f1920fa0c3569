"""``ember.PyTorchFileReader``: the record reader of PyTorch's zip checkpoint format, as
``torch.PyTorchFileReader`` (lightning's lazy checkpoint loader reads records with it).

Record names are looked up under the archive's single top-level folder (``archive/``), as
PyTorch does; a missing record raises ``RuntimeError`` worded as PyTorch's.
"""
import os
import pickle
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


# ---------------------------------------------------------------------------- the pickle scanner
# (of ``ember.serialization.get_unsafe_globals_in_checkpoint``: it parses, never unpickles)
_MARK = object()


class _BoundedFile:
    """A file view for ``pickletools.genops`` that never reads past the file's end."""

    def __init__(self, f, end):
        self.f, self.end = f, end

    def read(self, n=-1):
        left = self.end - self.f.tell()
        return self.f.read(left if n < 0 else min(n, left))

    def readline(self, n=-1):
        left = self.end - self.f.tell()
        return self.f.readline(left if n < 0 else min(n, left))


def _globals_in_pickle(f, out, budget):
    """Appends ``(module, name)`` for every global a pickle names (GLOBAL, INST, and
    STACK_GLOBAL with names from literals or the memo; None where they are computed).
    ``budget`` is a one-item list of the opcodes left to scan (shared by the pickles of
    one file); a pickle with more is refused, never scanned in part."""
    import pickletools
    stack, memo = [], {}
    mark = pickletools.markobject
    sl = pickletools.stackslice
    try:
        for op, arg, _ in pickletools.genops(f):
            budget[0] -= 1
            if budget[0] < 0:
                break
            n = op.name
            if n in ('GLOBAL', 'INST'):
                mod, _, nm = arg.partition(' ')
                out.append((mod, nm))
            elif n == 'STACK_GLOBAL':
                nm = stack.pop() if stack else None
                mod = stack.pop() if stack else None
                out.append((mod if type(mod) is str else None, nm if type(nm) is str else None))
                stack.append(None)
                continue
            if n in ('PUT', 'BINPUT', 'LONG_BINPUT', 'MEMOIZE'):
                memo[len(memo) if n == 'MEMOIZE' else arg] = stack[-1] if stack else None
                continue
            if n in ('GET', 'BINGET', 'LONG_BINGET'):
                stack.append(memo.get(arg))
                continue
            if n == 'DUP':
                stack.append(stack[-1] if stack else None)
                continue
            for s in reversed(op.stack_before):
                if s is sl:
                    while stack and stack[-1] is not _MARK:
                        stack.pop()
                elif stack:
                    stack.pop()
            for s in op.stack_after:
                if s is mark:
                    stack.append(_MARK)
                else:
                    stack.append(arg if type(arg) is str and ('STRING' in n or 'UNICODE' in n) else None)
            if n == 'STOP':
                break
    except Exception:     # a malformed pickle: report what was found up to there
        return False
    if budget[0] < 0:
        raise pickle.UnpicklingError("get_unsafe_globals_in_checkpoint: the pickle has more opcodes "
                                     "than its file's size allows (8 a byte): not scanned")
    return True
