"""``ember.ao.nn.intrinsic.qat``: fused modules for quantization-aware training (conv +
batch norm (+ ReLU) with the batch norm folded, conv + ReLU, linear + ReLU, linear + batch
norm), as ``torch.ao.nn.intrinsic.qat``."""
from .modules import *  # noqa: F401,F403
from .modules import __all__  # noqa: F401
