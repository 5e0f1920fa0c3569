"""``ember.utils.tensorboard``: write TensorBoard event files (``SummaryWriter``).

Needs the ``tensorboard`` package (``pip install ember[tensorboard]``), version 1.15 or
newer; importing this module without it raises ``ModuleNotFoundError`` naming
``tensorboard``, as ``torch.utils.tensorboard`` does. ``import ember`` never loads it.

Example::

    >>> from ember.utils.tensorboard import SummaryWriter
    >>> writer = SummaryWriter()          # runs/<date>_<host>
    >>> writer.add_scalar('loss', 0.5, 0)
    >>> writer.close()
"""
import tensorboard


def _version_tuple(v):
    out = []
    for part in str(v).split('.')[:3]:
        digits = ''.join(c for c in part if c.isdigit()) if part[:1].isdigit() else ''
        out.append(int(digits) if digits else 0)
        if not part.isdigit():
            break
    return tuple(out)


if not hasattr(tensorboard, '__version__') or _version_tuple(
        tensorboard.__version__) < (1, 15):
    raise ImportError("TensorBoard logging requires TensorBoard version 1.15 or above")

del tensorboard

from tensorboard.summary.writer.record_writer import RecordWriter  # noqa: E402

from .writer import FileWriter, SummaryWriter  # noqa: E402

__all__ = ['FileWriter', 'RecordWriter', 'SummaryWriter']
