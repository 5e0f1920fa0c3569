"""Parametrizations built on ``nn.utils.parametrize``: ``orthogonal``, ``weight_norm``,
``spectral_norm``."""
from enum import Enum, auto

from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ..modules.module import Module
from . import parametrize

__all__ = ['orthogonal', 'spectral_norm', 'weight_norm']


# ---------------------------------------------------------------- private linear algebra
# The orthogonal parametrization calls the public ops ember.linalg.matrix_exp,
# ember.geqrf and ember.linalg.householder_product through these thin helpers.

def _matrix_exp(A):
    """exp of a square matrix (or batch): the public op ``ember.linalg.matrix_exp``."""
    from ..._ops.decompositions import matrix_exp
    return matrix_exp(A)


def _householder_product(A, tau):
    """LAPACK's orgqr / ungqr: the public op ``ember.linalg.householder_product``."""
    from ..._ops.decompositions import householder_product
    return householder_product(A, tau)


def _geqrf(A):
    """LAPACK's geqrf of ``A`` (no gradient): the public op ``ember.geqrf``."""
    from ..._ops.decompositions import geqrf
    return tuple(geqrf(A.detach()))


def _is_orthogonal(Q, eps=None):
    from ..._dtype import finfo
    from ..._ops.creation import eye
    n, k = Q.size(-2), Q.size(-1)
    Id = eye(k, dtype=Q.dtype, device=Q.device)
    eps = 10. * n * finfo(Q.dtype).eps
    return bool((Q.mH @ Q).allclose(Id, atol=eps))


def _make_orthogonal(A):
    """The Q factor of the QR decomposition of ``A`` with the signs fixed so that R has a
    non-negative diagonal (a continuous choice)."""
    X, tau = _geqrf(A)
    Q = _householder_product(X, tau)
    Q *= X.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)
    return Q


class _OrthMaps(Enum):
    matrix_exp = auto()
    cayley = auto()
    householder = auto()


class _Orthogonal(Module):
    def __init__(self, weight, orthogonal_map, *, use_trivialization=True):
        super().__init__()
        if weight.is_complex() and orthogonal_map == _OrthMaps.householder:
            raise ValueError('The householder parametrization does not support complex '
                             'tensors.')
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer('base', None)

    def forward(self, X):
        from ..._ops.creation import eye
        from ..._ops.decompositions import solve
        from ..._ops.shape import cat
        n, k = X.size(-2), X.size(-1)
        transposed = n < k
        if transposed:
            X = X.mT
            n, k = k, n
        if self.orthogonal_map in (_OrthMaps.matrix_exp, _OrthMaps.cayley):
            X = X.tril()
            if n != k:
                X = cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], dim=-1)
            A = X - X.mH
            if self.orthogonal_map == _OrthMaps.matrix_exp:
                Q = _matrix_exp(A)
            else:
                Id = eye(n, dtype=A.dtype, device=A.device)
                Q = solve(Id - 0.5 * A, Id + 0.5 * A)
            if n != k:
                Q = Q[..., :k]
        else:
            A = X.tril(diagonal=-1)
            tau = 2. / (1. + (A * A).sum(dim=-2))
            Q = _householder_product(A, tau)
            Q = Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        if hasattr(self, 'base'):
            Q = self.base @ Q
        if transposed:
            Q = Q.mT
        return Q

    def right_inverse(self, Q):
        with no_grad():
            return self._right_inverse(Q)

    def _right_inverse(self, Q):
        from ..._ops.creation import zeros_like
        from ..._ops.random_ops import randn
        from ..._ops.shape import cat
        if Q.shape != self.shape:
            raise ValueError(f'Expected a matrix or batch of matrices of shape {self.shape}. '
                             f'Got a tensor of shape {Q.shape}.')
        Q_init = Q
        n, k = Q.size(-2), Q.size(-1)
        transpose = n < k
        if transpose:
            Q = Q.mT
            n, k = k, n
        if not hasattr(self, 'base'):
            if self.orthogonal_map in (_OrthMaps.cayley, _OrthMaps.matrix_exp):
                raise NotImplementedError('It is not possible to assign to the matrix '
                                          'exponential or the Cayley parametrizations when '
                                          'use_trivialization=False.')
            A, tau = _geqrf(Q)
            d = A.diagonal(dim1=-2, dim2=-1)
            d.sign_()
            d.mul_(1 - 2 * (tau == 0.0).to(d.dtype))
            return A.mT if transpose else A
        if n == k:
            if not _is_orthogonal(Q):
                Q = _make_orthogonal(Q)
            else:
                Q = Q.clone()
        else:
            N = randn(*(tuple(Q.size()[:-2]) + (n, n - k)), dtype=Q.dtype, device=Q.device)
            Q = _make_orthogonal(cat([Q, N], dim=-1))
        self.base = Q
        neg_Id = zeros_like(Q_init)
        neg_Id.diagonal(dim1=-2, dim2=-1).fill_(-1.)
        return neg_Id


def orthogonal(module, name='weight', orthogonal_map=None, *, use_trivialization=True):
    """Constrain a matrix (or batch of matrices) of ``module`` to be orthogonal (unitary
    for complex tensors), as a parametrization.

    The parametrized tensor is ``Q = map(A)`` for a skew-symmetric ``A`` built from the
    original: ``orthogonal_map`` is ``"matrix_exp"`` (``Q = exp(A)``), ``"cayley"``
    (``Q = (I - A/2)^{-1} (I + A/2)``) or ``"householder"`` (a product of Householder
    reflectors). Default: ``"matrix_exp"`` for square or complex matrices,
    ``"householder"`` otherwise. With ``use_trivialization=True`` (default) the map is
    applied around a base ``Q = base @ map(A)`` kept in the buffer
    ``parametrizations.<name>[0].base``, and the original starts at ``-I``; assigning an
    orthogonal matrix to ``module.<name>`` makes it the new base.

    Args:
        module (nn.Module): the module.
        name (str): the tensor's name. Default: ``'weight'``
        orthogonal_map (str, optional): ``"matrix_exp"``, ``"cayley"`` or ``"householder"``.
        use_trivialization (bool): use the dynamic trivialization. Default: ``True``

    Returns:
        the module.

    Example::

        >>> lin = nn.utils.parametrizations.orthogonal(nn.Linear(3, 5))   # 5 x 3 weight
        >>> ember.allclose(lin.weight.T @ lin.weight, ember.eye(3), atol=1e-6)
        True
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError('Expected a matrix or batch of matrices. Got a tensor of '
                         f'{weight.ndim} dimensions.')
    if orthogonal_map is None:
        orthogonal_map = ('matrix_exp' if weight.size(-2) == weight.size(-1)
                          or weight.is_complex() else 'householder')
    orth_enum = getattr(_OrthMaps, orthogonal_map, None)
    if orth_enum is None:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", '
                         f'"householder". Got: {orthogonal_map}')
    orth = _Orthogonal(weight, orth_enum, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module


class _WeightNorm(Module):
    def __init__(self, dim=0):
        super().__init__()
        if dim is None:
            dim = -1
        self.dim = dim

    def forward(self, weight_g, weight_v):
        from .weight_norm import _weight_norm
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        from .weight_norm import _norm_except_dim
        return _norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module, name='weight', dim=0):
    """Apply weight normalization to a parameter, as a parametrization:
    ``w = g * v / ||v||`` with ``g = parametrizations.<name>.original0`` (the magnitude)
    and ``v = parametrizations.<name>.original1`` (the direction). State dicts saved with
    the older :func:`nn.utils.weight_norm` (``<name>_g`` / ``<name>_v``) load too.

    Args:
        module (nn.Module): the module.
        name (str): the parameter's name. Default: ``'weight'``
        dim (int, optional): the dimension kept by the norm; ``None`` normalizes the whole
            tensor. Default: 0

    Returns:
        the module.

    Example::

        >>> conv = nn.utils.parametrizations.weight_norm(nn.Conv1d(3, 8, 5))
        >>> [k for k in conv.state_dict()]
        ['bias', 'parametrizations.weight.original0', 'parametrizations.weight.original1']
    """
    wn = _WeightNorm(dim)
    parametrize.register_parametrization(module, name, wn, unsafe=True)

    def _weight_norm_compat_hook(state_dict, prefix, local_metadata, strict, missing_keys,
                                 unexpected_keys, error_msgs):
        g_key, v_key = f'{prefix}{name}_g', f'{prefix}{name}_v'
        if g_key in state_dict and v_key in state_dict:
            g = state_dict.pop(g_key)
            v = state_dict.pop(v_key)
            state_dict[f'{prefix}parametrizations.{name}.original0'] = g
            state_dict[f'{prefix}parametrizations.{name}.original1'] = v

    module._register_load_state_dict_pre_hook(_weight_norm_compat_hook)
    return module


class _SpectralNorm(Module):
    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        from ..._ops.distance import normalize
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError('Dimension out of range (expected to be in range of '
                             f'[-{ndim}, {ndim - 1}] but got {dim})')
        if n_power_iterations <= 0:
            raise ValueError('Expected n_power_iterations to be positive, but got '
                             f'n_power_iterations={n_power_iterations}')
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            mat = self._reshape_weight_to_matrix(weight)
            h, w = mat.size()
            with no_grad():
                u = mat.new_empty(h).normal_(0, 1)
                v = mat.new_empty(w).normal_(0, 1)
                self.register_buffer('_u', normalize(u, dim=0, eps=self.eps))
                self.register_buffer('_v', normalize(v, dim=0, eps=self.eps))
            self._power_method(mat, 15)

    def _reshape_weight_to_matrix(self, weight):
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat, n_power_iterations):
        from ..._ops.distance import normalize
        with no_grad():
            for _ in range(n_power_iterations):
                self._u = normalize(weight_mat.mv(self._v), dim=0, eps=self.eps, out=self._u)
                self._v = normalize(weight_mat.H.mv(self._u), dim=0, eps=self.eps,
                                    out=self._v)

    def forward(self, weight):
        from ..._memory_format import contiguous_format
        from ..._ops.distance import normalize
        if weight.ndim == 1:
            return normalize(weight, dim=0, eps=self.eps)
        mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(mat, self.n_power_iterations)
        u = self._u.clone(memory_format=contiguous_format)
        v = self._v.clone(memory_format=contiguous_format)
        sigma = u.vdot(mat.mv(v))
        return weight / sigma

    def right_inverse(self, value):
        return value


def spectral_norm(module, name='weight', n_power_iterations=1, eps=1e-12, dim=None):
    """Apply spectral normalization to a parameter, as a parametrization:
    ``W = W_orig / sigma(W_orig)``, ``sigma`` the largest singular value estimated by power
    iteration (buffers ``parametrizations.<name>[0]._u`` and ``._v``, drawn from the
    default generator as PyTorch draws them and refined by 15 steps at registration; one
    or more steps per read in training mode, none in eval mode).

    Args:
        module (nn.Module): the module.
        name (str): the parameter's name. Default: ``'weight'``
        n_power_iterations (int): power-iteration steps per training read. Default: 1
        eps (float): epsilon of the normalizations. Default: 1e-12
        dim (int, optional): the output-channel dimension; default 0, or 1 for the
            transposed convolutions.

    Returns:
        the module.

    Example::

        >>> lin = nn.utils.parametrizations.spectral_norm(nn.Linear(4, 6))
        >>> sorted(n for n, _ in lin.named_buffers())
        ['parametrizations.weight.0._u', 'parametrizations.weight.0._v']
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        from ..modules.conv import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
        dim = 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d)) else 0
    parametrize.register_parametrization(module, name,
                                         _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module
