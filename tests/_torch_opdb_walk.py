"""Walk PyTorch's own test databases against ember (run by tests/test_torch_opdb.py in a
subprocess, since importing ``torch.testing._internal`` changes torch's process state: it
freezes ``torch.backends`` flags, patches TorchScript call paths, sets environment
variables and warning filters).

    python tests/_torch_opdb_walk.py [--full | --all-ops] [--ops NAME,...] [--modules]
                                     [--no-ops] [--json FILE]

(``--all-ops``: every op and module with the slice's dtypes; ``EMBER_OPDB_PROGRESS=1``
prints each op's time and first failure to stderr as the walk goes.)

For every ``OpInfo`` of ``torch.testing._internal.common_methods_invocations.op_db`` (and
the ``opinfo.definitions`` databases) and every supported CPU dtype (``--full``) or the CI
slice (a fixed hash-selected subset of ops, float64 plus one integer / bool dtype): each
sample input is converted to ember tensors (dtype, ``requires_grad`` and strides kept),
the ember op of the same name is called as a function, a method and in place, and its
values, dtype and shape are compared with torch's under torch's per-op tolerances; in
float64 / complex128 the gradients of every input under a random upstream gradient are
compared too; each ``error_input`` must raise torch's exception class. ``--modules`` walks
``common_modules.module_db``: both modules are built from the ``ModuleInput``'s
constructor arguments, torch's parameters and buffers are copied into ember's, and
outputs, input gradients and parameter gradients are compared.

The report is one JSON object: ``{key: [failure, ...]}`` per op / module walked (an empty
list: every sample agreed), with ``"missing: ..."`` as the one failure of an op ember lacks.
"""
import argparse
import contextlib
import json
import os
import sys
import time
import types
import unittest
import warnings
import zlib

os.environ.setdefault('OMP_NUM_THREADS', '1')

try:
    import expecttest  # noqa: F401
except ImportError:   # only torch.testing's TestCase base class needs it
    _m = types.ModuleType('expecttest')
    _m.TestCase = unittest.TestCase
    sys.modules['expecttest'] = _m

import numpy as np
import torch

import ember

torch.set_num_threads(1)

SLICE_MOD = 4          # the CI slice: ops whose crc32(key) % SLICE_MOD == 0
SLICE_INT = (torch.int64, torch.bool)
ALL_OPS = False        # --all-ops: every op, with the slice's dtypes
TOL = {torch.float16: (1e-3, 1e-5), torch.bfloat16: (1.6e-2, 1e-5),
       torch.float32: (1.3e-6, 1e-5), torch.complex64: (1.3e-6, 1e-5),
       torch.float64: (1e-7, 1e-7), torch.complex128: (1e-7, 1e-7)}
_EMBER_DT = {}
_T_TO_E = {}           # id(torch object) -> ember object of the same public name
_FN_MEMO = {}
_GLOBALS_MEMO = {}


# ops whose values torch leaves undefined (uninitialised memory): shape and dtype only
VALUES_UNDEFINED = {'empty', 'empty_like', 'new_empty', 'new_empty_strided', 'empty_strided',
                    'empty_permuted'}


def key_of(op):
    return op.name + ('.' + op.variant_test_name if op.variant_test_name else '')


def in_slice(key):
    return zlib.crc32(key.encode()) % SLICE_MOD == 0


# ---------------------------------------------------------------------------------------
# torch -> ember translation
# ---------------------------------------------------------------------------------------

def _ns_pairs():
    import ember.nn.functional as EF
    pairs = [(torch, ember), (torch.nn.functional, EF), (torch.Tensor, ember.Tensor)]
    for sub in ('linalg', 'special', 'fft', 'nn', 'nn.init', 'masked', 'signal.windows',
                'sparse', 'autograd', 'func'):
        t = torch
        for p in sub.split('.'):
            t = getattr(t, p)
        try:
            e = ember
            for p in sub.split('.'):
                e = getattr(e, p)
        except AttributeError:
            continue
        pairs.append((t, e))
    return pairs


def _build_map():
    for t, e in _ns_pairs():
        _T_TO_E[id(t)] = e
        for name in dir(t):
            try:
                tv = getattr(t, name)
            except Exception:  # noqa: BLE001
                continue
            if isinstance(tv, (int, float, str, bool, type(None))):
                continue
            ev = getattr(e, name, _MISSING)
            if ev is not _MISSING and id(tv) not in _T_TO_E:
                _T_TO_E[id(tv)] = ev
    for name in dir(torch):
        tv = getattr(torch, name, None)
        if isinstance(tv, torch.dtype):
            _EMBER_DT[tv] = getattr(ember, name, None)


class _Missing:
    def __repr__(self):
        return '<missing>'


_MISSING = _Missing()
_TESTING_PREFIX = 'torch.testing.'   # _internal, and _utils (wrapper_set_seed)


def translate(obj):
    """The ember counterpart of a torch callable, module or value used by an OpInfo."""
    e = _T_TO_E.get(id(obj), _MISSING)
    if e is not _MISSING:
        return e
    if isinstance(obj, types.ModuleType):
        name = obj.__name__
        if name == 'torch' or name.startswith('torch.'):
            e = ember
            try:
                for p in name.split('.')[1:]:
                    e = getattr(e, p)
            except AttributeError:
                return obj
            return e
        return obj
    if isinstance(obj, torch.dtype):
        return _EMBER_DT.get(obj) or obj
    if isinstance(obj, types.FunctionType):
        mod = obj.__module__ or ''
        if mod.startswith(_TESTING_PREFIX) or mod == '__main__':
            return _rebind(obj)
        return obj
    if isinstance(obj, torch._ops.OpOverloadPacket):
        try:
            return getattr(ember.ops.aten, obj._qualified_op_name.split('::')[1])
        except AttributeError:
            return _MISSING
    if isinstance(obj, torch._ops.OpOverload):
        try:
            pk = getattr(ember.ops.aten, obj._schema.name.split('::')[1])
            return getattr(pk, obj._overloadname)
        except AttributeError:
            return _MISSING
    if type(obj).__name__ == 'partial':
        import functools
        f = translate(obj.func)
        if f is _MISSING:
            return _MISSING
        return functools.partial(f, *[convert(a) for a in obj.args],
                                 **{k: convert(v) for k, v in obj.keywords.items()})
    return obj


def _rebind(f):
    """``f`` with torch replaced by ember in its globals and closure (recursively for the
    helpers it calls from torch.testing's modules)."""
    if id(f) in _FN_MEMO:
        return _FN_MEMO[id(f)][1]
    g = _translated_globals(f.__globals__)
    closure = None
    if f.__closure__:
        closure = tuple(types.CellType(_cell(c)) for c in f.__closure__)
    nf = types.FunctionType(f.__code__, g, f.__name__, f.__defaults__, closure)
    nf.__kwdefaults__ = f.__kwdefaults__
    _FN_MEMO[id(f)] = (f, nf)
    return nf


def _cell(c):
    try:
        v = c.cell_contents
    except ValueError:
        return None
    return translate(v)


_SKIP_GLOBALS = {'make_tensor', 'SampleInput', 'ErrorInput', 'partial', 'np', 'numpy',
                 'math', 'itertools', 'functools', 'product'}


def _translated_globals(gl):
    k = id(gl)
    if k in _GLOBALS_MEMO:
        return _GLOBALS_MEMO[k]
    ng = dict(gl)
    _GLOBALS_MEMO[k] = ng
    for name, v in gl.items():
        if name.startswith('__') or name in _SKIP_GLOBALS:
            continue
        if name == 'freeze_rng_state':
            ng[name] = _freeze_ember_rng
            continue
        if isinstance(v, (types.ModuleType, types.BuiltinFunctionType, torch.dtype)) or \
                id(v) in _T_TO_E:
            ng[name] = translate(v)
        elif isinstance(v, types.FunctionType):
            mod = v.__module__ or ''
            if mod.startswith(_TESTING_PREFIX):
                ng[name] = _LazyRebind(v)
    for name, v in list(ng.items()):
        if isinstance(v, _LazyRebind):
            ng[name] = _rebind(v.f)
    return ng


@contextlib.contextmanager
def _freeze_ember_rng():
    """torch.testing's freeze_rng_state, for ember's generator."""
    st = ember.get_rng_state()
    try:
        yield
    finally:
        ember.set_rng_state(st)


class _LazyRebind:
    __slots__ = ('f',)

    def __init__(self, f):
        self.f = f


def resolve(op, kind):
    """The ember callable for the OpInfo's function / method / in-place variant."""
    if kind == 'function':
        t = op.op
    elif kind == 'method':
        t = op.method_variant
    else:
        t = op.inplace_variant
    if t is None:
        return None
    e = translate(t)
    if e is not t and e is not _MISSING:
        return e
    if e is _MISSING:
        return _MISSING
    # not found by identity: look the OpInfo's name up in ember's namespaces
    name = op.name
    if kind == 'function':
        obj = ember
        try:
            for p in name.split('.'):
                obj = getattr(obj, p)
            return obj
        except AttributeError:
            return _MISSING
    meth = name.split('.')[-1] + ('_' if kind == 'inplace' else '')
    return getattr(ember.Tensor, meth, _MISSING)


# ---------------------------------------------------------------------------------------
# values
# ---------------------------------------------------------------------------------------

def _to_numpy(t):
    t = t.detach().resolve_conj().resolve_neg()
    if t.dtype == torch.bfloat16:
        import ml_dtypes
        return t.float().numpy().astype(ml_dtypes.bfloat16)
    return t.numpy()


def convert(x):
    """A torch value (tensor, dtype, nested container) as ember's: tensors keep their dtype,
    ``requires_grad`` and, where they are non-contiguous, their strides."""
    if isinstance(x, torch.Tensor):
        got = _SAME.get(id(x))
        if got is not None and got[0] is x:     # one torch tensor passed twice: one ember
            return got[1]                       # tensor (gradients add up as in torch)
        e = _convert_fresh(x)
        _SAME[id(x)] = (x, e)
        return e
    return _convert_other(x)


_SAME = {}


def _convert_fresh(x):
    if x.layout != torch.strided:
        raise _Unsupported(f'layout {x.layout}')
    if x.dtype in (torch.complex32,) or x.dtype not in _EMBER_DT or _EMBER_DT[x.dtype] is None:
        raise _Unsupported(f'dtype {x.dtype}')
    if x.device.type != 'cpu':
        raise _Unsupported(f'device {x.device}')
    try:
        return _convert_tensor(x)
    except _Unsupported:
        raise
    except Exception as ex:  # noqa: BLE001 - e.g. more than 64 dims for numpy
        raise _Unsupported(str(ex)) from None


def _convert_tensor(x):
    rg = x.requires_grad
    x = x.detach()
    if x.is_conj() or x.is_neg():      # the storage does not hold these bits
        x = x.resolve_conj().resolve_neg()
    st_bytes = x.untyped_storage().nbytes()
    if (not x.is_contiguous() or x.storage_offset() or st_bytes != x.numel() * x.element_size()) \
            and x.numel() > 0 and x.dtype != torch.bfloat16 and all(s >= 0 for s in x.stride()):
        # the same strides over a copy of the whole storage (as_strided reads the storage)
        st = x.untyped_storage()
        base = torch.empty(0, dtype=x.dtype).set_(st, 0, (st.nbytes() // x.element_size(),))
        eb = ember.from_numpy(_to_numpy(base).copy())
        e = ember.as_strided(eb, tuple(x.shape), tuple(x.stride()), x.storage_offset())
    else:
        e = ember.from_numpy(np.array(_to_numpy(x), copy=True))
        if x.dtype == torch.bfloat16 and e.dtype != ember.bfloat16:
            e = e.to(ember.bfloat16)
    if rg:
        e.requires_grad_(True)
    return e


def _convert_other(x):
    if isinstance(x, tuple):
        if type(x) is not tuple and hasattr(x, '_fields'):
            return type(x)(*[convert(v) for v in x])
        return tuple(convert(v) for v in x)
    if isinstance(x, list):
        return [convert(v) for v in x]
    if isinstance(x, dict):
        return {k: convert(v) for k, v in x.items()}
    if isinstance(x, torch.dtype):
        return _EMBER_DT.get(x) or x
    if isinstance(x, torch.device):
        return ember.device(str(x))
    if isinstance(x, torch.Size):
        return ember.Size(tuple(x))
    if isinstance(x, torch.memory_format):
        return getattr(ember, str(x).split('.')[-1])
    if isinstance(x, torch.layout):
        lay = getattr(ember, str(x).split('.')[-1], None)
        if lay is None:
            raise _Unsupported(f'layout {x}')
        return lay
    if isinstance(x, torch.Generator):
        g = ember.Generator()
        g.manual_seed(x.initial_seed())
        return g
    if isinstance(x, torch.nn.Module):      # a torch module as an argument: not converted
        raise _Unsupported(f'torch module {type(x).__name__}')
    if callable(x) and not isinstance(x, type):
        return translate(x)
    return x


class _Unsupported(Exception):
    pass


def _tensors(x):
    if isinstance(x, (torch.Tensor, ember.Tensor)):
        return [x]
    if isinstance(x, (tuple, list)):
        return [t for v in x for t in _tensors(v)]
    if isinstance(x, dict):
        return [t for v in x.values() for t in _tensors(v)]
    return []


def _dname(d):
    return str(d).split('.')[-1]


def compare(e, t, rtol, atol, path='out'):
    """None when ember's ``e`` equals torch's ``t``, else a description."""
    if isinstance(t, torch.Tensor):
        if not isinstance(e, ember.Tensor):
            return f'{path}: ember gave {type(e).__name__}, torch a Tensor'
        if tuple(e.shape) != tuple(t.shape):
            return f'{path}: shape {tuple(e.shape)} != {tuple(t.shape)}'
        if _dname(e.dtype) != _dname(t.dtype):
            return f'{path}: dtype {_dname(e.dtype)} != {_dname(t.dtype)}'
        if t.layout != torch.strided:
            return None
        a = e.detach().numpy(force=True) if e.dtype is not ember.bfloat16 else \
            e.detach().float().numpy()
        b = t.detach().resolve_conj().resolve_neg()
        if b._is_zerotensor():
            b = torch.zeros(b.shape, dtype=b.dtype)
        b = b.float().numpy() if b.dtype == torch.bfloat16 else b.numpy()
        if a.dtype.kind in 'biu':
            if not np.array_equal(a, b):
                bad = np.argwhere(a != b)[:1]
                return f'{path}: values differ (first at {bad.tolist()})'
            return None
        rt, at = TOL.get(t.dtype, (0, 0))
        rt, at = max(rt, rtol), max(at, atol)
        a64 = a.astype(np.complex128 if a.dtype.kind == 'c' else np.float64)
        b64 = b.astype(a64.dtype)
        ok = np.isclose(a64, b64, rtol=rt, atol=at, equal_nan=True)
        if not ok.all():
            i = tuple(np.argwhere(~ok)[0])
            return (f'{path}: values differ at {list(i)}: ember {a64[i]!r} torch {b64[i]!r} '
                    f'({int((~ok).sum())}/{ok.size}, rtol={rt:g} atol={at:g})')
        return None
    if isinstance(t, (tuple, list)):
        if not isinstance(e, (tuple, list)):
            return f'{path}: ember gave {type(e).__name__}, torch a sequence'
        if len(e) != len(t):
            return f'{path}: length {len(e)} != {len(t)}'
        for i, (a, b) in enumerate(zip(e, t)):
            r = compare(a, b, rtol, atol, f'{path}[{i}]')
            if r:
                return r
        return None
    if isinstance(t, torch.dtype):
        return None if _dname(e) == _dname(t) else f'{path}: {e} != {t}'
    if isinstance(t, torch.Size):
        return None if tuple(e) == tuple(t) else f'{path}: {tuple(e)} != {tuple(t)}'
    if isinstance(t, (bool, int)) and not isinstance(t, bool) and isinstance(e, ember.Tensor):
        return f'{path}: ember gave a Tensor, torch {type(t).__name__}'
    if isinstance(t, float):
        try:
            if np.isclose(float(e), t, rtol=max(rtol, 1e-6), atol=max(atol, 1e-6),
                          equal_nan=True):
                return None
        except Exception:  # noqa: BLE001
            pass
        return f'{path}: {e!r} != {t!r}'
    try:
        if e == t:
            return None
    except Exception:  # noqa: BLE001
        pass
    return f'{path}: {e!r} != {t!r}'


def compare_meta(e, t):
    """Shape and dtype only."""
    if not isinstance(e, ember.Tensor):
        return f'out: ember gave {type(e).__name__}, torch a Tensor'
    if tuple(e.shape) != tuple(t.shape):
        return f'out: shape {tuple(e.shape)} != {tuple(t.shape)}'
    if _dname(e.dtype) != _dname(t.dtype):
        return f'out: dtype {_dname(e.dtype)} != {_dname(t.dtype)}'
    return None


def tolerances(op, dtype):
    """torch's own tolerance overrides for this op and dtype (its TestCommon / TestGradients
    decorators), the defaults of assert_close otherwise."""
    rt, at = 0.0, 0.0
    for d in getattr(op, 'decorators', ()) or ():
        if getattr(d, 'cls_name', None) not in (None, 'TestCommon', 'TestGradients'):
            continue
        for dec in getattr(d, 'decorators', ()) or ():
            od = getattr(dec, 'd', None)
            if isinstance(od, dict) and dtype in od:
                rt = max(rt, od[dtype].rtol)
                at = max(at, od[dtype].atol)
    return rt, at


# ---------------------------------------------------------------------------------------
# the walk
# ---------------------------------------------------------------------------------------

def _call(fn, inp, args, kwargs):
    return fn(inp, *args, **kwargs)


def _summ(x, n=160):
    s = f'{type(x).__name__}: {x}'
    s = s.replace('\n', ' ')
    return s if len(s) <= n else s[:n] + '...'


def _grads(outs, ins, mod, rng):
    gs = []
    for o in outs:
        g = rng.standard_normal(tuple(o.shape))
        if o.is_complex():
            g = g + 1j * rng.standard_normal(tuple(o.shape))
        gs.append(np.asarray(g))
    return gs


def _upstream(mod, garr, o):
    if mod is torch:
        return torch.from_numpy(garr.copy()).to(o.dtype)
    return ember.from_numpy(garr.copy()).to(o.dtype)


def _outs_for_grad(out, fn_grad):
    if fn_grad is not None:
        out = fn_grad(out)
    return [o for o in _tensors(out) if o.requires_grad and
            (o.is_floating_point() or o.is_complex())]


def run_sample(op, dtype, s, kinds, grad, failures, seed):
    rtol, atol = tolerances(op, dtype)
    _SAME.clear()
    try:
        e_inp, e_args, e_kw = convert(s.input), convert(s.args), convert(s.kwargs)
    except _Unsupported:
        return
    fn_grad = s.output_process_fn_grad
    for kind, efn in kinds:
        tfn = {'function': op.op, 'method': op.method_variant,
               'inplace': op.inplace_variant}[kind]
        ti = s.input
        ei = e_inp
        if kind == 'inplace':
            if not isinstance(ti, torch.Tensor):
                continue
            ti = ti.detach().clone()
            ei = _convert_fresh(ti)
        torch.manual_seed(seed)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter('ignore')
                rt = _call(tfn, ti, s.args, s.kwargs)
        except Exception:  # noqa: BLE001 - torch's sample does not run here (CPU build)
            continue
        ember.manual_seed(seed)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter('ignore')
                re = _call(efn, ei, e_args, e_kw)
        except Exception as ex:  # noqa: BLE001
            failures.append(f'{kind} {_dname(dtype)}: raised {_summ(ex)}  [{_sample_desc(s)}]')
            return
        r = compare(re, rt, rtol, atol) if op.name not in VALUES_UNDEFINED else \
            compare_meta(re, rt)
        if r:
            failures.append(f'{kind} {_dname(dtype)}: {r}  [{_sample_desc(s)}]')
            if kind != 'function' or not grad:
                return
            grad_only = True     # the gradients are still compared (e.g. eigenvectors
        else:                    # differ by a sign, the processed gradient must not)
            grad_only = False
        if kind == 'inplace' and not grad_only:
            r = compare(ei, ti, rtol, atol, 'self')
            if r:
                failures.append(f'{kind} {_dname(dtype)}: {r}  [{_sample_desc(s)}]')
                return
        if grad and kind == 'function':
            r = check_grads(op, s, rt, re, e_inp, e_args, e_kw, rtol, atol, dtype)
            if r:
                failures.append(f'backward {_dname(dtype)}: {r}  [{_sample_desc(s)}]')
                return
        if grad_only:
            return


def _sample_desc(s):
    def d(x):
        if isinstance(x, torch.Tensor):
            nc = '' if x.is_contiguous() else ' nc'
            return f'T{tuple(x.shape)}{nc}'
        if isinstance(x, (tuple, list)):
            return '(' + ', '.join(d(v) for v in x) + ')'
        if isinstance(x, dict):
            return '{' + ', '.join(f'{k}={d(v)}' for k, v in x.items()) + '}'
        return repr(x)
    r = d(s.input)
    if s.args:
        r += ', ' + ', '.join(d(a) for a in s.args)
    if s.kwargs:
        r += ', ' + ', '.join(f'{k}={d(v)}' for k, v in s.kwargs.items())
    return r[:200]


def check_grads(op, s, rt, re, e_inp, e_args, e_kw, rtol, atol, dtype):
    fg = s.output_process_fn_grad
    try:
        outs_t = _outs_for_grad(rt, fg)
    except Exception:  # noqa: BLE001
        return None
    if not outs_t:
        return None
    try:
        outs_e = _outs_for_grad(re, _rebind(fg) if isinstance(fg, types.FunctionType) else fg)
    except Exception as ex:  # noqa: BLE001
        return f'output_process_fn_grad raised {_summ(ex)}'
    ins_t = [t for t in _tensors((s.input, s.args, s.kwargs)) if t.requires_grad]
    ins_e = [t for t in _tensors((e_inp, e_args, e_kw)) if t.requires_grad]
    if len(outs_e) != len(outs_t):
        return f'{len(outs_e)} differentiable outputs, torch {len(outs_t)}'
    if len(ins_e) != len(ins_t):
        return f'{len(ins_e)} inputs require grad, torch {len(ins_t)}'
    rng = np.random.default_rng(0)
    garrs = _grads(outs_t, ins_t, torch, rng)
    try:
        gt = torch.autograd.grad(outs_t, ins_t, [_upstream(torch, g, o) for g, o in
                                                 zip(garrs, outs_t)], allow_unused=True)
    except Exception:  # noqa: BLE001
        return None
    try:
        ge = ember.autograd.grad(outs_e, ins_e, [_upstream(ember, g, o) for g, o in
                                                 zip(garrs, outs_e)], allow_unused=True)
    except Exception as ex:  # noqa: BLE001
        return f'ember backward raised {_summ(ex)}'
    grtol, gatol = tolerances_grad(op, dtype, rtol, atol)
    for i, (a, b) in enumerate(zip(ge, gt)):
        if b is None:
            if a is not None and a.detach().abs().sum().item() != 0:
                return f'grad[{i}]: torch None, ember nonzero'
            continue
        if a is None:
            if b.detach().abs().sum().item() == 0:
                continue
            return f'grad[{i}]: ember None, torch has a gradient'
        r = compare(a, b, grtol, gatol, f'grad[{i}]')
        if r:
            return r
    return None


def tolerances_grad(op, dtype, rtol, atol):
    return max(rtol, 1e-7), max(atol, 1e-7)


def run_errors(op, failures):
    if op.error_inputs_func is None:
        return
    try:
        eis = list(op.error_inputs(torch.device('cpu')))
    except Exception:  # noqa: BLE001
        return
    try:
        efn = resolve(op, 'function')
    except Exception:  # noqa: BLE001
        return
    if efn is None or efn is _MISSING:
        return
    for ei in eis:
        s = ei.sample_input
        if not _torch_raises(op, s):    # not an error on this torch build: nothing to match
            continue
        _SAME.clear()
        try:
            a, b, c = convert(s.input), convert(s.args), convert(s.kwargs)
        except _Unsupported:
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter('ignore')
                efn(a, *b, **c)
        except Exception as ex:  # noqa: BLE001
            if not _same_kind(ex, ei.error_type):
                failures.append(f'error_input: raised {_summ(ex, 120)}; torch '
                                f'{ei.error_type.__name__} /{ei.error_regex}/  [{_sample_desc(s)}]')
            continue
        failures.append(f'error_input: ember did not raise; torch '
                        f'{ei.error_type.__name__} /{ei.error_regex}/  [{_sample_desc(s)}]')


def _torch_raises(op, s):
    """Whether torch's own op raises on error input ``s`` (a few error inputs of op_db do
    not raise on the CPU build)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            op.op(s.input, *s.args, **s.kwargs)
    except Exception:  # noqa: BLE001
        return True
    return False


def _same_kind(ex, et):
    if isinstance(ex, et):
        return True
    names = {c.__name__ for c in type(ex).__mro__}
    return et.__name__ in names


def walk_ops(full, only=None, time_budget=None):
    from torch.testing._internal.common_methods_invocations import op_db
    from torch.testing._internal.opinfo import definitions as D
    ops, seen = [], set()
    for db in [op_db] + [getattr(getattr(D, m), 'op_db', []) for m in
                         ('linalg', 'special', 'fft', 'signal', '_masked', 'sparse')]:
        for o in db:
            if id(o) not in seen:
                seen.add(id(o))
                ops.append(o)
    report = {}
    timing = {}
    for op in ops:
        key = key_of(op)
        if only is not None:
            if key not in only and op.name not in only:
                continue
        elif not full and not ALL_OPS and not in_slice(key):
            continue
        t0 = time.perf_counter()
        try:
            report[key] = walk_op(op, full)
        except Exception as ex:  # noqa: BLE001 - the harness itself
            report[key] = [f'harness: {_summ(ex)}']
        timing[key] = round(time.perf_counter() - t0, 3)
        if os.environ.get('EMBER_OPDB_PROGRESS'):
            print(key, timing[key], report[key][:1], file=sys.stderr, flush=True)
    return report, timing


def walk_op(op, full):
    failures = []
    try:
        dts = op.supported_dtypes('cpu')
    except Exception:  # noqa: BLE001
        dts = op.dtypes
    dts = [d for d in dts if d in _EMBER_DT and _EMBER_DT[d] is not None]
    if not full:
        pick = [d for d in (torch.float64,) if d in dts] or \
               [d for d in (torch.float32, torch.complex128) if d in dts][:1]
        pick += [d for d in SLICE_INT if d in dts][:1]
        dts = pick
    kinds = []
    for kind in ('function', 'method', 'inplace'):
        try:
            e = resolve(op, kind)
        except Exception:  # noqa: BLE001
            e = _MISSING
        if e is None:
            continue
        if e is _MISSING:
            if kind == 'function':
                return [f'missing: ember has no {op.name}']
            failures.append(f'missing: ember has no {kind} variant of {op.name}')
            continue
        kinds.append((kind, e))
    for dtype in sorted(dts, key=str):
        grad = op.supports_autograd and dtype in (torch.float64, torch.complex128)
        try:
            samples = list(op.sample_inputs('cpu', dtype, requires_grad=grad))
        except Exception:  # noqa: BLE001
            continue
        n0 = len(failures)
        for i, s in enumerate(samples):
            try:
                run_sample(op, dtype, s, kinds, grad, failures, seed=i)
            except Exception as ex:  # noqa: BLE001 - the harness itself
                failures.append(f'harness {_dname(dtype)}: {_summ(ex)}')
            if len(failures) - n0 >= 2:
                break
        if len(failures) >= 8:
            break
    run_errors(op, failures)
    return failures


# ---------------------------------------------------------------------------------------
# module_db
# ---------------------------------------------------------------------------------------

def module_key(mi):
    return mi.name if hasattr(mi, 'name') else mi.module_cls.__name__


def walk_modules(full, only=None):
    from torch.testing._internal.common_modules import module_db
    report, timing = {}, {}
    for mi in module_db:
        key = module_key(mi)
        if only is not None:
            if key not in only:
                continue
        elif not full and not ALL_OPS and not in_slice(key):
            continue
        t0 = time.perf_counter()
        report[key] = walk_module(mi, full)
        timing[key] = round(time.perf_counter() - t0, 3)
    return report, timing


def _ember_module_cls(cls):
    name = cls.__qualname__
    mod = cls.__module__.replace('torch', 'ember', 1)
    try:
        m = __import__(mod, fromlist=['x'])
        return getattr(m, name)
    except (ImportError, AttributeError):
        return getattr(ember.nn, cls.__name__, None)


def walk_module(mi, full):
    failures = []
    ecls = _ember_module_cls(mi.module_cls)
    if ecls is None:
        return [f'missing: ember has no {module_key(mi)}']
    dts = [torch.float64]
    if full:
        dts = [d for d in mi.supported_dtypes('cpu') if d in (torch.float32, torch.float64)]
    for dtype in dts:
        for training in (True, False):
            try:
                mis = mi.module_inputs_func(mi, device='cpu', dtype=dtype,
                                            requires_grad=True, training=training)
            except Exception:  # noqa: BLE001
                continue
            for i, m_in in enumerate(mis):
                try:
                    r = run_module_input(mi, ecls, m_in, dtype, training, i)
                except Exception as ex:  # noqa: BLE001
                    r = f'harness: {_summ(ex)}'
                if r:
                    failures.append(f'{_dname(dtype)} train={training} [{m_in.desc}]: {r}')
                    if len(failures) >= 3:
                        return failures
    return failures


def run_module_input(mi, ecls, m_in, dtype, training, seed):
    ca, ck = m_in.constructor_input.args, m_in.constructor_input.kwargs
    torch.manual_seed(seed)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            mt = mi.module_cls(*ca, **ck).to(dtype)
    except Exception:  # noqa: BLE001
        return None
    mt.train(training)
    _SAME.clear()
    try:
        eca, eck = convert(ca), convert(ck)
        fa, fk = m_in.forward_input.args, m_in.forward_input.kwargs
        efa, efk = convert(fa), convert(fk)
    except _Unsupported:
        return None
    ember.manual_seed(seed)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            me = ecls(*eca, **eck).to(_EMBER_DT[dtype])
    except Exception as ex:  # noqa: BLE001
        return f'constructor raised {_summ(ex)}'
    me.train(training)
    fa, fk = m_in.forward_input.args, m_in.forward_input.kwargs
    if getattr(mi, 'is_lazy', False):    # materialise the parameters on both sides first
        try:
            with warnings.catch_warnings():
                warnings.simplefilter('ignore')
                mt(*fa, **fk)
        except Exception:  # noqa: BLE001
            return None
        try:
            with warnings.catch_warnings():
                warnings.simplefilter('ignore')
                me(*efa, **efk)
        except Exception as ex:  # noqa: BLE001
            return f'lazy forward raised {_summ(ex)}'
    sd = {k: convert(v.detach()) for k, v in mt.state_dict().items()}
    try:
        me.load_state_dict(sd, strict=True)
    except Exception as ex:  # noqa: BLE001
        return f'load_state_dict of torch\'s parameters raised {_summ(ex)}'
    torch.manual_seed(seed)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            ot = mt(*fa, **fk)
    except Exception:  # noqa: BLE001
        return None
    ember.manual_seed(seed)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            oe = me(*efa, **efk)
    except Exception as ex:  # noqa: BLE001
        return f'forward raised {_summ(ex)}'
    rt, at = (1e-5, 1e-6) if dtype == torch.float64 else (1e-3, 1e-4)
    r = compare(oe, ot, rt, at)
    if r:
        return 'forward ' + r
    bufs_t = dict(mt.named_buffers())
    for k, v in me.named_buffers():
        if k in bufs_t and bufs_t[k] is not None and v is not None:
            r = compare(v, bufs_t[k], rt, at, f'buffer {k}')
            if r:
                return r
    outs_t = [o for o in _tensors(ot) if o.requires_grad]
    outs_e = [o for o in _tensors(oe) if o.requires_grad]
    if len(outs_t) != len(outs_e):
        return f'{len(outs_e)} differentiable outputs, torch {len(outs_t)}'
    if not outs_t:
        return None
    ins_t = [t for t in _tensors((fa, fk)) if t.requires_grad] + list(mt.parameters())
    ins_e = [t for t in _tensors((efa, efk)) if t.requires_grad] + list(me.parameters())
    if len(ins_t) != len(ins_e):
        return f'{len(ins_e)} grad inputs/parameters, torch {len(ins_t)}'
    rng = np.random.default_rng(seed)
    garrs = _grads(outs_t, ins_t, torch, rng)
    try:
        gt = torch.autograd.grad(outs_t, ins_t, [_upstream(torch, g, o) for g, o in
                                                 zip(garrs, outs_t)], allow_unused=True)
    except Exception:  # noqa: BLE001
        return None
    try:
        ge = ember.autograd.grad(outs_e, ins_e, [_upstream(ember, g, o) for g, o in
                                                 zip(garrs, outs_e)], allow_unused=True)
    except Exception as ex:  # noqa: BLE001
        return f'backward raised {_summ(ex)}'
    names = ['input'] * (len(ins_t) - len(list(mt.parameters()))) + \
        [n for n, _ in mt.named_parameters()]
    for n, a, b in zip(names, ge, gt):
        if b is None:
            continue
        if a is None:
            return f'grad of {n}: ember None'
        r = compare(a, b, rt, at, f'grad of {n}')
        if r:
            return r
    return None


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument('--full', action='store_true')
    p.add_argument('--ops', default=None)
    p.add_argument('--modules', action='store_true')
    p.add_argument('--no-ops', action='store_true')
    p.add_argument('--json', default=None)
    p.add_argument('--all-ops', action='store_true',
                   help="every op and module, with the CI slice's dtypes")
    a = p.parse_args(argv)
    global ALL_OPS
    ALL_OPS = a.all_ops
    _build_map()
    only = set(a.ops.split(',')) if a.ops else None
    out = {'ops': {}, 'modules': {}, 'timing': {}}
    if not a.no_ops:
        out['ops'], t = walk_ops(a.full, only)
        out['timing'].update(t)
    if a.modules:
        out['modules'], t = walk_modules(a.full, only)
        out['timing'].update(t)
    s = json.dumps(out, indent=1, sort_keys=True)
    if a.json:
        with open(a.json, 'w') as f:
            f.write(s)
    else:
        print(s)


if __name__ == '__main__':
    main()
