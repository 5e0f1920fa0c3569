"""``ember.fx``: PyTorch's FX toolkit on ember — symbolic tracing of modules into a graph
of operations, graph editing, and Python code generation from the graph.

Example::

    >>> import ember as torch
    >>> class M(torch.nn.Module):
    ...     def __init__(self):
    ...         super().__init__(); self.linear = torch.nn.Linear(4, 5)
    ...     def forward(self, x):
    ...         return torch.relu(self.linear(x))
    >>> gm = torch.fx.symbolic_trace(M())
    >>> print(gm.code)

NOTE: unlike PyTorch, the generated code refers to ember by the global name ``torch``
(so its text equals PyTorch's for the same program). A call of an
``ember.nn.functional`` function records the arguments the caller passed (PyTorch's
Python functionals also record their defaulted keyword arguments, e.g.
``relu(x, inplace = False)``), and functions PyTorch implements in C print under their
ember namespace (``torch.nn.functional.gelu`` rather than ``torch._C._nn.gelu``).
``Node.normalized_arguments`` is not implemented (returns None).
"""
from .graph_module import GraphModule
from ._symbolic_trace import symbolic_trace, Tracer, wrap, PH, ProxyableClassMeta
from .graph import Graph, CodeGen
from .node import Node, map_arg, has_side_effect
from .proxy import Proxy
from .interpreter import Interpreter, Transformer
from .subgraph_rewriter import replace_pattern

__all__ = ['symbolic_trace', 'Tracer', 'wrap', 'Graph', 'GraphModule', 'Interpreter',
           'Transformer', 'Node', 'Proxy', 'replace_pattern', 'has_side_effect',
           'map_arg', 'CodeGen', 'PH', 'ProxyableClassMeta']
