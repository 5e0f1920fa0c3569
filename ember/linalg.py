"""``ember.linalg``: PyTorch's ``torch.linalg`` namespace. Every function is defined once,
in the op library (``ember/_ops/products.py``, ``decompositions.py``, ``norms.py``); this
module only names them.

Example::

    >>> import ember
    >>> ember.linalg.inv(ember.eye(2) * 2)
    tensor([[0.5000, 0.0000],
            [0.0000, 0.5000]])
"""
from ._ops._linalg_common import LinAlgError  # noqa: F401
from ._ops.products import multi_dot, vecdot, matmul  # noqa: F401
from ._ops.products import linalg_cross as cross  # noqa: F401
from ._ops.decompositions import (  # noqa: F401
    inv, inv_ex, det, slogdet, solve, solve_ex, solve_triangular, cholesky, cholesky_ex, qr, svd,
    svdvals, eigh, eigvalsh, eig, eigvals, pinv, lstsq, matrix_power, matrix_rank, matrix_exp,
    vander, diagonal, tensorinv, tensorsolve, lu_factor, lu_factor_ex, lu, lu_solve,
    householder_product)
from ._ops.ldl import ldl_factor, ldl_factor_ex, ldl_solve  # noqa: F401
from ._ops.norms import vector_norm, matrix_norm, norm, cond  # noqa: F401

#: Notes shared by the linalg docstrings, under the keys of PyTorch's
#: ``torch.linalg.common_notes`` (the wording is ember's own).
common_notes = {
    'experimental_warning': 'Experimental: this function may still change in a later release.',
    'sync_note': 'On a CUDA device this function waits for the device to finish (a host '
                 'synchronisation).',
    'sync_note_ex': 'On a CUDA device this function synchronises with the host only when '
                    '``check_errors=True``.',
    'sync_note_has_ex': 'On a CUDA device this function synchronises with the host; {} is '
                        'the variant that does not.',
}

__all__ = ['LinAlgError', 'vector_norm', 'matrix_norm', 'norm', 'inv', 'inv_ex', 'det',
           'slogdet', 'solve', 'solve_ex', 'solve_triangular', 'cholesky', 'cholesky_ex', 'qr',
           'svd', 'svdvals', 'eigh', 'eigvalsh', 'eig', 'eigvals', 'pinv', 'lstsq',
           'matrix_power', 'matrix_rank', 'multi_dot', 'vecdot', 'matmul', 'cross', 'matrix_exp',
           'vander', 'diagonal', 'cond', 'tensorinv', 'tensorsolve', 'lu_factor',
           'lu_factor_ex', 'lu', 'lu_solve', 'householder_product', 'ldl_factor',
           'ldl_factor_ex', 'ldl_solve']
