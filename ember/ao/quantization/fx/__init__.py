"""``ember.ao.quantization.fx``: FX graph mode quantization on ``ember.fx`` graphs, as
``torch.ao.quantization.fx``: :func:`fuse` (module fusion on the graph), :func:`prepare`
(observers inserted where a :class:`~ember.ao.quantization.backend_config.BackendConfig`
pattern is quantized under the :class:`~ember.ao.quantization.QConfigMapping`) and
:func:`convert` (observers replaced by quantize/dequantize, weighted modules by reference
quantized modules, then lowered to ``nn.quantized`` modules and quantized ops). The
user-facing entry points are in :mod:`ember.ao.quantization.quantize_fx`."""
from .fuse import fuse
from .prepare import prepare
from .convert import convert

__all__ = ['prepare', 'convert', 'fuse']
