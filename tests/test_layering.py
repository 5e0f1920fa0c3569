"""The package's layering, enforced by parsing every module's imports.

Ember is built in layers (see docs/architecture.md); a module may import, at module level,
only modules of its own layer or below. Importing ``ember.a.b`` also runs the package
``ember.a``'s ``__init__``, so the parent packages of an imported module are checked too
(except ``ember`` itself, which every submodule import runs first anyway).

The core (layers 0-3: dtypes, backends, storage, ``Tensor``, autograd, the ops) is held to
more: every import counts, the ones inside function bodies too (``import ember`` as the top
layer), so the core reads bottom-up. No core module imports a higher layer, even lazily
(except the few named, with their reasons, in ``UPWARD``), and the core's import graph has
no cycle. A member of ``Tensor`` that needs an upper layer (``backward``, ``__repr__``...) is
written in that layer and bound onto ``Tensor`` from there (``_tensor._bind``), as the op
methods are.
"""
import ast
import functools
import os

import pytest

ROOT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'ember')

# The layer map: module-name prefix -> layer. The longest matching prefix wins.
LAYERS = {
    # 0: dtypes, devices, array backends, raw storage
    'ember._dtype': 0,
    'ember._device': 0,
    'ember._backend': 0,
    'ember._storage': 0,
    'ember._grad_state': 0,
    # the generators (PyTorch's mt19937 streams), below the ops that draw from them; their
    # states are Tensors (get_state/set_state), so they stand on the Tensor type;
    # ember.random is also the public torch.random namespace
    'ember.random': 1,
    'ember._memory_format': 0,
    # PyTorch's stride rules for results (arrays and strides only; the ops and the
    # gradient-layout contract of AccumulateGrad use them)
    'ember._layout': 0,
    # 1: the Tensor type (metadata, views, version counter) and its printing
    'ember._tensor': 1,
    'ember._tensor_str': 1,
    'ember.return_types': 1,
    # 2: the autograd graph, its modes and its engine (written against Tensor only)
    'ember.autograd.graph': 2,
    'ember.autograd.engine': 2,
    'ember.autograd.grad_mode': 2,
    'ember.autograd.anomaly_mode': 2,
    # 3: the op library, and the parts of ``ember.autograd`` written with it: ``backward``/
    #    ``grad`` (default gradients are ``ones_like``), ``Function`` (views, aliases),
    #    ``gradcheck``, ``functional``, ``forward_ad``, the profiler (an interceptor of the
    #    ops' seam), the package ``__init__`` that assembles them
    'ember._ops': 3,
    'ember.autograd': 3,
    # 4: the public namespaces that are thin over the ops (what ``ember/__init__`` exports)
    'ember._misc': 4,
    'ember._C': 4,
    'ember.functional': 4,
    'ember.version': 4,
    'ember.torch_version': 4,
    'ember.linalg': 4,
    'ember.fft': 4,
    'ember.special': 4,
    'ember.overrides': 4,
    'ember.serialization': 4,
    'ember.testing': 4,
    'ember.futures': 4,
    'ember.library': 4,
    'ember._custom_ops': 4,
    'ember._file_format': 4,
    'ember._vision_ops': 4,
    'ember.signal': 4,
    'ember.masked': 4,
    'ember.sparse': 4,
    'ember._quantized': 4,
    'ember.types': 4,
    'ember.storage': 4,
    'ember.__main__': 4,
    # 5: libraries built on the namespace
    'ember.nn': 5,
    'ember.optim': 5,
    'ember.utils': 5,
    'ember.cuda': 5,
    'ember.amp': 5,
    'ember.cpu': 5,
    'ember.accelerator': 5,
    'ember.distributed': 5,
    'ember.distributions': 5,
    'ember.multiprocessing': 5,
    'ember.profiler': 5,
    'ember.fx': 5,
    'ember.ao': 5,
    'ember.onnx': 5,
    'ember.backends': 5,
    'ember.jit': 5,
    'ember.compiler': 5,
    'ember._dynamo': 5,
    'ember.xpu': 5,
    'ember.mtia': 5,
    'ember.hub': 5,
    'ember.func': 5,
    'ember.export': 5,
    'ember.quantization': 5,
    # 6: the package itself, ``ember/__init__``, which assembles every namespace (as torch's
    #    does: ``import torch`` makes ``torch.nn`` and ``torch.optim`` available). Nothing
    #    below may import it at module level (``from .. import Tensor`` would).
    'ember': 6,
}

# Known violations still being fixed, each as (importing module, imported module). Remove
# an entry when it is fixed; a stale entry fails ``test_known_violations_are_current``.
KNOWN = set()

# Only the backends may import an accelerator's array library; nothing imports torch.
BACKEND_ONLY = ('cupy', 'cupyx')
FORBIDDEN = ('torch',)
KNOWN_BACKEND_IMPORTS = set()


def _modules():
    """``{module name: path}`` for every ``.py`` file under ember/."""
    mods = {}
    base = os.path.dirname(ROOT)
    for dirpath, dirnames, filenames in os.walk(ROOT):
        dirnames[:] = [d for d in dirnames if d != '__pycache__']
        for f in filenames:
            if f.endswith('.py'):
                path = os.path.join(dirpath, f)
                name = os.path.relpath(path, base)[:-3].replace(os.sep, '.')
                if name.endswith('.__init__'):
                    name = name[:-len('.__init__')]
                mods[name] = path
    return mods


MODULES = _modules()


def layer_of(name):
    """The layer of module ``name``: that of its longest prefix in ``LAYERS`` (``'ember'``
    itself matches only the package, not its submodules), or None."""
    if name == 'ember':
        return LAYERS[name]
    parts = name.split('.')
    for i in range(len(parts), 1, -1):
        key = '.'.join(parts[:i])
        if key in LAYERS:
            return LAYERS[key]
    return None


def _is_type_checking(node):
    t = node.test
    return (isinstance(t, ast.Name) and t.id == 'TYPE_CHECKING') or (
        isinstance(t, ast.Attribute) and t.attr == 'TYPE_CHECKING')


def module_level_imports(tree):
    """Import statements that run when the module is imported: those of the module body,
    including ones nested in ``if``/``try``/``with``/``class`` bodies, but not in function
    bodies or ``if TYPE_CHECKING:`` blocks."""
    stack = list(reversed(tree.body))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        elif isinstance(node, ast.If) and _is_type_checking(node):
            stack.extend(reversed(node.orelse))
        else:
            stack.extend(reversed([c for c in ast.iter_child_nodes(node)
                                   if isinstance(c, (ast.stmt, ast.excepthandler))]))


def resolve(module, node):
    """Absolute names of the modules an import statement in ``module`` loads.

    ``from P import x`` loads ``P.x`` when that is a module and ``P`` otherwise."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if node.level:
        pkg = module if MODULES[module].endswith('__init__.py') else module.rpartition('.')[0]
        parts = pkg.split('.')
        base = '.'.join(parts[:len(parts) - node.level + 1])
        full = base + ('.' + node.module if node.module else '')
    else:
        full = node.module
    return [full + '.' + a.name if full + '.' + a.name in MODULES else full
            for a in node.names]


def _with_parents(name):
    """``name`` and the packages above it that importing it runs (not ``ember`` itself)."""
    parts = name.split('.')
    return ['.'.join(parts[:i]) for i in range(len(parts), 1, -1)]


def _parse(name):
    with open(MODULES[name], encoding='utf-8') as f:
        return ast.parse(f.read(), MODULES[name])


@functools.lru_cache(maxsize=None)
def _facts(name):
    """What the checks of this file read of module ``name``, found from one parse (the tree
    itself is not kept): its module-level imports (each statement's resolved targets and
    line), ``every_import`` (core modules only) and ``_all_imports``."""
    tree = _parse(name)
    level = tuple((tuple(resolve(name, node)), node.lineno)
                  for node in module_level_imports(tree))
    every = tuple(every_import(name, tree)) if _is_core(name) else None
    return level, every, tuple(_all_imports(tree))


@pytest.fixture(autouse=True, scope='module')
def _parsed_once():
    yield
    for f in (_facts, violations):
        f.cache_clear()


@functools.lru_cache(maxsize=None)
def violations():
    """``{(importer, imported): [line, ...]}`` for every module-level import of a higher
    layer (computed once for the two tests that read it)."""
    found = {}
    for name in sorted(MODULES):
        own = layer_of(name)
        for targets, lineno in _facts(name)[0]:
            for target in targets:
                if not target.startswith('ember.') and target != 'ember':
                    continue
                for dep in _with_parents(target) if target != 'ember' else ['ember']:
                    if dep == name or name.startswith(dep + '.'):
                        continue   # a module's own packages are already loading
                    lv = layer_of(dep)
                    if lv is not None and own is not None and lv > own:
                        found.setdefault((name, dep), []).append(lineno)
    return found


def test_every_module_has_a_layer():
    missing = [n for n in MODULES if layer_of(n) is None]
    assert not missing, f"add these modules to LAYERS in {__file__}: {missing}"


def test_no_module_imports_a_higher_layer():
    bad = {k: v for k, v in violations().items() if k not in KNOWN}
    msg = '\n'.join(
        f"  {MODULES[a]}:{','.join(map(str, lines))}: {a} (layer {layer_of(a)}) imports "
        f"{b} (layer {layer_of(b)}) at module level; import it inside the function that "
        "needs it, or move the code to its layer"
        for (a, b), lines in sorted(bad.items()))
    assert not bad, "layer violations:\n" + msg


def test_known_violations_are_current():
    stale = KNOWN - set(violations())
    assert not stale, f"fixed: remove these from KNOWN: {sorted(stale)}"


# ------------------------------------------------------------ the core: every import counts
CORE_TOP = 3

# Upward imports in the core that stay, each with its reason (keep this short: prefer
# moving the code to its layer, or binding a member from the upper layer). A stale entry
# fails ``test_core_exceptions_are_current``.
UPWARD = {
    ('ember._ops.loss', 'ember'):
        "losses call their inner ops through the public namespace (ember.where, "
        "ember.log_softmax...), so that the seam's interceptors (the profiler, "
        "FlopCounterMode) record them, as torch's record the aten ops inside "
        "torch.nn.functional's Python code",
    ('ember._ops.distance', 'ember'): "as loss: the distance functions' inner ops are public calls",
    ('ember._ops.tensor_internals', 'ember.utils.dlpack'):
        "Tensor.__dlpack__/__dlpack_device__ are implemented by ember.utils.dlpack, which "
        "loads on first use (import ember stays light)",
    ('ember._ops.tensor_internals', 'ember._misc'):
        "Tensor.record_stream checks its argument against ember.Stream",
    ('ember._ops.tensor_internals', 'ember.cuda'):
        "Tensor.record_stream checks its argument against ember.cuda.Stream",
    ('ember._ops.control_flow', 'ember.utils._pytree'):
        "cond/while_loop/map flatten their operands with torch's pytree rules "
        "(ember.utils._pytree, pure Python, importing nothing of ember)",
}


def _type_checking_nodes(tree):
    """ids of the import statements under ``if TYPE_CHECKING:`` (never run)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and _is_type_checking(node):
            for stmt in node.body:
                out.update(id(n) for n in ast.walk(stmt))
    return out


def every_import(name, tree=None):
    """``(module, line)`` for every ember module that module ``name`` imports: at module
    level and inside function bodies (``import ember`` gives ``'ember'``, the top layer),
    not under ``if TYPE_CHECKING:``."""
    tree = _parse(name) if tree is None else tree
    skip = _type_checking_nodes(tree)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)) and id(node) not in skip:
            for target in resolve(name, node):
                if target == 'ember' or target.startswith('ember.'):
                    yield target, node.lineno
    for mod, line in _dynamic_imports(tree):
        if mod == 'ember' or mod.startswith('ember.'):
            yield mod, line


def _is_core(name):
    lv = layer_of(name)
    return name != 'ember' and lv is not None and lv <= CORE_TOP


CORE = sorted(n for n in MODULES if _is_core(n))


def _core_graph():
    """``{importer: {imported: [line, ...]}}`` over the core modules, every import counted."""
    graph = {}
    for name in CORE:
        edges = graph.setdefault(name, {})
        for target, line in _facts(name)[1]:
            if target != name and _is_core(target) and target in MODULES:
                edges.setdefault(target, []).append(line)
    return graph


def upward_imports():
    """``{(importer, imported): [line, ...]}`` for every import (lazy ones too) of a core
    module that names a higher layer."""
    found = {}
    for name in CORE:
        own = layer_of(name)
        for target, line in _facts(name)[1]:
            lv = layer_of(target)
            if lv is not None and lv > own:
                found.setdefault((name, target), []).append(line)
    return found


def cycles(graph):
    """The strongly connected components of more than one module of ``graph`` (``{node:
    iterable of nodes}``), each sorted: the import cycles (Tarjan's algorithm, iterative)."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return out


def test_core_imports_only_down():
    bad = {k: v for k, v in upward_imports().items() if k not in UPWARD}
    msg = '\n'.join(
        f"  {MODULES[a]}:{','.join(map(str, lines))}: {a} (layer {layer_of(a)}) imports "
        f"{b} (layer {layer_of(b)}), inside a function or not; move the code to its layer, "
        "or bind the member from the upper layer (``_tensor._bind``)"
        for (a, b), lines in sorted(bad.items()))
    assert not bad, "upward imports in the core:\n" + msg


def test_core_exceptions_are_current():
    stale = set(UPWARD) - set(upward_imports())
    assert not stale, f"fixed: remove these from UPWARD: {sorted(stale)}"


def test_core_has_no_import_cycle():
    graph = _core_graph()
    found = cycles(graph)
    msg = '\n'.join(
        '  cycle: ' + ', '.join(comp) + '\n' + '\n'.join(
            f"    {MODULES[a]}:{','.join(map(str, graph[a][b]))}: {a} imports {b}"
            for a in comp for b in sorted(graph[a]) if b in comp)
        for comp in found)
    assert not found, "import cycles among the core modules:\n" + msg


def test_checker_sees_lazy_imports_and_cycles(tmp_path):
    """The core checks themselves: imports in function bodies count, ``import ember`` is the
    top layer, ``TYPE_CHECKING`` imports do not count; a planted cycle is found, a chain is
    not."""
    src = ("import os\nif TYPE_CHECKING:\n    from ..optim import sgd\n"
           "def f():\n    from ..nn import functional\n    import ember\n"
           "class A:\n    def g(self):\n        from .._tensor import Tensor\n")
    MODULES.setdefault('ember._ops._fake', str(tmp_path / 'fake.py'))
    try:
        got = sorted(t for t, _ in every_import('ember._ops._fake', ast.parse(src)))
    finally:
        del MODULES['ember._ops._fake']
    assert got == ['ember', 'ember._tensor', 'ember.nn.functional']
    assert layer_of('ember') > CORE_TOP
    assert cycles({'a': ['b'], 'b': ['c'], 'c': ['a'], 'd': ['a']}) == [['a', 'b', 'c']]
    assert cycles({'a': ['b'], 'b': ['c'], 'c': []}) == []


def _dynamic_imports(tree):
    """Module names imported by ``__import__('x')`` or ``importlib.import_module('x')``."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            f = node.func
            if ((isinstance(f, ast.Name) and f.id == '__import__')
                    or (isinstance(f, ast.Attribute) and f.attr == 'import_module')):
                if isinstance(node.args[0].value, str):
                    yield node.args[0].value, node.lineno


def _all_imports(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                yield a.name, node.lineno
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            yield node.module, node.lineno
    yield from _dynamic_imports(tree)


@pytest.mark.parametrize('name', sorted(MODULES))
def test_array_libraries_only_in_backends(name):
    """Op bodies get their array module from the backend; only ``ember._backend`` imports
    cupy, and nothing imports torch (even lazily)."""
    bad = []
    for mod, line in _facts(name)[2]:
        top = mod.split('.')[0]
        if top in FORBIDDEN:
            bad.append((mod, line))
        elif (top in BACKEND_ONLY and not name.startswith('ember._backend')
              and name not in KNOWN_BACKEND_IMPORTS):
            bad.append((mod, line))
    assert not bad, f"{MODULES[name]} imports " + ', '.join(f"{m} (line {ln})" for m, ln in bad)


def test_checker_sees_violations(tmp_path):
    """The parser itself: a module-level import counts, a lazy one and a TYPE_CHECKING one do
    not, and relative imports resolve."""
    src = ("import os\nfrom .. import nn\nif TYPE_CHECKING:\n    from ..optim import sgd\n"
           "try:\n    from .._tensor import Tensor\nexcept ImportError:\n    pass\n"
           "class A:\n    from ..utils import hooks\n"
           "def f():\n    from ..nn import functional\n")
    tree = ast.parse(src)
    MODULES.setdefault('ember._ops._fake', str(tmp_path / 'fake.py'))
    try:
        got = [t for n in module_level_imports(tree) for t in resolve('ember._ops._fake', n)]
    finally:
        del MODULES['ember._ops._fake']
    assert got == ['os', 'ember.nn', 'ember._tensor', 'ember.utils.hooks']
