"""Model and optimizer state_dicts keyed by parameter names (FQNs), the form
``ember.distributed.checkpoint`` saves: ``get_state_dict`` / ``set_state_dict`` and their
model / optimizer halves. Wrapper prefixes (``module.`` of DistributedDataParallel,
``_orig_mod.`` of a compiled module) are removed, so a checkpoint is independent of the
wrapping."""
import dataclasses

__all__ = ['StateDictOptions', 'get_model_state_dict', 'get_optimizer_state_dict',
           'get_state_dict', 'set_model_state_dict', 'set_optimizer_state_dict',
           'set_state_dict']


@dataclasses.dataclass
class StateDictOptions:
    """Options of the state_dict helpers.

    Args:
        full_state_dict (bool), cpu_offload (bool), broadcast_from_rank0 (bool),
        flatten_optimizer_state_dict (bool), dsd_fqn_modifiers (str): accepted (tensors
            are whole and on the CPU).
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


def get_model_state_dict(model, *, submodules=None, options=None):
    """The model's state_dict with wrapper prefixes removed.

    Args:
        model (Module): the model (possibly wrapped in DistributedDataParallel).
        submodules: deprecated, ignored.
        options (StateDictOptions, optional): ``ignore_frozen_params`` is honoured.

    Example::

        >>> sd = get_model_state_dict(ddp_model)   # keys without 'module.'
    """
    options = options or StateDictOptions()
    sd = {_clean(k): v for k, v in _inner(model).state_dict().items()}
    if options.ignore_frozen_params:
        frozen = {_clean(n) for n, p in _inner(model).named_parameters() if not p.requires_grad}
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
    fq = _fqns(_inner(model))
    state, groups = {}, []
    for opt in _optims(optimizers):
        _init_optim_state(opt)
        sd = opt.state_dict()
        order = [p for g in opt.param_groups for p in g['params']]
        for i, st in sd['state'].items():
            state[fq[id(order[i])]] = st
        for g, sg in zip(opt.param_groups, sd['param_groups']):
            d = {k: v for k, v in sg.items() if k != 'params'}
            d['params'] = [fq[id(p)] for p in g['params']]
            groups.append(d)
    return {'state': state, 'param_groups': groups}


def get_state_dict(model, optimizers, *, submodules=None, options=None):
    """``(model state_dict, optimizer state_dict)`` keyed by parameter names.

    Example::

        >>> msd, osd = get_state_dict(model, opt)
        >>> dcp.save({'model': msd, 'optim': osd}, checkpoint_id='ckpt')
    """
    return (get_model_state_dict(model, options=options),
            get_optimizer_state_dict(model, optimizers, options=options))


def set_model_state_dict(model, model_state_dict, *, options=None):
    """Load a state_dict keyed by names without wrapper prefixes into ``model``; returns
    ``load_state_dict``'s missing/unexpected keys.

    Example::

        >>> set_model_state_dict(ddp_model, msd)
    """
    options = options or StateDictOptions()
    inner = _inner(model)
    own = {_clean(k): k for k in inner.state_dict()}
    sd = {own.get(k, k): v for k, v in model_state_dict.items()}
    return inner.load_state_dict(sd, strict=options.strict)


def set_optimizer_state_dict(model, optimizers, optim_state_dict, *, options=None):
    """Load an optimizer state keyed by parameter names (from
    :func:`get_optimizer_state_dict`) into ``optimizers``.

    Example::

        >>> set_optimizer_state_dict(model, opt, osd)
    """
    fq = _fqns(_inner(model))
    gi = 0
    for opt in _optims(optimizers):
        order = [p for g in opt.param_groups for p in g['params']]
        state = {}
        for i, p in enumerate(order):
            name = fq[id(p)]
            if name in optim_state_dict['state']:
                state[i] = optim_state_dict['state'][name]
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
