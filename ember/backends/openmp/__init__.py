"""``ember.backends.openmp``: whether NumPy's BLAS runs on OpenMP threads."""


def _blas_libs():
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return []
    return threadpool_info()


def is_available():
    """True when an OpenMP runtime is loaded in the process (e.g. by NumPy's BLAS)."""
    return any(i.get('user_api') == 'openmp' for i in _blas_libs())
