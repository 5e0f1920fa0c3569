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
    vander, diagonal, cond, tensorinv, tensorsolve, lu_factor, lu_factor_ex, lu, lu_solve,
    householder_product)
from ._ops.norms import vector_norm, matrix_norm, norm  # noqa: F401

#: Shared notes of the linalg docstrings (a dict, as PyTorch's ``torch.linalg.common_notes``).
common_notes = {
    'experimental_warning': 'This function is "experimental" and it may change in a future '
                            'PyTorch release.',
    'sync_note': 'When inputs are on a CUDA device, this function synchronizes that device '
                 'with the CPU.',
    'sync_note_ex': 'When the inputs are on a CUDA device, this function synchronizes only '
                    'when :attr:`check_errors`\ `= True`.',
    'sync_note_has_ex': 'When inputs are on a CUDA device, this function synchronizes that '
                        'device with the CPU. For a version of this function that does not '
                        'synchronize, see {}.',
}

__all__ = ['LinAlgError', 'vector_norm', 'matrix_norm', 'norm', 'inv', 'inv_ex', 'det',
           'slogdet', 'solve', 'solve_ex', 'solve_triangular', 'cholesky', 'cholesky_ex', 'qr',
           'svd', 'svdvals', 'eigh', 'eigvalsh', 'eig', 'eigvals', 'pinv', 'lstsq',
           'matrix_power', 'matrix_rank', 'multi_dot', 'vecdot', 'matmul', 'cross', 'matrix_exp',
           'vander', 'diagonal', 'cond', 'tensorinv', 'tensorsolve', 'lu_factor',
           'lu_factor_ex', 'lu', 'lu_solve', 'householder_product']
