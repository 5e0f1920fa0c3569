"""``ember.quantization``: the older name of :mod:`ember.ao.quantization` (as
``torch.quantization``); the same objects, and its submodules under the old names
(``ember.quantization.observer`` is ``ember.ao.quantization.observer``)."""
import sys as _sys

from ember.ao import quantization as _q
from ember.ao.quantization import *  # noqa: F401,F403

for _name, _mod in list(_sys.modules.items()):
    if _name.startswith('ember.ao.quantization.'):
        _short = _name[len('ember.ao.quantization.'):]
        if '.' not in _short:
            _sys.modules.setdefault(f'{__name__}.{_short}', _mod)
            globals().setdefault(_short, _mod)
__all__ = list(getattr(_q, '__all__', ()))
