"""``ember.func``: composable function transforms (``grad``, ``vjp``, ``jacrev``, ``jvp``,
``jacfwd``, ``hessian``, ``linearize``, ``vmap``) and ``functional_call``.

NOTE: unlike PyTorch, the transforms are built on ember's reverse-mode autograd (nested
transforms use ``create_graph=True``; forward mode uses the "double vjp"), and ``vmap``
runs the function once per sample (see :func:`vmap`).
"""
from ._transforms import (grad, grad_and_value, vjp, jacrev, jacfwd, hessian, jvp,
                          linearize)
from ._vmap import vmap
from ._module_state import functional_call, stack_module_state
from ._rearrange import rearrange

__all__ = ['vmap', 'grad', 'grad_and_value', 'vjp', 'jvp', 'jacrev', 'jacfwd', 'hessian',
           'functionalize', 'linearize', 'functional_call', 'stack_module_state',
           'replace_all_batch_norm_modules_', 'debug_unwrap', 'rearrange']


def functionalize(func, *, remove='mutations'):
    """Returns ``func`` made free of in-place mutations and views.

    Args:
        func (callable): the function.
        remove (str): ``'mutations'`` or ``'mutations_and_views'``.

    Example::

        >>> f = ember.func.functionalize(lambda x: x.add_(1))

    NOTE: unlike PyTorch, ember runs eagerly without a tracing layer, so the returned
    function runs ``func`` as is (same results; mutations of inputs still happen).
    """
    if remove not in ('mutations', 'mutations_and_views'):
        raise RuntimeError(f"functionalize(f, remove='mutations'): received invalid argument "
                           f"for remove={remove}. Valid options are:\n     remove='mutations': "
                           "all inplace and out= operators will be removed from the program, "
                           "and replaced with their out-of-place equivalents.\n     "
                           "remove='mutations_and_views': In addition to the above, all "
                           "aliasing operators {view} will be replaced with their non-aliasing"
                           " counterparts, {view}_copy.\n")

    def wrapped(*args, **kwargs):
        return func(*args, **kwargs)
    wrapped.__name__ = getattr(func, '__name__', 'functionalized')
    return wrapped


def replace_all_batch_norm_modules_(root):
    """In place: every batch-norm module under ``root`` stops tracking running statistics
    (``running_mean``/``running_var``/``num_batches_tracked`` become ``None``); returns
    ``root``. Lets ``vmap`` run models whose batch norm would update shared buffers.

    Example::

        >>> net = ember.func.replace_all_batch_norm_modules_(ember.nn.BatchNorm1d(3))
        >>> net.running_mean is None
        True
    """
    from ..nn.modules.batchnorm import _BatchNorm
    for m in root.modules():
        if isinstance(m, _BatchNorm):
            m.running_mean = None
            m.running_var = None
            m.num_batches_tracked = None
            m.track_running_stats = False
    return root


def debug_unwrap(tensor, *, recurse=True):
    """Unwrap a transform's wrapper tensor (debugging aid).

    NOTE: unlike PyTorch, ember's transforms use plain tensors: the tensor is returned
    unchanged.

    Args:
        tensor (Tensor): the tensor to unwrap.
        recurse (bool, optional): keyword-only; accepted for compatibility.

    Example::

        >>> x = ember.ones(2)
        >>> ember.func.debug_unwrap(x) is x
        True
    """
    return tensor
