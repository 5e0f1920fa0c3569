"""``ember.nn``: modules, parameters, functional ops, initialisation."""
from .parameter import Parameter, Buffer, UninitializedParameter, UninitializedBuffer
from .modules import *  # noqa: F401,F403
from .modules import Module, Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict
from .modules import *  # noqa: F401,F403,E402
from . import functional, init, utils  # noqa: E402,F401
