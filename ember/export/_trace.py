"""Capture for ``ember.export``: runs the module once on copies of the example inputs while a
``TorchFunctionMode`` records every op into an ``ember.fx.Graph``.

The graph is torch's "training IR" in shape: the parameters, buffers and lifted tensor
constants are placeholders (``p_<fqn>``, ``b_<fqn>``, ``c_<fqn>``) ahead of the user's
inputs; every op the forward applies is a ``call_function`` node whose target is the ember
function or ``Tensor`` method that ran (in-place ops stay in place); the output is the flat
tuple of the user's outputs. Sizes of dynamic dimensions, read in Python (``x.shape[0]``,
``x.size(1)``), are ``sym_size`` nodes: the ints the forward sees then carry their node
(:class:`_SymInt`), and arithmetic on them is recorded too.

The module's state is left as it was (buffers updated by the forward, such as BatchNorm's
running statistics, are restored after the run, and so is the global RNG state).
"""
import linecache
import operator
import os
import sys
import threading

from .._tensor import Tensor, Size
from ..overrides import TorchFunctionMode

__all__ = []

_active = {}             # thread id -> the capture running on it
PROPERTIES = ('T', 'mT', 'H', 'mH')      # Tensor properties recorded as getattr nodes
_FROZEN = ('numpy', 'tolist', '__array__')   # results that leave the graph
_CONVERSIONS = ('__bool__', '__int__', '__float__', '__index__', '__complex__')


def sym_size(input, dim):
    """The size of ``input`` along ``dim``, read at run time (the graph op of a dynamic
    size; torch's ``aten.sym_size.int``).

    Args:
        input (Tensor): the tensor.
        dim (int): the dimension.

    Example::

        >>> ember.export._trace.sym_size(ember.zeros(3, 4), 1)
        4
    """
    return input.size(dim)


def resolve_target(module, qualname):
    """The op a graph node calls, by the name it is saved under: ``('ember',
    'Tensor.add_')`` for a Tensor method, ``('ember.nn.functional', 'relu')`` for a
    function of one of the op namespaces (the observing binding, as recorded while
    capturing, so that the graph prints the same). None for anything else.

    Args:
        module (str): the namespace.
        qualname (str): the name in it.
    """
    from .._ops import _dispatch
    if not isinstance(module, str) or not isinstance(qualname, str):
        return None
    if module == 'ember' and qualname.startswith('Tensor.'):
        attr = qualname[len('Tensor.'):]
        if attr in _DENIED_METHODS:
            return None
        cur = dict(_dispatch._method_items()).get(attr)
        if cur is None:
            return None
        return _dispatch._wrapper_for(_dispatch.raw_op(cur), attr, 'ember', qualname)
    if module not in _dispatch._FUNCTION_NAMESPACES or qualname in _DENIED_FUNCTIONS:
        return None
    import importlib
    importlib.import_module(module)
    cur = _dispatch.public_functions(module).get(qualname)
    if cur is None:
        return None
    return _dispatch._wrapper_for(_dispatch.raw_op(cur), qualname, module, qualname)


def target_name(fn):
    """``(module, qualname)`` naming a recorded op (see :func:`resolve_target`), or None
    when ``fn`` is not one."""
    mod = getattr(fn, '__module__', None)
    qual = getattr(fn, '__qualname__', None)
    if mod is None or qual is None:
        return None
    r = resolve_target(mod, qual)
    if r is None:
        return None
    from .._ops._dispatch import raw_op
    return (mod, qual) if raw_op(r) is raw_op(fn) else None


_DENIED_METHODS = {'apply_', 'map_', 'map2_', 'set_', 'share_memory_', 'record_stream',
                   'cuda', 'pin_memory', 'storage', 'untyped_storage', 'backward',
                   'register_hook', 'register_post_accumulate_grad_hook', 'retain_grad',
                   'numpy', 'tolist', 'data_ptr', 'const_data_ptr', '__dlpack__',
                   '__dlpack_device__', '__setstate__', '__reduce_ex__'}
# functions that call a callable argument, touch files or global state
_DENIED_FUNCTIONS = {'asarray', 'from_file', 'frombuffer', 'from_numpy', 'set_default_dtype',
                     'manual_seed', 'seed', 'set_rng_state', 'load', 'save', 'cond',
                     'while_loop', 'map', 'scan', 'vmap', 'compile'}


def item(input):
    """``input.item()`` read at run time (the graph op of a value read from a tensor;
    torch's ``aten._local_scalar_dense``).

    Args:
        input (Tensor): a one-element tensor.

    Example::

        >>> ember.export._trace.item(ember.tensor([2.5]))
        2.5
    """
    return input.item()


class _SymInt(int):
    """An int read from a dynamic size while capturing, carrying the node computing it.
    Arithmetic with ints gives another ``_SymInt`` (recorded); comparisons give plain bools
    (the branch taken is baked into the graph)."""

    def __new__(cls, value, node):
        self = int.__new__(cls, value)
        self.node = node
        return self

    def __repr__(self):
        return int.__repr__(int(self))


class _SymFloat(float):
    """A float computed while capturing from a recorded value (``x.sum().item()``, a
    size divided), carrying its node, as :class:`_SymInt`."""

    def __new__(cls, value, node):
        self = float.__new__(cls, value)
        self.node = node
        return self

    def __repr__(self):
        return float.__repr__(float(self))


_SYM = (_SymInt, _SymFloat)


def _plain(v):
    if isinstance(v, _SymInt):
        return int(v)
    if isinstance(v, _SymFloat):
        return float(v)
    return v


def _sym(res, node):
    if isinstance(res, bool):
        return res
    if isinstance(res, int):
        return _SymInt(res, node)
    if isinstance(res, float):
        return _SymFloat(res, node)
    return res


def _sym_op(fn, reflected=False):
    def method(self, other=None):
        unary = fn in (operator.neg, operator.pos, abs)
        if not unary and not isinstance(other, (int, float)):
            return NotImplemented         # a tensor's reflected op records it
        a, b = (other, self) if reflected else (self, other)
        res = fn(_plain(a)) if unary else fn(_plain(a), _plain(b))
        cap = _active.get(threading.get_ident())
        if cap is None or cap.inside:
            return res
        node = cap.graph.create_node('call_function', fn,
                                     (cap.arg(a),) if unary else (cap.arg(a), cap.arg(b)))
        node.meta['val'] = res
        node.meta['stack_trace'] = stack_trace()
        return _sym(res, node)
    return method


for _cls in _SYM:
    for _n, _f in (('add', operator.add), ('sub', operator.sub), ('mul', operator.mul),
                   ('floordiv', operator.floordiv), ('mod', operator.mod),
                   ('truediv', operator.truediv), ('pow', operator.pow)):
        setattr(_cls, f'__{_n}__', _sym_op(_f))
        setattr(_cls, f'__r{_n}__', _sym_op(_f, reflected=True))
    for _n, _f in (('neg', operator.neg), ('pos', operator.pos), ('abs', abs)):
        setattr(_cls, f'__{_n}__', _sym_op(_f))
del _n, _f, _cls


def _map(obj, fn):
    from ..onnx._capture import _map as map_
    return map_(obj, fn)


def _leaves(obj, acc):
    if isinstance(obj, (Tensor,) + _SYM):
        acc.append(obj)
    elif isinstance(obj, (list, tuple)):
        for o in obj:
            _leaves(o, acc)
    elif isinstance(obj, dict):
        for o in obj.values():
            _leaves(o, acc)
    elif isinstance(obj, slice):
        _leaves((obj.start, obj.stop, obj.step), acc)
    return acc


def meta_val(t):
    """What a node keeps of a value: a ``meta`` tensor of its shape and dtype for tensors
    (no data is held), the value itself otherwise."""
    import ember
    if isinstance(t, Tensor):
        # a zero-strided view of one element: the shape and dtype, without the bytes
        return ember.empty((), dtype=t.dtype, device='meta').expand(tuple(t.shape))
    return _plain(t)


_HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# frames of the capture machinery, not of the program (a node's stack trace skips them)
_MACHINERY = tuple(os.path.join(_HERE, p) for p in (
    'export' + os.sep, '_ops' + os.sep, 'overrides.py', 'onnx' + os.sep,
    os.path.join('nn', 'modules', 'module.py'), os.path.join('utils', '_pytree.py')))


def stack_trace():
    """The innermost frame of the program being captured, in traceback form
    (``  File "...", line N, in forward\n    code\n``), or None."""
    f = sys._getframe(1)
    while f is not None and f.f_code.co_filename.startswith(_MACHINERY):
        f = f.f_back
    if f is None:
        return None
    fn = f.f_code.co_filename
    line = linecache.getline(fn, f.f_lineno).strip()
    return f'  File "{fn}", line {f.f_lineno}, in {f.f_code.co_name}\n    {line}\n'


class ExportCaptureError(RuntimeError):
    """The capture met a computation it could not record."""


class _Capture(TorchFunctionMode):
    def __init__(self, root, dynamic_inputs):
        super().__init__()
        from ..fx.graph import Graph
        self.graph = Graph()
        self.env = {}            # id(tensor) -> Node of its value
        self.keep = []           # keeps recorded values alive (ids stay unique)
        self.inside = 0
        self.stack = []
        self.thread = threading.get_ident()
        self.dynamic = dynamic_inputs    # id(input tensor) -> {dim: symbol}
        self.dyn = set()                 # ids of tensors whose shape may vary
        self.sizes = {}                  # (id(tensor), dim) -> _SymInt
        self.state = {}                  # id(param/buffer) -> fqn
        self.module_names = {}
        for n, m in root.named_modules(remove_duplicate=False):
            self.module_names.setdefault(id(m), n)
        self.attr_tensors = {}           # id(tensor attribute) -> fqn (constants)
        for n, m in root.named_modules():
            for k, v in vars(m).items():
                if isinstance(v, Tensor):
                    self.attr_tensors.setdefault(id(v), f'{n}.{k}' if n else k)
        self.constants = {}              # fqn -> tensor, in first-use order
        self.const_nodes = {}
        self.first_user = None           # the first user-input placeholder
        self.called = []                 # fqns of the submodules called, in order
        self.preserve = ()               # fqns whose call signature is recorded
        self.call_sigs = {}              # fqn -> (inputs, in_spec, outputs, out_spec)

    # -- values -------------------------------------------------------------------------
    def meta(self, v):
        self.inside += 1
        try:
            return _map(v, meta_val)
        finally:
            self.inside -= 1

    def set(self, t, node, dynamic=False):
        self.env[id(t)] = node
        self.keep.append(t)
        node.meta['val'] = self.meta(t)
        if dynamic:
            self.dyn.add(id(t))

    def arg(self, obj):
        def conv(a):
            if isinstance(a, _SYM):
                return a.node
            if isinstance(a, Tensor):
                node = self.env.get(id(a))
                if node is None:
                    node = self.lift(a)
                return node
            return a
        return _map(obj, conv)

    def lift(self, t):
        """A tensor the forward read that is neither an input nor state: a constant,
        lifted as a ``CONSTANT_TENSOR`` input."""
        if t.requires_grad:
            fn = type(t.grad_fn).__name__ if t.grad_fn is not None else 'a leaf'
            where = f" in module '{self.stack[-1]}'" if self.stack and self.stack[-1] else ''
            raise ExportCaptureError(
                f'ember.export: a tensor computed from the inputs by an op the capture did '
                f'not see (grad_fn {fn}){where} would be frozen into a constant; compute '
                'it with ember ops')
        node = self.const_nodes.get(id(t))
        if node is not None:
            return node
        fqn = self.attr_tensors.get(id(t))
        if fqn is None or fqn in self.constants:
            k = 0
            while f'lifted_tensor_{k}' in self.constants:
                k += 1
            fqn = f'lifted_tensor_{k}'
        self.constants[fqn] = t
        with self.graph.inserting_before(self.first_user):
            node = self.graph.placeholder('c_' + fqn.replace('.', '_'))
        node.meta['val'] = self.meta(t)
        node.meta['_kind'] = ('constant', fqn)
        self.const_nodes[id(t)] = node
        self.env[id(t)] = node
        self.keep.append(t)
        return node

    def record_result(self, node, res, dynamic):
        if isinstance(res, Tensor):
            self.set(res, node, dynamic)
            return res
        node.meta['val'] = self.meta(res)
        if isinstance(res, (tuple, list)):
            self.keep.append(res)
            for i, r in enumerate(res):
                if isinstance(r, (Tensor, tuple, list)):
                    child = self.graph.create_node('call_function', operator.getitem,
                                                   (node, i), name='getitem')
                    child.meta['nn_module_stack'] = node.meta.get('nn_module_stack')
                    child.meta['stack_trace'] = node.meta.get('stack_trace')
                    self.record_result(child, r, dynamic)
        return res

    def size_of(self, t, dim, value):
        """The size ``value`` of traced tensor ``t`` along ``dim`` as the forward sees it:
        a recorded ``sym_size`` when the dimension may vary, else the int."""
        node = self.env.get(id(t))
        if node is None or self.inside or id(t) not in self.dyn:
            return value
        spec = self.dynamic.get(id(t))
        if spec is not None and dim not in spec:
            return value                 # a static dimension of an input
        key = (id(t), dim)
        s = self.sizes.get(key)
        if s is None:
            n = self.graph.create_node('call_function', sym_size, (node, dim),
                                       name='sym_size_int')
            n.meta['val'] = value
            s = self.sizes[key] = _SymInt(value, n)
        return s

    # -- ops ----------------------------------------------------------------------------
    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if self.inside or threading.get_ident() != self.thread:
            return func(*args, **kwargs)
        leaves = _leaves((args, kwargs), [])
        if any(isinstance(a, _SYM) for a in leaves):
            # ops take plain numbers (their scalar checks are by exact type)
            plain = _map((args, kwargs), _plain)
        else:
            plain = (args, kwargs)
        self.inside += 1
        try:
            res = func(*plain[0], **plain[1])
        finally:
            self.inside -= 1
        traced = any(isinstance(a, _SYM) or id(a) in self.env for a in leaves)
        dynamic = any(isinstance(a, _SYM) or id(a) in self.dyn for a in leaves)
        fname = getattr(func, '__name__', '')
        inplace = fname == 'setitem' or (fname.endswith('_') and not fname.startswith('_'))
        if traced and fname in _FROZEN:
            raise ExportCaptureError(
                f'ember.export: Tensor.{fname}() of a value computed from the inputs cannot '
                'be captured (the program would keep the value it had while exporting)')
        if not _leaves(res, []) and res is not None and not isinstance(res, (list, tuple)):
            # a Python number (dim(), numel(), item(), ...)
            number = isinstance(res, (int, float)) and not isinstance(res, bool)
            if number and (dynamic and isinstance(res, int) or fname == 'item' and traced):
                node = self.graph.create_node('call_function', func, self.arg(args),
                                              self.arg(kwargs))
                node.meta['val'] = res
                node.meta['nn_module_stack'] = list(self.stack)
                node.meta['stack_trace'] = stack_trace()
                return _sym(res, node)
            return res
        if res is None and not (traced or inplace):
            return res
        node = self.graph.create_node('call_function', func, self.arg(args),
                                      self.arg(kwargs))
        node.meta['nn_module_stack'] = list(self.stack)
        node.meta['stack_trace'] = stack_trace()
        if inplace and args and res is args[0]:
            node.meta['val'] = self.meta(res)   # the tensor keeps its node: later reads
            return res                          # read it again after the in-place op
        if res is None:
            return res
        return self.record_result(node, res, dynamic)

    def call_module(self, module, call, args, kwargs):
        if self.inside:
            return call(module, *args, **kwargs)
        qual = self.module_names.get(id(module), type(module).__name__)
        if qual not in self.called:
            self.called.append(qual)
        self.stack.append(qual)
        from ..onnx._capture import _Capture as _OnnxCapture
        from ..utils import _pytree as pytree
        swaps = _OnnxCapture.observe_attrs(module)
        shadows = _observe_static(module)
        try:
            res = call(module, *args, **kwargs)
        finally:
            self.stack.pop()
            for k, v in swaps:
                module.__dict__[k] = v
            for cls, k, attr in reversed(shadows):
                setattr(cls, k, attr)
        if qual in self.preserve and qual not in self.call_sigs:
            ins, in_spec = pytree.tree_flatten((tuple(args), dict(kwargs)))
            outs, out_spec = pytree.tree_flatten(res)
            self.call_sigs[qual] = ([self.arg(a) for a in ins], in_spec,
                                    [self.arg(o) for o in outs], out_spec)
        return res


def _observed(v):
    """The observing binding of op function ``v`` (a raw op the seam cannot see, held
    before the capture began), or None."""
    import ember
    from .._ops import _dispatch
    from ..nn import functional as F
    name = getattr(v, '__name__', None)
    if not callable(v) or not isinstance(name, str):
        return None
    for ns in (F, ember):
        w = getattr(ns, name, None)
        if w is not None and w is not v and _dispatch._raw_of.get(id(w)) is v:
            return w
    return None


def _observe_static(module):
    """Op functions a layer class holds as ``staticmethod`` attributes (``nn.Softmax``'s
    ``_fn``) are replaced on their class by their observing bindings while the layer runs
    (the bindings run the same op); returns ``(class, name, original)`` to put back."""
    swaps = []
    for cls in type(module).__mro__:
        for k, attr in list(vars(cls).items()):
            if isinstance(attr, staticmethod):
                w = _observed(attr.__func__)
                if w is not None:
                    setattr(cls, k, staticmethod(w))
                    swaps.append((cls, k, attr))
    return swaps


class _ObservedFamily:
    """Stands in, while capturing, for an op family module (``ember._ops.conv``) that a
    layer module imported (``C.conv_transpose2d(...)``): its op functions resolve to their
    observing bindings, so the capture sees them; anything else is the module's own."""

    def __init__(self, mod):
        self._mod = mod

    def __getattr__(self, name):
        v = getattr(self._mod, name)
        w = _observed(v)
        return v if w is None else w


def _observe_families():
    """In the layer modules (and ``ember.nn.functional``), swap the op family modules they
    imported for :class:`_ObservedFamily` stand-ins and the op functions they imported by
    name (``from ..._ops.creation import zeros``) for their observing bindings; returns
    what to put back. Called with the capture's mode active (the bindings observing)."""
    import types
    swaps = []
    for modname, m in list(sys.modules.items()):
        if m is None or not (modname.startswith('ember.nn.modules.') or
                             modname == 'ember.nn.functional'):
            continue
        for k, v in list(vars(m).items()):
            if isinstance(v, types.ModuleType):
                if v.__name__.startswith('ember._ops.'):
                    swaps.append((m, k, v))
                    setattr(m, k, _ObservedFamily(v))
            elif isinstance(v, types.FunctionType) and not k.startswith('__'):
                w = _observed(v)
                if w is not None:
                    swaps.append((m, k, v))
                    setattr(m, k, w)
    return swaps


def capture(mod, flat_inputs, input_names, rebuild, state, dynamic, preserve=()):
    """Run ``mod`` on copies of the inputs recording its graph.

    Args:
        mod (Module): the module.
        flat_inputs (list): the user inputs' leaves (tensors, numbers...).
        input_names (list of str): a placeholder name per leaf.
        rebuild (callable): ``rebuild(leaves) -> (args, kwargs)``.
        state (list of (kind, fqn, tensor, persistent)): parameters and buffers to lift.
        dynamic (dict): leaf index -> ``{dim: symbol}`` for inputs with dynamic dims.
        preserve (tuple of str): submodules whose call signature is recorded.

    Returns:
        ``(graph, capture, flat_outputs, out_spec, placeholders)``.
    """
    import ember
    from ..nn.modules.module import Module
    from ..utils import _pytree as pytree
    cap = _Capture(mod, {})
    cap.preserve = tuple(preserve)
    g = cap.graph
    placeholders = []
    for kind, fqn, t, persistent in state:
        prefix = 'p_' if kind == 'parameter' else 'b_'
        node = g.placeholder(prefix + fqn.replace('.', '_'))
        node.meta['_kind'] = (kind, fqn)
        cap.set(t, node)
        cap.state[id(t)] = fqn
        placeholders.append(node)
    copies = []
    with ember.enable_grad():
        for i, v in enumerate(flat_inputs):
            if isinstance(v, Tensor):
                c = v.detach().clone()
                if c.is_floating_point() or c.is_complex():
                    c = c.requires_grad_(True) * 1     # untracked ops on it are detected
                copies.append(c)
            else:
                copies.append(v)
    for i, (v, name) in enumerate(zip(copies, input_names)):
        node = g.placeholder(name)
        node.meta['_kind'] = ('user_input', i)
        if cap.first_user is None:
            cap.first_user = node
        if isinstance(v, Tensor):
            spec = dynamic.get(i)
            if spec:
                cap.dynamic[id(v)] = spec
            cap.set(v, node, dynamic=bool(spec))
        else:
            node.meta['val'] = v
        placeholders.append(node)
    args, kwargs = rebuild(copies)

    original = Module.__call__

    def patched(self, *a, **k):
        if threading.get_ident() != cap.thread:
            return original(self, *a, **k)
        return cap.call_module(self, original, a, k)

    shape_prop = Tensor.__dict__['shape']
    size_fn = Tensor.__dict__['size']

    def shape(t):
        s = shape_prop.fget(t)
        if threading.get_ident() != cap.thread or cap.inside or id(t) not in cap.dyn:
            return s
        return Size(cap.size_of(t, i, v) for i, v in enumerate(s))

    def size(t, dim=None):
        s = size_fn(t, dim)
        if threading.get_ident() != cap.thread or cap.inside or id(t) not in cap.dyn:
            return s
        if dim is None:
            return Size(cap.size_of(t, i, v) for i, v in enumerate(s))
        return cap.size_of(t, dim % max(t.dim(), 1), s)

    def prop(attr, fget):
        def get(t):
            if threading.get_ident() != cap.thread or cap.inside:
                return fget(t)
            cap.inside += 1
            try:
                res = fget(t)
            finally:
                cap.inside -= 1
            node = cap.graph.create_node('call_function', getattr, (cap.arg(t), attr))
            node.meta['nn_module_stack'] = list(cap.stack)
            node.meta['stack_trace'] = stack_trace()
            return cap.record_result(node, res, id(t) in cap.dyn)
        return property(get)

    props = {a: Tensor.__dict__[a] for a in PROPERTIES
             if isinstance(Tensor.__dict__.get(a), property)}

    def reads(name, fn):
        """Tensor members that read values into Python: ``item`` is recorded, the rest
        raise on a value the capture follows (the graph would keep the value it had)."""
        def member(t, *a, **k):
            if threading.get_ident() != cap.thread or cap.inside or id(t) not in cap.env:
                return fn(t, *a, **k)
            if name == 'item':
                cap.inside += 1
                try:
                    res = fn(t)
                finally:
                    cap.inside -= 1
                node = cap.graph.create_node('call_function', item, (cap.env[id(t)],))
                node.meta['val'] = res
                node.meta['stack_trace'] = stack_trace()
                return _sym(res, node)
            what = 'data-dependent control flow or conversion' if name in _CONVERSIONS \
                else f'Tensor.{name}()'
            raise ExportCaptureError(
                f'ember.export: {what} on a value computed from the inputs or the state '
                f'(Tensor.{name}) cannot be captured: the program would keep the value it '
                'had while exporting')
        return member

    members = {a: Tensor.__dict__[a] for a in ('item',) + _FROZEN + _CONVERSIONS
               if a in Tensor.__dict__}
    from ..onnx._capture import _recorded_helpers
    helpers = _recorded_helpers(cap)
    # the forward may update buffers (BatchNorm's statistics): they are put back after
    saved = [(t, t._version, t.detach().clone()) for kind, _, t, _ in state
             if kind == 'buffer']
    rng = ember.get_rng_state()
    families = []
    Module.__call__ = patched
    Tensor.shape = property(shape)
    Tensor.size = size
    _active[cap.thread] = cap
    try:
        for m, name, orig, repl in helpers:
            setattr(m, name, repl)
        for a, pr in props.items():
            setattr(Tensor, a, prop(a, pr.fget))
        for a, fn in members.items():
            setattr(Tensor, a, reads(a, fn))
        with ember.enable_grad(), cap:
            families.extend(_observe_families())     # the bindings observe now
            out = cap.call_module(mod, original, args, kwargs)
    finally:
        _active.pop(cap.thread, None)
        Module.__call__ = original
        Tensor.shape = shape_prop
        Tensor.size = size_fn
        for m, name, orig, repl in helpers:
            setattr(m, name, orig)
        for a, pr in props.items():
            setattr(Tensor, a, pr)
        for a, fn in members.items():
            setattr(Tensor, a, fn)
        for m, k, v in families:
            setattr(m, k, v)
        with ember.no_grad():
            for t, version, before in saved:
                if t._version != version:
                    t.copy_(before)
        ember.set_rng_state(rng)
    flat_out, out_spec = pytree.tree_flatten(out)
    outs = []
    for o in flat_out:
        outs.append(cap.arg(o) if isinstance(o, (Tensor,) + _SYM) else o)
    g.output(tuple(outs))
    # sizes read but never used
    for n in reversed(list(g.nodes)):
        if n.op == 'call_function' and not n.users and \
                (n.target is sym_size or n.target in (operator.add, operator.sub,
                                                      operator.mul, operator.floordiv,
                                                      operator.mod, operator.neg,
                                                      operator.pos, operator.truediv,
                                                      operator.pow, abs)):
            g.erase_node(n)
    placeholders = [n for n in g.nodes if n.op == 'placeholder']
    return g, cap, flat_out, out_spec, placeholders
