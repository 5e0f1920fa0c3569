"""The autograd graph: ``Node`` (a backward function) and ``AccumulateGrad`` (a leaf's sink).

Each differentiable op defines a ``Node`` subclass next to its forward (in ``ember/_ops``),
named as PyTorch names it (``MulBackward0``...). Its ``backward(self, *grads)`` is written
in ember ops, so ``create_graph=True`` differentiates it again.
"""
import itertools
import threading
import weakref

from .._tensor import Tensor, _new_tensor, _views_need_grad, _bind
from .._backend import array_module
from .. import _layout
from . import anomaly_mode as _anomaly

__all__ = ['Node', 'AccumulateGrad', 'RemovableHandle', 'saved_tensors_hooks', 'save_on_cpu',
           'disable_saved_tensors_hooks', 'register_multi_grad_hook',
           'allow_mutation_on_saved_tensors', 'SavedTensor', 'GradientEdge', 'get_gradient_edge',
           'increment_version']


class _HookState(threading.local):
    """Per-thread saved-tensor hook state (class attributes: each thread's defaults)."""
    stack = ()            # (pack, unpack) pairs, innermost last
    disabled = None       # error message while disable_saved_tensors_hooks is active


_hook_state = _HookState()

_seq = itertools.count()

_FREED_MSG = ("Trying to backward through the graph a second time (or directly access saved "
              "tensors after they have already been freed). Saved intermediate values of the "
              "graph are freed when you call .backward() or autograd.grad(). Specify "
              "retain_graph=True if you need to backward through the graph a second time or "
              "if you need to access saved tensors after calling backward.")


class RemovableHandle:
    """A handle that removes a hook from the dict it was registered in.

    Example::

        >>> h = x.register_hook(lambda g: g * 2)
        >>> h.remove()
    """
    _next_id = 0

    def __init__(self, hooks_dict, *extra_dicts):
        self.hooks_dict_ref = hooks_dict
        self.id = RemovableHandle._next_id
        RemovableHandle._next_id += 1
        self.extra_dicts = extra_dicts

    def remove(self):
        """Removes the hook."""
        d = self.hooks_dict_ref
        if d is not None and self.id in d:
            del d[self.id]
        for e in self.extra_dicts:
            e.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *a):
        self.remove()


class Node:
    """A node of the backward graph.

    Attributes:
        next_functions (tuple): ``(node, input_nr)`` pairs, one per differentiable input
            (``(None, 0)`` for inputs that need no gradient).

    Subclasses implement ``backward(self, *grad_outputs)`` returning one gradient per
    input (a tensor or ``None``), in ember ops.

    Example::

        >>> x = ember.ones(2, requires_grad=True)
        >>> y = (x * 3).sum()
        >>> y.grad_fn.name()
        'SumBackward0'
        >>> y.grad_fn.next_functions[0][0].name()
        'MulBackward0'
        >>> isinstance(y.grad_fn, ember.autograd.graph.Node)
        True
    """
    _saved = ()
    _saved_ver = ()
    _freed = False
    _hooks = None
    _prehooks = None
    _tensor_prehooks = None   # {output_nr: {id: hook}}
    _retain_hooks = None      # {output_nr: weakref tensor}
    _metadata = None
    _anomaly_trace = None
    _out_meta = None          # for multi-output nodes: [(shape, dtype, device)] per output
    _in_meta = ()
    _materialize = True
    next_functions = ()

    def name(self):
        """The class name, e.g. ``'MulBackward0'``."""
        return type(self).__name__

    def __repr__(self):
        return f"<{type(self).__name__} object at {hex(id(self))}>"

    @property
    def metadata(self):
        """A dict for user data attached to this node."""
        if self._metadata is None:
            self._metadata = {}
        return self._metadata

    _saved_outs = ()   # positions in _saved of this node's own outputs
    _saved_names = ()  # PyTorch's names of the saved tensors, by position ('self', 'other', 'result')
    _saved_attrs = {}  # PyTorch's names of other saved values -> function(node) giving it
    _packed = False    # _saved holds (packed, unpack) pairs of saved-tensor hooks

    def save(self, *tensors):
        """Save tensors for backward; they are checked for in-place changes when read.

        An output of this node is kept without its ``grad_fn`` (rebuilt when read), so
        that output and node do not form a reference cycle: a deleted output is freed at
        once even when backward never runs. While :class:`saved_tensors_hooks` are active
        in this thread, each tensor is handed to the pack hook instead and the node keeps
        what it returns."""
        hooks = _hook_state.stack
        if hooks:
            pack, unpack = hooks[-1]
            self._saved = tuple(None if t is None else (pack(t), unpack) for t in tensors)
            self._saved_ver = tuple(0 for _ in tensors)
            self._packed = True
            return
        outs = None
        vers = []
        for i, t in enumerate(tensors):
            if t is None:
                vers.append(0)
                continue
            if t._grad_fn is self:
                if outs is None:
                    outs = []
                    tensors = list(tensors)
                a = t.detach()
                a._out_nr = t._out_nr
                tensors[i] = a
                outs.append(i)
            # a tensor without a storage object has no alias and was never changed in
            # place (both create it), so its version is 0: no need to create one here
            st = t._st
            vers.append(0 if st is None else st._version)
        if outs is not None:
            tensors = tuple(tensors)
            self._saved_outs = tuple(outs)
        self._saved = tensors
        self._saved_ver = tuple(vers)

    @property
    def saved_tensors(self):
        if self._freed:
            raise RuntimeError(_FREED_MSG)
        saved = self._saved
        if self._packed:
            return tuple(None if p is None else _unpacked(p) for p in saved)
        if self._saved_outs:
            saved = list(saved)
            for i in self._saved_outs:
                saved[i] = self._unpack_out(saved[i])
            saved = tuple(saved)
        for t, v in zip(saved, self._saved_ver):
            if t is not None:
                st = t._st
                if (0 if st is None else st._version) != v:
                    _raise_modified(t, v, self)
        return saved

    def _unpack_out(self, a):
        t = a.detach()
        t._grad_fn, t._out_nr, t._rg = self, a._out_nr, True
        return t

    def __getattr__(self, name):
        # PyTorch's introspection of saved values: grad_fn._saved_self, _raw_saved_self
        if name.startswith('_saved_'):
            key = name[7:]
            cls = type(self)
            names = cls._saved_names
            if key in names:
                return self.saved_tensors[names.index(key)]
            get = cls._saved_attrs.get(key)
            if get is not None:
                if self._freed and key in cls._saved_tensor_attrs:
                    raise RuntimeError(_FREED_MSG)
                return get(self)
            d = self.__dict__
            if key in d:
                return d[key]
        elif name.startswith('_raw_saved_'):
            key = name[11:]
            names = type(self)._saved_names
            if key in names:
                return SavedTensor(self, names.index(key))
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    _saved_tensor_attrs = frozenset()   # the _saved_attrs that are tensors (freed by backward)

    def __dir__(self):
        # PyTorch lists what a node saved: _saved_<name> (and _raw_saved_<name> for tensors)
        cls = type(self)
        out = [n for n in object.__dir__(self)
               if n not in ('_saved_names', '_saved_outs', '_saved_ver', '_saved_attrs',
                            '_saved_tensor_attrs')]
        out += ['_saved_' + n for n in cls._saved_names]
        out += ['_raw_saved_' + n for n in cls._saved_names]
        out += ['_saved_' + n for n in cls._saved_attrs]
        return sorted(set(out))

    def _release(self):
        self._saved = ()
        self._saved_outs = ()
        self._freed = True

    def backward(self, *grads):
        raise NotImplementedError

    def apply(self, *grads):
        return self.backward(*grads)

    __call__ = apply

    def register_hook(self, fn):
        """Registers ``fn(grad_inputs, grad_outputs)`` to run after this node's backward;
        it may return replacement ``grad_inputs``."""
        if self._hooks is None:
            self._hooks = {}
        h = RemovableHandle(self._hooks)
        self._hooks[h.id] = fn
        return h

    def register_prehook(self, fn):
        """Registers ``fn(grad_outputs)`` to run before this node's backward; it may return
        replacement ``grad_outputs``."""
        if self._prehooks is None:
            self._prehooks = {}
        h = RemovableHandle(self._prehooks)
        self._prehooks[h.id] = fn
        return h

    def _register_tensor_prehook(self, nr, fn):
        if self._tensor_prehooks is None:
            self._tensor_prehooks = {}
        d = self._tensor_prehooks.setdefault(nr, {})
        h = RemovableHandle(d)
        d[h.id] = fn
        return h

    def _sequence_nr(self):
        return self._seq


def _raise_modified(t, expected, node):
    import re
    from . import anomaly_mode
    now = t._storage_obj()._version
    owner = t.grad_fn
    which = (f", which is output {t._out_nr} of {re.sub(r'Backward[0-9]*$', '', owner.name())},"
             if owner is not None else "")
    if anomaly_mode._enabled:
        hint = ("Hint: the backtrace further above shows the operation that failed to compute "
                "its gradient. The variable in question was changed in there or anywhere later. "
                "Good luck!")
    else:
        hint = ("Hint: enable anomaly detection to find the operation that failed to compute "
                "its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).")
    raise RuntimeError(
        "one of the variables needed for gradient computation has been modified by an inplace "
        f"operation: [{t.type()} [{', '.join(str(s) for s in t.shape)}]]{which} "
        f"is at version {now}; expected version {expected} instead. {hint}")


class AccumulateGrad(Node):
    """Sink node of a leaf tensor: adds incoming gradients into ``variable.grad``. It holds
    its leaf weakly (``variable`` is None once the leaf is gone).

    Example::

        >>> x = ember.ones(2, requires_grad=True)
        >>> acc = (x * 2).grad_fn.next_functions[0][0]
        >>> acc.name()
        'torch::autograd::AccumulateGrad'
        >>> acc.variable is x
        True
    """

    def __init__(self, variable):
        # weak: the leaf holds its accumulator, which must not keep the leaf alive (no
        # reference cycle: a deleted leaf is freed at once, without the cyclic GC)
        self._var = weakref.ref(variable)
        self._seq = 1 << 62  # leaves run first among ready nodes (as torch)
        self._in_meta = ()

    @property
    def variable(self):
        """The leaf tensor whose ``.grad`` this node accumulates into."""
        return self._var()

    def name(self):
        return 'torch::autograd::AccumulateGrad'

    def backward(self, grad, _steal=False):
        from .grad_mode import _Mode
        var = self._var()
        if grad is None or var is None:
            return ()
        vd = var.__dict__
        if vd and '_grad_dtype' in vd:   # Tensor.grad_dtype set: cast to it
            gd = vd['_grad_dtype']
            if gd is not None and grad.dtype is not gd:
                grad = grad.to(gd)
        old = var._grad
        if grad.is_sparse or (old is not None and old.is_sparse):
            # sparse gradients (Embedding(sparse=True)): kept sparse, summed by the sparse add
            if old is None:
                var._grad = grad
            elif old.is_sparse and not grad.is_sparse:
                var._grad = grad + old
            elif _Mode.grad:
                var._grad = old + grad
            else:
                old.add_(grad)
        elif var._grad is None:
            if _Mode.grad:
                var._grad = grad.clone()
            else:
                ga, va = grad._data, var._data
                if ga.strides == va.strides or ga.ndim < 2:
                    if _steal and _stealable(grad, ga, va):
                        # the engine holds the only reference to a fresh gradient that
                        # aliases nothing: it becomes .grad as it is (torch steals it too)
                        var._grad = grad
                    else:   # a copy: the incoming gradient may be shared
                        var._grad = grad.detach().clone()
                elif not _Mode.grad_layout and _steal and _stealable(grad, ga, va):
                    var._grad = grad   # enforce_grad_layout_policy(False): keep its strides
                else:
                    var._grad = _obey_layout(grad, va)
        elif _Mode.grad:
            var._grad = var._grad + grad
        else:
            var._grad.add_(grad)
        hooks = var._post_acc_hooks
        if hooks:
            for h in list(hooks.values()):
                h(var)
        return ()


def _stealable(grad, ga, va):
    """Whether ``grad`` (held by nobody but the engine) may become a leaf's ``.grad``
    as it is: a plain tensor outside any graph, of the leaf's dtype, whose array owns its
    memory and has neither a storage object nor views made from it."""
    from .._tensor import Tensor
    return (grad.__class__ is Tensor and grad._base is None and grad._st is None
            and grad._grad_fn is None and not grad._rg and ga.dtype == va.dtype
            and ga.shape == va.shape and getattr(ga, 'base', 0) is None
            and getattr(ga.flags, 'writeable', True) and not grad.__dict__)   # CuPy: no flag


def _obey_layout(grad, va):
    """A copy of ``grad`` laid out as PyTorch's gradient layout contract has it: with the
    strides of the leaf's array ``va`` when that is non-overlapping and dense (a
    channels_last or permuted parameter gets a gradient of the same layout), else
    contiguous."""
    st = _layout._estrides(va)
    if not _layout.is_dense(va.shape, st):
        st = _layout.contiguous_strides(va.shape)
    ga = grad._data
    out = _layout.empty_strided_arr(array_module(ga), va.shape, st, ga.dtype)
    out[...] = ga
    return _new_tensor(out)


def _named(cls, name):
    """Give a Node subclass PyTorch's public name (several ember classes may share one,
    e.g. tensor+tensor and tensor+scalar are both ``AddBackward0``)."""
    cls.__name__ = name
    cls.__qualname__ = name
    return cls


# ------------------------------------------------------------ wiring a node into the graph
# (the op library records its nodes with these: ``ember/_ops/_util.py`` re-exports them)
_NO_EDGE = (None, 0)


def edge_of(t):
    """The ``(node, output_nr)`` edge a gradient for tensor ``t`` flows into."""
    if not isinstance(t, Tensor) or not t._rg:
        return (None, 0)
    if t._base is not None:   # a view: its (maybe regenerated) grad_fn, or no edge
        fn = t._view_grad_fn()
        if fn is None:   # unless made a leaf by requires_grad_()
            return (t._grad_acc, 0) if t._grad_acc is not None else (None, 0)
        return (fn, t._out_nr)
    fn = t._grad_fn
    if fn is not None:
        return (fn, t._out_nr)
    acc = t._grad_acc
    if acc is None:
        acc = t._grad_acc = AccumulateGrad(t)
    return (acc, 0)


def _meta(t):
    if isinstance(t, Tensor) and t._rg:
        d = t._data
        return (d.shape, d.dtype)
    return None


def record(out, node, inputs, save=None):
    """Attach ``node`` as the grad_fn of ``out`` (a tensor or a tuple of tensors),
    wired to ``inputs``; ``save`` are tensors kept for backward (version-checked)."""
    edges = []
    metas = []
    needs = []
    for t in inputs:
        if isinstance(t, Tensor) and t._rg:
            needs.append(True)
            fn = t._grad_fn
            if t._base is not None:   # a view: its (maybe regenerated) grad_fn, or no edge
                fn = t._view_grad_fn()
                if fn is not None:
                    edges.append((fn, t._out_nr))
                else:   # unless made a leaf by requires_grad_()
                    edges.append(_NO_EDGE if t._grad_acc is None else (t._grad_acc, 0))
            elif fn is not None:
                edges.append((fn, t._out_nr))
            else:
                acc = t._grad_acc
                if acc is None:
                    acc = t._grad_acc = AccumulateGrad(t)
                edges.append((acc, 0))
            d = t._data
            metas.append((d.shape, d.dtype))
        else:
            needs.append(False)
            edges.append(_NO_EDGE)
            metas.append(None)
    node.needs = tuple(needs)   # per input: whether backward must compute its gradient
    node.next_functions = tuple(edges)
    node._in_meta = tuple(metas)
    node._seq = next(_seq)
    if _anomaly._enabled:
        node._anomaly_trace = _anomaly._trace()
    if isinstance(out, Tensor):
        out._grad_fn = node
        out._rg = True
        if save is not None:   # after the outputs know their node (see Node.save)
            node.save(*save)
    else:
        metas = []
        for i, o in enumerate(out):
            if o is None:
                metas.append(None)
                continue
            metas.append((o._data.shape, o._data.dtype, array_module(o._data)))
            if o._data.dtype.kind in 'fcV':
                o._grad_fn = node
                o._out_nr = i
                o._rg = True
        node._out_meta = metas
        if save is not None:
            node.save(*save)
    return out


def zeros_meta(m):
    """A zero gradient for an output of metadata ``m`` (``Node._out_meta``: shape, dtype,
    array module), for an output that got no gradient."""
    if m is None:
        return None
    shape, dt, xp = m
    return _new_tensor(xp.zeros(shape, dt))



def _unpacked(p):
    packed, unpack = p
    t = unpack(packed)
    from .._tensor import Tensor
    if not isinstance(t, Tensor):
        raise TypeError("Output of saved tensor unpack_hook expected to be a Tensor but got "
                        f"result of type {type(t).__name__}")
    return t


class SavedTensor:
    """A tensor saved by a backward node (``grad_fn._raw_saved_<name>``).

    Example::

        >>> y = x.exp()
        >>> y.grad_fn._raw_saved_result.register_hooks(lambda t: t * 1, lambda t: t)
    """
    __slots__ = ('_node', '_i')

    def __init__(self, node, i):
        self._node = node
        self._i = i

    def register_hooks(self, pack_hook, unpack_hook):
        """Pack this saved tensor now with ``pack_hook``; ``unpack_hook`` turns the packed
        value back into a tensor when backward needs it."""
        if not callable(pack_hook) or not callable(unpack_hook):
            raise TypeError("expected pack_hook and unpack_hook to be callable")
        node = self._node
        if node._freed:
            raise RuntimeError(
                "Calling register_hooks on a saved tensor after it has been freed. Saved "
                "intermediate values of the graph are freed when you call .backward() or "
                "autograd.grad(). Specify retain_graph=True if you need to backward through "
                "the graph a second time or if you need to access saved variables after "
                "calling backward.")
        saved = list(node._saved)
        cur = saved[self._i]
        if node._packed and cur is not None and cur[1] is not _identity:
            raise RuntimeError("Calling register_hooks on a saved tensor whose hooks have "
                               "already been set. Hint: only one pair of hooks is allowed at "
                               "a time.")
        if cur is None:
            raise RuntimeError("None is forbidden")
        if node._packed:
            t = _unpacked(cur)
        else:
            t = node.saved_tensors[self._i]
        # keep every other saved tensor reachable through an identity pair
        full = node.saved_tensors if not node._packed else None
        if not node._packed:
            saved = [None if x is None else (x, _identity) for x in full]
            node._packed = True
            node._saved_outs = ()
        saved[self._i] = (pack_hook(t), unpack_hook)
        node._saved = tuple(saved)


def _identity(t):
    return t


class saved_tensors_hooks:
    """Context manager: tensors saved for backward in this thread are handed to
    ``pack_hook`` and the node keeps what it returns; ``unpack_hook`` gives the tensor back
    when backward (or ``grad_fn._saved_*``) needs it.

    Args:
        pack_hook (callable): ``pack_hook(tensor) -> Any``.
        unpack_hook (callable): ``unpack_hook(packed) -> Tensor``.

    Example::

        >>> def pack(t): return t.numpy().copy()
        >>> def unpack(a): return ember.from_numpy(a)
        >>> with ember.autograd.graph.saved_tensors_hooks(pack, unpack):
        ...     y = (x * x).sum()
        >>> y.backward()

    NOTE: unlike PyTorch, a tensor saved through hooks is not version-checked when it is
    unpacked (the hooks decide what is kept).
    """

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        st = _hook_state
        if st.disabled is not None:
            raise RuntimeError(st.disabled)
        st.stack = st.stack + ((self.pack_hook, self.unpack_hook),)
        return self

    def __exit__(self, *exc):
        st = _hook_state
        st.stack = st.stack[:-1]


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors are kept in CPU memory (optionally pinned) and moved back to their
    device when backward needs them.

    Args:
        pin_memory (bool): pin the CPU copies (accepted; pinning is a no-op on CPU).
        device_type (str): the device type of the tensors being saved (``'cuda'``).

    Example::

        >>> with ember.autograd.graph.save_on_cpu():
        ...     y = model(x)
    """

    def __init__(self, pin_memory=False, device_type='cuda'):
        def pack(t):
            return (t.device, t.to('cpu') if t.device.type != 'cpu' else t)

        def unpack(p):
            dev, t = p
            return t.to(dev) if dev.type != 'cpu' else t
        super().__init__(pack, unpack)


class disable_saved_tensors_hooks:
    """Context manager: entering :class:`saved_tensors_hooks` in this thread raises
    ``RuntimeError(error_message)``.

    Example::

        >>> with ember.autograd.graph.disable_saved_tensors_hooks("not here"):
        ...     pass
    """

    def __init__(self, error_message):
        self.error_message = error_message

    def __enter__(self):
        st = _hook_state
        self._prev = st.disabled
        st.disabled = self.error_message
        return self

    def __exit__(self, *exc):
        _hook_state.disabled = self._prev

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*a, **k):
            with self.__class__(self.error_message):
                return fn(*a, **k)
        return wrapper


class allow_mutation_on_saved_tensors:
    """Context manager: tensors saved for backward inside it may be modified in place
    afterwards; backward uses the values they had when saved (a copy is taken when a
    saved tensor is first mutated).

    Example::

        >>> with ember.autograd.graph.allow_mutation_on_saved_tensors():
        ...     a = x.clone(); out = (a * a).sum(); a.add_(1)
        ...     out.backward()

    NOTE: unlike PyTorch, which clones lazily on the first mutation, ember clones each
    saved tensor when it is saved (same values, more memory).
    """

    def __enter__(self):
        def pack(t):
            c = t.detach().clone()
            return c

        def unpack(c):
            return c
        self._hooks = saved_tensors_hooks(pack, unpack)
        self._hooks.__enter__()
        return self

    def __exit__(self, *exc):
        self._hooks.__exit__(*exc)


class GradientEdge(tuple):
    """``(node, output_nr)``: where the gradient of a tensor flows into the graph (its
    ``grad_fn`` and output index, or the :class:`AccumulateGrad` of a leaf); also readable
    as the attributes ``node`` and ``output_nr``.

    Example::

        >>> x = ember.ones(2, requires_grad=True)
        >>> edge = ember.autograd.graph.get_gradient_edge(x * 2)
        >>> edge.node.name(), edge.output_nr
        ('MulBackward0', 0)
    """
    __slots__ = ()

    def __new__(cls, node, output_nr):
        return tuple.__new__(cls, (node, output_nr))

    @property
    def node(self):
        return self[0]

    @property
    def output_nr(self):
        return self[1]


def get_gradient_edge(tensor):
    """The :class:`GradientEdge` of ``tensor`` (its grad_fn, or its AccumulateGrad).

    Example::

        >>> edge = ember.autograd.graph.get_gradient_edge(x)
    """
    if not tensor.requires_grad:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor that "
                           "does not require gradients")
    n, i = edge_of(tensor)
    return GradientEdge(n, i)


def increment_version(tensor):
    """Bump the version counter of ``tensor`` (and of every view of its storage).

    Example::

        >>> ember.autograd.graph.increment_version(x)
    """
    from .._tensor import Tensor
    ts = [tensor] if isinstance(tensor, Tensor) else list(tensor)
    for t in ts:
        t._storage_obj()._version += 1


# ------------------------------------------------------------ the running backward passes
# (run by ``engine.run_backward``; read here by the multi-grad hooks)
_pass_ids = itertools.count(1)


class _Passes(threading.local):
    stack = ()     # (pass id, callbacks list) of this thread's running backward passes


_passes = _Passes()


def queue_callback(callback):
    """Run ``callback()`` when the backward pass running in this thread finishes
    (PyTorch's ``Variable._execution_engine.queue_callback``).

    Args:
        callback (callable): called with no arguments, after the last node has run.

    Raises:
        RuntimeError: outside a backward pass.

    Example::

        >>> from ember.autograd.engine import queue_callback
        >>> done = []
        >>> x = ember.ones(2, requires_grad=True)
        >>> y = x * 2
        >>> h = y.register_hook(lambda g: queue_callback(lambda: done.append(True)))
        >>> y.sum().backward()
        >>> done
        [True]
    """
    st = _passes.stack
    if not st:
        raise RuntimeError("Final callbacks can only be installed during backward pass.")
    st[-1][1].append(callback)


def _current_pass_id():
    """An id of the backward pass running in this thread (None outside one)."""
    st = _passes.stack
    return st[-1][0] if st else None


class _MultiHandle:
    def __init__(self, handles):
        self.handles = handles

    def remove(self):
        for h in self.handles:
            h.remove()

    def __enter__(self):
        return self

    def __exit__(self, *a):
        self.remove()


def register_multi_grad_hook(tensors, fn, *, mode="all"):
    """Register ``fn`` to run once the gradients of ``tensors`` have been computed in a
    backward pass.

    Args:
        tensors (sequence of Tensor): the tensors to watch.
        fn (callable): with ``mode='all'``, ``fn(grads)`` with one gradient per tensor
            (``None`` for those not computed in this pass), called when the pass ends;
            with ``mode='any'``, ``fn(grad)`` with the first gradient computed.
        mode (str): ``'all'`` or ``'any'``.

    Returns:
        a handle with ``remove()``.

    Example::

        >>> h = ember.autograd.graph.register_multi_grad_hook((a, b), print)
    """
    if mode not in ("all", "any"):
        raise ValueError(f"Expects mode to be one of ('all', 'any') but got {mode}")
    tensors = tuple(tensors)
    if mode == "any":
        lock = threading.Lock()
        fired = {}

        def make_any(i):
            def hook(g):
                key = _current_pass_id()
                with lock:
                    if fired.get(key):
                        return None
                    fired.clear()
                    fired[key] = True
                fn(g)
            return hook
        return _MultiHandle([t.register_hook(make_any(i)) for i, t in enumerate(tensors)
                             if t.requires_grad])
    pending = {}

    def make_all(i):
        def hook(g):
            key = _current_pass_id()
            grads = pending.get(key)
            if grads is None:
                grads = pending[key] = [None] * len(tensors)

                def done():
                    fn(pending.pop(key))
                queue_callback(done)
            grads[i] = g
        return hook
    return _MultiHandle([t.register_hook(make_all(i)) for i, t in enumerate(tensors)
                         if t.requires_grad])


# ------------------------------------------------------------------ compile/CUDA-graph switches
def _check_bool(enabled):
    if not isinstance(enabled, bool):
        raise RuntimeError(f'enabled must be a bool, but got {type(enabled).__name__}')


class _StreamFlags(threading.local):
    override_stale_capture_stream = False
    warn_on_accumulate_grad_stream_mismatch = True


_stream_flags = _StreamFlags()


def _flag_setter(name, doc):
    def setter(enabled):
        _check_bool(enabled)
        setattr(_stream_flags, name, enabled)
    setter.__name__ = setter.__qualname__ = 'set_' + name
    setter.__doc__ = doc + f"""

    Args:
        enabled (bool): the new setting.

    Example::

        >>> ember.autograd.graph.set_{name}(True)
    """
    return setter


set_override_stale_capture_stream = _flag_setter(
    'override_stale_capture_stream',
    """Whether autograd replaces a stale non-capturing stream during CUDA graph capture
    instead of raising. NOTE: unlike PyTorch, ember captures no CUDA graphs, so the flag is
    only recorded (per thread).""")
set_warn_on_accumulate_grad_stream_mismatch = _flag_setter(
    'warn_on_accumulate_grad_stream_mismatch',
    """Whether to warn when a leaf's gradient arrives on another stream than its
    accumulator's. NOTE: unlike PyTorch, ember's backward runs on one stream, so the flag
    is only recorded (per thread).""")


def region_activation_memory_budget(budget):
    """Activation memory budget of a region compiled by ``torch.compile``. As in PyTorch's
    eager mode, which is the only mode ember has, using it raises ``RuntimeError`` (after
    the argument checks: ``TypeError`` for a non-number, ``ValueError`` outside [0, 1]).

    Args:
        budget (float): fraction of activation memory to keep, in [0, 1].

    Example::

        >>> ember.autograd.graph.region_activation_memory_budget(0.5)
        Traceback (most recent call last):
        RuntimeError: ... no effect in eager mode.
    """
    name = 'torch.autograd.graph.region_activation_memory_budget'
    if isinstance(budget, bool) or not isinstance(budget, (int, float)):
        raise TypeError(f'{name}: expects a float, got {type(budget).__name__}')
    if not 0 <= budget <= 1:
        raise ValueError(f'{name}: must be in [0, 1], got {float(budget)}')
    raise RuntimeError(f'{name} can only be used inside a torch.compile region; it has no '
                       'effect in eager mode.')


__all__ += ['set_override_stale_capture_stream', 'set_warn_on_accumulate_grad_stream_mismatch',
            'region_activation_memory_budget']


# ------------------------------------------------------------ Tensor's autograd members
class _TensorAutograd:
    """The members of ``Tensor`` that are autograd's, bound onto it from here."""

    @property
    def requires_grad(self):
        """Whether gradients are recorded for this tensor (settable on leaves)."""
        return self._rg

    @requires_grad.setter
    def requires_grad(self, v):
        if v is not True and v is not False:
            raise RuntimeError("requires_grad must be a bool")
        if self._grad_fn is not None:
            if not v:
                raise RuntimeError("you can only change requires_grad flags of leaf variables. "
                                   "If you want to use a computed variable in a subgraph that "
                                   "doesn't require differentiation use var_no_grad = var.detach().")
            raise RuntimeError("you can only change requires_grad flags of leaf variables.")
        if v and self._data.dtype.kind not in 'fcV':
            raise RuntimeError("only Tensors of floating point and complex dtype can require gradients")
        if v and self._data.dtype.names is not None and not self.dtype.is_floating_point:
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        if v and not self._rg and self._base is None:
            _views_need_grad(self)
        self._rg = bool(v)
        if self._base is not None:
            # a view made a leaf of its own: it accumulates its own gradient (a view that
            # merely requires grad through its base has no accumulator)
            if v and self._grad_acc is None:
                self._grad_acc = AccumulateGrad(self)
            elif not v:
                self._grad_acc = None

    def register_hook(self, hook):
        """Register ``hook(grad)`` run when this tensor's gradient is computed; it may return
        a replacement gradient. Returns a handle with ``remove()``.

        Example::

            >>> x = ember.ones(2, requires_grad=True)
            >>> h = x.register_hook(lambda g: g * 2)
            >>> (x * 3).sum().backward()
            >>> x.grad
            tensor([6., 6.])
            >>> h.remove()
        """
        if not self._rg:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is not None:
            return self.grad_fn._register_tensor_prehook(self._out_nr, hook)
        acc = edge_of(self)[0]
        return acc._register_tensor_prehook(0, hook)

    def register_post_accumulate_grad_hook(self, hook):
        """Register ``hook(tensor)`` run after a leaf's ``.grad`` has been accumulated."""
        if not self._rg:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self._grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
        if self._post_acc_hooks is None:
            self._post_acc_hooks = {}
        h = RemovableHandle(self._post_acc_hooks)
        self._post_acc_hooks[h.id] = hook
        return h

    def _leaf_acc(self):
        return edge_of(self)[0]


_bind(_TensorAutograd)
