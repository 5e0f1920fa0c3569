"""Helpers of FX graph mode quantization: pattern matching on graphs, attribute naming,
and the qconfig of each node (as ``torch.ao.quantization.fx.utils`` /
``qconfig_mapping_utils``)."""
import re

__all__ = ['get_new_attr_name_with_prefix', 'create_getattr_from_value',
           'is_activation_post_process_node', 'match_chain', 'fn_key']


def get_new_attr_name_with_prefix(prefix):
    """A function giving, for a module, the first free attribute name ``prefix<i>``
    (dots in ``prefix`` become underscores).

    Example::

        >>> get_new_attr_name_with_prefix('a.b_')(ember.nn.Module())
        'a_b_0'
    """
    prefix = prefix.replace(".", "_")

    def get_new_attr_name(module):
        i = 0
        while hasattr(module, f"{prefix}{i}"):
            i += 1
        return f"{prefix}{i}"
    return get_new_attr_name


def create_getattr_from_value(module, graph, prefix, value):
    """Register ``value`` as a buffer of ``module`` under a new ``prefix<i>`` name and
    return a ``get_attr`` node reading it (inserted at the graph's insert point).

    Example::

        >>> gm = ember.fx.symbolic_trace(ember.nn.ReLU())
        >>> n = create_getattr_from_value(gm, gm.graph, '_scale_', 0.5)
    """
    import ember
    name = get_new_attr_name_with_prefix(prefix)(module)
    t = value.detach().clone() if isinstance(value, ember.Tensor) else ember.tensor(value)
    module.register_buffer(name, t)
    return graph.create_node("get_attr", name, (), {})


def _is_obs_module(m):
    from ..observer import ObserverBase
    from ..fake_quantize import FakeQuantizeBase
    return isinstance(m, (ObserverBase, FakeQuantizeBase))


def is_activation_post_process_node(node, modules):
    """Whether ``node`` calls an observer or fake-quantize module.

    Example::

        >>> is_activation_post_process_node(node, dict(gm.named_modules()))
    """
    return (node is not None and node.op == "call_module"
            and _is_obs_module(modules.get(node.target)))


def _op_matches(node, op, modules):
    if not hasattr(node, 'op'):
        return False
    if isinstance(op, type):
        return node.op == "call_module" and type(modules.get(node.target)) is op
    if isinstance(op, str):
        return node.op == "call_method" and node.target == op
    return node.op == "call_function" and fn_key(node.target) == fn_key(op)


def fn_key(f):
    """The function ``f`` stands for, whatever binding of it is seen: ember switches its
    functions to observing wrappers (``__wrapped__`` names the function) while tensor
    subclasses are alive; the innermost function is the key.

    Example::

        >>> fn_key(ember.nn.functional.relu) is fn_key(ember.nn.functional.relu)
        True
    """
    seen = 0
    while callable(f) and not isinstance(f, type) and seen < 8:
        inner = getattr(f, '__wrapped__', None)
        if inner is None:
            break
        f, seen = inner, seen + 1
    return f


def match_chain(node, pattern, modules):
    """The nodes (in run order) of ``pattern`` ending at ``node``, or None.

    ``pattern`` is one op (module type, function or method name) or a tuple of ops in the
    order they run; each op's first argument is the previous op's output, used only there.

    Example::

        >>> match_chain(relu_node, (ember.nn.Linear, ember.nn.ReLU), modules)
    """
    ops = pattern if isinstance(pattern, tuple) else (pattern,)
    chain = [node]
    cur = node
    for i in range(len(ops) - 1, -1, -1):
        if not _op_matches(cur, ops[i], modules):
            return None
        if i > 0:
            if not cur.args or not hasattr(cur.args[0], 'op'):
                return None
            prev = cur.args[0]
            if len(prev.users) != 1:
                return None
            chain.append(prev)
            cur = prev
    chain.reverse()
    return chain


def _sorted_configs(configs):
    """Longer patterns first (so a fused pattern wins over its parts)."""
    def length(c):
        return len(c.pattern) if isinstance(c.pattern, tuple) else 1
    return sorted(configs, key=length, reverse=True)


# ------------------------------------------------------------------ qconfigs per node
def _object_type_qconfig(mapping, object_type, fallback):
    if object_type in mapping.object_type_qconfigs:
        return mapping.object_type_qconfigs[object_type]
    key = fn_key(object_type)
    for k, v in mapping.object_type_qconfigs.items():
        if fn_key(k) == key:
            return v
    return fallback


def _module_name_regex_qconfig(mapping, module_name, fallback):
    for regex, qconfig in mapping.module_name_regex_qconfigs.items():
        if re.match(regex, module_name):
            return qconfig
    return fallback


def _module_name_qconfig(mapping, module_name, fallback):
    if module_name == "":
        return fallback
    if module_name in mapping.module_name_qconfigs:
        return mapping.module_name_qconfigs[module_name]
    parent = module_name.rsplit(".", 1)[0] if "." in module_name else ""
    return _module_name_qconfig(mapping, parent, fallback)


def _qconfig_for_module_type_or_name(mapping, module_type, module_name, fallback):
    qc = _object_type_qconfig(mapping, module_type, fallback)
    qc = _module_name_regex_qconfig(mapping, module_name, qc)
    return _module_name_qconfig(mapping, module_name, qc)


def generate_node_name_to_qconfig(graph, modules, mapping, node_name_to_scope):
    """The qconfig of every node: a ``call_module`` node's module's propagated qconfig;
    a function or method call's by object type, then its module's type and name, then
    ``set_module_name_object_type_order`` (the index of the call within that module)."""
    global_qconfig = mapping.global_qconfig
    out = {}
    counts = {}
    for node in graph.nodes:
        qconfig = None
        if node.op == "get_attr":
            parent = node.target.rsplit(".", 1)[0] if "." in node.target else ""
            qconfig = getattr(modules.get(parent), "qconfig", None) if parent in modules \
                else None
        elif node.op in ("call_function", "call_method"):
            module_path, module_type = node_name_to_scope.get(node.name, ("", None))
            qconfig = _object_type_qconfig(mapping, node.target, global_qconfig)
            qconfig = _qconfig_for_module_type_or_name(mapping, module_type, module_path,
                                                       qconfig)
            key = (module_path, fn_key(node.target))
            idx = counts.get(key, 0)
            counts[key] = idx + 1
            for (p, t, i), qc in mapping.module_name_object_type_order_qconfigs.items():
                if p == module_path and i == idx and fn_key(t) == fn_key(node.target):
                    qconfig = qc
        elif node.op == "call_module":
            mod = modules[node.target]
            if _is_obs_module(mod):
                continue
            qconfig = _qconfig_for_module_type_or_name(mapping, type(mod), node.target,
                                                       global_qconfig)
            parent = node.target.rsplit(".", 1)[0] if "." in node.target else ""
            key = (parent, type(mod))
            idx = counts.get(key, 0)
            counts[key] = idx + 1
            qconfig = mapping.module_name_object_type_order_qconfigs.get(
                (parent, type(mod), idx), qconfig)
            # regexes and call orders are not known to the eager propagation: the module
            # carries the qconfig found here
            mod.qconfig = qconfig
        out[node.name] = qconfig
    return out
