"""``ember.ao.nn.qat.dynamic``: QAT modules for dynamic quantization (``Linear``), as
``torch.ao.nn.qat.dynamic``."""
from .modules import *  # noqa: F401,F403
from .modules import __all__  # noqa: F401
