"""Module fusion on an FX graph (as ``torch.ao.quantization.fx.fuse``): every chain of
calls matching a fusion pattern of the backend config (``(Conv2d, BatchNorm2d, ReLU)``,
``(Linear, ReLU)``...) is replaced by one call of the fused module its fuser method
builds, stored under the first module's name."""
from ember import nn as _nn
from ember.nn import functional as _F
from ember.fx import GraphModule

from .utils import match_chain, _sorted_configs, fn_key

__all__ = ['fuse']


def _set_module(root, qualname, module):
    parent, _, name = qualname.rpartition('.')
    setattr(root.get_submodule(parent) if parent else root, name, module)


def fuse(model, is_qat, fuse_custom_config=None, backend_config=None):
    """Fuse the module chains of ``model`` (a traced ``GraphModule``) that match the
    fusion patterns of ``backend_config``.

    Args:
        model (GraphModule): the traced model (changed in place).
        is_qat (bool): fuse for quantization-aware training (keeps batch norms as
            ``ConvBn`` modules instead of folding them).
        fuse_custom_config: unused (kept for PyTorch's signature).
        backend_config (BackendConfig, optional): default: the native config.

    Returns:
        GraphModule: the fused model.

    Example::

        >>> gm = ember.fx.symbolic_trace(nn.Sequential(nn.Linear(2, 2), nn.ReLU()))
        >>> fused = fuse(gm, False)
    """
    from ..backend_config import get_native_backend_config
    if backend_config is None:
        backend_config = get_native_backend_config()
    configs = [c for c in _sorted_configs(backend_config.configs)
               if c.fuser_method is not None and isinstance(c.pattern, tuple)
               and isinstance(c.pattern[0], type)]
    graph = model.graph
    modules = dict(model.named_modules())
    done = set()
    for node in reversed(list(graph.nodes)):
        if node in done or node.op not in ('call_module', 'call_function', 'call_method'):
            continue
        for conf in configs:
            chain = match_chain(node, conf.pattern, modules)
            if chain is None or any(n in done for n in chain):
                continue
            mods = []
            for n in chain:
                if n.op == 'call_module':
                    mods.append(modules[n.target])
                elif fn_key(n.target) == fn_key(_F.relu):
                    relu = _nn.ReLU()
                    relu.training = model.training
                    mods.append(relu)
                else:
                    mods.append(n.target)
            fused = conf.fuser_method(is_qat, *mods)
            root = chain[0]
            _set_module(model, root.target, fused)
            modules[root.target] = fused
            chain[-1].replace_all_uses_with(root)
            for n in reversed(chain[1:]):
                graph.erase_node(n)
            done.update(chain)
            break
    return GraphModule(model, graph)
