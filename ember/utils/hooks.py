"""``RemovableHandle`` and the machinery behind modules' full backward hooks."""
from ..autograd.graph import RemovableHandle, Node

__all__ = ['RemovableHandle', 'BackwardHook']


class BackwardHookFunctionBackward(Node):
    """Identity node wrapped around a module's tensor inputs or outputs so that full
    backward hooks see the gradients w.r.t. them."""

    def backward(self, *grads):
        return grads


def _identity_wrap(tensors):
    """Pass ``tensors`` (a tuple) through one identity node; returns new tensor objects
    sharing data, with the node as grad_fn (for those requiring grad), and the node."""
    from .._tensor import Tensor, _new_tensor
    from ..autograd.graph import record
    idx = [i for i, t in enumerate(tensors) if isinstance(t, Tensor) and t.requires_grad]
    if not idx:
        return tensors, None
    ins = [tensors[i] for i in idx]
    outs = []
    for t in ins:
        o = _new_tensor(t._data)
        o._st = t._storage_obj()
        outs.append(o)
    node = BackwardHookFunctionBackward()
    record(tuple(outs), node, ins)
    res = list(tensors)
    for i, o in zip(idx, outs):
        res[i] = o
    node._positions = idx
    node._n = len(tensors)
    return tuple(res), node


class BackwardHook:
    """The machinery of a module's full backward (pre-)hooks: wraps the module's tensor inputs
    and outputs in identity nodes so that the hooks see (and may replace) the gradients
    with respect to them. Used by ``nn.Module.__call__``.

    Args:
        module (nn.Module): the module whose hooks run.
        user_hooks (list): ``hook(module, grad_input, grad_output)`` callables.
        user_pre_hooks (list): ``hook(module, grad_output)`` callables.

    Example::

        >>> bw = BackwardHook(lin, [lambda m, gi, go: None], [])
        >>> args = bw.setup_input_hook((x,)); out = bw.setup_output_hook(lin.forward(*args))
    """

    def __init__(self, module, user_hooks, user_pre_hooks):
        self.module = module
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.grad_outputs = None
        self.n_inputs = 0
        self.input_node = None

    def _full(self, node, grads):
        out = [None] * node._n
        for p, g in zip(node._positions, grads):
            out[p] = g
        return tuple(out)

    def setup_input_hook(self, args):
        """Route the tensors of ``args`` that require grad through an identity node whose backward
        runs the full backward hooks; returns the new ``args``.
        """
        self.n_inputs = len(args)
        new, node = _identity_wrap(tuple(args))
        self.input_node = node
        if node is not None:
            from .._tensor import Tensor
            # like PyTorch, tensor inputs that don't require grad get zero gradients
            # (when some other input does)
            zero_meta = [(i, t.shape, t.dtype, t.device) for i, t in enumerate(args)
                         if isinstance(t, Tensor) and not t.requires_grad]

            def hook(grad_inputs, grad_outputs):
                gi = self._full(node, grad_inputs)
                if zero_meta:
                    from .._ops.creation import zeros
                    gi = list(gi)
                    for i, shape, dtype, device in zero_meta:
                        gi[i] = zeros(shape, dtype=dtype, device=device)
                    gi = tuple(gi)
                for h in self.user_hooks:
                    r = h(self.module, gi, self.grad_outputs)
                    if r is not None:
                        r = tuple(r)
                        if len(r) != len(gi):
                            raise RuntimeError(f"Backward hook returned an invalid number of grad_input, got "
                                               f"{len(r)}, but expected {len(gi)}")
                        gi = r
                return tuple(gi[p] for p in node._positions)
            node.register_hook(hook)
        return new

    def setup_output_hook(self, result):
        """Route the module's output tensors through an identity node whose backward runs the
        backward pre-hooks; returns the new output.
        """
        from .._tensor import Tensor
        single = isinstance(result, Tensor)
        outs = (result,) if single else result
        if not isinstance(outs, tuple):
            return result
        new, node = _identity_wrap(outs)
        if node is None:
            return result

        def prehook(grad_outputs):
            go = self._full(node, grad_outputs)
            for h in self.user_pre_hooks:
                r = h(self.module, go)
                if r is not None:
                    go = tuple(r)
            self.grad_outputs = go
            if self.input_node is None:
                for h in self.user_hooks:
                    h(self.module, (None,) * max(self.n_inputs, 1) if self.n_inputs else (), go)
            return tuple(go[p] for p in node._positions)
        node.register_prehook(prehook)
        return new[0] if single else new
