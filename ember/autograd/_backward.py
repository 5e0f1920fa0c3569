"""``ember.autograd.backward`` and ``ember.autograd.grad`` (the entry points of reverse mode,
over ``engine.run_backward``) and ``Tensor.backward``, bound onto ``Tensor`` from here.
They default the output gradients with the op library (``ones_like``)."""
from .._tensor import _bind
from .engine import run_backward

_warned_create_graph = False


def _tensors(x):
    from .._tensor import Tensor
    if x is None:
        return []
    if isinstance(x, Tensor):
        return [x]
    return list(x)


def _make_grads(outputs, grads, is_grads_batched=False):
    from .._ops.creation import ones_like
    out = []
    for o, g in zip(outputs, grads):
        if g is None:
            if o.requires_grad:
                if o.numel() != 1:
                    raise RuntimeError("grad can be implicitly created only for scalar outputs")
                if not o.is_floating_point() and not o.is_complex():
                    raise RuntimeError(f"grad can be implicitly created only for real scalar "
                                       f"outputs but got {o.dtype}")
                g = ones_like(o)
        else:
            from .._tensor import Tensor
            if not isinstance(g, Tensor):
                from .._ops.creation import tensor
                g = tensor(g, dtype=o.dtype, device=o.device)
            if g.shape != o.shape:
                raise RuntimeError(f"Mismatch in shape: grad_output[{len(out)}] has a shape of "
                                   f"{g.shape} and output[{len(out)}] has a shape of {o.shape}.")
        out.append(g)
    return out


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False,
             grad_variables=None, inputs=None):
    """Accumulate into the ``.grad`` of graph leaves the gradient of ``tensors``.

    Args:
        tensors: tensors whose derivative is computed.
        grad_tensors: the upstream gradient for each (``None`` for scalars: 1).
        retain_graph (bool): keep the graph (and saved tensors) for another backward;
            defaults to ``create_graph``.
        create_graph (bool): build a graph of the derivative (for higher orders).
        inputs: accumulate only into these tensors.

    Example::

        >>> x = ember.tensor([2.], requires_grad=True)
        >>> ember.autograd.backward((x * x).sum()); x.grad
        tensor([4.])
    """
    from .graph import edge_of
    outs = _tensors(tensors)
    gts = _tensors(grad_tensors) if grad_tensors is not None else [None] * len(outs)
    if len(gts) != len(outs):
        raise RuntimeError(f"got {len(gts)} tensors and {len(outs)} gradients")
    if retain_graph is None:
        retain_graph = create_graph
    for o in outs:
        if not o.requires_grad:
            raise RuntimeError("element 0 of tensors does not require grad and does not have a "
                               "grad_fn")
    grads = _make_grads(outs, gts)
    roots = [edge_of(o) for o in outs]
    global _warned_create_graph
    if create_graph and not _warned_create_graph:
        _warned_create_graph = True   # once per process, as torch
        import warnings
        warnings.warn("Using backward() with create_graph=True will create a reference cycle "
                      "between the parameter and its gradient which can cause a memory leak. "
                      "We recommend using autograd.grad when creating the graph to avoid this. "
                      "If you have to use this function, make sure to reset the .grad fields of "
                      "your parameters to None after use to break the cycle and avoid the leak.",
                      UserWarning, stacklevel=3)
    if inputs is not None:
        ins = _tensors(inputs)
        if not ins:
            raise RuntimeError("'inputs' argument to backward() cannot be empty.")
        edges = [edge_of(t) for t in ins]
        caps = run_backward(roots, grads, retain_graph, create_graph, inputs=edges,
                            allow_unused=True)
        for t, g in zip(ins, caps):
            if g is None:
                continue
            if t._grad is None:
                t._grad = g.detach().clone() if not create_graph else g
            else:
                t._grad = t._grad + g if create_graph else t._grad.add_(g)
        return
    run_backward(roots, grads, retain_graph, create_graph)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """The gradients of ``outputs`` with respect to ``inputs`` (not accumulated into
    ``.grad``).

    Args:
        outputs: tensors to differentiate.
        inputs: tensors to differentiate with respect to.
        grad_outputs: upstream gradients (``None`` for scalar outputs).
        retain_graph (bool): defaults to ``create_graph``.
        create_graph (bool): make the result differentiable (higher-order derivatives).
        allow_unused (bool): return ``None`` for inputs the outputs do not depend on
            instead of raising.
        materialize_grads (bool): return zeros instead of ``None`` for unused inputs.

    Example::

        >>> x = ember.tensor(1., requires_grad=True)
        >>> (g,) = ember.autograd.grad(x.tanh(), x, create_graph=True)
    """
    from .graph import edge_of
    from .._tensor import Tensor
    single = isinstance(inputs, Tensor)
    outs = _tensors(outputs)
    ins = _tensors(inputs)
    if allow_unused is None:
        allow_unused = materialize_grads
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True")
    gos = _tensors(grad_outputs) if grad_outputs is not None else [None] * len(outs)
    if len(gos) != len(outs):
        raise RuntimeError(f"grad requires one grad_output per output: got {len(gos)} and {len(outs)}")
    for o in outs:
        if not o.requires_grad:
            raise RuntimeError("element 0 of tensors does not require grad and does not have a grad_fn")
    for i in ins:
        if not i.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    if retain_graph is None:
        retain_graph = create_graph
    grads = _make_grads(outs, gos)
    roots = [edge_of(o) for o in outs]
    edges = [edge_of(t) for t in ins]
    caps = run_backward(roots, grads, retain_graph, create_graph, inputs=edges,
                        allow_unused=allow_unused)
    res = []
    for t, g in zip(ins, caps):
        if g is None and materialize_grads:
            from .._ops.creation import zeros_like
            g = zeros_like(t)
        res.append(g)
    return tuple(res)


class _TensorBackward:
    """``Tensor.backward``, bound onto ``Tensor`` from here."""

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Compute the gradient of this tensor w.r.t. graph leaves (see
        :func:`ember.autograd.backward`)."""
        backward(self, gradient, retain_graph, create_graph, inputs=inputs)


_bind(_TensorBackward)
backward.__module__ = grad.__module__ = 'ember.autograd'   # their public home, as torch's
