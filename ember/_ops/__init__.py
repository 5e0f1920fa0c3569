"""The op library. Importing this package imports every op family, which registers its
ops (see ``_util.register``); ``bind()`` then attaches them to ``Tensor`` and returns the
functions for the ``ember`` namespace."""
import importlib
import pkgutil

from ._util import METHODS, FUNCTIONS

_FAMILIES = []


def _load_families():
    for m in pkgutil.iter_modules(__path__):
        if not m.name.startswith('_'):
            _FAMILIES.append(importlib.import_module(f'{__name__}.{m.name}'))


def bind():
    from .._tensor import Tensor
    _load_families()
    for name, fn in METHODS.items():
        if name in Tensor.__dict__ and not name.startswith('__'):
            continue   # explicit Tensor members win
        setattr(Tensor, name, fn)
    return dict(FUNCTIONS)
