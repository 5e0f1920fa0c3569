"""``ember.ao.nn.intrinsic.quantized.dynamic``: the dynamically quantized fused
``LinearReLU``, as ``torch.ao.nn.intrinsic.quantized.dynamic``."""
from .modules import *  # noqa: F401,F403
from .modules import __all__  # noqa: F401
