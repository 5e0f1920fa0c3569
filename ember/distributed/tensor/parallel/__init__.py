"""``ember.distributed.tensor.parallel``: tensor parallelism on DTensor
(``parallelize_module`` with ``ColwiseParallel``, ``RowwiseParallel``, ``SequenceParallel``
and the input/output layout styles).

NOTE: unlike PyTorch, ``loss_parallel`` changes nothing: a cross-entropy on logits sharded
by class computes on the gathered logits (same values, more communication).
"""
import contextlib

from .api import parallelize_module
from .style import (ParallelStyle, ColwiseParallel, RowwiseParallel, SequenceParallel,
                    PrepareModuleInput, PrepareModuleOutput, PrepareModuleInputOutput)

__all__ = ['ColwiseParallel', 'ParallelStyle', 'PrepareModuleInput', 'PrepareModuleInputOutput',
           'PrepareModuleOutput', 'RowwiseParallel', 'SequenceParallel', 'parallelize_module',
           'loss_parallel']


@contextlib.contextmanager
def loss_parallel():
    """Context in which ``cross_entropy`` may take logits sharded along the class dimension.

    NOTE: unlike PyTorch, ember gathers the logits instead of computing a vocabulary-parallel
    loss (same values).

    Example::

        >>> with loss_parallel():
        ...     loss = F.cross_entropy(logits, labels)
        ...     loss.backward()
    """
    yield
