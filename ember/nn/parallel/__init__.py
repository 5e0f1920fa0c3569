"""``ember.nn.parallel``: single-process data parallelism over accelerator devices.

``DataParallel`` splits a batch over devices, runs a replica of the module on each and
gathers the outputs; without an accelerator (ember's CPU) it runs the module unchanged, as
PyTorch's does on a CPU-only machine. The functional pieces (``scatter``, ``gather``,
``replicate``, ``parallel_apply``, ``data_parallel``) are PyTorch's; like PyTorch's they
need accelerator devices (CPU devices are refused with PyTorch's errors).

``DistributedDataParallel`` is multi-process data parallelism over ``ember.distributed``."""
from .parallel_apply import parallel_apply
from .replicate import replicate
from .data_parallel import DataParallel, data_parallel
from .scatter_gather import gather, scatter
from .distributed import DistributedDataParallel

__all__ = ['replicate', 'scatter', 'parallel_apply', 'gather', 'data_parallel',
           'DataParallel', 'DistributedDataParallel']
