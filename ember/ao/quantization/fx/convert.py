"""Conversion of an observed FX model (as ``torch.ao.quantization.fx.convert``).

The reference step: each quantized weighted module (``Linear``, ``Conv1d``-``3d``, their
fused and QAT forms) becomes its reference quantized module (weight qparams from the
qconfig's weight observer, or the QAT module's weight fake-quantize), and each observer
becomes ``quantize_per_tensor`` with its scale and zero point (buffers named
``<module path>[_input]_scale_<i>`` / ``_zero_point_<i>``) followed by ``dequantize``.
The lowering step (not for reference models) then turns ``dequantize -> reference module
-> quantize`` into the ``nn.quantized`` module, ``dequantize -> add/mul (-> relu) ->
quantize`` into ``ember.ops.quantized.add``/``add_relu``/``mul``/``mul_relu``, and runs
the ops that keep their input's qparams (pooling, ``flatten``, ``relu``...) directly on
the quantized tensor."""
import operator

import ember as _em
from ember.fx import GraphModule

from .utils import create_getattr_from_value, _is_obs_module, fn_key

__all__ = ['convert']


def _set_module(root, qualname, module):
    parent, _, name = qualname.rpartition('.')
    setattr(root.get_submodule(parent) if parent else root, name, module)


def _module_path_and_prefix(obs_node, node_name_to_scope):
    observed = obs_node.args[0]
    if observed.op == 'placeholder':
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
        if dtype in (_em.quint8, _em.qint8, _em.qint32) and not getattr(obs, 'is_dynamic',
                                                                        False):
            path, prefix = _module_path_and_prefix(node, attrs.node_name_to_scope)
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
        else:
            node.replace_all_uses_with(x)
        graph.erase_node(node)


def _is_dq(n):
    return hasattr(n, 'op') and n.op == 'call_method' and n.target == 'dequantize'


def _is_q(n):
    return hasattr(n, 'op') and n.op == 'call_function' and \
        fn_key(n.target) == fn_key(_em.quantize_per_tensor)


def _single_q_user(node):
    users = list(node.users)
    return users[0] if len(users) == 1 and _is_q(users[0]) else None


def _erase_if_unused(graph, nodes):
    for n in nodes:
        if n is not None and len(n.users) == 0 and n.op != 'output':
            graph.erase_node(n)


def _buffer_value(model, node):
    return getattr(model, node.target)


def _lower(model, graph):
    """Lower the reference patterns to quantized modules and ops (module docstring)."""
    from ember.ao.nn import quantized as nnq
    from ember.ao.nn.intrinsic import quantized as nniq
    from ember.ao.nn.intrinsic.modules.fused import _FusedModule
    from ember.ao.nn import intrinsic as nni
    from ember import nn
    from ember.nn import functional as F
    from . import _reference as ref
    from ..backend_config import get_native_backend_config, ObservationType
    ref_to_q = {ref.Linear: nnq.Linear, ref.Conv1d: nnq.Conv1d, ref.Conv2d: nnq.Conv2d,
                ref.Conv3d: nnq.Conv3d}
    fused_to_q = {nni.LinearReLU: nniq.LinearReLU, nni.ConvReLU1d: nniq.ConvReLU1d,
                  nni.ConvReLU2d: nniq.ConvReLU2d, nni.ConvReLU3d: nniq.ConvReLU3d}
    share_ops = set()
    for c in get_native_backend_config().configs:
        if c.observation_type == ObservationType.OUTPUT_SHARE_OBSERVER_WITH_INPUT and \
                not isinstance(c.pattern, tuple) and c.pattern is not _em.cat:
            share_ops.add(fn_key(c.pattern))
    modules = dict(model.named_modules(remove_duplicate=False))
    relu_ops = {fn_key(F.relu), fn_key(_em.relu), 'relu'}
    binary_ops = {fn_key(f): f for f in (operator.add, _em.add, operator.mul, _em.mul)}

    def is_relu(n):
        if n.op == 'call_module':
            return type(modules.get(n.target)) is nn.ReLU
        return n.op in ('call_function', 'call_method') and fn_key(n.target) in relu_ops

    for node in list(graph.nodes):
        if node.op == 'call_module':
            mod = modules.get(node.target)
            qcls = None
            if type(mod) in ref_to_q:
                qcls, target = ref_to_q[type(mod)], mod
            elif isinstance(mod, _FusedModule) and type(mod) in fused_to_q and \
                    type(mod[0]) in ref_to_q:
                qcls = fused_to_q[type(mod)]
                target = mod if 'from_reference' in qcls.__dict__ else mod[0]
            if qcls is not None:
                dq = node.args[0] if node.args else None
                q = _single_q_user(node)
                if not _is_dq(dq) or q is None:
                    continue
                scale, zp = _buffer_value(model, q.args[1]), _buffer_value(model, q.args[2])
                qmod = qcls.from_reference(target, float(scale), int(zp))
                _set_module(model, node.target, qmod)
                modules[node.target] = qmod
                node.replace_input_with(dq, dq.args[0])
                sz = [q.args[1], q.args[2]]
                q.replace_all_uses_with(node)
                graph.erase_node(q)
                _erase_if_unused(graph, sz + [dq])
                continue
        # binary ops, optionally followed by relu
        if node.op == 'call_function' and fn_key(node.target) in binary_ops:
            if len(node.args) != 2 or node.kwargs:
                continue
            a, b = node.args
            if not (_is_dq(a) and _is_dq(b)):
                continue
            users = list(node.users)
            relu = users[0] if len(users) == 1 and is_relu(users[0]) else None
            last = relu if relu is not None else node
            q = _single_q_user(last)
            if q is None:
                continue
            is_add = binary_ops[fn_key(node.target)] in (operator.add, _em.add)
            opname = ('add' if is_add else 'mul') + ('_relu' if relu is not None else '')
            qop = getattr(_em.ops.quantized, opname)
            with graph.inserting_before(q):
                new = graph.create_node('call_function', qop,
                                        (a.args[0], b.args[0], q.args[1], q.args[2]), {},
                                        name=opname)
            q.replace_all_uses_with(new)
            graph.erase_node(q)
            if relu is not None:
                graph.erase_node(relu)
            graph.erase_node(node)
            _erase_if_unused(graph, [a, b])
            continue
        # ops that keep their input's qparams
        if node.op == 'call_module':
            key = type(modules.get(node.target))
        elif node.op in ('call_function', 'call_method'):
            key = fn_key(node.target)
        else:
            continue
        if key in share_ops and node.args and _is_dq(node.args[0]):
            q = _single_q_user(node)
            if q is None:
                continue
            dq = node.args[0]
            sz = [q.args[1], q.args[2]]
            node.replace_input_with(dq, dq.args[0])
            q.replace_all_uses_with(node)
            graph.erase_node(q)
            _erase_if_unused(graph, sz + [dq])


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
        _lower(model, graph)
    graph.eliminate_dead_code()
    if _remove_qconfig_flag:
        for m in model.modules():
            if hasattr(m, 'qconfig'):
                del m.qconfig
    out = GraphModule(model, graph)
    out.meta.pop('_observed_graph_module_attrs', None)
    return out
