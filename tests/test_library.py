"""``ember.library`` / ``ember.ops`` against ``torch.library`` / ``torch.ops``: schema
inference, custom ops with kernels, fake kernels on meta tensors, autograd formulas,
mutation, aliasing errors, ``Library.define``/``impl`` and the ``ops`` namespace."""
import itertools
from typing import List, Optional, Sequence, Tuple

import numpy as np
import pytest
import torch

import ember

torch.set_num_threads(1)
pytestmark = pytest.mark.filterwarnings('ignore')
_ids = itertools.count()


def _name(base):
    """A fresh operator name (operators are registered once per process)."""
    return f"emtest::{base}_{next(_ids)}"


def _sigs(m):
    T = m.Tensor

    def f1(x: T, y: Optional[T], n: int, s: float = 1.0, flag: bool = False,
           name: str = 'a') -> T: ...

    def f2(x: T, out: T, *, alpha: float = 2.5, k: Optional[int] = None) -> None: ...

    def f3(xs: List[T], ns: Sequence[int], fs: List[float], d: m.dtype,
           dev: m.device) -> Tuple[T, T]: ...

    def f4(x: T) -> List[T]: ...

    def f5(x: T, a: T, b: T) -> int: ...

    def f6(x: T, n: int = -3, s: float = 1e-5, t: float = 0.1) -> float: ...

    def f7(x: T, b: bool = True, o: Optional[float] = None,
           mm: Optional[List[int]] = None) -> bool: ...
    return [(f1, ()), (f2, {'out'}), (f3, ()), (f4, ()), (f5, ('a', 'b')), (f6, ()),
            (f7, ()), (f1, 'unknown')]


@pytest.mark.parametrize('i', range(8))
def test_infer_schema_like_torch(i):
    fe, me = _sigs(ember)[i]
    ft, mt = _sigs(torch)[i]
    assert ember.library.infer_schema(fe, mutates_args=me) == \
        torch.library.infer_schema(ft, mutates_args=mt)
    assert ember.library.infer_schema(fe, mutates_args=me, op_name='foo') == \
        torch.library.infer_schema(ft, mutates_args=mt, op_name='foo')


def _bad_sigs(m):
    T = m.Tensor

    def varargs(x: T, *args) -> T: ...

    def noann(x) -> T: ...

    def noret(x: T): ...

    def baddef(x: T, xs: List[T] = ()) -> T: ...

    def ok(x: T, n: int) -> T: ...
    return [(varargs, ()), (noann, ()), (noret, ()), (baddef, ()), (ok, {'zz'}),
            (ok, {'n'}), (ok, 'bad')]


@pytest.mark.parametrize('i', range(7))
def test_infer_schema_errors_like_torch(i):
    msgs = []
    for m in (ember, torch):
        f, mut = _bad_sigs(m)[i]
        with pytest.raises(ValueError) as e:
            m.library.infer_schema(f, mutates_args=mut)
        msgs.append(str(e.value).split(' Got func')[0])
    assert msgs[0] == msgs[1]


def _make_sin(m, name, autograd=True, fake=True):
    T = m.Tensor

    @m.library.custom_op(name, mutates_args=())
    def op(x: T, scale: float = 1.0) -> T:
        return x.sin() * scale
    if fake:
        @op.register_fake
        def _(x, scale=1.0):
            return m.empty_like(x)
    if autograd:
        def setup_context(ctx, inputs, output):
            x, scale = inputs
            ctx.save_for_backward(x)
            ctx.scale = scale

        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * x.cos() * ctx.scale, None
        op.register_autograd(backward, setup_context=setup_context)
    return op


def test_custom_op_values_grads_and_ops_namespace():
    x = np.random.default_rng(0).standard_normal(5)
    res = []
    name = _name('sinx')           # the same name in both libraries' registries
    for m in (ember, torch):
        op = _make_sin(m, name)
        t = m.tensor(x, requires_grad=True)
        y = op(t, 2.0)
        y.sum().backward()
        ns, short = name.split('::')
        packet = getattr(getattr(m.ops, ns), short)
        z = packet.default(m.tensor(x), scale=3.0)
        meta = op(m.empty(2, 3, device='meta'))
        res.append((repr(op).replace(m.__name__, 'M'), type(y.grad_fn).__name__,
                    y.detach().numpy(), t.grad.numpy(), z.numpy(), repr(packet),
                    repr(packet.default), str(packet), str(packet.default), tuple(meta.shape),
                    meta.device.type, op(m.tensor(x)).requires_grad))
    e, t = res
    assert e[0].replace('ember', 'torch') == t[0].replace('ember', 'torch')
    assert e[1] == t[1] and e[5:] == t[5:]
    for a, b in zip(e[2:5], t[2:5]):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_custom_op_gradcheck():
    op = _make_sin(ember, _name('gc'))
    x = ember.tensor(np.random.default_rng(1).standard_normal(4), requires_grad=True)
    assert ember.autograd.gradcheck(lambda a: op(a, 1.5), (x,))


def test_missing_autograd_and_fake_like_torch():
    msgs = []
    for m in (ember, torch):
        name = _name('noag')
        op = _make_sin(m, name, autograd=False, fake=False)
        y = op(m.ones(2, requires_grad=True))
        assert y.requires_grad
        with pytest.raises(RuntimeError) as e:
            y.sum().backward()
        msg = str(e.value).replace(name.split('::')[1], 'OP')
        with pytest.raises(RuntimeError) as e2:
            op(m.empty(2, device='meta'))
        msgs.append((msg, 'no fake impl registered' in str(e2.value)))
    assert msgs[0] == msgs[1]


def test_mutation_bumps_versions_and_aliasing_errors():
    out = []
    for m in (ember, torch):
        T = m.Tensor

        @m.library.custom_op(_name('addv'), mutates_args={'x'})
        def addv(x: T, v: float) -> None:
            x.add_(v)

        @m.library.custom_op(_name('alias'), mutates_args=())
        def alias(x: T) -> T:
            return x.view(-1)

        @m.library.custom_op(_name('twice'), mutates_args=())
        def twice(x: T) -> Tuple[T, T]:
            y = x * 2
            return y, y
        t = m.zeros(2)
        v0 = t._version
        r = addv(t, 1.5)
        errs = []
        for f in (alias, twice):
            with pytest.raises(RuntimeError) as e:
                f(m.ones(2))
            errs.append(str(e.value).split(': ', 1)[1])
        out.append((r, t.tolist(), t._version - v0, errs))
    assert out[0] == out[1]


def test_register_functions_by_name_and_kernels():
    for m in (ember, torch):
        name = _name('k')
        T = m.Tensor

        @m.library.custom_op(name, mutates_args=(), device_types='cpu')
        def k(x: T) -> T:
            return x + 1
        assert k(m.zeros(1)).tolist() == [1.0]
        m.library.register_kernel(name, 'cpu', lambda x: x + 10)
        assert k(m.zeros(1)).tolist() == [10.0]
        m.library.register_fake(name)(lambda x: m.empty_like(x))
        assert k(m.empty(3, device='meta')).shape == (3,)
        m.library.register_autograd(name, lambda ctx, g: g * 5)
        x = m.ones(2, requires_grad=True)
        k(x).sum().backward()
        assert x.grad.tolist() == [5.0, 5.0]


def test_library_define_impl_like_torch():
    res = []
    for m in (ember, torch):
        ns = f"emlib{next(_ids)}"
        lib = m.library.Library(ns, 'DEF')
        q = lib.define("scale(Tensor x, float a=2.0) -> Tensor")
        with pytest.raises(NotImplementedError) as e:
            getattr(getattr(m.ops, ns), 'scale')(m.ones(2))
        first = str(e.value)[:120]
        lib.impl('scale', lambda x, a=2.0: x * a, 'CPU')
        x = m.ones(2, requires_grad=True)
        y = getattr(m.ops, ns).scale(x)
        y.sum().backward()              # the kernel's own ops are recorded
        m.library.define(f"{ns}::neg2", "(Tensor x) -> Tensor", lib=lib)
        m.library.impl(f"{ns}::neg2", "cpu", lambda x: -2 * x, lib=lib)
        with pytest.raises(RuntimeError) as e2:
            m.library.Library(ns, 'DEF')
        with pytest.raises(AttributeError) as e3:
            getattr(m.ops, ns).nope
        res.append((q.replace(ns, 'NS') if q else q, first.replace(ns, 'NS'), y.tolist(),
                    x.grad.tolist(), getattr(m.ops, ns).neg2(m.ones(1)).tolist(),
                    str(e2.value)[:60].replace(ns, 'NS'), str(e3.value).replace(ns, 'NS')))
        lib._destroy()
    assert res[0][1:] == res[1][1:]


def test_aten_namespace():
    a, b = np.array([1., -2.]), np.array([3., 4.])
    for name, args in (('add', (a, b)), ('mul', (a, b)), ('relu', (a,)), ('sum', (a,))):
        e = getattr(ember.ops.aten, name)(*map(ember.tensor, args))
        t = getattr(torch.ops.aten, name)(*map(torch.tensor, args))
        np.testing.assert_allclose(e.numpy(), t.numpy())
    for f in (repr, str):
        assert f(ember.ops.aten.add) == f(torch.ops.aten.add)
        assert f(ember.ops.aten.add.Tensor) == f(torch.ops.aten.add.Tensor)
    assert ember.ops.aten.add.Tensor(ember.ones(1), ember.ones(1)).tolist() == [2.0]
    with pytest.raises(AttributeError):
        ember.ops.aten.no_such_op_anywhere


def test_schema_defaults_and_missing_arguments_like_torch():
    res = []
    for m in (ember, torch):
        lib = m.library.Library(f"emkw{next(_ids)}", 'DEF')
        lib.define("f(Tensor x, float a, float b=2.5, *, str s=\"x\") -> Tensor")
        seen = []

        def kern(*args, **kw):          # records what the dispatcher passes
            seen.append((args[1:], kw))
            x, a = args[:2]
            return x * a + (args[2] if len(args) > 2 else 2.5)
        lib.impl('f', kern, 'CPU')
        op = getattr(m.ops, lib.ns).f
        r = [op(m.ones(1), 3.0).tolist(), op(m.ones(1), 3.0, b=1.0, s='y').tolist(),
             op(m.ones(1), 3.0, 2.5, s='x').tolist()]
        with pytest.raises(RuntimeError) as e:
            op(m.ones(1), b=5.0)
        r.append((seen, str(e.value).replace(lib.ns, 'NS')))
        res.append(r)
        lib._destroy()
    assert res[0] == res[1]


def test_ops_load_library_like_torch(tmp_path):
    """``ops.load_library`` loads a plain shared library (recording its real path), and
    raises torch's OSError for one it cannot load: a missing file, and (ember) a library
    built against libtorch, such as torchvision's compiled operators."""
    import ctypes.util
    import glob
    import os
    missing = str(tmp_path / 'nope.so')
    for m in (ember, torch):
        with pytest.raises(OSError, match='Could not load this library: .*nope.so'):
            m.ops.load_library(missing)
    assert isinstance(ember.ops.loaded_libraries, set)
    libm = ctypes.util.find_library('m')
    cands = [p for d in ('/lib/x86_64-linux-gnu', '/usr/lib/x86_64-linux-gnu', '/lib64', '/usr/lib')
             for p in glob.glob(os.path.join(d, libm or 'libm.so.6'))]
    assert cands, 'no libm found'
    link = tmp_path / 'libm_link.so'
    os.symlink(cands[0], link)
    before = set(ember.ops.loaded_libraries)
    try:
        ember.ops.load_library(str(link))
        assert ember.ops.loaded_libraries - before == {os.path.realpath(cands[0])}
    finally:
        ember.ops.loaded_libraries.clear()
        ember.ops.loaded_libraries.update(before)
    torch_lib = os.path.join(os.path.dirname(torch.__file__), 'lib', 'libaoti_custom_ops.so')
    if not os.path.exists(torch_lib):
        torch_lib = os.path.join(os.path.dirname(torch.__file__), 'lib', 'libtorch.so')
    with pytest.raises(OSError, match='Could not load this library') as info:
        ember.ops.load_library(torch_lib)
    assert 'libtorch' in str(info.value.__cause__)
    assert os.path.realpath(torch_lib) not in ember.ops.loaded_libraries
