"""``ember.backends.cpu``: CPU capability queries."""


def get_cpu_capability():
    """The widest SIMD instruction set NumPy dispatches to here (``'AVX512'``, ``'AVX2'``,
    ``'DEFAULT'``...)."""
    try:
        from numpy._core._multiarray_umath import __cpu_features__ as f
    except ImportError:   # pragma: no cover
        return 'DEFAULT'
    if f.get('AVX512F') and f.get('AVX512BW'):
        return 'AVX512'
    if f.get('AVX2'):
        return 'AVX2'
    if f.get('ASIMD'):
        return 'DEFAULT'
    return 'DEFAULT'
