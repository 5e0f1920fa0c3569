"""``GraphModule``: a Module whose ``forward`` is the code generated from a Graph."""
import copy
import os

from ..nn import Module
from .graph import Graph

__all__ = ['GraphModule']

_DEBUG_HINT = '# To see more debug info, please use `graph_module.print_readable()`'


def _copy_attr(from_module, to_module, target):
    *prefix, field = target.split('.')
    for item in prefix:
        f = getattr(from_module, item)
        t = getattr(to_module, item, None)
        if f is t:
            return
        if t is None:
            t = Module()
            setattr(to_module, item, t)
        from_module, to_module = f, t
    orig = getattr(from_module, field)
    if isinstance(orig, Module) or field in from_module._parameters or \
            field in from_module._buffers:
        if field in from_module._buffers:
            to_module.register_buffer(field, orig,
                                      persistent=field not in from_module._non_persistent_buffers_set)
        else:
            setattr(to_module, field, orig)
    else:
        import ember
        if isinstance(orig, ember.Tensor) and not isinstance(orig, ember.nn.Parameter):
            to_module.register_buffer(field, orig)
        else:
            setattr(to_module, field, orig)


def _assign_attr(from_obj, to_module, target):
    *prefix, field = target.split('.')
    for item in prefix:
        t = getattr(to_module, item, None)
        if t is None:
            t = Module()
            setattr(to_module, item, t)
        to_module = t
    import ember
    if isinstance(from_obj, ember.Tensor) and not isinstance(from_obj, ember.nn.Parameter):
        to_module.register_buffer(field, from_obj)
    else:
        setattr(to_module, field, from_obj)


def _exec_forward(src, globals_):
    g = dict(globals_)
    exec(compile(src, '<eval_with_key>', 'exec'), g)
    return g['forward']


def _reconstruct(body, code_src, class_name):
    """Rebuild a pickled GraphModule from its attributes and code."""
    from ._symbolic_trace import Tracer
    import ember
    fwd = _exec_forward(code_src, {'torch': ember, 'inf': float('inf'),
                                   'nan': float('nan'), 'NoneType': type(None),
                                   'device': ember.device})

    class CodeOnlyModule(Module):
        def __init__(self, body):
            super().__init__()
            self.__dict__ = body
    CodeOnlyModule.forward = fwd

    class KeepModules(Tracer):
        def is_leaf_module(self, m, qualname):
            return True
    com = CodeOnlyModule(body)
    graph = KeepModules().trace(com)
    return GraphModule(com, graph, class_name)


class GraphModule(Module):
    """A Module built from a :class:`Graph`: its ``forward`` is the Python code generated
    from the graph, and it holds the submodules, parameters and buffers the graph reads.

    Args:
        root (Module or dict): where ``get_attr``/``call_module`` targets are copied from.
        graph (Graph): the graph whose code becomes ``forward``.
        class_name (str): the name shown in ``repr``. Default: ``'GraphModule'``

    Example::

        >>> gm = ember.fx.symbolic_trace(model)
        >>> gm.graph.eliminate_dead_code(); gm.recompile()
    """

    def __new__(cls, *args, **kwargs):
        # each instance gets its own class, so that its forward is its own
        for t in cls.__mro__:
            c = t.__qualname__.split('.')[-1]
            if c != 'GraphModuleImpl':
                cls = t
                break

        class GraphModuleImpl(cls):
            pass
        return super().__new__(GraphModuleImpl)

    def __init__(self, root, graph, class_name='GraphModule'):
        super().__init__()
        self.__class__.__name__ = class_name
        if isinstance(root, Module):
            if hasattr(root, 'training'):
                self.training = root.training
            for node in graph.nodes:
                if node.op in ('get_attr', 'call_module'):
                    _copy_attr(root, self, node.target)
        elif isinstance(root, dict):
            targets = []
            for node in graph.nodes:
                if node.op in ('get_attr', 'call_module'):
                    if node.target not in root:
                        raise RuntimeError('Node ' + str(node) + ' referenced target ' +
                                           node.target + ' but that target was not provided '
                                           'in ``root``!')
                    targets.append(node.target)
            for t in sorted(targets, key=lambda t: t.count('.')):
                _assign_attr(root[t], self, t)
        else:
            raise RuntimeError('Unsupported type ' + str(root) + ' passed for root!')
        self.graph = graph
        self.meta = getattr(root, 'meta', {}) if isinstance(root, Module) else {}
        self._tracer_cls = getattr(graph, '_tracer_cls', None)
        self._tracer_extras = None

    @property
    def graph(self):
        """The :class:`Graph` of this module (assigning it recompiles)."""
        return self._graph

    @graph.setter
    def graph(self, g):
        if not isinstance(g, Graph):
            raise AssertionError(f'Expected a Graph instance, but got {type(g)}')
        self._graph = g
        g.owning_module = self
        self.recompile()

    @property
    def code(self):
        """The Python source of ``forward``."""
        if not hasattr(self, '_code'):
            raise RuntimeError('Code has not been generated! Please report a bug to PyTorch')
        return self._code

    def recompile(self):
        """Regenerate ``forward`` from ``self.graph`` (after editing the graph).

        Returns:
            PythonCode: the generated code and its globals.
        """
        python_code = self._graph.python_code(root_module='self')
        self._code = python_code.src
        self._lineno_map = python_code._lineno_map
        cls = type(self)
        cls.forward = _exec_forward(self._code, python_code.globals)
        return python_code

    def __call__(self, *args, **kwargs):
        return Module.__call__(self, *args, **kwargs)

    def __str__(self):
        orig = super().__str__()
        return '\n'.join([orig, self._code, _DEBUG_HINT])

    def print_readable(self, print_output=True, include_stride=False,
                       include_device=False, colored=False):
        """The module's code as a class definition (printed unless ``print_output`` is
        False); returned as a string."""
        name = self.__class__.__name__
        body = self._code.strip('\n')
        lines = [f'class {name}(torch.nn.Module):']
        body_lines = body.split('\n')
        if len(body_lines) > 1 and not any(n.meta.get('stack_trace') for n in self.graph.nodes):
            body_lines.insert(1, '    # No stacktrace found for following nodes')
        lines += ['    ' + ln if ln.strip() else '' for ln in body_lines]
        out = '\n'.join(lines).rstrip() + '\n'
        for mname, mod in self.named_children():
            if isinstance(mod, GraphModule):
                pass
        if print_output:
            print(out)
        return out

    def to_folder(self, folder, module_name='FxModule'):
        """Write this module as Python source (``module.py``) and its state
        (``state_dict.pt``) to ``folder``, importable as a package.

        NOTE: unlike PyTorch, the written code imports ``ember as torch``, and the
        submodules are saved whole (``<name>.pt``) instead of as constructor calls.
        """
        import ember
        os.makedirs(folder, exist_ok=True)
        ember.save(self.state_dict(), os.path.join(folder, 'state_dict.pt'))
        lines = ['import ember', 'import ember as torch', 'from ember.nn import *',
                 'inf = float("inf")', 'nan = float("nan")', '',
                 f'class {module_name}(torch.nn.Module):', '    def __init__(self):',
                 '        super().__init__()']
        for name, mod in self.named_children():
            ember.save(mod, os.path.join(folder, f'{name}.pt'))
            lines.append(f'        self.{name} = torch.load(r"{os.path.join(folder, name + ".pt")}", weights_only=False)')
        for name, p in self._parameters.items():
            lines.append(f'        self.{name} = torch.nn.Parameter(torch.empty({list(p.shape)}, dtype={p.dtype}))')
        for name, b in self._buffers.items():
            lines.append(f'        self.register_buffer("{name}", torch.empty({list(b.shape)}, dtype={b.dtype}))')
        lines.append(f'        self.load_state_dict(torch.load(r"{os.path.join(folder, "state_dict.pt")}"), strict=False)')
        code = '\n'.join('    ' + ln if ln else '' for ln in self._code.strip('\n').split('\n'))
        with open(os.path.join(folder, 'module.py'), 'w') as f:
            f.write('\n'.join(lines) + '\n\n' + code + '\n')
        with open(os.path.join(folder, '__init__.py'), 'w') as f:
            f.write('from .module import *\n')

    def add_submodule(self, target, m):
        """Install module ``m`` at qualified name ``target`` (creating empty parent
        modules as needed). Returns False if a non-Module is in the way."""
        *prefix, field = target.split('.')
        mod = self
        for item in prefix:
            sub = getattr(mod, item, None)
            if sub is None:
                sub = Module()
                mod.add_module(item, sub)
            if not isinstance(sub, Module):
                return False
            mod = sub
        mod.add_module(field, m)
        return True

    def delete_submodule(self, target):
        """Remove the submodule at ``target``. Returns False if there is none."""
        atoms = target.split('.')
        path, target_submod = atoms[:-1], atoms[-1]
        mod = self
        for item in path:
            if not hasattr(mod, item):
                return False
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                return False
        if not hasattr(mod, target_submod):
            return False
        if not isinstance(getattr(mod, target_submod), Module):
            return False
        delattr(mod, target_submod)
        return True

    def delete_all_unused_submodules(self):
        """Remove every submodule that no ``call_module``/``get_attr`` node uses."""
        used = []
        for node in self.graph.nodes:
            if node.op in ('call_module', 'get_attr'):
                fullpath = node.target.split('.')
                for i in range(1, len(fullpath) + 1):
                    used.append('.'.join(fullpath[:i]))
                if node.op == 'call_module':
                    try:
                        sub = self.get_submodule(node.target)
                        for submod_name, _ in sub.named_modules():
                            if submod_name != '':
                                used.append('.'.join([node.target, submod_name]))
                    except AttributeError:
                        pass
        to_delete = [name for name, _ in self.named_modules() if name not in used and name]
        for name in to_delete:
            self.delete_submodule(name)

    def __reduce__(self):
        body = dict(self.__dict__)
        body.pop('_graph', None)
        for k in ('_code', '_lineno_map', '_tracer_cls'):
            body.pop(k, None)
        return (_reconstruct, (body, self._code, self.__class__.__name__))

    def __deepcopy__(self, memo):
        res = Module.__new__(Module)
        memo[id(self)] = res
        fake_mod = Module()
        fake_mod.__dict__ = copy.deepcopy(self.__dict__, memo)
        new = GraphModule(fake_mod, fake_mod.__dict__['_graph'], self.__class__.__name__)
        new.meta = copy.deepcopy(getattr(self, 'meta', {}), memo)
        memo[id(self)] = new
        return new

    def __copy__(self):
        res = GraphModule(self, self.graph, self.__class__.__name__)
        res.meta = getattr(self, 'meta', {})
        return res


GraphModule.__module__ = 'ember.fx.graph_module'
