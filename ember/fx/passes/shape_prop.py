"""``ShapeProp``: record each node's tensor metadata by running the graph."""
from typing import Any, NamedTuple

from ..interpreter import Interpreter
from ..node import map_aggregate

__all__ = ['TensorMetadata', 'ShapeProp']


class TensorMetadata(NamedTuple):
    """What ShapeProp records of a tensor value (``node.meta['tensor_meta']``): ``shape``,
    ``dtype``, ``requires_grad``, ``stride``, ``memory_format``, ``is_quantized`` and
    ``qparams``.

    Example::

        >>> from ember.fx.passes.shape_prop import ShapeProp
        >>> class M(ember.nn.Module):
        ...     def forward(self, x):
        ...         return x.relu()
        >>> gm = ember.fx.symbolic_trace(M())
        >>> _ = ShapeProp(gm).propagate(ember.ones(2, 3))
        >>> meta = [n for n in gm.graph.nodes if n.name == 'relu'][0].meta['tensor_meta']
        >>> meta.shape, meta.dtype
        (torch.Size([2, 3]), torch.float32)
    """
    shape: Any
    dtype: Any
    requires_grad: bool
    stride: Any
    memory_format: Any
    is_quantized: bool
    qparams: dict


def _extract_tensor_metadata(result, include_contiguity=True):
    import ember
    memory_format = None
    if include_contiguity:
        for fmt in (ember.contiguous_format, ember.channels_last, ember.channels_last_3d):
            try:
                if result.is_contiguous(memory_format=fmt):
                    memory_format = fmt
                    break
            except (RuntimeError, TypeError, ValueError):
                continue
    return TensorMetadata(result.shape, result.dtype, result.requires_grad, result.stride(),
                          memory_format, False, {})


class ShapeProp(Interpreter):
    """Run a GraphModule on example inputs, storing in each node's ``meta`` the
    ``tensor_meta`` (:class:`TensorMetadata`, or a structure of them) and ``type`` of its
    value.

    Example::

        >>> ShapeProp(gm).propagate(x)
        >>> gm.graph.nodes[0].meta['tensor_meta'].shape
    """

    def __init__(self, gm, fake_mode=None):
        super().__init__(gm)
        self.fake_mode = fake_mode
        self.fake_module = None
        self.real_module = self.module

    def run_node(self, n):
        import ember
        result = super().run_node(n)
        found = [False]

        def extract(obj):
            if isinstance(obj, ember.Tensor):
                found[0] = True
                return _extract_tensor_metadata(obj)
            return obj
        meta = map_aggregate(result, extract)
        if found[0]:
            n.meta['tensor_meta'] = meta
        n.meta['type'] = type(result)
        return result

    def propagate(self, *args):
        """Run the graph on ``args`` (recording metadata); returns its result."""
        return super().run(*args)


TensorMetadata.__module__ = 'ember.fx.passes.shape_prop'
ShapeProp.__module__ = 'ember.fx.passes.shape_prop'
