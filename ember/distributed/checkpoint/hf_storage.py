"""``ember.distributed.checkpoint.hf_storage``: DCP storage in Hugging Face's safetensors
layout: ``model-0000X-of-0000N.safetensors`` files (each tensor whole, with DCP's sharding
record in the file's ``__metadata__``) and ``model.safetensors.index.json`` mapping every
name to its file, as torch writes them, so that ``dcp.save``/``dcp.load`` exchange
checkpoints with torch and with the ``safetensors`` library.

NOTE: unlike PyTorch, these storages are for one process (``no_dist=True``, no process
group, or a group of one rank): ``save_distributed`` and ``enable_consolidation`` (per-rank
shard files merged afterwards) raise ``NotImplementedError``.
"""
import json
import os
import struct

from .api import CheckpointException, StorageReader, StorageWriter, _flatten, _resolve_stateful

__all__ = ['HuggingFaceStorageWriter', 'HuggingFaceStorageReader']

_CODES = {'float64': 'F64', 'float32': 'F32', 'float16': 'F16', 'bfloat16': 'BF16',
          'int64': 'I64', 'int32': 'I32', 'int16': 'I16', 'int8': 'I8', 'uint8': 'U8',
          'uint16': 'U16', 'uint32': 'U32', 'uint64': 'U64', 'bool': 'BOOL',
          'float8_e4m3fn': 'F8_E4M3', 'float8_e5m2': 'F8_E5M2'}
_INDEX = 'model.safetensors.index.json'


def _one_process(process_group, no_dist):
    from ... import distributed as dist
    if no_dist or not dist.is_initialized() or dist.get_world_size(process_group) == 1:
        return
    raise NotImplementedError("ember's Hugging Face DCP storage writes and reads from one "
                              "process (no_dist=True or a group of one rank)")


def _dtype_by_code():
    from ... import _dtype
    out = {}
    for name, code in _CODES.items():
        dt = getattr(_dtype, name, None)
        if dt is not None:
            out[code] = dt
    return out


def _file_name(i, n):
    return f"model-{i:05d}-of-{n:05d}.safetensors"


def _write_file(path, items):
    """One safetensors file: an 8-byte little-endian header length, the JSON header (DCP's
    sharding record in ``__metadata__``), padded with spaces to 8 bytes, then the data."""
    header = {'__metadata__': {
        'format': 'pt',
        'DCP_SHARDING_INFO': json.dumps({k: {'saved_offsets': [0] * t.dim()} for k, t in items}),
        'DCP_VERSION': '1.0'}}
    blobs, off = [], 0
    for k, t in items:
        code = _CODES.get(str(t.dtype).replace('torch.', ''))
        if code is None:
            raise ValueError(f"safetensors cannot store a tensor of dtype {t.dtype} ({k})")
        data = t.detach().cpu().contiguous()._data.tobytes()
        header[k] = {'dtype': code, 'shape': list(t.shape), 'data_offsets': [off, off + len(data)]}
        blobs.append(data)
        off += len(data)
    text = json.dumps(header, separators=(',', ':')).encode()
    text += b' ' * (-len(text) % 8)
    tmp = path + '.tmp'
    with open(tmp, 'wb') as f:
        f.write(struct.pack('<Q', len(text)))
        f.write(text)
        for b in blobs:
            f.write(b)
    os.replace(tmp, path)
    return off


def _read_header(path):
    with open(path, 'rb') as f:
        n = struct.unpack('<Q', f.read(8))[0]
        return json.loads(f.read(n)), 8 + n


class HuggingFaceStorageWriter(StorageWriter):
    """Where ``dcp.save`` writes a checkpoint as Hugging Face safetensors files in the folder
    ``path``: ``model-0000X-of-0000N.safetensors`` (the file of each name given by
    ``fqn_to_index_mapping``, 1-based; one file without it) and
    ``model.safetensors.index.json``.

    NOTE: unlike PyTorch, only one process writes; ``save_distributed=True`` and
    ``enable_consolidation=True`` raise ``NotImplementedError``.

    Args:
        path (str): the folder (created if missing).
        fqn_to_index_mapping (dict, optional): name -> file number (1..N).
        thread_count (int): accepted (one thread writes).
        save_distributed (bool): per-rank shard files (not implemented).
        enable_consolidation (bool): merge per-rank shards (not implemented).
        thread_count_consolidation (int): accepted.

    Example::

        >>> dcp.save(model.state_dict(), storage_writer=HuggingFaceStorageWriter('ckpt'))
    """

    def __init__(self, path, fqn_to_index_mapping=None, thread_count=1, save_distributed=False,
                 enable_consolidation=False, thread_count_consolidation=1):
        if save_distributed or enable_consolidation:
            raise NotImplementedError("HuggingFaceStorageWriter: save_distributed and "
                                      "enable_consolidation are not implemented in ember")
        self.path = os.fspath(path)
        self.fqn_to_index_mapping = fqn_to_index_mapping

    def _ember_save(self, state_dict, process_group, no_dist):
        from ..._tensor import Size, Tensor
        from .metadata import ChunkStorageMetadata, TensorProperties, TensorStorageMetadata
        _one_process(process_group, no_dist)
        flat = {k: e[1] for k, e in _flatten(_resolve_stateful(state_dict)).items()}
        for k, v in flat.items():
            if not isinstance(v, Tensor):
                raise ValueError(f"HuggingFaceStorageWriter stores tensors only; {k!r} is a "
                                 f"{type(v).__name__}")
        mapping = self.fqn_to_index_mapping
        n = max(mapping.values()) if mapping else 1
        files = {i: [] for i in range(1, n + 1)}
        for k, v in flat.items():
            i = mapping.get(k, 1) if mapping else 1
            if not 1 <= i <= n:
                raise ValueError(f"fqn_to_index_mapping: file number {i} of {k!r} is not in 1..{n}")
            files[i].append((k, v))
        os.makedirs(self.path, exist_ok=True)
        weight_map, total, meta = {}, 0, {}
        for i, items in files.items():
            if not items:
                continue
            name = _file_name(i, n)
            total += _write_file(os.path.join(self.path, name), items)
            for k, v in items:
                weight_map[k] = name
                meta[k] = TensorStorageMetadata(
                    TensorProperties.create_from_tensor(v), v.shape,
                    [ChunkStorageMetadata(Size([0] * v.dim()), v.shape)])
        with open(os.path.join(self.path, _INDEX), 'w') as f:
            json.dump({'metadata': {'total_size': total}, 'weight_map': weight_map}, f, indent=2)
        return meta


class HuggingFaceStorageReader(StorageReader):
    """Where ``dcp.load`` reads a checkpoint of Hugging Face safetensors files: every
    ``*.safetensors`` file of the folder ``path`` (as written by torch, by
    :class:`HuggingFaceStorageWriter` or by ``save_pretrained``).

    NOTE: unlike PyTorch, only one process reads (see the module's docstring).

    Args:
        path (str): the folder.
        thread_count (int): accepted (one thread reads).

    Example::

        >>> sd = model.state_dict()
        >>> dcp.load(sd, storage_reader=HuggingFaceStorageReader('ckpt'))
    """

    def __init__(self, path, thread_count=1):
        self.path = os.fspath(path)

    def _ember_load(self, state_dict, process_group, no_dist):
        from ..._tensor import Tensor
        from ..._misc import frombuffer
        from ...autograd.grad_mode import no_grad
        _one_process(process_group, no_dist)
        where = {}
        for name in sorted(os.listdir(self.path)):
            if name.endswith('.safetensors'):
                full = os.path.join(self.path, name)
                header, start = _read_header(full)
                for k, info in header.items():
                    if k != '__metadata__':
                        where[k] = (full, start, info)
        resolved = _resolve_stateful(state_dict)
        flat = {k: e[1] for k, e in _flatten(resolved).items()}
        for k in flat:
            if k not in where:
                raise CheckpointException("load failed", {0: RuntimeError(
                    f"Missing key in checkpoint state_dict: {k}.")})
        for k, dst in flat.items():          # every check before anything is written
            if not isinstance(dst, Tensor):
                raise ValueError(f"HuggingFaceStorageReader loads tensors only; {k!r} is a "
                                 f"{type(dst).__name__}")
            shape = tuple(where[k][2]['shape'])
            if tuple(dst.shape) != shape:
                from ..._tensor import Size
                raise CheckpointException("load failed", {0: ValueError(
                    f"Size mismatch between saved {Size(shape)} and current: {dst.shape} "
                    f"for {k}")})
        codes = _dtype_by_code()
        for k, dst in flat.items():
            full, start, info = where[k]
            b, e = info['data_offsets']
            if e == b:
                continue
            with open(full, 'rb') as f:
                f.seek(start + b)
                raw = bytearray(f.read(e - b))
            src = frombuffer(raw, dtype=codes[info['dtype']])
            with no_grad():
                dst.copy_(src.reshape(dst.shape))
        from .stateful import Stateful
        for k, v in state_dict.items():
            if isinstance(v, Stateful) and not isinstance(v, Tensor):
                v.load_state_dict(resolved[k])
