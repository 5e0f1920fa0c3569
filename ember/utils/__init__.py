"""``ember.utils``: hooks helpers, data loading (``ember.utils.data``)."""
from . import hooks  # noqa: F401


def __getattr__(name):   # ``ember.utils.data`` loads on first use (keeps ``import ember`` fast)
    if name in ('data', 'checkpoint', 'flop_counter', 'benchmark', 'deterministic'):
        import importlib
        return importlib.import_module(f'{__name__}.{name}')
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
