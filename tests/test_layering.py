"""The package's layering, enforced by parsing every module's imports.

Ember is built in layers (see docs/architecture.md); a module may import, at module level,
only modules of its own layer or below. Imports inside functions are lazy and allowed: they
run after the whole package is loaded, which is how a lower layer reaches an upper one
(``Tensor.backward`` calling the engine, ``Tensor.__repr__`` calling the printer).

Importing ``ember.a.b`` also runs the package ``ember.a``'s ``__init__``, so the parent
packages of an imported module are checked too (except ``ember`` itself, which every
submodule import runs first anyway).
"""
import ast
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
    # the generators (PyTorch's mt19937 streams) stand on the backend alone, below the ops
    # that draw from them; ember.random is also the public torch.random namespace
    'ember.random': 0,
    'ember._memory_format': 0,
    # 1: the Tensor type (metadata, views, version counter) and its printing
    'ember._tensor': 1,
    'ember._tensor_str': 1,
    'ember.return_types': 1,
    # 2: the autograd graph and its modes and engine (written against Tensor only; ops are
    #    reached lazily)
    'ember.autograd': 2,
    # 3: the op library
    'ember._ops': 3,
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


def violations():
    """``{(importer, imported): [line, ...]}`` for every module-level import of a higher
    layer."""
    found = {}
    for name in sorted(MODULES):
        own = layer_of(name)
        for node in module_level_imports(_parse(name)):
            for target in resolve(name, node):
                if not target.startswith('ember.') and target != 'ember':
                    continue
                for dep in _with_parents(target) if target != 'ember' else ['ember']:
                    if dep == name or name.startswith(dep + '.'):
                        continue   # a module's own packages are already loading
                    lv = layer_of(dep)
                    if lv is not None and own is not None and lv > own:
                        found.setdefault((name, dep), []).append(node.lineno)
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
    for mod, line in _all_imports(_parse(name)):
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
