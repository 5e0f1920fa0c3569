"""``ember.backends``: switches and queries for the compute libraries (cudnn, cuda, mps,
mkldnn, mkl, openmp, opt_einsum, cpu).

Ember computes with NumPy (and CuPy on CUDA), so most switches are accepted and kept for
scripts that set them, and change nothing. NOTE: unlike PyTorch, ``cudnn.benchmark``,
``cudnn.deterministic``, ``mkldnn.enabled`` and the TF32 flags do not change ember's
results: NumPy's kernels are always deterministic and full float32.
"""
import contextlib

from . import cpu, cuda, cudnn, mkl, mkldnn, mps, openmp, opt_einsum  # noqa: F401
from . import quantized  # noqa: F401

__all__ = ['cpu', 'cuda', 'cudnn', 'mkl', 'mkldnn', 'mps', 'openmp', 'opt_einsum', 'quantized',
           'flags_frozen', 'disable_global_flags']

_flags_frozen = False


def disable_global_flags():
    """Mark the global backend flags as frozen (PyTorch's test harness calls this so that
    tests change flags only inside ``flags()`` context managers); see :func:`flags_frozen`.

    After it, assigning ``cudnn``'s or ``mkldnn``'s flags (``enabled``, ``benchmark``,
    ``deterministic``, ``allow_tf32``) raises ``RuntimeError``; their ``flags()`` context
    managers still work.

    Example::

        >>> ember.backends.disable_global_flags()
        >>> ember.backends.flags_frozen()
        True
    """
    global _flags_frozen
    _flags_frozen = True


def flags_frozen():
    """Whether :func:`disable_global_flags` has been called in this process.

    Example::

        >>> ember.backends.flags_frozen()   # in a fresh process
        False
    """
    return _flags_frozen


@contextlib.contextmanager
def __allow_nonbracketed_mutation():
    global _flags_frozen
    old, _flags_frozen = _flags_frozen, False
    try:
        yield
    finally:
        _flags_frozen = old
