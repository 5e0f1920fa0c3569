"""Command line of ember: run a PyTorch program on ember, or install ember as ``torch``.

``python -m ember run script.py [args]`` runs ``script.py`` with ``import torch`` (and
``torch.<sub>``) resolving to ember's modules through a ``sys.meta_path`` finder; nothing is
written to site-packages. In that mode ember answers as torch: ``torch.__version__`` is a
``TorchVersion`` of the PyTorch release ember reproduces with ember's version as the local
tag (``2.13.0+ember0.1.0``), and ``importlib.metadata`` finds a ``torch`` distribution of
that version. Child processes inherit both through a temporary directory placed at the
front of ``PYTHONPATH``: a ``torch`` shim package and its ``.dist-info``.

``python -m ember install-torch`` makes the same shim permanent in the current virtual
environment, so that ``import torch`` is ember there and pip counts ``torch`` as installed
(``pip install transformers`` then does not pull PyTorch); ``python -m ember uninstall-torch``
(or ``pip uninstall torch``) removes exactly what it wrote. It refuses to run where a real
torch is installed, and nothing installs it by default.
"""
import base64
import hashlib
import importlib
import importlib.abc
import importlib.metadata
import importlib.util
import os
import runpy
import shutil
import subprocess
import sys
import sysconfig
import tempfile

_USAGE = """usage: python -m ember run SCRIPT [ARGS...]
       python -m ember install-torch
       python -m ember uninstall-torch

Run unmodified PyTorch programs with ember standing in for torch.

commands:
  run SCRIPT [ARGS...]   run SCRIPT with `torch` mapped to `ember`
  install-torch          make `import torch` be ember in the current virtual environment
                         (a `torch` shim package and a torch .dist-info, so pip counts
                         torch as installed); refused where a real torch is installed
  uninstall-torch        remove what install-torch wrote, leaving the venv as it was
"""

_SHIM = ("import sys\nfrom ember.__main__ import install_hook\ninstall_hook()\n"
         "import ember\nsys.modules['torch'] = ember\n")
_SHIM_MARK = "# ember: this package stands in for torch (python -m ember install-torch)\n"
_INSTALLER = "ember"


def torch_version_text():
    """The version ember reports as torch: ``'<torch release>+ember<ember version>'``."""
    from ember import version
    own = version._EMBER_VERSION
    return f"{version.torch_version}+ember{own}"


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


def _enter_torch_mode():
    """Make ember report itself as torch: ``__version__`` and ``version.__version__``."""
    import ember
    from ember import version
    from ember.torch_version import TorchVersion
    text = torch_version_text()
    version.__version__ = text
    ember.__version__ = TorchVersion(text)


def install_hook():
    """Install the torch -> ember import finder and report ember as torch (idempotent)."""
    if not any(isinstance(f, _TorchFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _TorchFinder())
    _enter_torch_mode()
    import ember
    sys.modules.setdefault("torch", ember)


def _record_line(root, rel):
    with open(os.path.join(root, rel), "rb") as f:
        data = f.read()
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{rel},sha256={digest},{len(data)}"


def _write_torch_package(root, shim_text, extra=()):
    """Write ``root/torch/__init__.py`` and a torch ``.dist-info`` whose RECORD lists every
    file written (``extra`` are further files, relative to ``root``, already written)."""
    os.makedirs(os.path.join(root, "torch"))
    with open(os.path.join(root, "torch", "__init__.py"), "w") as f:
        f.write(shim_text)
    text = torch_version_text()
    info = f"torch-{text}.dist-info"
    os.makedirs(os.path.join(root, info))
    from ember import version
    files = {
        "METADATA": (f"Metadata-Version: 2.1\nName: torch\nVersion: {text}\n"
                     f"Summary: ember {version._EMBER_VERSION} standing in for PyTorch "
                     f"{version.torch_version} (PyTorch's API in Python over NumPy)\n"
                     "Requires-Python: >=3.10\n"),
        "INSTALLER": _INSTALLER + "\n",
        "top_level.txt": "torch\n",
    }
    for name, body in files.items():
        with open(os.path.join(root, info, name), "w") as f:
            f.write(body)
    listed = ["torch/__init__.py", *extra, *(f"{info}/{n}" for n in files)]
    lines = [_record_line(root, rel) for rel in listed] + [f"{info}/RECORD,,"]
    with open(os.path.join(root, info, "RECORD"), "w") as f:
        f.write("\n".join(lines) + "\n")


def _make_shim():
    """Create the temporary shim directory of ``run`` (a ``torch`` package and its
    ``.dist-info``), put it first on ``PYTHONPATH`` and ``sys.path``, install the hook."""
    shim = tempfile.mkdtemp(prefix="ember_torch_shim_")
    import atexit
    atexit.register(shutil.rmtree, shim, True)   # the children are done by then
    _write_torch_package(shim, _SHIM)
    pp = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = shim + (os.pathsep + pp if pp else "")
    # spawn/forkserver children take the parent's sys.path (not PYTHONPATH): the shim goes
    # there too, so that they import ember for torch as well
    sys.path.insert(0, shim)
    importlib.invalidate_caches()
    install_hook()
    return shim


def _run(script, args):
    _make_shim()
    sys.argv = [script, *args]
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    runpy.run_path(script, run_name="__main__")


class _Refused(Exception):
    pass


def _is_ours(dist):
    return (dist.read_text("INSTALLER") or "").strip() == _INSTALLER


def _torch_dists(site):
    return [d for d in importlib.metadata.distributions(name="torch", path=[site])]


def _check_no_real_torch(site):
    for d in importlib.metadata.distributions(name="torch"):
        if not _is_ours(d):
            raise _Refused(f"a real torch {d.version} is installed "
                           f"({d.locate_file('')}); refusing to shadow it. Uninstall it "
                           "first (pip uninstall torch) to use ember as torch here.")
    spec = importlib.util.find_spec("torch")
    if spec is not None and spec.origin:
        own = [d for d in _torch_dists(site) if _is_ours(d)]
        if not own or os.path.dirname(os.path.dirname(spec.origin)) != site:
            raise _Refused(f"a module named torch is importable ({spec.origin}); "
                           "refusing to shadow it.")


def _ember_root():
    import ember
    return os.path.dirname(os.path.dirname(os.path.abspath(ember.__file__)))


def _ember_importable_plainly(site):
    """Whether this interpreter imports this ember without ``PYTHONPATH``."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    r = subprocess.run([sys.executable, "-c", "import ember; print(ember.__file__)"],
                       env=env, cwd=site, capture_output=True, text=True)
    import ember
    return r.returncode == 0 and os.path.samefile(r.stdout.strip(), ember.__file__)


def install_torch(site=None):
    """Install ember as the ``torch`` distribution of the current virtual environment.

    Writes ``<site-packages>/torch/__init__.py`` (a shim that maps ``torch`` and its
    submodules to ember), ``torch-<version>.dist-info`` (so ``pip`` and
    ``importlib.metadata`` see torch installed) and, when this ember is importable only
    through ``PYTHONPATH``, ``ember-torch.pth`` adding its directory to ``sys.path``.

    Args:
        site (str, optional): the site-packages directory; default: the current
            interpreter's, which must belong to a virtual environment.

    Raises:
        RuntimeError: outside a virtual environment, or where a real torch is installed.

    Example::

        $ python -m ember install-torch
    """
    try:
        return _install(site)
    except _Refused as e:
        raise RuntimeError(str(e)) from None


def _install(site):
    if site is None:
        if sys.prefix == sys.base_prefix:
            raise _Refused("not inside a virtual environment; create one (python -m venv "
                           "DIR) and run this with its python.")
        site = sysconfig.get_paths()["purelib"]
    site = os.path.abspath(site)
    _check_no_real_torch(site)
    if any(_is_ours(d) for d in _torch_dists(site)):
        _uninstall(site)                       # reinstall: replace the previous shim
    if os.path.exists(os.path.join(site, "torch")):
        raise _Refused(f"{os.path.join(site, 'torch')} exists and is not ember's shim.")
    extra = []
    if not _ember_importable_plainly(site):
        with open(os.path.join(site, "ember-torch.pth"), "w") as f:
            f.write(_ember_root() + "\n")
        extra.append("ember-torch.pth")
    _write_torch_package(site, _SHIM_MARK + _SHIM, extra)
    return site


def uninstall_torch(site=None):
    """Remove what :func:`install_torch` wrote (the files its RECORD lists).

    Args:
        site (str, optional): the site-packages directory; default: the current
            interpreter's.

    Returns:
        bool: True if a shim was removed, False if none was installed.

    Raises:
        RuntimeError: where ``torch`` in ``site`` is a real torch, not ember's shim.

    Example::

        $ python -m ember uninstall-torch
    """
    site = os.path.abspath(site or sysconfig.get_paths()["purelib"])
    try:
        return _uninstall(site)
    except _Refused as e:
        raise RuntimeError(str(e)) from None


def _uninstall(site):
    dists = _torch_dists(site)
    if not dists:
        return False
    for d in dists:
        if not _is_ours(d):
            raise _Refused(f"torch {d.version} in {site} is not ember's shim; "
                           "use pip uninstall torch.")
    for d in dists:
        info = None
        for entry in d.files or ():
            path = os.path.normpath(os.path.join(site, str(entry)))
            if not path.startswith(site + os.sep):
                continue
            if str(entry).endswith(".dist-info/RECORD"):
                info = os.path.dirname(path)
            if os.path.isfile(path):
                os.remove(path)
                if path.endswith(".py"):
                    cache = os.path.join(os.path.dirname(path), "__pycache__")
                    stem = os.path.splitext(os.path.basename(path))[0] + "."
                    for c in os.listdir(cache) if os.path.isdir(cache) else ():
                        if c.startswith(stem) and c.endswith(".pyc"):
                            os.remove(os.path.join(cache, c))
                    if os.path.isdir(cache) and not os.listdir(cache):
                        os.rmdir(cache)
        for folder in (os.path.join(site, "torch"), info):
            if folder and os.path.isdir(folder) and not os.listdir(folder):
                os.rmdir(folder)
    importlib.invalidate_caches()
    return True


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        print(_USAGE)
        return 0
    cmd = argv[0]
    if cmd in ("install-torch", "uninstall-torch"):
        if len(argv) > 1:
            asked = argv[1] in ("-h", "--help")
            print(_USAGE, file=sys.stdout if asked else sys.stderr)
            return 0 if asked else 2
        try:
            if cmd == "install-torch":
                site = _install(None)
                print(f"ember is now torch {torch_version_text()} in {site}; "
                      "undo with: python -m ember uninstall-torch")
            else:
                site = os.path.abspath(sysconfig.get_paths()["purelib"])
                if _uninstall(site):
                    print(f"removed ember's torch shim from {site}")
                else:
                    print(f"no torch installed in {site}; nothing to do")
        except _Refused as e:
            print(f"python -m ember {cmd}: {e}", file=sys.stderr)
            return 1
        return 0
    if cmd != "run":
        print(_USAGE, file=sys.stderr)
        return 2
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(_USAGE)
        return 0 if len(argv) >= 2 else 2
    _run(argv[1], argv[2:])
    return 0


if __name__ == "__main__":
    sys.exit(main())
