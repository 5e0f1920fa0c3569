"""Writing and reading a checkpoint folder in PyTorch's DCP layout (``__r_0.distcp`` files of
concatenated ``save`` archives, and the ``.metadata`` index)."""
import io
import os
import uuid

from .metadata import (BytesStorageMetadata, ChunkStorageMetadata, Metadata, MetadataIndex,
                       StorageMeta, TensorProperties, TensorStorageMetadata, _write_metadata,
                       _read_metadata)

_META = '.metadata'


def _pieces(v):
    """``(global shape, [(offsets, local tensor)])`` of a tensor or DTensor ``v``."""
    from ..tensor._api import DTensor, _plain, _local_shape_offset
    from ..tensor.placement_types import Shard, Replicate
    if isinstance(v, DTensor):
        spec = v._spec
        for p in spec.placements:
            if not (type(p) is Shard or isinstance(p, Replicate)):
                raise ValueError(f"checkpoint: a DTensor placed as {p} can't be saved; "
                                 "redistribute it to Shard or Replicate placements first")
        shape, off = _local_shape_offset(spec.shape, spec.mesh, spec.placements)
        if not off and spec.shape:           # a rank outside the mesh holds nothing
            return spec.shape, []
        return spec.shape, [(tuple(off) or (0,) * len(spec.shape), _plain(v))]
    return tuple(v.shape), [((0,) * v.dim(), v)]


def _save_bytes(obj):
    from ...serialization import save
    buf = io.BytesIO()
    save(obj, buf)
    return buf.getvalue()


def save_flat(flat, path, dist, rank, ws, group):
    from ..._tensor import Tensor, Size
    items = {}          # (fqn, offsets or None) -> (nbytes, payload)
    tinfo = {}          # fqn -> (dtype, requires_grad, global shape)
    for fqn, (_path, v, _p, _k) in flat.items():
        if isinstance(v, Tensor):
            shape, pieces = _pieces(v)
            tinfo[fqn] = (str(v.dtype), shape)
            n = 1
            for s in shape:
                n *= s
            for off, loc in pieces:
                if loc.numel() or not n:
                    items[(fqn, off)] = (loc.numel() * loc.element_size(), loc)
        else:
            b = _save_bytes(v)
            items[(fqn, None)] = (len(b), b)
    mine = {k: nb for k, (nb, _) in items.items()}
    shapes = {k: tuple(loc.shape) for k, (_, loc) in items.items() if k[1] is not None}
    if dist is not None:
        everyone = [None] * ws
        dist.all_gather_object(everyone, (mine, tinfo, shapes), group=group)
    else:
        everyone = [(mine, tinfo, shapes)]
    # every piece to one writer: the holder with the fewest bytes assigned so far
    load = [0] * ws
    writer = {}
    keys = sorted(set().union(*[set(e[0]) for e in everyone]),
                  key=lambda k: (k[0], k[1] is not None, k[1] or ()))
    for k in keys:
        holders = [r for r in range(ws) if k in everyone[r][0]]
        w = min(holders, key=lambda r: (load[r], r))
        writer[k] = w
        load[w] += everyone[w][0][k]
    # the files the folder's current index uses are left alone until the new index replaces
    # it, so an interrupted save leaves the previous checkpoint loadable
    used = _referenced(path)
    i = 0
    while f'__{rank}_{i}.distcp' in used:
        i += 1
    fname = f'__{rank}_{i}.distcp'
    infos = {}
    from .filesystem import _StorageInfo
    from ...autograd.grad_mode import no_grad
    with open(os.path.join(path, fname + '.tmp'), 'wb') as f:
        # non-tensor values first, then tensors (as torch's writer orders them)
        for k in sorted((k for k in items if writer[k] == rank), key=lambda k: k[1] is not None):
            start = f.tell()
            payload = items[k][1]
            if k[1] is None:
                f.write(payload)
            else:
                with no_grad():
                    f.write(_save_bytes(payload.detach().contiguous().clone()))
            infos[k] = (fname, start, f.tell() - start)
    os.replace(os.path.join(path, fname + '.tmp'), os.path.join(path, fname))
    if dist is not None:
        all_infos = [None] * ws
        dist.all_gather_object(all_infos, infos, group=group)
    else:
        all_infos = [infos]
    from ... import _dtype as D
    md = {}
    for e in everyone:
        for fqn, (dt, shape) in e[1].items():
            md.setdefault(fqn, TensorStorageMetadata(
                TensorProperties(dtype=D._BY_NAME[dt.split('.')[-1]]), Size(shape), []))
    storage = {}
    for k in keys:
        fqn, off = k
        fn, start, length = all_infos[writer[k]][k]
        if off is None:
            md.setdefault(fqn, BytesStorageMetadata())
            idx = MetadataIndex(fqn)
        else:
            sizes = everyone[writer[k]][2][k]
            md[fqn].chunks.append(ChunkStorageMetadata(Size(off), Size(sizes)))
            idx = MetadataIndex(fqn, off, len(md[fqn].chunks) - 1)
        storage[idx] = _StorageInfo(fn, start, length)
    planner = {fqn: tuple(p) for fqn, (p, _v, _a, _b) in flat.items()}
    meta = Metadata(md, planner, storage, StorageMeta(checkpoint_id=path,
                                                      save_id=str(uuid.uuid4())), '1.0.0')
    if dist is not None:       # every rank's planner paths
        allp = [None] * ws
        dist.all_gather_object(allp, planner, group=group)
        for p in allp:
            for fqn, v in p.items():
                planner.setdefault(fqn, v)
    if rank == 0:
        _write_metadata(meta, os.path.join(path, _META))
    if dist is not None:
        dist.barrier(group=group)
    for old in used:            # this rank's files of the replaced checkpoint
        if old != fname and old.startswith(f'__{rank}_') and old.endswith('.distcp'):
            try:
                os.remove(os.path.join(path, old))
            except OSError:
                pass
    return meta


def _referenced(path):
    """The data files the folder's current index refers to (none if it has no readable
    index)."""
    try:
        md = _read_metadata(os.path.join(path, _META))
    except Exception:
        return set()
    return {info.relative_path for info in md.storage_data.values()}


class _Files:
    """Reads stored items (``load`` of a file slice), one open file per name."""

    def __init__(self, path):
        self.path = path
        self.open = {}

    def item(self, info):
        from ...serialization import load
        f = self.open.get(info.relative_path)
        if f is None:
            f = self.open[info.relative_path] = open(os.path.join(self.path,
                                                                  info.relative_path), 'rb')
        f.seek(info.offset)
        data = f.read(info.length)
        if len(data) != info.length:
            raise RuntimeError(f"checkpoint file {info.relative_path} is truncated")
        return load(io.BytesIO(data), weights_only=True)

    def close(self):
        for f in self.open.values():
            f.close()


def _fail(rank, e):
    from .api import CheckpointException
    return CheckpointException("load failed", {rank: e})


def _target(dst):
    """``(local plain tensor, global offsets)`` a tensor or DTensor target receives."""
    from ..tensor._api import DTensor, _plain, _local_shape_offset
    from ..tensor.placement_types import Shard, Replicate
    if isinstance(dst, DTensor):
        spec = dst._spec
        if not all(type(p) is Shard or isinstance(p, Replicate) for p in spec.placements):
            raise ValueError(f"checkpoint: can't load into a DTensor placed as "
                             f"{spec.placements}")
        shape, off = _local_shape_offset(spec.shape, spec.mesh, spec.placements)
        return _plain(dst), (tuple(off) or (0,) * len(spec.shape))
    return dst, (0,) * dst.dim()


def load_flat(flat, path, rank, partial=False):
    from ..._tensor import Tensor
    meta = _read_metadata(os.path.join(path, _META))
    md = meta.state_dict_metadata
    if partial:
        flat = {k: v for k, v in flat.items() if k in md}
    for fqn in flat:
        if fqn not in md:
            raise _fail(rank, RuntimeError(f"Missing key in checkpoint state_dict: {fqn}."))
    where = {}
    for idx, info in meta.storage_data.items():
        where.setdefault(idx.fqn, []).append((idx, info))
    files = _Files(path)
    try:
        for fqn, (_p, dst, parent, key) in flat.items():
            m = md[fqn]
            if isinstance(dst, Tensor):
                if type(m) is not TensorStorageMetadata:
                    raise _fail(rank, RuntimeError(f"{fqn} is not a tensor in the checkpoint"))
                if tuple(dst.shape) != tuple(m.size):
                    raise _fail(rank, ValueError(
                        f"Size mismatch between saved {m.size} and current: {dst.size()} for "
                        f"{fqn}"))
                loc, off = _target(dst)
                _fill(loc, off, fqn, m, where.get(fqn, ()), files, rank)
            else:
                if type(m) is TensorStorageMetadata:
                    val = _whole(fqn, m, where.get(fqn, ()), files, rank)
                else:
                    infos = where.get(fqn, ())
                    if not infos:
                        raise _fail(rank, RuntimeError(f"{fqn}: no stored data"))
                    val = files.item(infos[0][1])
                parent[key] = val
    finally:
        files.close()


def _chunk_info(fqn, c, infos, rank):
    off = tuple(c.offsets)
    for idx, info in infos:
        if idx.offset is not None and tuple(idx.offset) == off:
            return info
    raise _fail(rank, RuntimeError(f"{fqn}: the checkpoint has no data for the piece at {off}"))


def _fill(loc, off, fqn, m, infos, files, rank):
    """Copies into ``loc`` (the region of the global tensor starting at ``off``) every
    overlapping stored chunk."""
    from ..._tensor import Tensor
    from ...autograd.grad_mode import no_grad
    shape = tuple(loc.shape)
    covered = 0
    for c in m.chunks:
        lo = [max(a, b) for a, b in zip(off, c.offsets)]
        hi = [min(a + n, b + s) for a, n, b, s in zip(off, shape, c.offsets, c.sizes)]
        if any(h <= low for low, h in zip(lo, hi)) and shape:
            continue
        src = files.item(_chunk_info(fqn, c, infos, rank))
        if not isinstance(src, Tensor) or tuple(src.shape) != tuple(c.sizes):
            raise _fail(rank, RuntimeError(f"{fqn}: a stored piece is not the tensor its "
                                           f"index describes"))
        s_ix = tuple(slice(a - b, h - b) for a, h, b in zip(lo, hi, c.offsets))
        d_ix = tuple(slice(a - b, h - b) for a, h, b in zip(lo, hi, off))
        with no_grad():
            if shape:
                loc[d_ix].copy_(src[s_ix])
            else:
                loc.copy_(src)
        n = 1
        for a, h in zip(lo, hi):
            n *= h - a
        covered += n
    if covered < loc.numel():
        raise _fail(rank, RuntimeError(f"{fqn}: the checkpoint's pieces do not cover this "
                                       f"rank's part of the tensor"))


def _whole(fqn, m, infos, files, rank):
    from ..._ops.creation import empty
    t = empty(tuple(m.size), dtype=m.properties.dtype)
    _fill(t, (0,) * len(m.size), fqn, m, infos, files, rank)
    return t
