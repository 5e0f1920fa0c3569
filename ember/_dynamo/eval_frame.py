"""``ember._dynamo.eval_frame``: ``OptimizedModule`` and the support checks of
``torch._dynamo.eval_frame``."""
import sys

from ..compiler import OptimizedModule

__all__ = ['OptimizedModule', 'is_dynamo_supported', 'check_if_dynamo_supported']


def check_if_dynamo_supported():
    """Raise ``RuntimeError`` where PyTorch's Dynamo does not run (Python 3.15 and later).

    NOTE: unlike PyTorch, ember never compiles; this reports what PyTorch would say.

    Example::

        >>> ember._dynamo.eval_frame.check_if_dynamo_supported()
    """
    if sys.version_info >= (3, 15):
        raise RuntimeError("Python 3.15+ not yet supported for torch.compile")


def is_dynamo_supported():
    """Whether ``torch.compile`` is supported on this Python (see
    :func:`check_if_dynamo_supported`).

    Example::

        >>> ember._dynamo.eval_frame.is_dynamo_supported()
        True
    """
    try:
        check_if_dynamo_supported()
        return True
    except RuntimeError:
        return False
