"""``ember.quantization``: the older name of :mod:`ember.ao.quantization` (as
``torch.quantization``); the same objects, and its submodules under the old names
(``ember.quantization.observer`` is ``ember.ao.quantization.observer``)."""
import importlib as _importlib
import sys as _sys

from ember.ao import quantization as _q
from ember.ao.quantization import *  # noqa: F401,F403

# the submodules torch.quantization also has (quantize_fx too, which the package itself
# loads on first use)
for _sub in ('quantize_fx', 'fuser_method_mappings', 'fx'):
    _importlib.import_module(f'ember.ao.quantization.{_sub}')
for _name, _mod in list(_sys.modules.items()):
    if _name.startswith('ember.ao.quantization.'):
        _short = _name[len('ember.ao.quantization.'):]
        _sys.modules.setdefault(f'{__name__}.{_short}', _mod)
        if '.' not in _short:
            globals().setdefault(_short, _mod)
__all__ = list(getattr(_q, '__all__', ()))


def __getattr__(name):
    # what the package resolves on first use (the DEFAULT_* mapping tables)
    try:
        return getattr(_q, name)
    except AttributeError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
