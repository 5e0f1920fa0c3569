"""``ember.linalg``: PyTorch's ``torch.linalg`` namespace. Every function is defined once,
in ``ember/_ops/linalg.py``; this module only names them.

Example::

    >>> import ember
    >>> ember.linalg.inv(ember.eye(2) * 2)
    tensor([[0.5000, 0.0000],
            [0.0000, 0.5000]])
"""
from ._ops.linalg import (  # noqa: F401
    LinAlgError, vector_norm, matrix_norm, norm, inv, inv_ex, det, slogdet, solve, solve_ex,
    solve_triangular, cholesky, cholesky_ex, qr, svd, svdvals, eigh, eigvalsh, eig, eigvals,
    pinv, lstsq, matrix_power, matrix_rank, multi_dot, vecdot, matmul)
from ._ops.linalg import linalg_cross as cross  # noqa: F401

__all__ = ['LinAlgError', 'vector_norm', 'matrix_norm', 'norm', 'inv', 'inv_ex', 'det',
           'slogdet', 'solve', 'solve_ex', 'solve_triangular', 'cholesky', 'cholesky_ex', 'qr',
           'svd', 'svdvals', 'eigh', 'eigvalsh', 'eig', 'eigvals', 'pinv', 'lstsq',
           'matrix_power', 'matrix_rank', 'multi_dot', 'vecdot', 'matmul', 'cross']
