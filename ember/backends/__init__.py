"""``ember.backends``: switches and queries for the compute libraries (cudnn, cuda, mps,
mkldnn, mkl, openmp, opt_einsum, cpu).

Ember computes with NumPy (and CuPy on CUDA), so most switches are accepted and kept for
scripts that set them, and change nothing. NOTE: unlike PyTorch, ``cudnn.benchmark``,
``cudnn.deterministic``, ``mkldnn.enabled`` and the TF32 flags do not change ember's
results: NumPy's kernels are always deterministic and full float32.
"""
import contextlib

from . import cpu, cuda, cudnn, mkl, mkldnn, mps, openmp, opt_einsum  # noqa: F401

__all__ = ['cpu', 'cuda', 'cudnn', 'mkl', 'mkldnn', 'mps', 'openmp', 'opt_einsum',
           'flags_frozen', 'disable_global_flags']

_flags_frozen = False


def disable_global_flags():
    """Make the global backend flags read-only (as PyTorch's test harness does)."""
    global _flags_frozen
    _flags_frozen = True


def flags_frozen():
    return _flags_frozen


@contextlib.contextmanager
def __allow_nonbracketed_mutation():
    global _flags_frozen
    old, _flags_frozen = _flags_frozen, False
    try:
        yield
    finally:
        _flags_frozen = old
