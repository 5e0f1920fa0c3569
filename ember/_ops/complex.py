"""Complex-number ops: real/imag and view_as_real/view_as_complex (views sharing memory),
conj, angle, polar, complex.

Gradients follow PyTorch's convention for complex autograd: the gradient of a real loss
``L`` w.r.t. ``z`` is ``dL/dRe(z) + i dL/dIm(z)`` (the conjugate Wirtinger derivative,
times two)."""
from . import _args
import numpy as np

from .. import _dtype as D
from .._tensor import Tensor, _Mode
from ..autograd.graph import _named
from ._util import wrap, Node, register, record
from .._backend import array_module
from .view import make_view
from ._pointwise_common import _out, _w, _mask_zero


def _complex_of(np_real):
    return np.dtype(np.complex128) if np_real == np.float64 else np.dtype(np.complex64)


def _real_of(np_cplx):
    return np.dtype(np.float64) if np_cplx == np.complex128 else np.dtype(np.float32)


# ------------------------------------------------------------------ real / imag
class RealBackward0(Node):
    def backward(self, g):
        return g.to(self.cdt)


class ImagBackward0(Node):
    def backward(self, g):
        return g * 1j


_named(RealBackward0, 'SelectBackward0')   # PyTorch: view_as_real(z).select(-1, 0)
_named(ImagBackward0, 'SelectBackward0')


def real(input):
    """The real part of ``input``: a view sharing memory for complex tensors (``input``
    itself for real ones).

    Example::

        >>> z = ember.tensor([1 + 2j])
        >>> z.real
        tensor([1.])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'real')
    a = input._data
    if a.dtype.kind != 'c':
        return input
    node = RealBackward0() if _Mode.grad and input._rg else None
    if node is not None:
        node.cdt = input.dtype
    return make_view(input, a.real, node)


def imag(input):
    """The imaginary part of a complex ``input``, as a view sharing memory.

    Example::

        >>> ember.tensor([1 + 2j]).imag
        tensor([2.])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'imag')
    a = input._data
    if a.dtype.kind != 'c':
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    node = ImagBackward0() if _Mode.grad and input._rg else None
    return make_view(input, a.imag, node)


def _set_real(self, value):
    real(self).copy_(value) if isinstance(value, Tensor) else real(self).fill_(value)


def _set_imag(self, value):
    imag(self).copy_(value) if isinstance(value, Tensor) else imag(self).fill_(value)


register('real', method=False)(real)
register('imag', method=False)(imag)
Tensor.real = property(real, _set_real)
Tensor.imag = property(imag, _set_imag)


# ------------------------------------------------------------------ view_as_real / complex
class ViewAsRealBackward0(Node):
    def backward(self, g):
        return view_as_complex(g.contiguous())


class ViewAsComplexBackward0(Node):
    def backward(self, g):
        return view_as_real(g)


@register(method=False)
def view_as_real(input):
    """A real view of a complex tensor, with a trailing dimension of size 2 holding the real
    and imaginary parts.

    Example::

        >>> ember.view_as_real(ember.tensor([1 + 2j]))
        tensor([[1., 2.]])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'view_as_real')
    a = input._data
    if a.dtype.kind != 'c':
        raise RuntimeError("view_as_real is only supported for complex tensors")
    xp = array_module(a)
    r = a.real
    arr = xp.lib.stride_tricks.as_strided(r, a.shape + (2,), r.strides + (r.itemsize,))
    node = ViewAsRealBackward0() if _Mode.grad and input._rg else None
    return make_view(input, arr, node)


@register(method=False)
def view_as_complex(input):
    """A complex view of a float tensor whose last dimension has size 2 (real, imaginary).

    Example::

        >>> ember.view_as_complex(ember.tensor([[1., 2.]]))
        tensor([1.+2.j])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'view_as_complex')
    a = input._data
    if a.dtype not in (np.float32, np.float64):
        raise RuntimeError("view_as_complex is only supported for float and double tensors, "
                           f"but got a tensor of scalar type: {input.dtype}")
    if a.ndim == 0 or a.shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    isz = a.itemsize
    if a.size and any(s % (2 * isz) for s, n in zip(a.strides[:-1], a.shape[:-1]) if n > 1):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension")
    if a.size and a.strides[-1] != isz:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    if input.storage_offset() % 2:
        raise RuntimeError("Tensor must have a storage_offset divisible by 2")
    xp = array_module(a)
    cdt = _complex_of(a.dtype)
    # the pairs (re, im) as one complex element: view the last (contiguous) axis
    if a.size:
        pair = xp.lib.stride_tricks.as_strided(a, a.shape, a.strides)
        arr = pair.view(cdt)[..., 0]
    else:
        arr = xp.empty(a.shape[:-1], cdt)
    node = ViewAsComplexBackward0() if _Mode.grad and input._rg else None
    if a.size:
        return make_view(input, arr, node)
    res = wrap(arr)
    if node is not None:
        record(res, node, (input,))
    return res


# ------------------------------------------------------------------ conj
class ConjBackward0(Node):
    def backward(self, g):
        return g.conj()


class ConjPhysicalBackward0(Node):
    def backward(self, g):
        return g.conj_physical()


def _conj_copy(input, cls):
    a = input._data
    xp = array_module(a)
    res = _w(xp.conj(a), xp)
    if _Mode.grad and input._rg:
        record(res, cls(), (input,))
    return res


@register()
def conj(input):
    """The complex conjugate (``input`` itself for real tensors).

    NOTE: unlike PyTorch, which returns a lazy conjugated view sharing memory, ember returns
    a conjugated copy for complex tensors; ``is_conj()`` is always False.

    Example::

        >>> ember.conj(ember.tensor([1 + 2j]))
        tensor([1.-2.j])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'conj')
    if input._data.dtype.kind != 'c':
        return input
    return _conj_copy(input, ConjBackward0)


@register()
def conj_physical(input, *, out=None):
    """The complex conjugate, always computed (for real tensors: ``input`` itself, as
    PyTorch does).

    Example::

        >>> ember.conj_physical(ember.tensor([1 + 2j]))
        tensor([1.-2.j])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'conj_physical')
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'conj_physical', 'out', None)
    if input._data.dtype.kind != 'c':
        return input if out is None else _out(input.detach(), out, 'conj_physical')
    return _out(_conj_copy(input, ConjPhysicalBackward0), out, 'conj_physical')


def _conj_physical_(self):
    """In-place version of :func:`conj_physical`."""
    from ._inplace import inplace
    if self._data.dtype.kind != 'c':
        return self
    return inplace(self, conj_physical)


register('conj_physical_')(_conj_physical_)


@register()
def resolve_conj(input):
    """``input`` with any lazy conjugation materialised. Ember's ``conj`` is never lazy, so
    this returns ``input``.

    Example::

        >>> ember.resolve_conj(ember.tensor([1 + 2j]))
        tensor([1.+2.j])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'resolve_conj')
    return input


@register()
def resolve_neg(input):
    """``input`` with any lazy negation materialised (ember has none: returns ``input``).

    Example::

        >>> ember.resolve_neg(ember.tensor([1.]))
        tensor([1.])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'resolve_neg')
    return input


@register()
def is_conj(input):
    """Whether ``input`` is a lazily conjugated view. Always False in ember (see
    :func:`conj`).

    Example::

        >>> ember.tensor([1 + 2j]).conj().is_conj()
        False
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'is_conj')
    return False


@register()
def is_neg(input):
    """Whether ``input`` is a lazily negated view. Always False in ember.

    Example::

        >>> ember.tensor([1.]).is_neg()
        False
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'is_neg')
    return False


# ------------------------------------------------------------------ angle / polar / complex
class AngleBackward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        if x._data.dtype.kind != 'c':
            return g * 0
        # d arg(z): g * i z / |z|^2, zero at z = 0
        a2 = x.abs() ** 2
        return _mask_zero(g * x * 1j / a2, a2._data == 0)


@register()
def angle(input, *, out=None):
    """The argument (phase) of each element in radians: ``atan2(imag, real)``; for real
    inputs 0 or pi (integers give the default float dtype).

    Example::

        >>> ember.angle(ember.tensor([-1., 1.]))
        tensor([3.1416, 0.0000])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'angle')
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'angle', 'out', None)
    a = input._data
    xp = array_module(a)
    if a.dtype.kind == 'c':
        r = xp.angle(a)
    else:
        fa = a.astype(D._default_dtype._np) if a.dtype.kind in 'biu' else a
        r = xp.where(fa < 0, np.pi, xp.where(xp.isnan(fa), fa, 0)).astype(fa.dtype)
    res = _w(r, xp)
    if _Mode.grad and input._rg:
        record(res, AngleBackward0(), (input,), save=(input,))
    return _out(res, out, 'angle')


def _check_pair(name, a, b):
    if a.dtype != b.dtype:
        raise RuntimeError(f"Expected object of scalar type {_lname(a)} but got scalar type "
                           f"{_lname(b)} for second argument")
    if a.dtype not in (np.float16, np.float32, np.float64):
        raise RuntimeError(f"Expected both inputs to be Half, Float or Double tensors but got "
                           f"{_lname(a)} and {_lname(b)}")


def _lname(a):
    from .._tensor import _legacy_name
    return _legacy_name(D._NP2DT[a.dtype])


class ComplexBackward0(Node):
    def backward(self, g):
        n = self.needs
        return (real(g) if n[0] else None), (imag(g) if n[1] else None)


@register(method=False)
def complex(real, imag, *, out=None):
    """The complex tensor ``real + i * imag`` (both float tensors of one dtype).

    Example::

        >>> ember.complex(ember.tensor([1.]), ember.tensor([2.]))
        tensor([1.+2.j])
    """
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'complex', 'out', None)
    a, b = real._data, imag._data
    _check_pair('complex', a, b)
    xp = array_module(a)
    shape = np.broadcast_shapes(a.shape, b.shape)
    dt = _complex_of(a.dtype) if a.dtype != np.float16 else np.dtype(np.complex64)
    r = xp.empty(shape, dt)
    r.real = a
    r.imag = b
    res = wrap(r)
    if _Mode.grad and (real._rg or imag._rg):
        node = ComplexBackward0()
        record(res, node, (real, imag))
    return _out(res, out, 'complex')


class PolarBackward0(Node):
    def backward(self, g):
        r, th, res = self.saved_tensors
        n = self.needs
        ga = gt = None
        if n[0]:
            # d/d|z| of |z| e^{i th}: Re(g * conj(e^{i th}))
            ga = real(g * complex(th.cos(), -th.sin()))
        if n[1]:
            # d/dth: Re(g * conj(i |z| e^{i th})) = Re(g * conj(i res))
            ga_t = g * (res * 1j).conj()
            gt = real(ga_t)
        return ga, gt


@register(method=False)
def polar(abs, angle, *, out=None):
    """The complex tensor with magnitude ``abs`` and phase ``angle``:
    ``abs * (cos(angle) + i sin(angle))``.

    Example::

        >>> ember.polar(ember.tensor([2.]), ember.tensor([0.]))
        tensor([2.+0.j])
    """
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'polar', 'out', None)
    a, t = abs._data, angle._data
    _check_pair('polar', a, t)
    xp = array_module(a)
    dt = _complex_of(a.dtype)
    shape = np.broadcast_shapes(a.shape, t.shape)
    r = xp.empty(shape, dt)
    r.real = a * xp.cos(t)
    r.imag = a * xp.sin(t)
    res = wrap(r)
    if _Mode.grad and (abs._rg or angle._rg):
        node = PolarBackward0()
        record(res, node, (abs, angle), save=(abs, angle, res))
    return _out(res, out, 'polar')
