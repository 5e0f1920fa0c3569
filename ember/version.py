"""``ember.version``: version information, as ``torch.version``.

``__version__`` is ember's own version (under ``python -m ember run`` and in an
``install-torch`` venv it is the torch version ember answers with, ``2.13.0+ember0.1.0``);
``torch_version`` is the PyTorch release whose API ember follows. ``cuda`` is the CUDA runtime version CuPy reports (None without CuPy/GPU;
read on first access so that ``import ember`` does not import CuPy).
"""
__all__ = ['__version__', 'torch_version', 'cuda', 'hip', 'xpu', 'rocm', 'debug', 'git_version']

_EMBER_VERSION = '0.1.0'       # ember's own version (``__version__`` outside torch mode)
__version__ = _EMBER_VERSION
torch_version = '2.13.0'
hip = None
rocm = None
xpu = None
debug = False
git_version = 'Unknown'


def _cuda_version():
    from . import cuda as _c
    if not _c.is_available():
        return None
    v = _c._get_cupy().cuda.runtime.runtimeGetVersion()
    return f"{v // 1000}.{v % 1000 // 10}"


def __getattr__(name):
    if name == 'cuda':
        global cuda
        cuda = _cuda_version()
        return cuda
    raise AttributeError(f"module 'ember.version' has no attribute '{name}'")
