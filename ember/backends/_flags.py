"""Module flags that :func:`ember.backends.disable_global_flags` freezes: after it, assigning
one of them outside the module's ``flags()`` context manager raises, as in PyTorch."""
import sys

__all__ = []


def freeze_guard(module_name, names):
    """Make the module ``module_name`` refuse assignments to ``names`` while the backends'
    flags are frozen (its ``flags()`` context writes through ``globals()``, unguarded)."""
    mod = sys.modules[module_name]
    short = module_name.replace('ember.', 'torch.', 1)
    frozen_names = frozenset(names)

    class _Guarded(type(mod)):
        def __setattr__(self, name, value):
            if name in frozen_names:
                backends = sys.modules.get('ember.backends')
                if backends is not None and backends.flags_frozen():
                    raise RuntimeError(f"not allowed to set {short} flags after "
                                       "disable_global_flags; please use flags() context "
                                       "manager instead")
            super().__setattr__(name, value)
    mod.__class__ = _Guarded
