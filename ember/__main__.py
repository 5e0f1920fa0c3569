"""Command line: ``python -m ember run script.py [args]`` runs a PyTorch program on ember.

``import torch`` (and ``torch.<sub>``) inside the script resolve to ember's modules
through a ``sys.meta_path`` finder; nothing is written to site-packages. Child
processes inherit the mapping through a temporary ``torch`` shim package placed at
the front of ``PYTHONPATH``.
"""
import importlib
import importlib.abc
import importlib.util
import os
import runpy
import sys
import tempfile

_USAGE = """usage: python -m ember run SCRIPT [ARGS...]

Run an unmodified PyTorch program with ember standing in for torch.

commands:
  run SCRIPT [ARGS...]   run SCRIPT with `torch` mapped to `ember`
"""

_SHIM = ("import sys\nfrom ember.__main__ import install_hook\ninstall_hook()\n"
         "import ember\nsys.modules['torch'] = ember\n")


class _Loader(importlib.abc.Loader):
    def __init__(self, real):
        self.real = real

    def create_module(self, spec):
        return importlib.import_module(self.real)

    def exec_module(self, module):
        pass


class _TorchFinder(importlib.abc.MetaPathFinder):
    """Maps ``torch`` and ``torch.<sub>`` to ``ember`` / ``ember.<sub>``."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "torch" and not fullname.startswith("torch."):
            return None
        real = "ember" + fullname[len("torch"):]
        try:
            found = importlib.util.find_spec(real)
        except ModuleNotFoundError:
            found = None
        if found is None:
            raise ModuleNotFoundError(f"No module named '{fullname}'", name=fullname)
        return importlib.util.spec_from_loader(fullname, _Loader(real))


def install_hook():
    """Install the torch -> ember import finder (idempotent)."""
    if not any(isinstance(f, _TorchFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _TorchFinder())
    import ember
    sys.modules.setdefault("torch", ember)


def _run(script, args):
    shim = tempfile.mkdtemp(prefix="ember_torch_shim_")
    import atexit
    import shutil
    atexit.register(shutil.rmtree, shim, True)   # the children are done by then
    os.makedirs(os.path.join(shim, "torch"))
    with open(os.path.join(shim, "torch", "__init__.py"), "w") as f:
        f.write(_SHIM)
    pp = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = shim + (os.pathsep + pp if pp else "")
    # spawn/forkserver children take the parent's sys.path (not PYTHONPATH): the shim goes
    # there too, so that they import ember for torch as well
    sys.path.insert(0, shim)
    install_hook()
    sys.argv = [script, *args]
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    runpy.run_path(script, run_name="__main__")


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        print(_USAGE)
        return 0
    if argv[0] != "run":
        print(_USAGE, file=sys.stderr)
        return 2
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(_USAGE)
        return 0 if len(argv) >= 2 else 2
    _run(argv[1], argv[2:])
    return 0


if __name__ == "__main__":
    sys.exit(main())
