"""``ember.sparse``: sparse tensors in the COO layout and the ops on them, as ``torch.sparse``.

A sparse COO tensor (``layout == ember.sparse_coo``) is made by
:func:`ember.sparse_coo_tensor` or :meth:`Tensor.to_sparse`; it holds ``indices``
(``sparse_dim x nnz``, int64) and ``values`` (``nnz x *dense_shape``). Dense ops refuse it
with PyTorch's ``NotImplementedError``; the ones written for it (``to_dense``,
``coalesce``, ``+``/``-`` of two sparse tensors, ``*``/``/`` by a scalar, ``mm``/``@`` with
a dense matrix, ``sum``) are differentiable in the values.

NOTE: unlike PyTorch, only the COO layout exists (no CSR/CSC/BSR/BSC), and sparse tensors
are not saved or loaded.
"""
from ._coo import (sparse_coo_tensor, _SparseCooTensor, _spmm, _is_sp, sparse_sum as _sum,  # noqa: F401
                   sparse_softmax as _softmax)

__all__ = ['mm', 'sum', 'addmm', 'softmax', 'log_softmax']


def mm(mat1, mat2, reduce='sum'):
    r"""Matrix product of a sparse COO matrix ``mat1`` and a dense matrix ``mat2``.

    The gradient flows to ``mat1``'s values (at its indices) and to ``mat2``.

    Args:
        mat1 (Tensor): sparse ``(n, m)`` matrix (2 sparse dims, no dense dim).
        mat2 (Tensor): dense ``(m, p)`` matrix.
        reduce (str, optional): ``'sum'`` (the only one written).

    Shape:
        result ``(n, p)``, dense.

    NOTE: unlike PyTorch, ``reduce`` other than ``'sum'`` and a sparse ``mat2`` raise
    NotImplementedError.

    Example::

        >>> s = ember.sparse_coo_tensor([[0, 1], [1, 0]], [2., 3.], (2, 2))
        >>> ember.sparse.mm(s, ember.ones(2, 1))
        tensor([[2.],
                [3.]])
    """
    if reduce != 'sum':
        raise NotImplementedError(f"NOTE: unlike PyTorch, ember.sparse.mm has no "
                                  f"reduce={reduce!r} yet")
    if not _is_sp(mat1):
        from ._coo import _not_impl
        raise _not_impl('_sparse_mm', 'CPU')
    return _spmm(mat1, mat2)


def addmm(mat, mat1, mat2, *, beta=1., alpha=1.):
    r"""``beta * mat + alpha * (mat1 @ mat2)`` with a sparse COO ``mat1``, dense ``mat``
    and ``mat2``.

    Args:
        mat (Tensor): dense matrix added (broadcast to ``(n, p)``).
        mat1 (Tensor): sparse ``(n, m)`` matrix.
        mat2 (Tensor): dense ``(m, p)`` matrix.
        beta (Number, optional): multiplier of ``mat`` (default 1).
        alpha (Number, optional): multiplier of the product (default 1).

    Example::

        >>> s = ember.sparse_coo_tensor([[0, 1], [1, 0]], [1., 2.], (2, 2))
        >>> ember.sparse.addmm(ember.ones(2, 2), s, ember.ones(2, 2), beta=2, alpha=3)
        tensor([[5., 5.],
                [8., 8.]])
    """
    return mat * beta + mm(mat1, mat2) * alpha


def sum(input, dim=None, dtype=None):
    r"""Sum of a sparse COO tensor's values, over all dimensions or over ``dim``.

    Args:
        input (Tensor): a sparse COO tensor.
        dim (int or tuple of ints, optional): the dimensions to reduce (default: all).
        dtype (ember.dtype, optional): cast the values to it first.

    Returns:
        a dense tensor when every sparse dimension is reduced, else a coalesced sparse one.

    Example::

        >>> s = ember.sparse_coo_tensor([[0, 0, 1], [1, 1, 0]], [1., 2., 3.], (2, 2))
        >>> ember.sparse.sum(s)
        tensor(6.)
        >>> ember.sparse.sum(s, 0).to_dense()
        tensor([3., 3.])
    """
    return _sum(input, dim, dtype)


def softmax(input, dim, *, dtype=None):
    r"""Softmax of a sparse COO tensor along ``dim``, over the specified entries only (the
    unspecified ones count as minus infinity, so they stay unspecified).

    Args:
        input (Tensor): a sparse COO tensor (coalesced first).
        dim (int): the dimension along which the entries of each slice sum to 1.
        dtype (ember.dtype, optional): cast the values to it first.

    Returns:
        a coalesced sparse tensor with ``input``'s indices.

    Example::

        >>> s = ember.sparse_coo_tensor([[0, 0, 1], [0, 1, 1]], [1., 1., 5.], (2, 2))
        >>> ember.sparse.softmax(s, 1).to_dense()
        tensor([[0.5000, 0.5000],
                [0.0000, 1.0000]])
    """
    return _softmax(input, dim, dtype, log=False)


def log_softmax(input, dim, *, dtype=None):
    r"""Log of :func:`softmax` of a sparse COO tensor along ``dim`` (specified entries only).

    Args:
        input (Tensor): a sparse COO tensor (coalesced first).
        dim (int): the dimension of the softmax.
        dtype (ember.dtype, optional): cast the values to it first.

    Example::

        >>> s = ember.sparse_coo_tensor([[0, 0], [0, 1]], [1., 1.], (1, 2))
        >>> ember.sparse.log_softmax(s, 1)._values()
        tensor([-0.6931, -0.6931])
    """
    return _softmax(input, dim, dtype, log=True)
