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
