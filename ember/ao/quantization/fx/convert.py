"""Conversion of an observed FX model (as ``torch.ao.quantization.fx.convert``).

The reference step: each quantized weighted module (``Linear``, ``Conv1d``-``3d``, their
fused and QAT forms) becomes its reference quantized module (weight qparams from the
qconfig's weight observer, or the QAT module's weight fake-quantize), and each observer
becomes ``quantize_per_tensor`` (``quantize_per_channel`` for a functional op's weight,
``quantize_per_tensor_dynamic`` for a dynamic one) with its scale and zero point (buffers
named ``<module path>[_input]_scale_<i>`` / ``_zero_point_<i>``) followed by
``dequantize``. The lowering step (not for reference models) then, as torch's lowering
to its native backend:

* ``dequantize -> reference module -> quantize`` becomes the ``nn.quantized`` module
  (``nn.quantized.dynamic`` for dynamic inputs);
* ``dequantize -> F.linear (-> relu) -> quantize`` becomes ``quantized.linear(_relu)`` on a
  prepacked weight, ``F.layer_norm`` becomes ``quantized.layer_norm``;
* ``dequantize -> add/mul (-> relu) -> quantize`` becomes ``ember.ops.quantized.add`` /
  ``add_relu`` / ``mul`` / ``mul_relu``;
* batch norm, layer norm, ELU, LeakyReLU, Hardswish, Dropout, Softmax and BNReLU modules
  are swapped for their quantized forms, and the ops that keep their input's qparams or
  have fixed ones (pooling, ``cat``, ``flatten``, ``relu``, ``sigmoid``, views...) run on
  the quantized tensor directly; shape reads take the quantized tensor."""
import operator

import ember as _em
from ember.fx import GraphModule

from .utils import create_getattr_from_value, _is_obs_module, fn_key

__all__ = ['convert']


def _set_module(root, qualname, module):
    parent, _, name = qualname.rpartition('.')
    setattr(root.get_submodule(parent) if parent else root, name, module)


def _module_path_and_prefix(obs_node, node_name_to_scope, node_name_to_qconfig):
    observed = obs_node.args[0]
    # an observer of a value whose producer is not quantized (a graph input, an op with
    # a None qconfig) is named after the first op it feeds (F.linear preferred)
    if observed.name in node_name_to_qconfig and node_name_to_qconfig[observed.name] is None:
        users = list(obs_node.users)
        first = users[0] if users else None
        for u in users:
            if u.op == 'call_function' and fn_key(u.target) == fn_key(_em.nn.functional.linear):
                first = u
                break
        prefix = '_input'
    else:
        first, prefix = observed, ''
    path = ''
    if first is not None and first.name in node_name_to_scope:
        path = node_name_to_scope[first.name][0]
    return path, prefix


def _convert_weighted_modules(model, graph, attrs, backend_config):
    from ember.ao.nn.intrinsic.modules.fused import _FusedModule
    from ..utils import get_qparam_dict
    root_to_ref = {}
    qat_types = set()
    for c in backend_config.configs:
        if c.root_module is not None and c.reference_quantized_module is not None:
            root_to_ref[c.root_module] = c.reference_quantized_module
        if c.qat_module is not None:
            qat_types.add(c.qat_module)
    modules = dict(model.named_modules(remove_duplicate=False))
    for node in graph.nodes:
        if node.op != 'call_module' or node.name not in attrs.observed_node_names:
            continue
        qconfig = attrs.node_name_to_qconfig.get(node.name)
        mod = modules[node.target]
        if qconfig is None:
            continue
        weight_pp = None
        if type(mod) in qat_types or hasattr(mod, 'weight_fake_quant'):
            weight_pp = mod.weight_fake_quant
            mod = mod.to_float()
        inner = mod[0] if isinstance(mod, _FusedModule) else mod
        ref_cls = root_to_ref.get(type(inner))
        if ref_cls is None:
            continue
        if weight_pp is None:
            weight_pp = qconfig.weight()
        weight_pp(inner.weight)
        ref = ref_cls.from_float(inner, get_qparam_dict(weight_pp))
        if isinstance(mod, _FusedModule):
            mod[0] = ref
            new = mod
        else:
            new = ref
        _set_module(model, node.target, new)


def _replace_observers(model, graph, attrs):
    modules = dict(model.named_modules(remove_duplicate=False))
    for node in list(graph.nodes):
        if node.op != 'call_module' or not _is_obs_module(modules.get(node.target)):
            continue
        obs = modules[node.target]
        dtype = getattr(obs, 'dtype', None)
        x = node.args[0]
        from ..observer import ReuseInputObserver
        if dtype in (_em.quint8, _em.qint8, _em.qint32) and not getattr(
                obs, 'is_dynamic', False) and not isinstance(obs, ReuseInputObserver):
            path, prefix = _module_path_and_prefix(node, attrs.node_name_to_scope,
                                                   attrs.node_name_to_qconfig)
            scale, zero_point = obs.calculate_qparams()
            qscheme = getattr(obs, 'qscheme', _em.per_tensor_affine)
            with graph.inserting_before(node):
                if qscheme in (_em.per_channel_affine, _em.per_channel_symmetric):
                    s = create_getattr_from_value(model, graph, path + prefix + '_scale_', scale)
                    z = create_getattr_from_value(model, graph, path + prefix + '_zero_point_',
                                                  zero_point)
                    q = graph.create_node('call_function', _em.quantize_per_channel,
                                          (x, s, z, obs.ch_axis, dtype), {})
                else:
                    s = create_getattr_from_value(model, graph, path + prefix + '_scale_',
                                                  float(scale))
                    z = create_getattr_from_value(model, graph, path + prefix + '_zero_point_',
                                                  int(zero_point))
                    q = graph.create_node('call_function', _em.quantize_per_tensor,
                                          (x, s, z, dtype), {})
                dq = graph.create_node('call_method', 'dequantize', (q,), {})
            node.replace_all_uses_with(dq)
        elif dtype in (_em.quint8, _em.qint8) and getattr(obs, 'is_dynamic', False):
            reduce_range = _em.backends.quantized.engine in ('fbgemm', 'x86')
            with graph.inserting_before(node):
                q = graph.create_node('call_function', _em.quantize_per_tensor_dynamic,
                                      (x, dtype, reduce_range), {})
                dq = graph.create_node('call_method', 'dequantize', (q,), {})
            node.replace_all_uses_with(dq)
        else:
            node.replace_all_uses_with(x)
        graph.erase_node(node)


def _is_dq(n):
    return hasattr(n, 'op') and n.op == 'call_method' and n.target == 'dequantize'


def _is_q(n):
    return hasattr(n, 'op') and n.op == 'call_function' and \
        fn_key(n.target) == fn_key(_em.quantize_per_tensor)


def _is_dynamic_q(n):
    return hasattr(n, 'op') and n.op == 'call_function' and \
        fn_key(n.target) == fn_key(_em.quantize_per_tensor_dynamic)


def _single_q_user(node):
    users = list(node.users)
    return users[0] if len(users) == 1 and _is_q(users[0]) else None


def _buffer_value(model, node):
    return getattr(model, node.target)


def _lower_tables():
    """The lowering tables (built on first use)."""
    from ember import nn
    from ember.nn import functional as F
    from ember.ao.nn import quantized as nnq
    from ember.ao.nn import intrinsic as nni
    from ember.ao.nn.intrinsic import quantized as nniq
    from ember.ao.nn.quantized import reference as ref
    from ..backend_config import get_native_backend_config, ObservationType
    weighted = {ref.Linear: nnq.Linear, ref.Conv1d: nnq.Conv1d, ref.Conv2d: nnq.Conv2d,
                ref.Conv3d: nnq.Conv3d}
    fused_weighted = {nni.LinearReLU: nniq.LinearReLU, nni.ConvReLU1d: nniq.ConvReLU1d,
                      nni.ConvReLU2d: nniq.ConvReLU2d, nni.ConvReLU3d: nniq.ConvReLU3d}
    # float modules with a quantized counterpart built by from_reference
    special_modules = {nn.BatchNorm2d: nnq.BatchNorm2d, nn.BatchNorm3d: nnq.BatchNorm3d,
                       nn.ELU: nnq.ELU, nn.LeakyReLU: nnq.LeakyReLU,
                       nn.Hardswish: nnq.Hardswish, nn.Dropout: nnq.Dropout,
                       nn.Softmax: nnq.Softmax, nn.LayerNorm: nnq.LayerNorm,
                       nni.BNReLU2d: nniq.BNReLU2d,
                       nni.BNReLU3d: nniq.BNReLU3d}
    # ops that run on quantized tensors as they are: those sharing their input's
    # observer, and those with fixed output qparams
    copy_ops = {nn.Sigmoid, nn.Tanh, nn.Hardsigmoid, fn_key(_em.sigmoid), fn_key(_em.tanh),
                fn_key(F.hardsigmoid), fn_key(F.sigmoid) if hasattr(F, 'sigmoid') else None,
                'sigmoid', 'sigmoid_', 'tanh', 'tanh_', 'hardsigmoid', 'hardsigmoid_'}
    for c in get_native_backend_config().configs:
        if c.observation_type == ObservationType.OUTPUT_SHARE_OBSERVER_WITH_INPUT and \
                not isinstance(c.pattern, tuple):
            copy_ops.add(fn_key(c.pattern))
    return weighted, fused_weighted, special_modules, copy_ops


def _lower(model, graph, scopes=None):
    """Lower the reference patterns to quantized modules and ops (module docstring)."""
    from ember import nn
    from ember.nn import functional as F
    from ember.ao.nn.intrinsic.modules.fused import _FusedModule
    weighted, fused_weighted, special_modules, copy_ops = _lower_tables()
    modules = dict(model.named_modules(remove_duplicate=False))

    def replace_module(node, qmod):
        _set_module(model, node.target, qmod)
        modules[node.target] = qmod

    def qparams(q):
        return float(_buffer_value(model, q.args[1])), int(_buffer_value(model, q.args[2]))

    def drop_q(q, ref_node):
        q.replace_all_uses_with(ref_node)
        graph.erase_node(q)

    # weighted modules: dequantize -> reference module -> quantize
    for q in [n for n in graph.nodes if _is_q(n)]:
        node = q.args[0]
        if not hasattr(node, 'op') or node.op != 'call_module' or len(node.users) != 1:
            continue
        mod = modules.get(node.target)
        if type(mod) in weighted:
            qcls, src = weighted[type(mod)], mod
        elif isinstance(mod, _FusedModule) and type(mod) in fused_weighted and \
                type(mod[0]) in weighted:
            qcls = fused_weighted[type(mod)]
            src = mod if 'from_reference' in qcls.__dict__ else mod[0]
        else:
            continue
        dq = node.args[0] if node.args else None
        if not _is_dq(dq):
            continue
        replace_module(node, qcls.from_reference(src, *qparams(q)))
        node.replace_input_with(dq, dq.args[0])
        drop_q(q, node)

    # dynamic: dequantize(quantize_per_tensor_dynamic(x)) -> reference module (float out)
    from ember.ao.nn.quantized import dynamic as nnqd
    from ember.ao.nn.intrinsic.quantized import dynamic as nniqd
    dynamic_modules = {weighted_ref: nnqd.Linear for weighted_ref in weighted
                       if weighted[weighted_ref].__name__ == 'Linear'}
    for node in list(graph.nodes):
        if node.op != 'call_module' or not node.args:
            continue
        dq = node.args[0]
        if not _is_dq(dq) or not _is_dynamic_q(dq.args[0]):
            continue
        mod = modules.get(node.target)
        if type(mod) in dynamic_modules:
            qmod = dynamic_modules[type(mod)].from_reference(mod)
        elif isinstance(mod, _FusedModule) and type(mod[0]) in dynamic_modules and \
                type(mod).__name__ == 'LinearReLU':
            qmod = nniqd.LinearReLU.from_reference(mod)
        else:
            continue
        replace_module(node, qmod)
        node.replace_input_with(dq, dq.args[0].args[0])

    # binary ops (optionally followed by relu): quantized.add / add_relu / mul / mul_relu
    relu_ops = {fn_key(F.relu), fn_key(_em.relu), 'relu'}
    binary_ops = {fn_key(f): f for f in (operator.add, _em.add, operator.mul, _em.mul)}

    def is_relu(n):
        if n.op == 'call_module':
            return type(modules.get(n.target)) is nn.ReLU
        return n.op in ('call_function', 'call_method') and fn_key(n.target) in relu_ops

    for node in list(graph.nodes):
        if node.op != 'call_function' or fn_key(node.target) not in binary_ops:
            continue
        if len(node.args) != 2 or node.kwargs or not all(_is_dq(a) for a in node.args):
            continue
        users = list(node.users)
        relu = users[0] if len(users) == 1 and is_relu(users[0]) else None
        q = _single_q_user(relu if relu is not None else node)
        if q is None:
            continue
        is_add = binary_ops[fn_key(node.target)] in (operator.add, _em.add)
        opname = ('add' if is_add else 'mul') + ('_relu' if relu is not None else '')
        with graph.inserting_before(q):
            new = graph.create_node(
                'call_function', getattr(_em.ops.quantized, opname),
                (node.args[0].args[0], node.args[1].args[0], q.args[1], q.args[2]), {},
                name=opname)
        q.replace_all_uses_with(new)
        graph.erase_node(q)
        if relu is not None:
            graph.erase_node(relu)
        graph.erase_node(node)

    # functional linear (optionally followed by relu): quantized.linear(_relu) with the
    # weight prepacked into a ``<scope>_packed_weight_<i>`` attribute
    scopes = scopes or {}
    for node in list(graph.nodes):
        if node.op != 'call_function' or fn_key(node.target) != fn_key(F.linear):
            continue
        args = list(node.args)
        x, w = args[0], (args[1] if len(args) > 1 else node.kwargs.get('weight'))
        b = args[2] if len(args) > 2 else node.kwargs.get('bias')
        if not (_is_dq(x) and _is_dq(w)):
            continue
        wq = w.args[0]
        if not (hasattr(wq, 'op') and wq.op == 'call_function'
                and fn_key(wq.target) in (fn_key(_em.quantize_per_channel),
                                          fn_key(_em.quantize_per_tensor))
                and wq.args[0].op == 'get_attr'):
            continue
        users = list(node.users)
        relu = users[0] if len(users) == 1 and is_relu(users[0]) else None
        q = _single_q_user(relu if relu is not None else node)
        if q is None:
            continue
        weight = model.get_parameter(wq.args[0].target) if isinstance(
            getattr(model, wq.args[0].target, None), _em.nn.Parameter) else \
            getattr(model, wq.args[0].target)
        wargs = [weight.detach()] + [_buffer_value(model, a) if hasattr(a, 'op') else a
                                     for a in wq.args[1:]]
        if fn_key(wq.target) == fn_key(_em.quantize_per_tensor):
            wargs[1], wargs[2] = float(wargs[1]), int(wargs[2])
        bias = getattr(model, b.target).detach() if hasattr(b, 'op') else b
        packed = _em.ops.quantized.linear_prepack(wq.target(*wargs), bias)
        path = scopes.get(node.name, ('', None))[0]
        opname = 'linear_relu' if relu is not None else 'linear'
        with graph.inserting_before(q):
            from .utils import get_new_attr_name_with_prefix
            attr = get_new_attr_name_with_prefix(path + '_packed_weight_')(model)
            setattr(model, attr, packed)
            pw = graph.create_node('get_attr', attr, (), {})
            new = graph.create_node('call_function', getattr(_em.ops.quantized, opname),
                                    (x.args[0], pw, q.args[1], q.args[2]), {}, name=opname)
        q.replace_all_uses_with(new)
        graph.erase_node(q)
        if relu is not None:
            graph.erase_node(relu)
        graph.erase_node(node)

    # functional layer norm: quantized.layer_norm with the output qparams as keywords
    for q in [n for n in graph.nodes if _is_q(n)]:
        node = q.args[0]
        if not (hasattr(node, 'op') and node.op == 'call_function'
                and fn_key(node.target) == fn_key(F.layer_norm)) or len(node.users) != 1:
            continue
        if not node.args or not _is_dq(node.args[0]):
            continue
        names = ('input', 'normalized_shape', 'weight', 'bias', 'eps')
        vals = dict(zip(names, node.args))
        vals.update(node.kwargs)
        kwargs = {'weight': vals.get('weight'), 'bias': vals.get('bias'),
                  'eps': vals.get('eps', 1e-05), 'output_scale': q.args[1],
                  'output_zero_point': q.args[2]}
        with graph.inserting_before(q):
            new = graph.create_node(
                'call_function', _em.ops.quantized.layer_norm,
                (node.args[0].args[0], vals['normalized_shape']), kwargs, name='layer_norm')
        q.replace_all_uses_with(new)
        graph.erase_node(q)
        graph.erase_node(node)

    # tensor metadata (x.shape, x.size()) read from the quantized tensor
    for node in list(graph.nodes):
        if node.args and _is_dq(node.args[0]) and (
                (node.op == 'call_function' and node.target is getattr
                 and len(node.args) == 2 and node.args[1] in ('shape', 'dtype', 'device'))
                or (node.op == 'call_method' and node.target in ('size', 'dim', 'numel'))):
            node.replace_input_with(node.args[0], node.args[0].args[0])

    # special patterns: dequantize -> op -> quantize where the op runs on the
    # quantized tensor (its module swapped for the quantized one where there is one)
    for q in [n for n in graph.nodes if _is_q(n)]:
        node = q.args[0]
        if not hasattr(node, 'op') or not node.args:
            continue
        if node.op == 'call_module':
            mod = modules.get(node.target)
            if type(mod) in special_modules:
                qcls = special_modules[type(mod)]
                src = mod if ('from_reference' in qcls.__dict__
                              or not isinstance(mod, _FusedModule)) else mod[0]
                key = 'swap'
            else:
                key = type(mod)
        elif node.op in ('call_function', 'call_method'):
            key = fn_key(node.target)
        else:
            continue
        if key != 'swap' and key not in copy_ops:
            continue
        first = node.args[0]
        dqs = list(first) if isinstance(first, (list, tuple)) else [first]
        if not dqs or not all(_is_dq(d) for d in dqs):
            continue
        if key == 'swap':
            replace_module(node, qcls.from_reference(src, *qparams(q)))
        for d in dqs:
            node.replace_input_with(d, d.args[0])
        drop_q(q, node)


def _is_packed_weight(name, value):
    return '_packed_weight' in name and not isinstance(value, (_em.Tensor, _em.nn.Module))


def _packed_weights_into_state_dict(module, state_dict, prefix, local_metadata):
    """State-dict hook: the prepacked weights of lowered functional linears are saved
    under their attribute names, as torch saves them."""
    for name, value in vars(module).items():
        if _is_packed_weight(name, value):
            state_dict[prefix + name] = value


def _packed_weights_from_state_dict(module, state_dict, prefix, local_metadata, strict,
                                    missing_keys, unexpected_keys, error_msgs):
    for key in list(state_dict):
        name = key[len(prefix):]
        if key.startswith(prefix) and '.' not in name and _is_packed_weight(
                name, state_dict[key]):
            setattr(module, name, state_dict.pop(key))


def convert(model, is_reference=False, convert_custom_config=None, is_standalone_module=False,
            _remove_qconfig_flag=True, qconfig_mapping=None, backend_config=None,
            is_decomposed=False, keep_original_weights=False):
    """Convert an observed model (from ``prepare``) to a reference quantized model, or
    lowered to quantized modules and ops (see the module docstring).

    Args:
        model (GraphModule): the observed, calibrated model (changed in place).
        is_reference (bool): stop at the reference model. Default: ``False``
        convert_custom_config: unused (kept for PyTorch's signature).
        is_standalone_module (bool): unused.
        qconfig_mapping: unused (the prepare-time mapping is used).
        backend_config (BackendConfig, optional): default: the one used by prepare.

    Returns:
        GraphModule: the converted model.

    Example::

        >>> quantized = convert(observed)
    """
    attrs = model.meta.get('_observed_graph_module_attrs')
    if attrs is None:
        raise ValueError("convert expects a model prepared by prepare_fx")
    if backend_config is None:
        backend_config = attrs.backend_config
    if backend_config is None:
        from ..backend_config import get_native_backend_config
        backend_config = get_native_backend_config()
    graph = model.graph
    _convert_weighted_modules(model, graph, attrs, backend_config)
    _replace_observers(model, graph, attrs)
    if not is_reference:
        _lower(model, graph, attrs.node_name_to_scope)
    graph.eliminate_dead_code()
    if _remove_qconfig_flag:
        for m in model.modules():
            if hasattr(m, 'qconfig'):
                del m.qconfig
    out = GraphModule(model, graph)
    out.meta.pop('_observed_graph_module_attrs', None)
    if any(_is_packed_weight(k, v) for k, v in vars(out).items()):
        out._register_state_dict_hook(_packed_weights_into_state_dict)
        out._register_load_state_dict_pre_hook(_packed_weights_from_state_dict,
                                               with_module=True)
    return out
