"""The tracer of FX graph mode quantization: ``ember.fx`` symbolic tracing with fused
modules and observers kept as leaves, the skipped modules not traced through, and each
node's module scope recorded (as ``torch.ao.quantization.fx.tracer``)."""
from ember.fx import Tracer

__all__ = ['QuantizationTracer', 'Scope', 'ScopeContextManager']


class Scope:
    """The module a node was created in: its qualified name and type.

    Args:
        module_path (str): the qualified name (``''`` for the root).
        module_type (type): the module's type.

    Example::

        >>> Scope('', None).module_path
        ''
    """

    def __init__(self, module_path, module_type):
        self.module_path = module_path
        self.module_type = module_type


class ScopeContextManager:
    """Set ``scope`` to a module's path and type while its call is traced, put back after.

    Args:
        scope (Scope): the tracer's current scope (changed in place).
        current_module (Module): the module being called.
        current_module_path (str): its qualified name.

    Example::

        >>> s = Scope('', None)
        >>> with ScopeContextManager(s, ember.nn.ReLU(), 'relu'):
        ...     s.module_path
        'relu'
    """

    def __init__(self, scope, current_module, current_module_path):
        self.prev_module_type = scope.module_type
        self.prev_module_path = scope.module_path
        self.scope = scope
        self.scope.module_path = current_module_path
        self.scope.module_type = type(current_module)

    def __enter__(self):
        return self

    def __exit__(self, *args):
        self.scope.module_path = self.prev_module_path
        self.scope.module_type = self.prev_module_type


class QuantizationTracer(Tracer):
    """``ember.fx.Tracer`` for quantization: the modules in ``skipped_module_names`` /
    ``skipped_module_classes``, ember's own layers, fused modules and observers are leaves;
    :attr:`node_name_to_scope` maps each node name to ``(module_path, module_type)``.

    Args:
        skipped_module_names (list[str]): qualified names not traced through.
        skipped_module_classes (list[type]): module types not traced through.

    Example::

        >>> graph = QuantizationTracer([], []).trace(ember.nn.Linear(2, 2))
    """

    def __init__(self, skipped_module_names, skipped_module_classes):
        super().__init__()
        self.skipped_module_names = list(skipped_module_names)
        self.skipped_module_classes = list(skipped_module_classes)
        self.scope = Scope("", None)
        self.node_name_to_scope = {}
        self.record_stack_traces = True

    def is_leaf_module(self, m, module_qualified_name):
        from ember.ao.nn.intrinsic.modules.fused import _FusedModule
        from ..observer import ObserverBase
        from ..fake_quantize import FakeQuantizeBase
        return (super().is_leaf_module(m, module_qualified_name)
                or module_qualified_name in self.skipped_module_names
                or type(m) in self.skipped_module_classes
                or isinstance(m, (_FusedModule, ObserverBase, FakeQuantizeBase)))

    def call_module(self, m, forward, args, kwargs):
        path = self.path_of_module(m)
        with ScopeContextManager(self.scope, m, path):
            return super().call_module(m, forward, args, kwargs)

    def create_node(self, kind, target, args, kwargs, name=None, type_expr=None):
        node = super().create_node(kind, target, args, kwargs, name, type_expr)
        self.node_name_to_scope[node.name] = (self.scope.module_path, self.scope.module_type)
        return node
