"""The autograd graph: ``Node`` (a backward function) and ``AccumulateGrad`` (a leaf's sink).

Each differentiable op defines a ``Node`` subclass next to its forward (in ``ember/_ops``),
named as PyTorch names it (``MulBackward0``...). Its ``backward(self, *grads)`` is written
in ember ops, so ``create_graph=True`` differentiates it again.
"""
import itertools
import weakref

__all__ = ['Node', 'AccumulateGrad', 'RemovableHandle']

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

    def save(self, *tensors):
        """Save tensors for backward; they are checked for in-place changes when read.

        An output of this node is kept without its ``grad_fn`` (rebuilt when read), so
        that output and node do not form a reference cycle: a deleted output is freed at
        once even when backward never runs."""
        outs = None
        for i, t in enumerate(tensors):
            if t is not None and t._grad_fn is self:
                if outs is None:
                    outs = []
                    tensors = list(tensors)
                a = t.detach()
                a._out_nr = t._out_nr
                tensors[i] = a
                outs.append(i)
        if outs is not None:
            tensors = tuple(tensors)
            self._saved_outs = tuple(outs)
        self._saved = tensors
        self._saved_ver = tuple(t._storage_obj()._version if t is not None else 0 for t in tensors)

    @property
    def saved_tensors(self):
        if self._freed:
            raise RuntimeError(_FREED_MSG)
        saved = self._saved
        if self._saved_outs:
            saved = list(saved)
            for i in self._saved_outs:
                saved[i] = self._unpack_out(saved[i])
            saved = tuple(saved)
        for t, v in zip(saved, self._saved_ver):
            if t is not None and t._storage_obj()._version != v:
                _raise_modified(t, v, self)
        return saved

    def _unpack_out(self, a):
        t = a.detach()
        t._grad_fn, t._out_nr, t._rg = self, a._out_nr, True
        return t

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
    """Sink node of a leaf tensor: adds incoming gradients into ``variable.grad``."""

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

    def backward(self, grad):
        from .grad_mode import _Mode
        var = self._var()
        if grad is None or var is None:
            return ()
        if var._grad is None:
            # a fresh copy: the incoming gradient may be shared with other leaves
            var._grad = grad.clone() if _Mode.grad else grad.detach().clone()
        elif _Mode.grad:
            var._grad = var._grad + grad
        else:
            var._grad.add_(grad)
        hooks = var._post_acc_hooks
        if hooks:
            for h in list(hooks.values()):
                h(var)
        return ()


def _named(cls, name):
    """Give a Node subclass PyTorch's public name (several ember classes may share one,
    e.g. tensor+tensor and tensor+scalar are both ``AddBackward0``)."""
    cls.__name__ = name
    cls.__qualname__ = name
    return cls
