"""The backward engine: runs the graph from the roots in dependency order, without
recursion (a 100k-node chain is fine), summing gradients per node input, reducing
broadcast gradients to each input's shape (once, here, for every op).

Threads: a backward pass runs in the calling thread and keeps all its bookkeeping
local to the call, so several threads may run backward at once (on independent
graphs, or on one graph kept with ``retain_graph=True``). The only mode it sets is
the calling thread's grad mode (on exactly when ``create_graph``), restored on exit.
Writes into a leaf's ``.grad`` (and a retained ``.grad``) are serialized by a lock of
the node that writes them, so concurrent passes that reach the same leaf add up
instead of losing a gradient.
"""
import heapq
import itertools
import threading
from sys import getrefcount as _getrefcount

from . import anomaly_mode
from .grad_mode import _Mode
from .._tensor import Tensor as _Tensor, _new_tensor as _wrap
from .graph import AccumulateGrad, Node, zeros_meta
# the running passes' state is the graph's (its multi-grad hooks read it); the engine runs them
from .graph import _pass_ids, _passes, queue_callback, _current_pass_id  # noqa: F401

__all__ = ['run_backward', 'queue_callback']

_tie = itertools.count()   # FIFO among nodes of equal priority (leaves), as torch

# the recording profiler (ember.autograd.profiler sets it while it records, else None):
# checked once per node, so backward pays nothing while no profiler records
_profile_hook = None


def _node_lock(node):
    """The lock held while ``node`` adds a gradient into a tensor's ``.grad``: one per
    node (as torch's AccumulateGrad mutex), so hooks of different leaves never wait on
    each other; re-entrant, since a post-accumulate hook may run a nested backward
    that reaches the same leaf."""
    lk = node.__dict__.get('_grad_lock')
    if lk is None:   # setdefault is atomic: racing threads end up with one lock
        lk = node.__dict__.setdefault('_grad_lock', threading.RLock())
    return lk


def _sum_to(g, shape):
    """Sum gradient ``g`` down to ``shape`` (undo broadcasting)."""
    gs = g.shape
    if gs == shape:
        return g
    lead = len(gs) - len(shape)
    dims = tuple(range(lead)) + tuple(i + lead for i, s in enumerate(shape)
                                      if s == 1 and gs[i + lead] != 1)
    if dims:
        g = g.sum(dims, keepdim=True)
    if lead:
        g = g.reshape(shape)
    elif g.shape != shape:
        g = g.reshape(shape)
    return g


def _validate(g, meta, node=None, i=0):
    shape, npdt = meta
    if g._data.shape != shape:
        try:
            gs = g._data.shape
            if len(shape) > len(gs) or any(s != 1 and s != t for s, t in
                                           zip(shape[::-1], gs[::-1])):
                raise ValueError
            g = _sum_to(g, shape)
        except Exception:
            raise RuntimeError(f"Function {node.name()} returned an invalid gradient at index "
                               f"{i} - got "
                               f"[{', '.join(map(str, g.shape))}] but expected shape compatible "
                               f"with [{', '.join(map(str, shape))}]") from None
    if g._data.dtype != npdt:
        from .._dtype import _NP2DT
        if g._data.dtype.kind == 'c' and npdt.kind != 'c':
            g = g.real   # real input, complex gradient: keep the real part (as torch)
        g = g.to(_NP2DT[npdt])
    return g


def _add(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return a + b


_EMPTY = {}
_node_apply = Node.apply


def _sum_grads(a, b):
    """``a + b`` of two gradients for one input (already of its shape and dtype)."""
    if not _Mode.grad and a.__class__ is _Tensor and b.__class__ is _Tensor:
        x, y = a._data, b._data
        if x.__class__ is y.__class__ and x.dtype == y.dtype and x.ndim:
            return _wrap(x + y)   # nothing to record: add the arrays
    return a + b


def run_backward(roots, grads, retain_graph, create_graph, inputs=None, allow_unused=False):
    """Backpropagate ``grads`` from ``roots`` (list of ``(node, nr)`` edges): the engine
    under :func:`ember.autograd.backward` and :func:`ember.autograd.grad`.

    With ``inputs`` (list of ``(node, nr)`` edges) returns the gradients that reach them
    instead of accumulating into leaves' ``.grad`` (the caller decides what to do).

    Args:
        roots (list of tuple): the ``(grad_fn, output_nr)`` edges to start from.
        grads (list of Tensor): one gradient per root.
        retain_graph (bool): keep the saved tensors for another backward pass.
        create_graph (bool): record the backward computation (for higher derivatives).
        inputs (list of tuple, optional): the edges whose incoming gradients to return.
        allow_unused (bool, optional): with ``inputs``, whether an input that no gradient
            reaches is allowed (else ``RuntimeError``). Default: False.

    Example::

        >>> from ember.autograd import engine, graph
        >>> x = ember.ones(2, requires_grad=True)
        >>> y = (x * 3).sum()
        >>> engine.run_backward([(y.grad_fn, 0)], [ember.tensor(1.)], False, False,
        ...                     inputs=[graph.get_gradient_edge(x)])
        [tensor([3., 3.])]
    """
    # --- discover the graph and count dependencies (iterative DFS)
    deps = {}
    seen = set()
    stack = []
    for e in roots:   # several roots may share one (multi-output) node: visit it once
        if e[0] is not None and e[0] not in seen:
            seen.add(e[0])
            stack.append(e[0])
    order = []
    while stack:
        n = stack.pop()
        order.append(n)
        for nxt, _ in n.next_functions:
            if nxt is None:
                continue
            deps[nxt] = deps.get(nxt, 0) + 1
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)

    capture = None
    needed = None
    if inputs is not None:
        targets = {}
        for i, (node, nr) in enumerate(inputs):
            targets.setdefault(node, []).append((i, nr))
        capture = [None] * len(inputs)
        # nodes that lead to a target: reverse topological pass over `order`
        needed = set(targets)
        changed = True
        # order is a DFS pre-order from the roots; iterate to a fixed point cheaply
        rev = list(reversed(order))
        while changed:
            changed = False
            for n in rev:
                if n in needed:
                    continue
                for nxt, _ in n.next_functions:
                    if nxt is not None and nxt in needed:
                        needed.add(n)
                        changed = True
                        break
    else:
        targets = None

    buffers = {}
    heap = []
    for (node, nr), g in zip(roots, grads):
        if node is None:
            continue
        buf = buffers.get(node)
        if buf is None:
            buf = buffers[node] = {}
        buf[nr] = _add(buf.get(nr), g)
    for node in buffers:
        if deps.get(node, 0) == 0:
            heapq.heappush(heap, (-node._seq, next(_tie), node))

    anomaly = anomaly_mode._enabled
    # grad mode of this thread only (a thread-local), whatever it was before: on
    # exactly when the backward graph is to be recorded
    prev_grad = _Mode.grad
    callbacks = []
    outer = _passes.stack
    _passes.stack = outer + ((next(_pass_ids), callbacks),)
    try:
        _Mode.grad = bool(create_graph)
        # the common node (one output, no hooks, no requested inputs, no profiler, no
        # anomaly mode) runs inline below; any other goes through _run_node
        plain = targets is None and not anomaly and _profile_hook is None
        heappop, heappush, tie = heapq.heappop, heapq.heappush, _tie
        while heap:
            node = heappop(heap)[2]
            buf = buffers.pop(node, _EMPTY)
            if (plain and node._out_meta is None and node.__class__.apply is _node_apply
                    and node._tensor_prehooks is None and node._retain_hooks is None
                    and node._prehooks is None and node._hooks is None
                    and node.__class__ is not AccumulateGrad):
                g = buf.get(0)
                nf = node.next_functions
                if g is None:
                    outs = (None,) * len(nf)
                else:
                    outs = node.backward(g)
                    if type(outs) is not tuple:
                        outs = (outs,) if len(nf) == 1 else tuple(outs) if isinstance(
                            outs, list) else (outs,)
                    if len(outs) != len(nf):
                        raise RuntimeError(f"function {node.name()} returned an incorrect "
                                           f"number of gradients (expected {len(nf)}, got "
                                           f"{len(outs)})")
                    fixed = None
                    for i, (g, m) in enumerate(zip(outs, node._in_meta)):
                        if g is not None and m is not None:
                            d = g._data
                            if d.shape != m[0] or d.dtype != m[1]:
                                if fixed is None:
                                    fixed = list(outs)
                                fixed[i] = _validate(g, m, node, i)
                    if fixed is not None:
                        outs = tuple(fixed)
                if not retain_graph:
                    node._release()
                for (nxt, nr), g in zip(nf, outs):
                    if nxt is None:
                        continue
                    b = buffers.get(nxt)
                    if b is None:
                        b = buffers[nxt] = {}
                    if g is not None:
                        old = b.get(nr)
                        b[nr] = g if old is None else _sum_grads(old, g)
                    d = deps[nxt] - 1
                    deps[nxt] = d
                    if d == 0:
                        heappush(heap, (-nxt._seq, next(tie), nxt))
                # drop this frame's references: a gradient the next node gets may then be
                # held by the buffers alone (a leaf can steal it without a copy)
                outs = g = None
                continue
            if needed is not None and node not in needed:
                if not retain_graph:
                    node._release()
                _skip_edges(node, buffers, deps, heap)
                continue
            if _profile_hook is None:
                _run_node(node, buf, buffers, deps, heap, retain_graph, targets, capture,
                          needed, anomaly)
            else:
                _profile_hook.evaluate(node, _run_node, (node, buf, buffers, deps, heap,
                                                         retain_graph, targets, capture,
                                                         needed, anomaly))
        while callbacks:   # a callback may queue another
            callbacks.pop(0)()
    finally:
        _passes.stack = outer
        _Mode.grad = prev_grad
    if capture is not None:
        for i, (node, nr) in enumerate(inputs):
            if capture[i] is None and not allow_unused:
                raise RuntimeError(f"The differentiated Tensor at index {i} appears to not "
                                   "have been used in the graph. Set allow_unused=True if this "
                                   "is the desired behavior.")
    return capture


def _run_node(node, buf, buffers, deps, heap, retain_graph, targets, capture,
              restricted, anomaly):
    is_acc = node.__class__ is AccumulateGrad
    om = None if is_acc else node._out_meta
    if om is None:
        grads = [buf.get(0)]
        nouts = 1
    else:
        nouts = len(om)
        grads = [buf.get(i) for i in range(nouts)]
    # tensor hooks registered on this node's outputs
    th = node._tensor_prehooks
    if th:
        for nr, hooks in th.items():
            if nr < nouts and grads[nr] is not None:
                for h in list(hooks.values()):
                    r = h(grads[nr])
                    if r is not None:
                        grads[nr] = r
    rh = node._retain_hooks
    if rh:
        for nr, ref in rh.items():
            t = ref()
            if t is not None and grads[nr] is not None:
                g = grads[nr]
                with _node_lock(node):
                    if t._grad is None:
                        t._grad = g.detach().clone() if not _Mode.grad else g.clone()
                    else:
                        t._grad = t._grad + g
    if node._prehooks:
        for h in list(node._prehooks.values()):
            r = h(tuple(grads))
            if r is not None:
                grads = list(r)
    if targets is not None and node in targets:
        for i, nr in targets[node]:
            capture[i] = grads[nr] if nr < len(grads) else None
        # go on only where the graph below leads to another requested input
        if is_acc or not any(
                nxt is not None and nxt in restricted for nxt, _ in node.next_functions):
            if not retain_graph:
                node._release()
            _skip_edges(node, buffers, deps, heap)
            return
    if is_acc:
        g = grads[0]
        if g is not None:
            # drop the engine's own references, so that a gradient nobody else holds can
            # become the leaf's .grad without a copy (as torch steals it)
            grads[0] = None
            if buf is not _EMPTY:
                buf.clear()
            steal = _getrefcount(g) == 2   # this frame's g and getrefcount's argument
            with _node_lock(node):
                if _profile_hook is None:
                    node.backward(g, steal)
                else:
                    _profile_hook.apply(node, node.backward, (g, steal))
        return
    if grads[0] is None and (nouts == 1 or all(g is None for g in grads)):
        outs = (None,) * len(node.next_functions)
    else:
        if node._out_meta is not None and node._materialize:
            grads = [g if g is not None else zeros_meta(m) for g, m in zip(grads, node._out_meta)]
        try:
            outs = node.apply(*grads) if _profile_hook is None else \
                _profile_hook.apply(node, node.apply, grads)
        except Exception:
            if anomaly:
                _warn_trace(node)
            raise
        if type(outs) is not tuple:
            outs = (outs,) if len(node.next_functions) == 1 else tuple(outs) if isinstance(outs, list) else (outs,)
        if len(outs) != len(node.next_functions):
            raise RuntimeError(f"function {node.name()} returned an incorrect number of gradients "
                               f"(expected {len(node.next_functions)}, got {len(outs)})")
        meta = node._in_meta
        if meta:
            fixed = None
            for i, (g, m) in enumerate(zip(outs, meta)):
                if g is not None and m is not None:
                    d = g._data
                    if d.shape != m[0] or d.dtype != m[1]:
                        if fixed is None:
                            fixed = list(outs)
                        fixed[i] = _validate(g, m, node, i)
            if fixed is not None:
                outs = tuple(fixed)
        if anomaly and anomaly_mode._check_nan:
            _check_nan(node, outs)
    if node._hooks:
        for h in list(node._hooks.values()):
            r = h(tuple(outs), tuple(grads))
            if r is not None:
                outs = tuple(r)
    if not retain_graph:
        node._release()
    for (nxt, nr), g in zip(node.next_functions, outs):
        if nxt is None:
            continue
        b = buffers.get(nxt)
        if b is None:
            b = buffers[nxt] = {}
        if g is not None:
            old = b.get(nr)
            b[nr] = g if old is None else old + g
        d = deps[nxt] - 1
        deps[nxt] = d
        if d == 0:
            heapq.heappush(heap, (-nxt._seq, next(_tie), nxt))


def _skip_edges(node, buffers, deps, heap):
    for nxt, _ in node.next_functions:
        if nxt is None:
            continue
        d = deps[nxt] - 1
        deps[nxt] = d
        if d == 0:
            heapq.heappush(heap, (-nxt._seq, next(_tie), nxt))


def _warn_trace(node):
    """Anomaly mode: report where the failing node was created (a UserWarning, as torch)."""
    import warnings
    warnings.warn(f"Error detected in {node.name()}. Traceback of forward call that caused the "
                  f"error:\n{node._anomaly_trace or ''}", UserWarning, stacklevel=3)


def _check_nan(node, outs):
    for i, g in enumerate(outs):
        if g is not None and (g.dtype.is_floating_point or g.dtype.is_complex) and bool(g.isnan().any()):
            _warn_trace(node)
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th output.")
