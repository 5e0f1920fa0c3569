"""``ember.export.exported_program``: the :class:`ExportedProgram` that ``export`` returns,
and the runnable module made from it (:meth:`ExportedProgram.module`)."""
import copy
import dataclasses
import re
from typing import Any, Optional

from ..utils import _pytree as pytree
from .graph_signature import InputKind, OutputKind, TensorArgument

__all__ = ['ExportedProgram', 'ModuleCallEntry', 'ModuleCallSignature',
           'default_decompositions']


@dataclasses.dataclass
class ModuleCallSignature:
    """How a module of the exported program is called: its flat inputs and outputs, and the
    pytree specs that flatten its arguments and rebuild its results.

    Args:
        inputs (list): the input arguments.
        outputs (list): the output arguments.
        in_spec (TreeSpec): the structure of ``(args, kwargs)``.
        out_spec (TreeSpec): the structure of the result.
        forward_arg_names (list of str, optional): the names of the arguments.

    Example::

        >>> ep.module_call_graph[0].signature.forward_arg_names
        ['x']
    """
    inputs: list
    outputs: list
    in_spec: Any
    out_spec: Any
    forward_arg_names: Optional[list] = None

    def replace_all_uses_with(self, original_node, new_node):
        """Rename ``original_node``'s argument to ``new_node`` in the outputs."""
        for o in self.outputs:
            if isinstance(o, TensorArgument) and o.name == original_node.name:
                o.name = new_node.name


@dataclasses.dataclass
class ModuleCallEntry:
    """A module of the exported program (by its fully qualified name, ``''`` for the root)
    and, where preserved, its :class:`ModuleCallSignature`.

    Args:
        fqn (str): the module's name.
        signature (ModuleCallSignature, optional): how it is called. Default: None

    Example::

        >>> [e.fqn for e in ep.module_call_graph]
        ['', 'lin', 'relu']
    """
    fqn: str
    signature: Optional[ModuleCallSignature] = None


def default_decompositions():
    """The decomposition table ``run_decompositions`` uses by default (a
    :class:`CustomDecompTable`).

    NOTE: unlike PyTorch, ember's ops are its core op set: the table is empty and
    ``run_decompositions`` functionalizes without decomposing.

    Example::

        >>> len(ember.export.default_decompositions())
        0
    """
    return CustomDecompTable()


class CustomDecompTable(dict):
    """A decomposition table (op -> function computing it from other ops), as
    ``run_decompositions`` takes it.

    NOTE: unlike PyTorch, it starts empty (ember's ops are not decomposed); an entry maps
    an ember function (a graph node's target) to a Python function of the node's
    arguments, which ``run_decompositions`` traces (``ember.fx.symbolic_trace``) into the ops
    that replace the node.

    Example::

        >>> table = ember.export.CustomDecompTable()
        >>> table[ember.nn.functional.relu] = lambda x, inplace=False: ember.clamp(x, min=0)
    """

    def materialize(self):
        """The table as a plain dict."""
        return dict(self)


def _annotation(node, symbolic):
    from .._tensor import Tensor
    v = node.meta.get('val')
    if isinstance(v, Tensor):
        dims = list(v.shape)
        key = node.target if node.op == 'placeholder' else node.name
        for d, s in symbolic.get(key, {}).items():
            dims[d] = s
        return f'"{_short(v.dtype)}[{", ".join(str(d) for d in dims)}]"'
    if isinstance(v, int) and not isinstance(v, bool):
        if getattr(node.target, '__name__', '') == 'sym_size' and len(node.args) == 2:
            src, dim = node.args
            s = symbolic.get(getattr(src, 'target', None), {}).get(dim)
            if s is not None:
                return f'"Sym({s})"'
        return '"Sym(int)"'
    return None


def _short(dtype):
    names = {'float32': 'f32', 'float64': 'f64', 'float16': 'f16', 'bfloat16': 'bf16',
             'int64': 'i64', 'int32': 'i32', 'int16': 'i16', 'int8': 'i8', 'uint8': 'u8',
             'bool': 'b8', 'complex64': 'c64', 'complex128': 'c128'}
    s = str(dtype).replace('torch.', '')
    return names.get(s, s)


def _trace_comment(trace):
    """``# File: path:line in fn, code: ...`` for a node's stack trace."""
    m = re.match(r'\s*File "(.*)", line (\d+), in (\S+)\n\s*(.*)', trace or '')
    if not m:
        return '# No stacktrace found for following nodes'
    return f'# File: {m.group(1)}:{m.group(2)} in {m.group(3)}, code: {m.group(4).strip()}'


def _readable(gm, symbolic, class_name='GraphModule'):
    """``gm``'s code as a class, its ``forward`` arguments annotated with dtype and shape
    (``"f32[2, 4]"``, dynamic dims by their symbols)."""
    code = gm.code.strip('\n').split('\n')
    nodes = {n.name: n for n in gm.graph.nodes if n.op != 'placeholder'}
    out = []
    last = ()           # the stack trace of the previous node line
    for i, line in enumerate(code):
        if line.startswith('def forward('):
            args = []
            for n in gm.graph.nodes:
                if n.op == 'placeholder':
                    ann = _annotation(n, symbolic)
                    args.append(f'{n.target}: {ann}' if ann else n.target)
            code[i] = f"def forward(self, {', '.join(args)}):"
            out.append(code[i])
            continue
        m = re.match(r'^(    )(\w+) = ', line)
        if m and m.group(2) in nodes:
            node = nodes[m.group(2)]
            ann = _annotation(node, symbolic)
            if ann:
                code[i] = f'{m.group(1)}{m.group(2)}: {ann} = {line[m.end():]}'
            trace = node.meta.get('stack_trace')
            if trace != last:
                if last != ():
                    out.append('')
                out.append('    ' + _trace_comment(trace))
                last = trace
        out.append(code[i])
    code = out
    lines = [f'class {class_name}(torch.nn.Module):'] + \
        ['    ' + ln if ln.strip() else '' for ln in code]
    return '\n'.join(lines) + '\n'


def _make_guards_module():
    from ..nn import Module

    class GuardsFn(Module):
        """Checks the inputs of an exported program's module against the shapes it was
        exported for (static sizes, the ranges and equalities of dynamic ones); raises
        ``AssertionError('Guard failed: ...')`` as PyTorch's guards do."""

        def __init__(self, checks):
            super().__init__()
            self.checks = checks

        def forward(self, *flat):
            from .._tensor import Tensor
            env = {}
            for kind, i, where, expect in self.checks:
                v = flat[i]
                if kind == 'const':
                    if isinstance(v, Tensor) or v != expect:
                        raise AssertionError(f'Guard failed: {where} == {expect!r}')
                    continue
                if not isinstance(v, Tensor):
                    raise AssertionError(f'Guard failed: isinstance({where}, Tensor)')
                d, rule = kind, expect
                size = v.shape[d] if d < v.dim() else None
                src = f'{where}.size()[{d}]'
                if rule[0] == 'static':
                    if size != rule[1]:
                        raise AssertionError(f'Guard failed: {src} == {rule[1]}')
                else:
                    _, sym, lo, hi, fn = rule
                    if size is None:
                        raise AssertionError(f'Guard failed: {src} exists')
                    if sym.name in env and fn is None:
                        psrc, pval = env[sym.name]
                        if size != pval:
                            raise AssertionError(f'Guard failed: {src} == {psrc}')
                        continue
                    if fn is not None:
                        base = sym.root
                        if base.name in env:
                            psrc, pval = env[base.name]
                            if size != fn(pval):
                                raise AssertionError(
                                    f'Guard failed: {src} == '
                                    f'{sym.name.replace(base.name, psrc)}')
                        continue
                    env[sym.name] = (src, size)
                    if lo > 2 and size < lo:
                        raise AssertionError(f'Guard failed: {src} >= {lo}')
                    if not isinstance(hi, type(None)) and str(hi) != 'int_oo' and size > hi:
                        raise AssertionError(f'Guard failed: {src} <= {hi}')
    return GuardsFn


def _check_structure(in_spec, args, kwargs):
    exp_args, exp_kwargs = in_spec.children()[0], in_spec.children()[1]
    expected_keys = list(exp_kwargs.context or [])
    if sorted(kwargs) != sorted(expected_keys):
        raise ValueError(f'Ran into a kwarg keyword mismatch: Got the following keywords '
                         f'{sorted(kwargs)} but expected {sorted(expected_keys)}')
    kwargs = {k: kwargs[k] for k in expected_keys}
    flat, spec = pytree.tree_flatten((tuple(args), kwargs))
    if spec != in_spec:
        raise ValueError(f'Trying to flatten user inputs with exported input tree spec: \n'
                         f'{in_spec}\nbut actually got inputs with tree spec of: \n{spec}.\n'
                         'Please check that the inputs have the same number and type of args '
                         'and kwargs as the ones you used when tracing.')
    return flat


def _unlifted_class():
    from ..fx.graph_module import GraphModule

    class _StatefulGraphModule(GraphModule):
        """The module of an exported program: the graph with the state read from this
        module's own parameters and buffers (under the original names), called with the
        original arguments; buffer mutations are written back with ``copy_``."""

        def __call__(self, *args, **kwargs):
            flat = _check_structure(self._in_spec, args, kwargs)
            out = super().__call__(*flat)
            return pytree.tree_unflatten(list(out), self._out_spec)

        def __deepcopy__(self, memo):
            from ..nn import Module
            fake = Module()
            fake.__dict__ = copy.deepcopy(self.__dict__, memo)
            new = type(self).__mro__[1](fake, fake.__dict__['_graph'])
            new._in_spec, new._out_spec = fake._in_spec, fake._out_spec
            for sub in new.modules():
                sub.training = self.training
            memo[id(self)] = new
            return new

        def train(self, mode=True):
            """Not supported: the mode the program was exported in is part of its graph
            (``NotImplementedError``, as in PyTorch)."""
            raise NotImplementedError('Calling train() is not supported yet.')

        def eval(self):
            """Not supported (``NotImplementedError``, as in PyTorch); see :meth:`train`."""
            raise NotImplementedError('Calling eval() is not supported yet.')
    return _StatefulGraphModule


_classes = {}


def _cls(name, factory):
    if name not in _classes:
        _classes[name] = factory()
    return _classes[name]


class ExportedProgram:
    """A program captured by :func:`ember.export.export`: a graph whose inputs are the
    module's parameters, buffers and constants followed by the user's inputs
    (:attr:`graph_signature` says which is which), the state it reads
    (:attr:`state_dict`, :attr:`constants`), the ranges of its dynamic sizes
    (:attr:`range_constraints`) and the example inputs it was traced with.

    Calling it directly raises; run :meth:`module`.

    NOTE: unlike PyTorch, the graph's ``call_function`` targets are ember's functions and
    ``Tensor`` methods (``torch.nn.functional.linear``, ``torch.Tensor.add_``), not ATen
    operator overloads (``torch.ops.aten.linear.default``); the structure (placeholders,
    signature, outputs, state) is PyTorch's. Nodes keep a ``meta['val']`` of the example's
    shape and dtype (a zero-strided ``meta`` tensor); the printed sizes of intermediate
    values are symbolic where they are ``a*s + b`` in one dynamic dimension (found by
    recapturing at other sizes), the example's sizes otherwise.

    Example::

        >>> ep = ember.export.export(model, (ember.randn(2, 4),))
        >>> print(ep.graph_signature)
        >>> out = ep.module()(ember.randn(2, 4))
    """

    def __init__(self, root, graph, graph_signature, state_dict, range_constraints,
                 module_call_graph, example_inputs=None, constants=None, *,
                 verifiers=None, _symbolic=None, _guards=None):
        from ..fx.graph_module import GraphModule
        if isinstance(root, GraphModule) and root.graph is graph:
            self._graph_module = root
        else:
            self._graph_module = GraphModule(root if root is not None else {}, graph)
        self._graph_signature = graph_signature
        self._state_dict = state_dict
        self._range_constraints = range_constraints
        self._module_call_graph = module_call_graph
        self._example_inputs = example_inputs
        self._constants = constants or {}
        self._symbolic = _symbolic or {}
        self._guards = _guards or []
        self._verifiers = verifiers

    # -- properties ---------------------------------------------------------------------
    @property
    def graph_module(self):
        """The :class:`ember.fx.GraphModule` of the flat graph (state as inputs)."""
        return self._graph_module

    @property
    def graph(self):
        """The :class:`ember.fx.Graph`."""
        return self._graph_module.graph

    @property
    def graph_signature(self):
        """The :class:`ExportGraphSignature`."""
        return self._graph_signature

    @property
    def state_dict(self):
        """The parameters and buffers the graph reads, by fully qualified name (the
        module's own tensors, shared)."""
        return self._state_dict

    @property
    def constants(self):
        """The lifted tensor constants, by name."""
        return self._constants

    @property
    def tensor_constants(self):
        """The lifted tensor constants, by name (as :attr:`constants`)."""
        return self._constants

    @property
    def range_constraints(self):
        """``{symbol: VR[lower, upper]}`` for each dynamic size."""
        return self._range_constraints

    @property
    def module_call_graph(self):
        """A :class:`ModuleCallEntry` per module (the root first, with its signature)."""
        return self._module_call_graph

    @property
    def example_inputs(self):
        """The ``(args, kwargs)`` the program was exported with."""
        return self._example_inputs

    @example_inputs.setter
    def example_inputs(self, value):
        if value is None:
            self._example_inputs = None
            return
        if not (isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], tuple)
                and isinstance(value[1], dict)):
            raise ValueError('Example inputs should be a tuple containing example arguments '
                             '(as a tuple), and example kwargs (as a dictionary).')
        self._example_inputs = value

    @property
    def call_spec(self):
        """The input and output pytree specs of the root module."""
        from collections import namedtuple
        CallSpec = namedtuple('CallSpec', ['in_spec', 'out_spec'])
        sig = self._module_call_graph[0].signature
        return CallSpec(sig.in_spec, sig.out_spec)

    @property
    def dialect(self):
        """The IR's dialect (``'EMBER'``).

        NOTE: unlike PyTorch (``'ATEN'``): the ops are ember's."""
        return 'EMBER'

    @property
    def verifier(self):
        """The verifier class (None: ember does not verify graphs against a dialect)."""
        return None

    @property
    def verifiers(self):
        """The verifier classes (empty)."""
        return []

    def parameters(self):
        """The parameters, in graph-input order (an iterator)."""
        for _, p in self.named_parameters():
            yield p

    def named_parameters(self):
        """``(name, parameter)`` pairs in graph-input order (an iterator)."""
        for name in self._graph_signature.parameters:
            yield name, self._state_dict[name]

    def buffers(self):
        """The buffers, in graph-input order (an iterator)."""
        for _, b in self.named_buffers():
            yield b

    def named_buffers(self):
        """``(name, buffer)`` pairs in graph-input order (an iterator); non-persistent
        buffers come from :attr:`constants`."""
        np_ = set(self._graph_signature.non_persistent_buffers)
        for name in self._graph_signature.buffers:
            yield name, self._constants[name] if name in np_ else self._state_dict[name]

    # -- running --------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        raise RuntimeError('Unable to call ExportedProgram directly. You should use '
                           '`exported_program.module()` instead.')

    def _state_value(self, spec):
        if spec.kind == InputKind.PARAMETER:
            return self._state_dict[spec.target]
        if spec.kind == InputKind.BUFFER:
            if spec.persistent is False:
                return self._constants[spec.target]
            return self._state_dict[spec.target]
        if spec.kind == InputKind.CONSTANT_TENSOR:
            return self._constants[spec.target]
        raise RuntimeError(f'unsupported input kind {spec.kind}')

    def module(self, check_guards=True):
        """A runnable module: the graph with the state read from the module's own
        parameters and buffers (under the original fully qualified names, so its
        ``state_dict`` keys are the exported module's), taking the original arguments and
        returning the original output structure. Inputs are checked against the exported
        shapes (``AssertionError('Guard failed: ...')``). Buffer mutations are applied to its
        buffers.

        Args:
            check_guards (bool): check the inputs' shapes. Default: True

        Returns:
            Module: an ``ember.fx.GraphModule``.

        Example::

            >>> m = ep.module()
            >>> m(ember.randn(2, 4))
        """
        from ..fx.graph import Graph
        from ..nn import Module, Parameter
        sig = self._graph_signature
        g = Graph()
        env = {}
        root = Module()
        targets = {}

        def put(fqn, t, persistent=True, param=False):
            *path, field = fqn.split('.')
            m = root
            for p in path:
                sub = m._modules.get(p)
                if sub is None:
                    sub = Module()
                    m.add_module(p, sub)
                m = sub
            if param:
                m.register_parameter(field, t if isinstance(t, Parameter) else
                                     Parameter(t, requires_grad=t.requires_grad))
            else:
                m.register_buffer(field, t, persistent=persistent)

        specs = {s.arg.name: s for s in sig.input_specs}
        user_nodes = []
        state_nodes = []
        for n in self.graph.nodes:
            if n.op != 'placeholder':
                continue
            s = specs.get(n.target)
            if s is None or s.kind == InputKind.USER_INPUT:
                user_nodes.append(n)
            else:
                state_nodes.append((n, s))
        for n, s in state_nodes:
            fqn = s.target
            if fqn not in targets:
                v = self._state_value(s)
                if s.kind == InputKind.PARAMETER:
                    put(fqn, v, param=True)
                elif s.kind == InputKind.BUFFER:
                    put(fqn, v, persistent=s.persistent is not False)
                else:
                    put(fqn, v, persistent=False)
                targets[fqn] = True
            node = g.get_attr(fqn)
            node.meta = dict(n.meta)
            env[n] = node
        flat_user = []
        for n in user_nodes:
            p = g.placeholder(n.target)
            p.meta = dict(n.meta)
            env[n] = p
            flat_user.append(p)
        if self._guards:
            root.add_module('_guards_fn', _make_guards_module()(self._guards))
            g.call_module('_guards_fn', tuple(flat_user))
        out_node = None
        for n in self.graph.nodes:
            if n.op == 'placeholder':
                continue
            if n.op == 'output':
                out_node = n
                break
            env[n] = g.node_copy(n, lambda a: env[a])
        outs = out_node.args[0]
        user_outs = []
        for o, spec in zip(outs, sig.output_specs):
            if spec.kind == OutputKind.BUFFER_MUTATION or \
                    spec.kind == OutputKind.PARAMETER_MUTATION:
                dst = g.get_attr(spec.target)
                g.call_function(_tensor_copy_, (dst, env[o]))
            elif spec.kind == OutputKind.USER_INPUT_MUTATION:
                idx = [u.target for u in user_nodes].index(spec.target)
                g.call_function(_tensor_copy_, (flat_user[idx], env[o]))
            else:
                user_outs.append(env[o] if hasattr(o, 'op') else o)
        g.output(tuple(user_outs))
        if not check_guards and self._guards:
            for n in list(g.nodes):
                if n.op == 'call_module' and n.target == '_guards_fn':
                    g.erase_node(n)
        cls = _cls('stateful', _unlifted_class)
        gm = cls(root, g)
        for s in sig.input_specs:        # constants are plain attributes, not buffers
            if s.kind == InputKind.CONSTANT_TENSOR:
                *path, field = s.target.split('.')
                owner = gm.get_submodule('.'.join(path)) if path else gm
                t = owner._buffers.pop(field, None)
                owner._non_persistent_buffers_set.discard(field)
                if t is not None:
                    object.__setattr__(owner, field, t)
        sig0 = self._module_call_graph[0].signature
        gm._in_spec = sig0.in_spec
        gm._out_spec = sig0.out_spec
        for sub in gm.modules():
            sub.training = getattr(self, '_training', True)
        return gm

    def run_decompositions(self, decomp_table=None, decompose_custom_triton_ops=False):
        """The program functionalized: each in-place op on a buffer or user input becomes
        its out-of-place op, and the new value is returned as a ``BUFFER_MUTATION`` (or
        ``USER_INPUT_MUTATION``) output; BatchNorm in training mode returns its updated
        running statistics the same way. Each node whose op has an entry in
        ``decomp_table`` is replaced by the ops its function applies (traced with
        ``ember.fx.symbolic_trace``; a function whose result is not one tensor is called by
        the node instead).

        NOTE: unlike PyTorch, ember's ops are already its core op set: without a table no
        op is decomposed (``linear`` stays ``linear``); only the mutations are rewritten.

        Args:
            decomp_table (dict, optional): op -> function computing it with other ops.
            decompose_custom_triton_ops (bool): accepted for compatibility.

        Returns:
            ExportedProgram: a new program (this one is unchanged).

        Example::

            >>> ep2 = ep.run_decompositions()
            >>> ep2.graph_signature.buffers_to_mutate
        """
        from ._functionalize import functionalize
        return functionalize(self, decomp_table or {})

    def validate(self):
        """Check the graph (``Graph.lint``) and that its placeholders match the
        signature."""
        self.graph.lint()
        names = [n.target for n in self.graph.nodes if n.op == 'placeholder']
        specs = [getattr(s.arg, 'name', None) for s in self._graph_signature.input_specs]
        if names != specs:
            raise RuntimeError(f'Graph placeholders {names} do not match the signature '
                               f'{specs}')

    # -- printing -----------------------------------------------------------------------
    def __str__(self):
        code = _readable(self._graph_module, self._symbolic).rstrip('\n')
        code = code.replace('\n', '\n    ')
        sig = str(self._graph_signature).replace('\n', '\n    ')
        return (f'ExportedProgram:\n    {code}\n    \nGraph signature: {sig}\n'
                f'Range constraints: {self._range_constraints}\n')

    def __repr__(self):
        return str(self)

    def print_readable(self, print_output=True, include_stride=False, include_device=False,
                       colored=False):
        """The graph module's code as a class, inputs annotated with dtype and shape
        (printed unless ``print_output`` is False); returned as a string.

        Args:
            print_output (bool): print it. Default: True
        """
        s = _readable(self._graph_module, self._symbolic)
        if print_output:
            print(s)
        return s

    def __deepcopy__(self, memo):
        gm = copy.deepcopy(self._graph_module, memo)
        ep = ExportedProgram(gm, gm.graph, copy.deepcopy(self._graph_signature, memo),
                             copy.deepcopy(self._state_dict, memo), self._range_constraints,
                             copy.deepcopy(self._module_call_graph, memo),
                             self._example_inputs, copy.deepcopy(self._constants, memo),
                             _symbolic=self._symbolic, _guards=self._guards)
        ep._training = getattr(self, '_training', True)
        return ep


def _tensor_copy_(dst, src):
    """Write ``src`` into ``dst`` (the write-back of a mutated buffer in the module of an
    exported program; ``Tensor.copy_`` without autograd recording on the buffer).

    Args:
        dst (Tensor): the buffer.
        src (Tensor): its new value.

    Example::

        >>> ember.export.exported_program._tensor_copy_(buf, new_value)
    """
    import ember
    with ember.no_grad():
        dst.copy_(src)
    return dst
