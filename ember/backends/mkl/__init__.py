"""``ember.backends.mkl``: whether NumPy's BLAS is Intel MKL."""

VERBOSE_OFF, VERBOSE_ON = 0, 1


def is_available():
    """True when NumPy is linked against MKL (ember's CPU matmuls then run on MKL)."""
    from ..openmp import _blas_libs
    return any('mkl' in (i.get('internal_api') or '') for i in _blas_libs())


class verbose:
    """No-op context manager (MKL verbosity)."""

    def __init__(self, enable):
        self.enable = enable

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
