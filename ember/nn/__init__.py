"""``ember.nn``: modules, parameters, functional ops, initialisation."""
from .parameter import Parameter, Buffer, UninitializedParameter, UninitializedBuffer
from .modules import *  # noqa: F401,F403
from .modules import Module, Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict
from .modules import *  # noqa: F401,F403,E402
from . import functional, init, utils  # noqa: E402,F401
from .modules.container import Container  # noqa: E402,F401
from . import parallel, attention  # noqa: E402,F401
from .parallel import DataParallel  # noqa: E402,F401


def factory_kwargs(kwargs):
    """The factory keyword arguments (``device``, ``dtype``, ``memory_format``) of
    ``kwargs`` as a new dict, merged with an explicit ``factory_kwargs`` entry; any other
    key is a TypeError, and a key given both ways too.

    Args:
        kwargs (dict or None): keyword arguments of a module constructor.

    Example::

        >>> nn.factory_kwargs({'dtype': ember.float64, 'factory_kwargs': {'device': 'cpu'}})
        {'device': 'cpu', 'dtype': torch.float64}
    """
    if kwargs is None:
        return {}
    simple = {'device', 'dtype', 'memory_format'}
    allowed = simple | {'factory_kwargs'}
    if not kwargs.keys() <= allowed:
        raise TypeError(f"unexpected kwargs {kwargs.keys() - allowed}")
    r = dict(kwargs.get('factory_kwargs', {}))
    for k in ('device', 'dtype', 'memory_format'):
        if k in kwargs:
            if k in r:
                raise TypeError(f"{k} specified twice, in **kwargs and in factory_kwargs")
            r[k] = kwargs[k]
    return r


# ``ember.nn.quantized`` (and ``.intrinsic``, ``.qat``) are the
# ``ember.ao.nn`` packages under their older names, as ``torch.nn.quantized`` re-exports
# ``torch.ao.nn.quantized``: the same module objects, loaded on first use (attribute access
# or an import statement, through the finder below).
_AO_ALIASES = ('quantized', 'intrinsic', 'qat')


class _AoAliasFinder:
    """Import-system finder: ``ember.nn.<alias>[.sub]`` is ``ember.ao.nn.<alias>[.sub]``."""
    _specs = {}

    @classmethod
    def find_spec(cls, name, path=None, target=None):
        parts = name.split('.')
        if len(parts) >= 3 and parts[0] == 'ember' and parts[1] == 'nn' and \
                parts[2] in _AO_ALIASES:
            import importlib.util
            return importlib.util.spec_from_loader(name, cls)
        return None

    @classmethod
    def create_module(cls, spec):
        import importlib
        module = importlib.import_module('ember.ao.nn.' + spec.name[len('ember.nn.'):])
        cls._specs[spec.name] = module.__spec__
        return module

    @classmethod
    def exec_module(cls, module):
        # the import system set the alias's spec on the shared module: give back its own
        module.__spec__ = cls._specs.pop(module.__spec__.name, module.__spec__)


import sys as _sys  # noqa: E402
if not any(getattr(f, '__name__', None) == '_AoAliasFinder' for f in _sys.meta_path):
    _sys.meta_path.insert(0, _AoAliasFinder)   # before the path finder, which would load
    # a second copy of a submodule found through the shared package's __path__


def __getattr__(name):
    if name in _AO_ALIASES:
        import importlib
        return importlib.import_module(f'{__name__}.{name}')
    raise AttributeError(f"module '{__name__}' has no attribute '{name}'")
