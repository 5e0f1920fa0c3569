"""Shared pieces of the linear-algebra families (``products``, ``decompositions``,
``norms``): result types, error class, dtype names, array helpers and checks.
"""
from ..return_types import _structseq
from ._util import wrap, write_out, check_exact_out
from .._backend import array_module


class _LinAlgError(RuntimeError):
    """Raised when a linear algebra routine fails (singular or non positive-definite input)."""


_LinAlgError.__module__ = 'torch._C'   # shown as torch.linalg.LinAlgError in tracebacks
LinAlgError = _LinAlgError

# torch.return_types look-alikes
linalg_slogdet = _structseq('linalg_slogdet', ('sign', 'logabsdet'))
slogdet_t = _structseq('slogdet', ('sign', 'logabsdet'))
linalg_qr = _structseq('linalg_qr', ('Q', 'R'))
qr_t = _structseq('qr', ('Q', 'R'))
linalg_svd = _structseq('linalg_svd', ('U', 'S', 'Vh'))
svd_t = _structseq('svd', ('U', 'S', 'V'))
linalg_eigh = _structseq('linalg_eigh', ('eigenvalues', 'eigenvectors'))
linalg_eig = _structseq('linalg_eig', ('eigenvalues', 'eigenvectors'))
linalg_inv_ex = _structseq('linalg_inv_ex', ('inverse', 'info'))
linalg_cholesky_ex = _structseq('linalg_cholesky_ex', ('L', 'info'))
linalg_solve_ex = _structseq('linalg_solve_ex', ('result', 'info'))
linalg_lstsq = _structseq('linalg_lstsq', ('solution', 'residuals', 'rank', 'singular_values'))
linalg_lu_factor = _structseq('linalg_lu_factor', ('LU', 'pivots'))
linalg_lu_factor_ex = _structseq('linalg_lu_factor_ex', ('LU', 'pivots', 'info'))
linalg_lu = _structseq('linalg_lu', ('P', 'L', 'U'))
lu_unpack_t = _structseq('lu_unpack', ('P', 'L', 'U'))
geqrf_t = _structseq('geqrf', ('a', 'tau'))
triangular_solve_t = _structseq('triangular_solve', ('solution', 'cloned_coefficient'))

# ScalarType names (``Float``) and C type names (``float``) used in PyTorch's messages
_ST_NAME = {'float32': 'Float', 'float64': 'Double', 'float16': 'Half', 'bfloat16': 'BFloat16',
            'int64': 'Long', 'int32': 'Int', 'int16': 'Short', 'int8': 'Char', 'uint8': 'Byte',
            'bool': 'Bool', 'complex64': 'ComplexFloat', 'complex128': 'ComplexDouble',
            'uint16': 'UInt16', 'uint32': 'UInt32', 'uint64': 'UInt64'}
_C_NAME = {'float32': 'float', 'float64': 'double', 'float16': 'c10::Half',
           'bfloat16': 'c10::BFloat16', 'int64': 'long int', 'int32': 'int', 'int16': 'short int',
           'int8': 'signed char', 'uint8': 'unsigned char', 'bool': 'bool',
           'complex64': 'c10::complex<float>', 'complex128': 'c10::complex<double>'}


def _st(a):
    return _ST_NAME.get(str(a.dtype), str(a.dtype))


def _cn(a):
    return _C_NAME.get(str(a.dtype), str(a.dtype))


def _c(t):
    """Conjugate for complex tensors, identity otherwise (real backward formulas stay cheap)."""
    return t.conj() if t._data.dtype.kind == 'c' else t


def _mH(t):
    return _c(t.mT)


def _const(arr):
    """A constant (non-differentiable) tensor from a fresh array."""
    return wrap(arr)


def _eye_like(t, n=None):
    a = t._data
    n = a.shape[-1] if n is None else n
    return wrap(array_module(a).eye(n, dtype=a.dtype))


def _shape_str(s):
    return 'x'.join(str(int(v)) for v in s)


def _fresh(r, xp, dt=None):
    """Numpy may return scalars (0-dim results) or another dtype (bfloat16 -> float32)."""
    if not isinstance(r, xp.ndarray):
        r = xp.asarray(r)
    if dt is not None and r.dtype != dt:
        r = r.astype(dt)
    return r


def _out(res, out, name='linalg', exact=True):
    """``out=`` of the linalg ops (see ``_util.write_out``). Most of them, as in PyTorch,
    take only an ``out`` of the result's very dtype (``exact``); the others cast."""
    if out is None:
        return res
    if exact:
        check_exact_out(res, out)
    return write_out(res, out, name)


def _check_same_dtype(a, b):
    if a.dtype is not b.dtype and a.dtype != b.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {_cn(a)} != {_cn(b)}")
    if a.dtype.kind == 'b' and a.size and b.size:     # an empty product is just zeros
        raise NotImplementedError("\"addmm_impl_cpu_\" not implemented for 'Bool'")


def _matmul_arrays(a, b):
    """``a @ b`` for arrays (bfloat16 stays bfloat16)."""
    xp = array_module(a)
    r = xp.matmul(a, b)
    if r.dtype is not a.dtype:
        r = r.astype(a.dtype)
    return r
