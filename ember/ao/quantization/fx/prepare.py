"""Observer insertion on an FX graph (as ``torch.ao.quantization.fx.prepare``).

Each node is matched (latest first, longest pattern first) against the patterns of the
backend config; a matched pattern whose qconfig is supported by one of its dtype configs
is quantized: its tensor inputs get the qconfig's activation observer unless already
observed (an input observer of the same value is reused), and its last node gets an output
observer (``activation_post_process_<i>``), which for ``OUTPUT_SHARE_OBSERVER_WITH_INPUT``
patterns is the input's observer module registered under a second name. For QAT, modules
are first swapped for their QAT forms."""
import copy

from ember.fx import GraphModule

from ..qconfig import _is_reuse_input_qconfig
from .utils import (match_chain, _sorted_configs, generate_node_name_to_qconfig,
                    get_new_attr_name_with_prefix, is_activation_post_process_node, fn_key)

__all__ = ['prepare', 'ObservedGraphModuleAttrs']


class ObservedGraphModuleAttrs:
    """What ``prepare`` records in ``model.meta['_observed_graph_module_attrs']`` for
    ``convert``: each node's qconfig and scope, the observed node names, the matched
    patterns, whether it is QAT, the qconfig mapping and backend config.

    Example::

        >>> attrs = prepared.meta['_observed_graph_module_attrs']
        >>> attrs.is_qat
        False
    """

    def __init__(self, node_name_to_qconfig, node_name_to_scope, prepare_custom_config,
                 equalization_node_name_to_qconfig, qconfig_mapping, is_qat,
                 observed_node_names, is_observed_standalone_module=False,
                 standalone_module_input_quantized_idxs=None,
                 standalone_module_output_quantized_idxs=None):
        self.node_name_to_qconfig = node_name_to_qconfig
        self.node_name_to_scope = node_name_to_scope
        self.prepare_custom_config = prepare_custom_config
        self.equalization_node_name_to_qconfig = equalization_node_name_to_qconfig
        self.qconfig_mapping = qconfig_mapping
        self.is_qat = is_qat
        self.observed_node_names = observed_node_names
        self.is_observed_standalone_module = is_observed_standalone_module
        self.standalone_module_input_quantized_idxs = standalone_module_input_quantized_idxs
        self.standalone_module_output_quantized_idxs = standalone_module_output_quantized_idxs
        self.backend_config = None


def _flattened_qconfig_dict(mapping):
    d = {"": mapping.global_qconfig}
    d.update(mapping.object_type_qconfigs)
    d.update(mapping.module_name_qconfigs)
    return d


def _update_qconfig_for_fusion(model, mapping):
    """A fused module takes the object-type qconfig its parts share; parts with different
    object-type qconfigs raise torch's ``LookupError``."""
    from ember.ao.nn.intrinsic.modules.fused import _FusedModule
    from ..qconfig import qconfig_equals
    by_type = mapping.object_type_qconfigs
    if not by_type:
        return
    modules = dict(model.named_modules())
    for node in model.graph.nodes:
        mod = modules.get(node.target) if node.op == "call_module" else None
        if not isinstance(mod, _FusedModule):
            continue
        parts = list(mod._modules.values())
        shared = by_type.get(type(parts[0]))
        for part in parts[1:]:
            if not qconfig_equals(by_type.get(type(part)), shared):
                raise LookupError(
                    "During fusion, we need to specify the same qconfigs for all module "
                    f"types in {type(mod)} offending type: {type(part)}")
        if shared is not None:
            by_type[type(mod)] = shared


def _qconfig_supported(qconfig, dtype_configs):
    """Whether one of the pattern's dtype configs takes the qconfig's dtypes (static
    activation, and the weight's dtype where the config names one)."""
    if qconfig is None:
        return False
    act = qconfig.activation()
    act_dtype = getattr(act, 'dtype', None)
    is_dynamic = getattr(act, 'is_dynamic', False)
    weight_dtype = getattr(qconfig.weight(), 'dtype', None)
    for dc in dtype_configs:
        if bool(dc.is_dynamic) != bool(is_dynamic):
            continue
        if dc.input_dtype != act_dtype:
            continue
        if not is_dynamic and dc.output_dtype != act_dtype:
            continue
        if dc.weight_dtype is not None and dc.weight_dtype != weight_dtype:
            continue
        return True
    return False


def _is_quantized_dtype(obs_ctr):
    import ember
    return getattr(obs_ctr(), 'dtype', None) in (ember.quint8, ember.qint8, ember.qint32)


def _tensor_args(node, modules, non_tensor):
    """The node's arguments that carry activations (Nodes, also inside lists: ``cat``),
    skipping weights of functional linear/conv and sizes."""
    from ember.nn import functional as F
    args = list(node.args)
    if node.op == 'call_function' and fn_key(node.target) in {
            fn_key(f) for f in (F.linear, F.conv1d, F.conv2d, F.conv3d)}:
        args = args[:1]
    out = []
    for a in args:
        items = a if isinstance(a, (list, tuple)) else [a]
        for x in items:
            if hasattr(x, 'op') and x.op != 'get_attr' and x not in non_tensor:
                out.append(x)
    return out


def _functional_weight(node):
    """The weight argument (a Node) of a functional linear/conv call, else None."""
    from ember.nn import functional as F
    if node.op == 'call_function' and fn_key(node.target) in {
            fn_key(f) for f in (F.linear, F.conv1d, F.conv2d, F.conv3d)}:
        w = node.args[1] if len(node.args) > 1 else node.kwargs.get('weight')
        return w if hasattr(w, 'op') else None
    return None


def _non_tensor_nodes(graph):
    """Nodes that compute sizes and other non-tensor values (``x.shape``, ``x.size(0)``,
    ``shape[0]``, arithmetic on them): never observed."""
    import operator
    out = set()
    meta = ('shape', 'dtype', 'device', 'ndim', 'is_quantized')
    for node in graph.nodes:
        if node.op == 'call_method' and node.target in ('size', 'dim', 'numel'):
            out.add(node)
        elif node.op == 'call_function' and node.target is getattr and \
                len(node.args) == 2 and node.args[1] in meta:
            out.add(node)
        elif node.op == 'call_function' and node.args and (
                node.target in (operator.getitem, len) or
                getattr(node.target, '__module__', None) in ('_operator', 'operator')):
            nodes = [a for a in node.args if hasattr(a, 'op')]
            if nodes and all(a in out for a in nodes):
                out.add(node)
    return out


def _trace_back_to_observer(node, modules, limit=10000):
    """The observer node at or above ``node`` through first arguments, or None."""
    for _ in range(limit):
        if not hasattr(node, 'op'):
            return None
        if is_activation_post_process_node(node, modules):
            return node
        if node.op == 'placeholder' or not node.args:
            return None
        nxt = None
        for a in node.args:
            if hasattr(a, 'op'):
                nxt = a
                break
        if nxt is None:
            return None
        node = nxt
    return None


def _first_input_observer(node, modules):
    """The observer of the first tensor input of ``node`` (the first element of a list
    input), found by walking up through first arguments."""
    first = None
    for a in node.args:
        if isinstance(a, (list, tuple)):
            first = a[0] if a else None
            break
        if hasattr(a, 'op'):
            first = a
            break
    return _trace_back_to_observer(first, modules) if first is not None else None


def prepare(model, qconfig_mapping, is_qat, node_name_to_scope, example_inputs,
            prepare_custom_config=None, _equalization_config=None, backend_config=None,
            is_standalone_module=False):
    """Insert observers into the traced and fused ``model`` (see the module docstring).

    Args:
        model (GraphModule): the traced, fused model (changed in place).
        qconfig_mapping (QConfigMapping): the qconfigs.
        is_qat (bool): quantization-aware training (swap modules to their QAT forms;
            fake-quantize modules as observers).
        node_name_to_scope (dict): node name -> ``(module_path, module_type)``.
        example_inputs (tuple): example inputs (unused by the insertion itself).
        prepare_custom_config: unused (kept for PyTorch's signature).
        backend_config (BackendConfig, optional): default: the native config.
        is_standalone_module (bool): unused.

    Returns:
        GraphModule: the observed model.

    Example::

        >>> observed = prepare(fused_gm, get_default_qconfig_mapping(), False, scopes, (x,))
    """
    from ..backend_config import get_native_backend_config, ObservationType
    from ..quantize import propagate_qconfig_, convert as _eager_convert
    if backend_config is None:
        backend_config = get_native_backend_config()
    configs = _sorted_configs(backend_config.configs)
    qconfig_mapping = copy.deepcopy(qconfig_mapping)
    _update_qconfig_for_fusion(model, qconfig_mapping)
    propagate_qconfig_(model, _flattened_qconfig_dict(qconfig_mapping))
    graph = model.graph
    node_name_to_qconfig = generate_node_name_to_qconfig(
        graph, dict(model.named_modules(remove_duplicate=False)), qconfig_mapping,
        node_name_to_scope)
    if is_qat:
        qat_map = {c.pattern: c.qat_module for c in configs
                   if c.qat_module is not None and isinstance(c.pattern, type)}
        _eager_convert(model, mapping=qat_map, inplace=True, remove_qconfig=False)
    modules = dict(model.named_modules(remove_duplicate=False))

    # ---- match patterns (latest node first, longest pattern first)
    matched = {}          # node -> (chain, config, qconfig)
    for node in reversed(list(graph.nodes)):
        if node in matched or node.op not in ('call_module', 'call_function', 'call_method'):
            continue
        for conf in configs:
            chain = match_chain(node, conf.pattern, modules)
            if chain is None or any(n in matched for n in chain):
                continue
            qconfig = node_name_to_qconfig.get(chain[0].name)
            for n in chain:
                matched[n] = (chain, conf, qconfig)
            break

    non_tensor = _non_tensor_nodes(graph)
    observed_node_names = set()
    input_obs = {}        # value node -> its input observer node

    def new_observer(obs_module):
        name = get_new_attr_name_with_prefix('activation_post_process_')(model)
        setattr(model, name, obs_module)
        modules[name] = obs_module
        return name

    def share(obs_node, obs_module):
        setattr(model, obs_node.target, obs_module)
        modules[obs_node.target] = obs_module

    for node in list(graph.nodes):
        if node not in matched:
            continue
        chain, conf, qconfig = matched[node]
        if conf.observation_type == ObservationType.INPUT_OUTPUT_NOT_OBSERVED:
            continue
        reuse = qconfig is not None and _is_reuse_input_qconfig(qconfig)
        if not reuse and (not _qconfig_supported(qconfig, conf.dtype_configs)
                          or not _is_quantized_dtype(qconfig.activation)):
            continue
        shares = reuse or (conf.observation_type ==
                           ObservationType.OUTPUT_SHARE_OBSERVER_WITH_INPUT)
        if node is chain[0]:
            observed_node_names.add(node.name)
            for arg in ([] if reuse else _tensor_args(node, modules, non_tensor)):
                if is_activation_post_process_node(arg, modules):
                    continue
                obs_node = input_obs.get(arg)
                if obs_node is None:
                    name = new_observer(qconfig.activation())
                    with graph.inserting_after(arg):
                        obs_node = graph.create_node('call_module', name, (arg,), {})
                    input_obs[arg] = obs_node
                node.replace_input_with(arg, obs_node)
            weight = _functional_weight(node)
            if weight is not None and not reuse:
                obs_node = input_obs.get(weight)
                if obs_node is None:
                    name = new_observer(qconfig.weight())
                    with graph.inserting_after(weight):
                        obs_node = graph.create_node('call_module', name, (weight,), {})
                    input_obs[weight] = obs_node
                node.replace_input_with(weight, obs_node)
        if node is not chain[-1] or (not reuse and getattr(
                qconfig.activation(), 'is_dynamic', False)):     # dynamic: float output
            continue
        first_obs = _first_input_observer(chain[0], modules) if shares else None
        if reuse and first_obs is None:
            continue
        name = new_observer(modules[first_obs.target] if first_obs is not None
                            else qconfig.activation())
        with graph.inserting_after(node):
            out_obs = graph.create_node('call_module', name, (node,), {})
        node.replace_all_uses_with(out_obs, delete_user_cb=lambda u: u is not out_obs)
        # a list input (cat): every input shares the first input's observer
        if first_obs is not None and chain[0].args and \
                isinstance(chain[0].args[0], (list, tuple)):
            for a in chain[0].args[0][1:]:
                a = _trace_back_to_observer(a, modules)
                if a is not None:
                    share(a, modules[first_obs.target])

    observed = GraphModule(model, graph)
    attrs = ObservedGraphModuleAttrs(
        node_name_to_qconfig, node_name_to_scope, prepare_custom_config,
        {k: None for k in node_name_to_qconfig}, qconfig_mapping, is_qat,
        observed_node_names)
    attrs.backend_config = backend_config
    observed.meta['_observed_graph_module_attrs'] = attrs
    return observed
