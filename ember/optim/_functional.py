"""Array-level helpers shared by the optimizers.

The optimizers update parameters and their state in place on the tensors' backend
arrays (``Tensor._data``), outside autograd, with as few passes over memory as the
algorithm allows. Every helper takes and returns arrays of the parameter's array module
(NumPy or CuPy), never module-level NumPy calls on tensor data.
"""
from .._backend import array_module
from .._dtype import get_default_dtype, float32, float64
from .._tensor import Tensor, _new_tensor

__all__ = []


def _scalar(v):
    """A hyper-parameter as a Python number (``lr`` may be a 0-dim tensor)."""
    if isinstance(v, Tensor):
        return v.item()
    return float(v) if not isinstance(v, (bool, int)) else v


def _closure_loss(closure):
    """Run ``closure`` with grad enabled (as optimizers do) and return its loss."""
    if closure is None:
        return None
    from ..autograd.grad_mode import enable_grad
    with enable_grad():
        return closure()


def _real(a):
    """A complex array seen as interleaved real numbers (PyTorch's view_as_real)."""
    if a.dtype.kind == 'c':
        return a.view(a.real.dtype)
    return a


def _arr(t):
    """The (real view of the) backend array of a tensor (a sparse gradient's dense form)."""
    if t.is_sparse:
        t = t.to_dense()
    return _real(t._data)


def _bump(p):
    """Bump a tensor's version counter after an in-place update of its array."""
    st = p._st
    if st is not None:
        st._version += 1


def _grad(p, maximize):
    """``p``'s gradient array (negated, as a new array, when maximizing)."""
    g = _arr(p.grad)
    if maximize:
        return -g
    return g


def _zeros_like(p):
    xp = array_module(p._data)
    return _new_tensor(xp.zeros(p._data.shape, p._data.dtype))


def _full_like(p, value):
    xp = array_module(p._data)
    return _new_tensor(xp.full(p._data.shape, value, p._data.dtype))


def _scalar_dtype():
    return float64 if get_default_dtype() is float64 else float32


def _scalar_tensor(value, p=None):
    """A 0-dim float tensor (float32, or float64 under a float64 default dtype), like the
    ``step`` counters PyTorch keeps."""
    import numpy
    xp = array_module(p._data) if p is not None else numpy
    dt = numpy.float64 if get_default_dtype() is float64 else numpy.float32
    return _new_tensor(xp.asarray(value, dtype=dt).reshape(()))


def _incr_step(state, p=None):
    """Add one to ``state['step']`` (a 0-dim tensor; a number from an old checkpoint is
    turned into one) and return the new value as a Python float."""
    s = state.get('step')
    if not isinstance(s, Tensor):
        s = _scalar_tensor(float(s or 0), p)
        state['step'] = s
    d = s._data
    d += 1
    _bump(s)
    return float(d)


def _lerp_(a, b, w, tmp=None):
    """``a.lerp_(b, w)`` on arrays (PyTorch's two-sided formula)."""
    xp = array_module(a)
    tmp = xp.subtract(b, a, out=tmp)
    if w < 0.5:
        tmp *= w
        a += tmp
    else:
        tmp *= (1.0 - w)
        xp.subtract(b, tmp, out=a)
    return a


def _addcmul_sq_(a, g, value, tmp=None):
    """``a.addcmul_(g, g, value=value)``."""
    xp = array_module(a)
    tmp = xp.multiply(g, value, out=tmp)
    tmp *= g
    a += tmp
    return a


def _scratch(opt, x, k=0):
    """A reusable work array shaped like ``x`` (kept on the optimizer, not in its state):
    large temporaries are not reallocated (and page-faulted in) on every step."""
    d = opt.__dict__.get('_scratch_arrays')
    if d is None:
        d = opt.__dict__['_scratch_arrays'] = {}
    key = (x.shape, x.dtype.str, k, type(x))
    a = d.get(key)
    if a is None:
        a = d[key] = array_module(x).empty_like(x)
    return a
