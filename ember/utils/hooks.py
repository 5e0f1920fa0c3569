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
    from .._ops._util import record
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
    """Calls a module's full backward (pre) hooks with gradients w.r.t. its tensor inputs
    and outputs, letting them replace ``grad_input`` / ``grad_output``."""

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
        self.n_inputs = len(args)
        new, node = _identity_wrap(tuple(args))
        self.input_node = node
        if node is not None:
            def hook(grad_inputs, grad_outputs):
                gi = self._full(node, grad_inputs)
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
