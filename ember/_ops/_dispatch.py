"""The seam: the one place through which a public op call is observed.

Every public op (``ember.<name>``, ``Tensor.<name>`` and its dunders, ``ember.linalg.*``,
``ember.nn.functional.*``) has two bindings over the same op body:

* the *direct* binding is the op body itself. It is installed while nothing observes
  ops, so a call costs no more than the body (principle 6: the hot path is lean);
* the *observing* binding is a wrapper made here. It is installed, for every namespace at
  once, while anything must see op calls: a Tensor subclass or tensor-like type with
  ``__torch_function__``, an active :class:`ember.overrides.TorchFunctionMode`, an
  interceptor such as autocast's argument casts or the profiler's recorder.

The observing wrapper of an op runs, in this order:

1. ``__torch_function__`` handling (PyTorch's extension protocol): the innermost
   TorchFunctionMode of the calling thread, then the overloaded arguments (subclasses
   before their bases, otherwise left to right), unless disabled in this thread by
   ``DisableTorchFunction`` / ``DisableTorchFunctionSubclass``;
2. the interceptors (``push_interceptor``), outermost first, each around the next:
   ``fn(name, call, args, kwargs)`` must return ``call(*args, **kwargs)`` or a
   replacement;
3. the op body, which records the autograd node through ``_util.record`` (grad_fn
   name, edges, saved tensors through the active saved-tensor hooks) and writes
   ``out=`` through ``_util.write_out``.

Bindings are swapped process-wide (``_activate``/``_deactivate``, reference counted by
reason), while the state that decides what a wrapper does (mode stack, disable flags)
is per thread, as in PyTorch: a mode entered in one thread is not seen by another.
"""
import sys
import threading
import weakref

from .._tensor import Tensor, _bind, _convert, _disabled_torch_function_impl

__all__ = ['push_interceptor', 'push_arg_transform', 'observing', 'public_functions']


class _ThreadState(threading.local):
    """Per-thread dispatch state (class attributes are each new thread's defaults)."""
    modes = ()            # TorchFunctionMode stack, innermost last
    no_tf = 0             # DisableTorchFunction depth: no modes, no subclass handling
    no_subclass = 0       # DisableTorchFunctionSubclass depth: modes only
    one_hop = False       # redispatch_function's skip: one unit of no_tf, given back by
                          # the next check (see ``consume_hop``)


_tls = _ThreadState()
_lock = threading.RLock()
_reasons = {}             # reason -> count; bindings observe while any is positive
_observing = False
_interceptors = []        # outermost first
_wrappers = {}            # (id(raw), namespace) -> wrapper
_raw_of = {}              # id(wrapper) -> raw

# namespaces whose public functions are ops, and the module name their wrappers report
_FUNCTION_NAMESPACES = ('ember', 'ember.linalg', 'ember.nn.functional', 'ember.special',
                        'ember.fft')
_NOT_OPS = frozenset({
    # functions of those namespaces that PyTorch does not route through __torch_function__
    'is_tensor', 'is_storage', 'set_default_dtype', 'get_default_dtype', 'manual_seed',
    'seed', 'initial_seed', 'get_rng_state', 'set_rng_state', 'set_printoptions', 'save',
    'load', 'no_grad', 'enable_grad', 'set_grad_enabled', 'inference_mode',
    'is_grad_enabled', 'is_inference_mode_enabled', 'is_anomaly_enabled',
    'is_anomaly_check_nan_enabled', 'set_anomaly_enabled', 'promote_types', 'result_type',
    'can_cast', 'compile', 'get_num_threads', 'set_num_threads', 'use_deterministic_algorithms',
    'are_deterministic_algorithms_enabled', 'set_default_device', 'get_default_device',
    'set_float32_matmul_precision', 'get_float32_matmul_precision', 'is_autocast_enabled',
    'typename', 'from_numpy', 'frombuffer', 'is_nonzero'})


def consume_hop(tls):
    """Called by a ``__torch_function__`` check that found handling disabled: when the
    disable is ``redispatch_function``'s one-hop skip, ends it, so that the calls made
    inside the skipped function dispatch again."""
    if tls.one_hop:
        tls.one_hop = False
        tls.no_tf -= 1


def observing():
    """True while the observing bindings are installed."""
    return _observing


# ----------------------------------------------------------------- the wrapper
_NOTHING = object()


def _overloaded(args, kwargs):
    """The arguments whose type takes part in ``__torch_function__`` dispatch, one per
    type, subclasses before their bases, otherwise in argument order (PyTorch's rule);
    lists and tuples of arguments are looked into one level deep."""
    Tensor, _disabled_torch_function_impl = _TENSOR or _tensor_and_disabled()
    found = None
    for seq in (args, kwargs.values() if kwargs else ()):
        for a in seq:
            c = a.__class__
            if c is Tensor or c is int or c is float or c is bool or a is None:
                continue
            if c is list or c is tuple:
                for b in a:
                    bc = b.__class__
                    if bc is not Tensor and bc is not int and bc is not float and \
                            _participates(bc, Tensor, _disabled_torch_function_impl):
                        found = _add_overloaded(found, b)
                continue
            if _participates(c, Tensor, _disabled_torch_function_impl):
                found = _add_overloaded(found, a)
    return found


_TENSOR = None      # (Tensor, _disabled_torch_function_impl), set on first use


def _tensor_and_disabled():
    global _TENSOR
    from .._tensor import Tensor, _disabled_torch_function_impl
    _TENSOR = (Tensor, _disabled_torch_function_impl)
    return _TENSOR


def _participates(c, Tensor, disabled):
    tf = getattr(c, '__torch_function__', None)
    if tf is None:
        return False
    impl = getattr(tf, '__func__', tf)
    return impl is not disabled and not (c is Tensor)


def _add_overloaded(found, a):
    if found is None:
        return [a]
    c = type(a)
    if any(type(f) is c for f in found):
        return found
    for i, f in enumerate(found):   # a subclass goes before its first base in the list
        if issubclass(c, type(f)):
            found.insert(i, a)
            return found
    found.append(a)
    return found


def _types_of(overloaded):
    return tuple(type(a) for a in overloaded) if overloaded else ()


def _handle(public, args, kwargs, overloaded):
    """Run ``__torch_function__`` for ``public``: the calling thread's innermost mode,
    then the overloaded arguments. Returns ``_NOTHING`` when no handler took the call."""
    tls = _tls
    kw = kwargs if kwargs else {}
    modes = tls.modes
    if modes:
        mode = modes[-1]
        tls.modes = modes[:-1]     # the mode is not active inside its own handler
        try:
            r = mode.__torch_function__(public, _types_of(overloaded), args, kw)
        finally:
            tls.modes = modes
        if r is not NotImplemented:
            return r
    if overloaded:
        for a in overloaded:
            r = type(a).__torch_function__(public, _types_of(overloaded), args, kw)
            if r is not NotImplemented:
                return r
        kinds = ''.join(f"\n  - {'tensor subclass' if isinstance(a, _tensor_cls()) else 'type'} "
                        f"{type(a)}" for a in overloaded)
        raise TypeError(f"Multiple dispatch failed for '{_qualname(public)}'; all "
                        f"__torch_function__ handlers returned NotImplemented:\n{kinds}")
    if modes:
        raise TypeError(f"no implementation found for '{_qualname(public)}' on the active "
                        f"TorchFunctionMode {type(modes[-1]).__name__}")
    return _NOTHING


def _tensor_cls():
    from .._tensor import Tensor
    return Tensor


def _qualname(f):
    mod = getattr(f, '__module__', None) or ''
    mod = 'torch' + mod[5:] if mod.startswith('ember') else mod
    return f"{mod}.{getattr(f, '__qualname__', getattr(f, '__name__', f))}"


def _intercepted(name, fn, args, kwargs):
    chain = tuple(_interceptors)

    def call_at(i):
        if i == len(chain):
            return fn

        def call(*a, **k):
            return chain[i](name, call_at(i + 1), a, k)
        return call
    return call_at(0)(*args, **kwargs)


def _make_wrapper(raw, name, module, qualname):
    def op(*args, **kwargs):
        tls = _tls
        if not tls.no_tf:
            if tls.modes:
                r = _handle(op, args, kwargs,
                            None if tls.no_subclass else _overloaded(args, kwargs))
                if r is not _NOTHING:
                    return r
            elif not tls.no_subclass:
                ov = _overloaded(args, kwargs)
                if ov is not None:
                    return _handle(op, args, kwargs, ov)
        elif tls.one_hop:
            consume_hop(tls)
        if _interceptors:
            return _intercepted(name, raw, args, kwargs)
        if _lingering:
            _linger_tick()
        return raw(*args, **kwargs)
    op.__name__ = name if name.startswith('__') else (
        'linalg_' + name if module == 'ember.linalg' else getattr(raw, '__name__', name))
    op.__qualname__ = qualname
    op.__module__ = module
    op.__doc__ = getattr(raw, '__doc__', None)
    op.__wrapped__ = raw
    op._ember_op = name
    return op


# ----------------------------------------------------------------- the bindings
def _op_name(raw, attr):
    if attr.startswith('__'):
        return getattr(raw, '__name__', attr)
    return attr


def public_functions(modname):
    """``{attr: function}`` of the op functions a namespace module exposes (bound
    directly or through their wrapper)."""
    mod = sys.modules.get(modname)
    if mod is None:
        return {}
    from . import _util
    ops = {id(f) for f in _util.FUNCTIONS.values()}
    out = {}
    for attr, v in list(vars(mod).items()):
        if attr.startswith('_') or attr in _NOT_OPS or not callable(v) or isinstance(v, type):
            continue
        raw = _raw_of.get(id(v), v)
        m = getattr(raw, '__module__', '') or ''
        if modname == 'ember':
            if id(raw) not in ops:
                continue
        elif not (m.startswith('ember._ops') or m == modname):
            continue
        if not hasattr(raw, '__code__') and not hasattr(raw, '__wrapped__'):
            continue
        out[attr] = v
    return out


_NOT_METHOD_OPS = frozenset({'as_subclass', 'register_hook', 'register_post_accumulate_grad_hook',
                             'retain_grad', 'backward', 'tolist', 'item', 'numpy',
                             'data_ptr', 'storage', 'untyped_storage', 'dim', 'ndimension',
                             'numel', 'nelement', 'element_size', 'is_contiguous',
                             'is_floating_point', 'is_complex', 'stride', 'storage_offset',
                             'get_device', 'type', 'size'})


def _method_items():
    import types
    from .._tensor import Tensor
    from . import _util
    for attr, fn in _util.METHODS.items():
        cur = Tensor.__dict__.get(attr)
        if cur is fn or (cur is not None and _raw_of.get(id(cur)) is fn):
            yield attr, cur
    for attr, cur in list(Tensor.__dict__.items()):
        if attr[0] == '_' or attr in _util.METHODS or attr in _NOT_METHOD_OPS:
            continue
        if isinstance(cur, types.FunctionType):
            yield attr, cur


_bindings = None       # [(namespace or Tensor, attr, raw function, its wrapper)]
_bindings_key = None


def _bindings_state():
    """What the binding list depends on: which namespaces are loaded and how many names
    they (and Tensor, and the op registry) hold."""
    from .._tensor import Tensor
    from . import _util
    key = [len(Tensor.__dict__), len(_util.METHODS), len(_util.FUNCTIONS)]
    for modname in _FUNCTION_NAMESPACES:
        mod = sys.modules.get(modname)
        key.append(-1 if mod is None else len(vars(mod)))
    return tuple(key)


_others = ()   # [(namespace dict, attr, value)]: its public callables that are not ops


def _collect_bindings():
    global _others
    from .._tensor import Tensor
    out = []
    others = []
    for modname in _FUNCTION_NAMESPACES:
        mod = sys.modules.get(modname)
        if mod is None:
            continue
        d = vars(mod)
        ops = public_functions(modname)
        for attr, v in ops.items():
            raw = _raw_of.get(id(v), v)
            out.append((d, mod, attr, raw, _wrapper_for(raw, attr, modname, attr)))
        for attr, v in list(d.items()):
            if attr not in ops and attr[:1] != '_' and callable(v):
                others.append((d, attr, v))
    _others = others
    td = Tensor.__dict__
    for attr, cur in list(_method_items()):
        raw = _raw_of.get(id(cur), cur)
        out.append((td, Tensor, attr, raw, _wrapper_for(raw, attr, 'ember', f'Tensor.{attr}')))
    return out


def _install(observe):
    """Bind every op of the namespaces and Tensor to its observing wrapper (``observe``)
    or to the plain function. The list of bindings is collected once and reused while
    the namespaces are unchanged, so switching costs one pass of ``setattr``."""
    global _bindings, _bindings_key
    key = _bindings_state()
    if _bindings is None or key != _bindings_key or any(
            d.get(attr) is not v for d, attr, v in _others):
        # first use, a namespace changed, or a name that was not an op is now bound to
        # something else (perhaps an op again, restored by the user)
        _bindings, _bindings_key = _collect_bindings(), key
    clean = True
    for d, obj, attr, raw, w in _bindings:
        cur = d.get(attr)
        if cur is not raw and cur is not w:
            clean = False   # rebound since (by the user): left as it is
            continue
        t = w if observe else raw
        if cur is not t:
            setattr(obj, attr, t)
    if not clean:
        _bindings = None    # collect afresh next time (the name may be restored by then)


def _wrapper_for(raw, attr, module, qualname):
    key = (id(raw), module, qualname)
    w = _wrappers.get(key)
    if w is None:
        w = _make_wrapper(raw, _op_name(raw, attr), module, qualname)
        _wrappers[key] = w
        _raw_of[id(w)] = raw
    return w


_released = []   # reasons given back by collected Tensor subclasses / tensor-likes


class _TensorTorchFunction:
    """``Tensor.__torch_function__`` (the default handler) and ``Tensor.__init_subclass__``
    (a subclass that overrides ``__torch_function__`` turns the observing bindings on),
    bound onto ``Tensor`` from here."""

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        """PyTorch's extension point: called (for every op taking an instance of a
        subclass) as ``__torch_function__(func, types, args, kwargs)``. The default runs
        ``func`` with subclass handling disabled and converts Tensor results to ``cls``.
        Override it in a subclass to intercept ops; see :mod:`ember.overrides`.

        Example::

            >>> class Logged(ember.Tensor):
            ...     @classmethod
            ...     def __torch_function__(cls, func, types, args=(), kwargs=None):
            ...         print(func.__name__)
            ...         return super().__torch_function__(func, types, args, kwargs)
        """
        if kwargs is None:
            kwargs = {}
        for t in types:
            if not issubclass(cls, t):
                return NotImplemented
        _tls.no_subclass += 1
        try:
            ret = func(*args, **kwargs)
        finally:
            _tls.no_subclass -= 1
        return _convert(ret, cls)

    def __init_subclass__(cls, **kwargs):
        super(Tensor, cls).__init_subclass__(**kwargs)
        tf = getattr(cls.__torch_function__, '__func__', cls.__torch_function__)
        if tf is not _disabled_torch_function_impl:
            # ops must now see __torch_function__: install the observing bindings
            _activate('subclass')
            _release_when_collected(cls, 'subclass')


_bind(_TensorTorchFunction)


def _release_when_collected(obj, reason):
    """Give ``reason`` back when ``obj`` (a Tensor subclass or tensor-like type) is garbage
    collected. A finalizer may run anywhere (inside this module's locked sections too), so
    it only queues the release; the next ``_activate``/``_deactivate``/``sync_released``
    counts it, and a program that holds no such type returns to the plain bindings."""
    weakref.finalize(obj, _released.append, reason)


def _apply_released():
    """Count the queued releases (called with the lock held)."""
    while _released:
        reason = _released.pop()
        n = _reasons.get(reason, 0) - 1
        if n > 0:
            _reasons[reason] = n
        else:
            _reasons.pop(reason, None)


def sync_released():
    """Count the releases of collected types now, and go back to the plain bindings when
    nothing else needs the observing ones."""
    global _observing, _lingering
    if not _released and not _lingering:
        return
    with _lock:
        _apply_released()
        _lingering = False
        if _observing and not _reasons:
            _observing = False
            _install(False)


# After a user that switches the bindings often (vmap: twice per call) lets them go, they
# stay observing for this many op calls that nobody observes, so that a loop of such
# calls does not pay a rebinding of every op (~0.3 ms) twice per iteration.
_LINGER_CALLS = 2000
_lingering = False
_linger_left = 0


def _activate(reason):
    """Install the observing bindings (reference counted by ``reason``)."""
    global _observing, _lingering
    with _lock:
        _apply_released()
        _reasons[reason] = _reasons.get(reason, 0) + 1
        _lingering = False
        if not _observing:
            _observing = True
            _install(True)


def _deactivate(reason, linger=False):
    """Release one hold of ``reason``; with ``linger``, the bindings go back to the plain
    functions only after ``_LINGER_CALLS`` unobserved op calls (or :func:`settle`)."""
    global _observing, _lingering, _linger_left
    with _lock:
        _apply_released()
        n = _reasons.get(reason, 0) - 1
        if n > 0:
            _reasons[reason] = n
        else:
            _reasons.pop(reason, None)
        if _observing and not _reasons:
            if linger:
                _linger_left = _LINGER_CALLS
                _lingering = True
            else:
                _lingering = False
                _observing = False
                _install(False)


def _linger_tick():
    global _linger_left
    _linger_left -= 1
    if _linger_left <= 0:
        settle()


def settle():
    """End a lingering period now: plain bindings again if nothing observes."""
    global _observing, _lingering
    with _lock:
        if _lingering:
            _lingering = False
            if _observing and not _reasons:
                _observing = False
                _install(False)


def _reinstall():
    """Re-apply the current bindings (after a namespace module was imported late)."""
    with _lock:
        if _observing:
            _install(True)


def raw_op(f):
    """The op body behind a binding (itself for a direct binding)."""
    return _raw_of.get(id(f), f)


# ----------------------------------------------------------------- interceptors
class _Handle:
    __slots__ = ('_fn', '_done')

    def __init__(self, fn):
        self._fn = fn
        self._done = False

    def remove(self):
        """Uninstall the interceptor (idempotent)."""
        with _lock:
            if self._done:
                return
            self._done = True
            try:
                _interceptors.remove(self._fn)
            except ValueError:
                pass
        _deactivate('interceptor')

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def push_interceptor(fn):
    """Install ``fn(name, call, args, kwargs)`` around every op call (innermost of the
    interceptors installed so far). ``name`` is the op's public name (``'mm'``,
    ``'add'``, ``'conv2d'``); ``fn`` must return ``call(*args, **kwargs)`` or a
    replacement result. Returns a handle whose ``remove()`` uninstalls it.

    The interceptor is process-wide; one that acts per thread (autocast) checks its own
    thread-local state."""
    with _lock:
        _interceptors.append(fn)
    _activate('interceptor')
    return _Handle(fn)


def push_arg_transform(fn):
    """Install ``fn(name, args, kwargs) -> (args, kwargs)``, applied to the arguments of
    every op call before the op body runs (autocast's casts). Returns a handle with
    ``remove()``."""
    def around(name, call, args, kwargs):
        a, k = fn(name, args, kwargs)
        return call(*a, **k)
    around.transform = fn
    return push_interceptor(around)
