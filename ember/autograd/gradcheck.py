"""``gradcheck`` / ``gradgradcheck``: compare analytical gradients (from the backward
graph) with numerical ones (central finite differences), in double precision."""
import warnings

import numpy as np

__all__ = ['gradcheck', 'gradgradcheck', 'GradcheckError']


class GradcheckError(RuntimeError):
    """Raised by :func:`gradcheck` and :func:`gradgradcheck` when a check fails."""


def _as_tuple(x):
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _is_tensor(x):
    from .._tensor import Tensor
    return isinstance(x, Tensor)


def _host(a):
    return a if type(a) is np.ndarray else a.get()


def _eval(func, inputs):
    """Output arrays (host copies) of the tensor outputs of ``func(*inputs)``."""
    outs = _as_tuple(func(*inputs))
    return [np.array(_host(o._data), copy=True) if _is_tensor(o) else None for o in outs]


def _numerical(func, inputs, idx, eps):
    """Per output k: array (numel_out, numel_in) of d out / d Re(x) (and d / d Im(x) for a
    complex input), by central differences on input ``inputs[idx]``."""
    x = inputs[idx]
    arr = x._data
    n = arr.size
    is_c = arr.dtype.kind == 'c'
    base_outs = _eval(func, inputs)
    d_re = [None if o is None else np.zeros((o.size, n), dtype=np.result_type(o.dtype, np.float64))
            for o in base_outs]
    d_im = [None if o is None else np.zeros_like(d) for o, d in zip(base_outs, d_re)] \
        if is_c else None
    for j in range(n):
        pos = np.unravel_index(j, arr.shape)
        orig = arr[pos].copy()
        for part, dst in ((1, d_re), (1j, d_im)):
            if dst is None:
                continue
            arr[pos] = orig + part * eps
            plus = _eval(func, inputs)
            arr[pos] = orig - part * eps
            minus = _eval(func, inputs)
            arr[pos] = orig
            for k, (p, m) in enumerate(zip(plus, minus)):
                if p is None:
                    continue
                dst[k][:, j] = ((p.astype(dst[k].dtype) - m.astype(dst[k].dtype)) /
                                (2 * eps)).reshape(-1)
    return d_re, d_im


def _analytical(outputs, k, diff_idx, inputs, nondet_tol, check_grad_dtypes):
    """Rows of the analytical vector-Jacobian products of output ``k``: for every output
    element and every unit upstream gradient (1, and 1j for complex outputs), the gradients
    of all differentiable inputs (flattened). Returns ({part: [array per input]}, error)."""
    from ._backward import grad as _grad
    from .._tensor import _new_tensor
    from .._backend import array_module
    o = outputs[k]
    xp = array_module(o._data)
    parts = (1, 1j) if o._data.dtype.kind == 'c' else (1,)
    ins = [inputs[i] for i in diff_idx]
    res = {p: [np.zeros((o.numel(), t.numel()), dtype=t._data.dtype) for t in ins]
           for p in parts}
    for p in parts:
        for e in range(o.numel()):
            go = xp.zeros(o._data.shape, o._data.dtype)
            go.reshape(-1)[e] = p
            grads = _grad(o, ins, _new_tensor(go), retain_graph=True, allow_unused=True)
            if e == 0:
                again = _grad(o, ins, _new_tensor(go.copy()), retain_graph=True,
                              allow_unused=True)
                for g1, g2 in zip(grads, again):
                    if g1 is not None and g2 is not None and np.max(
                            np.abs(_host(g1._data) - _host(g2._data)), initial=0) > nondet_tol:
                        return None, ("Backward is not reentrant, i.e., running backward with "
                                      "same input and grad_output multiple times gives "
                                      "different values, although analytical gradient matches "
                                      "numerical gradient.The tolerance for nondeterminism was "
                                      f"{nondet_tol}.")
            for i, (t, g) in enumerate(zip(ins, grads)):
                if g is None:
                    continue
                if tuple(g.shape) != tuple(t.shape):
                    return None, "Gradient has incorrect size"
                if check_grad_dtypes and g.dtype != t.dtype:
                    return None, "Gradient has dtype mismatch"
                res[p][i][e] = _host(g._data).reshape(-1)
    return res, None


def _fmt(a):
    """An (n_in, n_out) Jacobian as a tensor, for messages."""
    from .._ops.creation import tensor
    return tensor(np.ascontiguousarray(a.T))


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
              check_batched_grad=False, check_batched_forward_grad=False, check_forward_ad=False,
              check_backward_ad=True, fast_mode=False, masked=None):
    """Check the gradients of ``func`` at ``inputs`` against central finite differences.

    Every output element's vector-Jacobian product (through :func:`ember.autograd.grad`)
    is compared with the numerical Jacobian, for every input with ``requires_grad=True``:
    ``|analytical - numerical| <= atol + rtol * |numerical|``. Complex inputs and outputs
    are checked on their real and imaginary parts (PyTorch's conjugate-Wirtinger
    convention).

    Args:
        func: a function of tensors returning a tensor or a tuple of tensors.
        inputs (Tensor or tuple): the inputs; use float64 / complex128 tensors.
        eps (float): finite-difference step.
        atol (float): absolute tolerance.
        rtol (float): relative tolerance.
        raise_exception (bool): raise :class:`GradcheckError` on failure (else return False).
        nondet_tol (float): tolerance for non-determinism of backward.
        check_grad_dtypes (bool): also require gradients to have the inputs' dtypes.

    Returns:
        True if the check passes.

    NOTE: unlike PyTorch, ``fast_mode``, ``check_forward_ad``, ``check_batched_grad`` and
    ``check_undefined_grad`` are accepted and ignored (the full slow check always runs), and
    reentrancy is checked on the first element of each output only.

    Example::

        >>> x = ember.randn(3, dtype=ember.float64, requires_grad=True)
        >>> ember.autograd.gradcheck(lambda t: (t * t).sum(), (x,))
        True
    """
    tupled = _as_tuple(inputs)
    diff_idx = [i for i, t in enumerate(tupled) if _is_tensor(t) and t.requires_grad]
    if not diff_idx:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but "
                         "none of them have requires_grad=True.")
    for i in diff_idx:
        t = tupled[i]
        if t.dtype._name not in ('float64', 'complex128'):
            warnings.warn(f"Input #{i} requires gradient and is not a double precision floating "
                          "point or complex. This check will likely fail if all the inputs are "
                          "not of double precision floating point or complex. ", UserWarning,
                          stacklevel=2)
        if any(s == 0 and n > 1 for s, n in zip(t.stride(), t.shape)):
            raise RuntimeError(f"The {i}th input has a dimension with stride 0. gradcheck only "
                               "supports inputs that are non-overlapping to be able to compute "
                               "the numerical gradients correctly. You should call .contiguous "
                               "on the input before passing it to gradcheck.")

    def fail(msg):
        if raise_exception:
            raise GradcheckError(msg)
        return False

    outputs = _as_tuple(func(*tupled))
    numeric = {i: _numerical(func, tupled, i, eps) for i in diff_idx}
    for k, o in enumerate(outputs):
        if not _is_tensor(o):
            continue
        if not o.requires_grad:
            if o._data.dtype.kind in 'fc':
                for i in diff_idx:
                    d_re, d_im = numeric[i]
                    if np.any(d_re[k] != 0) or (d_im is not None and np.any(d_im[k] != 0)):
                        return fail("Numerical gradient for function expected to be zero")
            continue
        if not check_backward_ad:
            continue
        ana, err = _analytical(outputs, k, diff_idx, tupled, nondet_tol, check_grad_dtypes)
        if err is not None:
            return fail(err)
        for pos, i in enumerate(diff_idx):
            d_re, d_im = numeric[i]
            for p, rows in ana.items():
                a = rows[pos]
                # numerical vjp with upstream unit p: Re(conj(p) * dY/dRe x) (+ i Re(... Im x))
                n = np.real(np.conj(p) * d_re[k])
                if d_im is not None:
                    n = n + 1j * np.real(np.conj(p) * d_im[k])
                if not np.allclose(a, n, rtol=rtol, atol=atol, equal_nan=False):
                    prefix = ("While considering the imaginary part of complex outputs only, "
                              if p == 1j else "")
                    return fail(f"{prefix}Jacobian mismatch for output {k} with respect to "
                                f"input {i},\nnumerical:{_fmt(n)!r}\nanalytical:{_fmt(a)!r}\n")
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
                  check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False,
                  masked=False):
    """Check second derivatives: :func:`gradcheck` of the map
    ``(inputs, grad_outputs) -> autograd.grad(func(inputs), inputs, grad_outputs,
    create_graph=True)``.

    Args:
        func: a function of tensors returning a tensor or a tuple of tensors.
        inputs (Tensor or tuple): the inputs (float64 / complex128).
        grad_outputs (Tensor or tuple, optional): upstream gradients; random (fixed seed)
            when omitted.
        eps, atol, rtol, raise_exception, nondet_tol: as for :func:`gradcheck`.

    Example::

        >>> x = ember.randn(3, dtype=ember.float64, requires_grad=True)
        >>> ember.autograd.gradgradcheck(lambda t: t * t * t, (x,))
        True
    """
    from ._backward import grad as _grad
    from .._tensor import _new_tensor
    from .._backend import array_module
    tupled = _as_tuple(inputs)
    if grad_outputs is None:
        outs = _as_tuple(func(*tupled))
        rng = np.random.default_rng(0)
        gos = []
        for o in outs:
            if not (_is_tensor(o) and o.requires_grad):
                continue
            shape, dt = o._data.shape, o._data.dtype
            v = rng.uniform(-1, 1, shape)
            if dt.kind == 'c':
                v = v + 1j * rng.uniform(-1, 1, shape)
            g = _new_tensor(array_module(o._data).asarray(v.astype(dt)))
            g.requires_grad_(True)
            gos.append(g)
        tupled_go = tuple(gos)
    else:
        tupled_go = _as_tuple(grad_outputs)
    n_go = len(tupled_go)
    diff_idx = [i for i, t in enumerate(tupled) if _is_tensor(t) and t.requires_grad]

    def new_func(*args):
        ins = args[:len(args) - n_go] if n_go else args
        gos = args[len(args) - n_go:] if n_go else ()
        outs = [o for o in _as_tuple(func(*ins)) if _is_tensor(o) and o.requires_grad]
        dins = [ins[i] for i in diff_idx]
        gs = _grad(outs, dins, list(gos), create_graph=True, allow_unused=True)
        return tuple(g for g in gs if g is not None)

    return gradcheck(new_func, tupled + tupled_go, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol,
                     check_undefined_grad=check_undefined_grad,
                     check_grad_dtypes=check_grad_dtypes, fast_mode=fast_mode)
