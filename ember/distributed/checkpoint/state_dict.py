"""Model and optimizer state_dicts keyed by parameter names (FQNs), the form
``ember.distributed.checkpoint`` saves: ``get_state_dict`` / ``set_state_dict`` and their
model / optimizer halves. Wrapper prefixes (``module.`` of DistributedDataParallel,
``_orig_mod.`` of a compiled module, ``_fsdp_wrapped_module.`` of FSDP1) are removed, so a
checkpoint is independent of the wrapping. Sharded models (FSDP1's
``FullyShardedDataParallel``, FSDP2's ``fully_shard``) give each rank its pieces as
``Shard(0)`` DTensors, or whole tensors with ``StateDictOptions(full_state_dict=True)``; the
``set_`` functions take either form."""
import dataclasses
from typing import Any, Dict, List, Set, Union

__all__ = ['FQNS_T', 'PrimitiveType', 'ValueType', 'DictValueType', 'ListDictValueType',
           'OptimizerStateType', 'StateDictOptions', 'get_model_state_dict', 'get_optimizer_state_dict',
           'get_state_dict', 'set_model_state_dict', 'set_optimizer_state_dict',
           'set_state_dict']

# the type aliases torch names (values of model and optimizer state dicts)
FQNS_T = Set[str]
PrimitiveType = Union[Any, int, float, str]
ValueType = Union[PrimitiveType, List[PrimitiveType], tuple, Dict[str, 'ValueType']]
DictValueType = Dict[str, ValueType]
ListDictValueType = List[DictValueType]
OptimizerStateType = Dict[str, Union[DictValueType, ListDictValueType]]


@dataclasses.dataclass
class StateDictOptions:
    """Options of the state_dict helpers.

    Args:
        full_state_dict (bool): whole tensors instead of each rank's DTensor pieces (for
            sharded models; every rank must call).
        cpu_offload (bool): with ``full_state_dict``, only rank 0 gets the values.
        broadcast_from_rank0 (bool): the ``set_`` functions take rank 0's full state dict
            (the other ranks may pass an empty one).
        flatten_optimizer_state_dict (bool), dsd_fqn_modifiers (str): accepted.
        ignore_frozen_params (bool): leave out parameters with ``requires_grad=False``.
        keep_submodule_prefixes (bool): accepted.
        strict (bool): ``strict`` of ``load_state_dict``. Default: ``True``.

    Example::

        >>> msd = get_model_state_dict(model, options=StateDictOptions(ignore_frozen_params=True))
    """
    full_state_dict: bool = False
    cpu_offload: bool = False
    ignore_frozen_params: bool = False
    keep_submodule_prefixes: bool = True
    strict: bool = True
    broadcast_from_rank0: bool = False
    flatten_optimizer_state_dict: bool = False
    dsd_fqn_modifiers: str = '_fqn_modifiers'


def _clean(name):
    # names are taken from the unwrapped model (see _inner), so they carry no wrapper prefix
    return name


def _inner(model):
    from ...nn.parallel.distributed import DistributedDataParallel
    while isinstance(model, DistributedDataParallel) or hasattr(model, '_orig_mod'):
        model = model.module if isinstance(model, DistributedDataParallel) else model._orig_mod
    return model


def _fqns(model):
    return {id(p): _clean(n) for n, p in model.named_parameters(remove_duplicate=False)}


def _optims(optimizers):
    from ...optim.optimizer import Optimizer
    return [optimizers] if isinstance(optimizers, Optimizer) else list(optimizers)


def _fsdp1(model):
    """The root FSDP1 instance of ``model`` (unwrapped), or None."""
    import sys
    mod = sys.modules.get(__package__.rpartition('.')[0] + '.fsdp.fully_sharded_data_parallel')
    if mod is None:
        return None
    F = mod.FullyShardedDataParallel
    for m in model.modules():
        if isinstance(m, F):
            return m
    return None


def _dist_rank():
    from ... import distributed as dist
    return dist.get_rank() if dist.is_initialized() else 0


def _is_dtensor(v):
    from ..._tensor import Tensor
    return isinstance(v, Tensor) and hasattr(v, '_spec') and type(v).__name__ == 'DTensor'


def _full(sd, options):
    """DTensor values made whole (every rank gathers); with ``cpu_offload`` only rank 0 keeps
    them (the other ranks get an empty dict), as torch's."""
    out = {}
    for k, v in sd.items():
        out[k] = _full_value(v)
    if options.cpu_offload and _dist_rank() != 0:
        return {}
    return out


def _full_value(v):
    if isinstance(v, dict):
        return {k: _full_value(w) for k, w in v.items()}
    if _is_dtensor(v):
        return v.full_tensor().detach()
    return v


def get_model_state_dict(model, *, submodules=None, options=None):
    """The model's state_dict with wrapper prefixes removed.

    For a sharded model (FSDP1 or FSDP2) each parameter is this rank's ``Shard(0)`` DTensor
    piece, or, with ``options.full_state_dict``, the whole tensor (every rank must call it;
    with ``options.cpu_offload`` too, only rank 0 gets the values, the others ``{}``).

    Args:
        model (Module): the model (possibly wrapped in DistributedDataParallel or FSDP).
        submodules: deprecated, ignored.
        options (StateDictOptions, optional): ``full_state_dict``, ``cpu_offload`` and
            ``ignore_frozen_params`` are honoured.

    Example::

        >>> sd = get_model_state_dict(ddp_model)   # keys without 'module.'
    """
    options = options or StateDictOptions()
    inner = _inner(model)
    f1 = _fsdp1(inner)
    if f1 is not None:
        from ..fsdp import FullyShardedDataParallel as F, StateDictType
        from ..fsdp.api import FullStateDictConfig
        if options.full_state_dict:
            with F.state_dict_type(inner, StateDictType.FULL_STATE_DICT, FullStateDictConfig(
                    offload_to_cpu=options.cpu_offload, rank0_only=options.cpu_offload)):
                sd = dict(inner.state_dict())
        else:
            with F.state_dict_type(inner, StateDictType.SHARDED_STATE_DICT):
                sd = dict(inner.state_dict())
        frozen = set()
        if options.ignore_frozen_params:
            with F.summon_full_params(inner, writeback=False):
                frozen = {n for n, p in inner.named_parameters() if not p.requires_grad}
    else:
        sd = {_clean(k): v for k, v in inner.state_dict().items()}
        frozen = {_clean(n) for n, p in inner.named_parameters() if not p.requires_grad}
        if options.full_state_dict:
            sd = _full(sd, options)
    if options.ignore_frozen_params:
        sd = {k: v for k, v in sd.items() if k not in frozen}
    return sd


def _init_optim_state(optim):
    """Give every parameter its optimizer state (a step with zero gradients and lr 0), so
    that the state can be loaded into."""
    if optim.state:
        return
    from ..._ops.creation import zeros_like
    saved = []
    for g in optim.param_groups:
        saved.append(g.get('lr'))
        if 'lr' in g:
            g['lr'] = 0.0
        for p in g['params']:
            if p.requires_grad and p.grad is None:
                if _is_dtensor(p):     # a DTensor gradient of the parameter's layout
                    from ..tensor._api import _make, _plain
                    sp = p._spec
                    p.grad = _make(zeros_like(_plain(p)), sp.mesh, sp.placements, sp.shape)
                else:
                    p.grad = zeros_like(p)
    optim.step()
    for g, lr in zip(optim.param_groups, saved):
        if lr is not None:
            g['lr'] = lr
        for p in g['params']:
            p.grad = None


def get_optimizer_state_dict(model, optimizers, *, submodules=None, options=None):
    """The optimizers' state keyed by parameter names: ``{'state': {fqn: {...}},
    'param_groups': [{..., 'params': [fqn, ...]}]}`` (state is created first if the
    optimizer has none yet).

    Example::

        >>> osd = get_optimizer_state_dict(model, opt)
    """
    options = options or StateDictOptions()
    inner = _inner(model)
    f1 = _fsdp1(inner)
    if f1 is not None:
        from ..fsdp import FullyShardedDataParallel as F, StateDictType
        from ..fsdp.api import FullOptimStateDictConfig
        opts = _optims(optimizers)
        if len(opts) != 1:
            raise NotImplementedError("get_optimizer_state_dict of an FSDP1 model in ember: "
                                      "one optimizer only")
        _init_optim_state(opts[0])
        if options.full_state_dict:
            with F.state_dict_type(inner, StateDictType.FULL_STATE_DICT,
                                   optim_state_dict_config=FullOptimStateDictConfig(
                                       rank0_only=options.cpu_offload)):
                return F.optim_state_dict(inner, opts[0])
        with F.state_dict_type(inner, StateDictType.SHARDED_STATE_DICT):
            return F.optim_state_dict(inner, opts[0])
    fq = _fqns(inner)
    state, groups = {}, []
    for opt in _optims(optimizers):
        _init_optim_state(opt)
        sd = opt.state_dict()
        order = [p for g in opt.param_groups for p in g['params']]
        for i, st in sd['state'].items():
            p = order[i]
            if _is_dtensor(p):      # ember's optimizers keep the local pieces: shown as DTensors
                st = {k: _as_dtensor(p, v) for k, v in st.items()}
            state[fq[id(p)]] = st
        for g, sg in zip(opt.param_groups, sd['param_groups']):
            d = {k: v for k, v in sg.items() if k != 'params'}
            d['params'] = [fq[id(p)] for p in g['params']]
            groups.append(d)
    if options.full_state_dict:
        state = {k: _full_value(v) for k, v in state.items()}
        if options.cpu_offload and _dist_rank() != 0:
            return {}
    return {'state': state, 'param_groups': groups}


def get_state_dict(model, optimizers, *, submodules=None, options=None):
    """``(model state_dict, optimizer state_dict)`` keyed by parameter names.

    Example::

        >>> msd, osd = get_state_dict(model, opt)
        >>> dcp.save({'model': msd, 'optim': osd}, checkpoint_id='ckpt')
    """
    return (get_model_state_dict(model, options=options),
            get_optimizer_state_dict(model, optimizers, options=options))


def _into_local(p, v):
    """The piece of ``v`` (whole tensor or DTensor) that the DTensor ``p`` holds."""
    from ..tensor._api import _local_shape_offset
    spec = p._spec
    if _is_dtensor(v):
        if v._spec.placements == spec.placements and v._spec.shape == spec.shape:
            return v.to_local()
        v = v.full_tensor()
    if tuple(v.shape) != spec.shape:
        raise RuntimeError(f"size mismatch: copying a tensor of shape {tuple(v.shape)} into a "
                           f"parameter of shape {spec.shape}")
    shape, off = _local_shape_offset(spec.shape, spec.mesh, spec.placements)
    ix = tuple(slice(o, o + n) for o, n in zip(off, shape))
    return v[ix] if ix else v


def _from_rank0(sd, options):
    """With ``broadcast_from_rank0``: rank 0's (full) state dict, sent to every rank."""
    from ... import distributed as dist
    if not (options.broadcast_from_rank0 and dist.is_initialized()):
        return sd
    if not options.full_state_dict:
        raise ValueError("full_state_dict must be True when broadcast_from_rank0 is True.")
    box = [sd if dist.get_rank() == 0 else None]
    dist.broadcast_object_list(box, src=0)
    return box[0]


def set_model_state_dict(model, model_state_dict, *, options=None):
    """Load a state_dict keyed by names without wrapper prefixes into ``model``; returns
    ``load_state_dict``'s missing/unexpected keys. For a sharded model the values may be
    whole tensors or DTensor pieces.

    Example::

        >>> set_model_state_dict(ddp_model, msd)
    """
    options = options or StateDictOptions()
    model_state_dict = _from_rank0(model_state_dict, options)
    inner = _inner(model)
    f1 = _fsdp1(inner)
    if f1 is not None:
        from ..fsdp import FullyShardedDataParallel as F, StateDictType
        typ = (StateDictType.SHARDED_STATE_DICT if any(_is_dtensor(v) for v in
                                                       model_state_dict.values())
               else StateDictType.FULL_STATE_DICT)
        with F.state_dict_type(inner, typ):
            return inner.load_state_dict(model_state_dict, strict=options.strict)
    own = {_clean(k): k for k in inner.state_dict()}
    sd = {own.get(k, k): v for k, v in model_state_dict.items()}
    cur = inner.state_dict(keep_vars=True)
    if any(_is_dtensor(t) for t in cur.values()):        # FSDP2 / DTensor parameters
        from ...autograd.grad_mode import no_grad
        missing = [k for k in cur if k not in sd]
        unexpected = [k for k in sd if k not in cur]
        if options.strict and (missing or unexpected):
            raise RuntimeError(f"Error(s) in loading state_dict for {type(inner).__name__}: "
                               f"missing keys {missing}, unexpected keys {unexpected}")
        with no_grad():
            for k, v in sd.items():
                if k not in cur:
                    continue
                t = cur[k]
                if _is_dtensor(t):
                    from ..tensor._api import _plain
                    _plain(t).copy_(_into_local(t, v))
                else:
                    t.copy_(v.full_tensor() if _is_dtensor(v) else v)
        from ...nn.modules.module import _IncompatibleKeys
        return _IncompatibleKeys(missing, unexpected)
    return inner.load_state_dict(sd, strict=options.strict)


def _as_dtensor(p, v):
    """A plain optimizer-state tensor of the DTensor parameter ``p``'s local shape, as a
    DTensor of ``p``'s layout (sharing its memory)."""
    from ..._tensor import Tensor
    from ..tensor._api import _make, _plain
    if not isinstance(v, Tensor) or _is_dtensor(v) or not v.dim() or \
            tuple(v.shape) != tuple(_plain(p).shape):
        return v
    sp = p._spec
    return _make(v, sp.mesh, sp.placements, sp.shape)


def _as_piece(p, v):
    """An optimizer-state value (whole tensor or DTensor) as the plain local piece ember's
    optimizers keep for the DTensor parameter ``p``."""
    from ..._tensor import Tensor
    if not isinstance(v, Tensor) or not v.dim():
        return v
    if not _is_dtensor(v) and tuple(v.shape) != p._spec.shape:
        return v
    return _into_local(p, v).contiguous().clone()


def set_optimizer_state_dict(model, optimizers, optim_state_dict, *, options=None):
    """Load an optimizer state keyed by parameter names (from
    :func:`get_optimizer_state_dict`) into ``optimizers``; for a sharded model the values may
    be whole tensors or DTensor pieces.

    Example::

        >>> set_optimizer_state_dict(model, opt, osd)
    """
    optim_state_dict = _from_rank0(optim_state_dict, options or StateDictOptions())
    inner = _inner(model)
    f1 = _fsdp1(inner)
    if f1 is not None:
        from ..fsdp import FullyShardedDataParallel as F
        for opt in _optims(optimizers):
            opt.load_state_dict(F.optim_state_dict_to_load(inner, opt, optim_state_dict))
        return
    fq = _fqns(inner)
    gi = 0
    for opt in _optims(optimizers):
        order = [p for g in opt.param_groups for p in g['params']]
        state = {}
        for i, p in enumerate(order):
            name = fq[id(p)]
            if name in optim_state_dict['state']:
                st = optim_state_dict['state'][name]
                if _is_dtensor(p):          # whole values become this rank's DTensor piece
                    st = {k: _as_piece(p, v) for k, v in st.items()}
                state[i] = st
        groups = []
        start = 0
        for g in opt.param_groups:
            saved = optim_state_dict['param_groups'][gi]
            gi += 1
            d = {k: v for k, v in saved.items() if k != 'params'}
            d['params'] = list(range(start, start + len(g['params'])))
            start += len(g['params'])
            groups.append(d)
        opt.load_state_dict({'state': state, 'param_groups': groups})


def set_state_dict(model, optimizers, *, model_state_dict, optim_state_dict, options=None):
    """Load both halves saved by :func:`get_state_dict`; returns the model's
    missing/unexpected keys.

    Example::

        >>> set_state_dict(model, opt, model_state_dict=msd, optim_state_dict=osd)
    """
    keys = set_model_state_dict(model, model_state_dict, options=options)
    set_optimizer_state_dict(model, optimizers, optim_state_dict, options=options)
    return keys
