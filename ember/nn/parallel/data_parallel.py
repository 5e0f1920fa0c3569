"""``DataParallel`` and ``data_parallel``: split a batch over accelerator devices, run a
replica of the module on each, gather the outputs on one device."""
from itertools import chain

from ..modules.module import Module
from . import _devices as _dev
from .parallel_apply import parallel_apply
from .replicate import replicate
from .scatter_gather import gather, scatter_kwargs

__all__ = ['DataParallel', 'data_parallel']


def _all_device_indices():
    from ... import cuda
    return list(range(cuda.device_count()))


class DataParallel(Module):
    """Data parallelism over the accelerator devices of one process: each forward splits
    the inputs along ``dim`` over ``device_ids``, runs a replica of ``module`` on each piece
    and gathers the outputs on ``output_device``; gradients flow back to ``module``'s
    parameters. The wrapped module is the ``module`` attribute, so ``state_dict`` keys are
    prefixed ``module.``.

    Without an accelerator (ember's CPU) it runs ``module`` unchanged and keeps only
    ``module`` and ``device_ids = []``, as PyTorch does on a CPU-only machine. With a single
    device the module is moved there and called directly.

    NOTE: unlike PyTorch, no warning about unbalanced GPUs is given.

    Args:
        module (Module): the module to parallelise.
        device_ids (list of int or device, optional): devices (default: all).
        output_device (int or device, optional): where outputs go (default:
            ``device_ids[0]``).
        dim (int): the dim inputs are split along. Default: 0

    Example::

        >>> net = nn.DataParallel(nn.Linear(3, 2))
        >>> net(ember.ones(4, 3)).shape, list(net.state_dict())
        (torch.Size([4, 2]), ['module.weight', 'module.bias'])
    """

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        if not _dev.accelerator_available():
            self.module = module
            self.device_ids = []
            return
        if device_ids is None:
            device_ids = _all_device_indices()
        if not device_ids:
            raise RuntimeError("no available devices were found")
        if output_device is None:
            output_device = device_ids[0]
        self.dim = dim
        self.module = module
        self.device_ids = [_dev.device_index(x) for x in device_ids]
        self.output_device = _dev.device_index(output_device)
        self.src_device_obj = _dev.to_device(self.device_ids[0])
        if len(self.device_ids) == 1:
            self.module.to(self.src_device_obj)

    def forward(self, *inputs, **kwargs):
        if not self.device_ids:
            return self.module(*inputs, **kwargs)
        for t in chain(self.module.parameters(), self.module.buffers()):
            if t.device != self.src_device_obj:
                raise RuntimeError(f"module must have its parameters and buffers on device "
                                   f"{self.src_device_obj} (device_ids[0]) but found one of "
                                   f"them on device: {t.device}")
        inputs, module_kwargs = self.scatter(inputs, kwargs, self.device_ids)
        if not inputs and not module_kwargs:
            inputs, module_kwargs = ((),), ({},)
        if len(self.device_ids) == 1:
            return self.module(*inputs[0], **module_kwargs[0])
        replicas = self.replicate(self.module, self.device_ids[:len(inputs)])
        outputs = self.parallel_apply(replicas, inputs, module_kwargs)
        return self.gather(outputs, self.output_device)

    def replicate(self, module, device_ids):
        """Replicas of ``module`` on ``device_ids`` (see :func:`replicate`)."""
        from ..._grad_state import _Mode
        return replicate(module, device_ids, not _Mode.grad)

    def scatter(self, inputs, kwargs, device_ids):
        """Split ``inputs`` / ``kwargs`` over ``device_ids`` along ``self.dim``."""
        return scatter_kwargs(inputs, kwargs, device_ids, dim=self.dim)

    def parallel_apply(self, replicas, inputs, kwargs):
        """Run the replicas on their inputs (see :func:`parallel_apply`)."""
        return parallel_apply(replicas, inputs, kwargs, self.device_ids[:len(replicas)])

    def gather(self, outputs, output_device):
        """Concatenate the replicas' outputs on ``output_device`` along ``self.dim``."""
        return gather(outputs, output_device, dim=self.dim)


def data_parallel(module, inputs, device_ids=None, output_device=None, dim=0,
                  module_kwargs=None):
    """The functional form of :class:`DataParallel`: evaluates ``module(inputs)`` split over
    ``device_ids``. Needs an accelerator (without one PyTorch's RuntimeError "device type
    could not be determined" is raised).

    Args:
        module (Module): the module to evaluate.
        inputs (Tensor or tuple): its inputs.
        device_ids (list of int or device, optional): devices (default: all).
        output_device (int or device, optional): where the output goes (default:
            ``device_ids[0]``).
        dim (int): the dim inputs are split along. Default: 0
        module_kwargs (dict, optional): keyword arguments of the module.

    Example::

        >>> from ember.nn.parallel import data_parallel
        >>> try:
        ...     data_parallel(nn.Linear(2, 2), ember.ones(1, 2))
        ... except RuntimeError as e:
        ...     print(e)
        device type could not be determined
    """
    if not isinstance(inputs, tuple):
        inputs = (inputs,) if inputs is not None else ()
    if not _dev.accelerator_available():
        raise RuntimeError("device type could not be determined")
    if device_ids is None:
        device_ids = _all_device_indices()
    if not device_ids:
        raise RuntimeError("no available devices were found")
    if output_device is None:
        output_device = device_ids[0]
    device_ids = [_dev.device_index(x) for x in device_ids]
    output_device = _dev.device_index(output_device)
    src = _dev.to_device(device_ids[0])
    for t in chain(module.parameters(), module.buffers()):
        if t.device != src:
            raise RuntimeError(f"module must have its parameters and buffers on device {src} "
                               f"(device_ids[0]) but found one of them on device: {t.device}")
    inputs, module_kwargs = scatter_kwargs(inputs, module_kwargs, device_ids, dim)
    if not inputs and not module_kwargs:
        inputs, module_kwargs = ((),), ({},)
    if len(device_ids) == 1:
        return module(*inputs[0], **module_kwargs[0])
    used = device_ids[:len(inputs)]
    replicas = replicate(module, used)
    outputs = parallel_apply(replicas, inputs, module_kwargs, used)
    return gather(outputs, output_device, dim)
