"""The generic oracle harness: every (op, dtype, sample) of tests/_ops/opdb.py is run on
ember and on torch.

* torch raises -> ember raises the same exception type;
* else values, dtypes and shapes equal torch's; for floating dtypes the gradients of every
  floating input under a random upstream gradient equal torch's (a torch backward that
  raises must raise in ember too);
* ``test_gradcheck``: float64 finite differences on a few small samples per entry.
"""
import warnings

import numpy as np
import pytest
import torch

import ember
from oracle import _make, _flat_tensors, check, gradcheck_ember
from _ops.opdb import OPS, FLOAT, F64, C128, Maker, seed_of

GRAD_DTYPES = FLOAT + (C128,)

pytestmark = pytest.mark.filterwarnings('ignore')

_TENSORS = (torch.Tensor, ember.Tensor)


def _bind(op, s):
    """``(f, args)``: ``f(m, *tensors)`` calls the op; array keyword args travel as trailing
    positional args so that they become tensors (and get gradients) too."""
    fn = op.fn
    kw = {k: v for k, v in s.kw.items() if not isinstance(v, np.ndarray)}
    akeys = [k for k, v in s.kw.items() if isinstance(v, np.ndarray)]
    args = list(s.args) + [s.kw[k] for k in akeys]
    n = len(s.args)
    pre = s.pre == 't'
    ref = s.ref

    def f(m, *a):
        g = ref if ref is not None and m is torch else fn    # a documented torch quirk
        if pre:
            a = [x.mT if isinstance(x, _TENSORS) and x.dim() >= 2 else x for x in a]
        if akeys:
            return g(m, *a[:n], **kw, **dict(zip(akeys, a[n:])))
        return g(m, *a, **kw)
    return f, args


def _samples(op, dtype):
    return list(op.samples(Maker(dtype, seed_of(op.name, dtype))))


def _run(f, mod, args, grad, finite=False):
    """Forward (and, with ``grad``, a backward under ones) of ``f``; returns
    (phase, exception): phase is 'forward' or 'backward' where it raised, else None.
    With ``finite``, a non-finite output counts as a forward failure."""
    ins = _make(mod, args, grad)
    try:
        out = f(mod, *ins)
    except Exception as e:  # noqa: BLE001 - any exception type is compared
        return 'forward', e
    if finite and not all(bool(o.detach().isfinite().all()) for o in _flat_tensors(out)):
        return 'forward', None
    if grad:
        outs = [o for o in _flat_tensors(out) if o.requires_grad]
        leaves = [t for t in ins if isinstance(t, _TENSORS) and t.requires_grad]
        if outs and leaves:
            try:
                mod.autograd.grad(outs, leaves, [mod.ones_like(o) for o in outs],
                                  allow_unused=True)
            except Exception as e:  # noqa: BLE001
                return 'backward', e
    return None, None


def _same_kind(ee, et):
    return isinstance(ee, type(et)) or type(et).__name__ == type(ee).__name__ or \
        issubclass(type(et), type(ee))


def _params():
    out = []
    for op in OPS:
        for dt in op.dtypes:
            for i, s in enumerate(_samples(op, dt)):
                out.append(pytest.param(op, dt, s, id=f'{op.name}-{dt}-{i}:{s.desc}'))
    return out


@pytest.mark.parametrize('op,dtype,s', _params())
def test_op(op, dtype, s):
    f, args = _bind(op, s)
    grad = op.grad and s.grad and dtype in GRAD_DTYPES
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        phase, et = _run(f, torch, args, grad)
        if phase is not None:
            ph_e, ee = _run(f, ember, args, grad)
            assert ee is not None, \
                f"ember did not raise (torch raised in {phase}: {type(et).__name__}: {et})"
            assert ph_e == phase, f"ember raised in {ph_e}, torch in {phase}: {ee!r} / {et!r}"
            assert _same_kind(ee, et), \
                f"ember raised {type(ee).__name__}: {ee}; torch {type(et).__name__}: {et}"
            if phase == 'backward':   # the forward itself must still agree
                check(f, args, grad=False, rtol=s.rtol or op.rtol, atol=s.atol or op.atol)
            return
        check(f, args, grad=grad, rtol=s.rtol or op.rtol, atol=s.atol or op.atol)


def _small(s):
    arrs = [a for a in list(s.args) + list(s.kw.values())
            if isinstance(a, np.ndarray) and a.dtype.kind in 'fc']
    return arrs and all(a.size for a in arrs) and sum(a.size for a in arrs) <= 40


def _gc_params():
    out = []
    for op in OPS:
        dt = C128 if C128 in op.dtypes else F64
        if not (op.grad and op.gradcheck) or not any(d in op.dtypes for d in GRAD_DTYPES):
            continue
        n = 0
        for i, s in enumerate(_samples(op, dt)):
            if n >= op.gc_max or not (s.grad and s.gc and _small(s)):
                continue
            f, args = _bind(op, s)
            with warnings.catch_warnings():
                warnings.simplefilter('ignore')
                if _run(f, torch, args, True, finite=True)[0] is not None:
                    continue          # torch raises (covered by test_op) or non-finite
            out.append(pytest.param(op, s, id=f'{op.name}-{i}:{s.desc}'))
            n += 1
    return out


@pytest.mark.parametrize('op,s', _gc_params())
def test_gradcheck(op, s):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        f, args = _bind(op, s)
        gradcheck_ember(f, args)


def test_database_covers_issue_ops():
    """Every op named in issue 2 section 3 has an entry."""
    names = {op.name.split(':')[0].split('.')[-1].rstrip('_') for op in OPS}
    names |= {op.name.split(':')[0] for op in OPS}
    wanted = """index_select masked_select masked_fill masked_scatter gather scatter
        scatter_add scatter_reduce index_add index_copy index_fill index_put take
        take_along_dim put where nonzero argwhere add sub mul div floor_divide remainder fmod
        pow float_power neg abs sign sgn sqrt rsqrt square reciprocal exp exp2 expm1 log log2
        log10 log1p sin cos tan asin acos atan sinh cosh tanh asinh acosh atanh atan2 hypot
        sigmoid logit erf erfc erfinv lgamma digamma polygamma xlogy floor ceil round trunc
        frac clamp clip maximum minimum fmax fmin lerp addcmul addcdiv logaddexp logaddexp2
        copysign heaviside nan_to_num deg2rad rad2deg relu eq ne lt le gt ge isnan isinf
        isfinite isclose allclose equal logical_and logical_or logical_xor logical_not
        bitwise_and bitwise_or bitwise_xor bitwise_not bitwise_left_shift bitwise_right_shift
        sum mean nansum nanmean prod max min amax amin aminmax argmax argmin std var std_mean
        var_mean norm logsumexp all any count_nonzero median nanmedian mode quantile cumsum
        cumprod cummax cummin logcumsumexp topk sort argsort kthvalue msort unique
        unique_consecutive bincount histc searchsorted bucketize diff matmul mm bmm mv dot
        vdot inner outer addmm addmv addbmm baddbmm einsum tensordot kron cross trace tril
        triu diag diag_embed diagflat vector_norm matrix_norm inv det slogdet solve cholesky
        qr svd svdvals eigh eigvalsh pinv lstsq matrix_power matrix_rank cat concat
        concatenate stack hstack vstack dstack column_stack flip fliplr flipud roll rot90
        repeat repeat_interleave tile meshgrid cartesian_prod atleast_1d atleast_2d atleast_3d
        block_diag tril_indices triu_indices broadcast_tensors broadcast_shapes""".split()
    assert not [n for n in wanted if n not in names]
