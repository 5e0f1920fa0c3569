"""The per-thread grad-mode switches (``_Mode``): layer 0, so that ``Tensor`` and the ops
read them without importing ``ember.autograd``. ``ember.autograd.grad_mode`` builds
``no_grad`` & co. on them."""
import threading


class _ThreadMode(threading.local):
    """The grad-mode switches of the current thread, read on the hot path of every op.

    A ``threading.local``: each thread sees its own ``grad`` / ``inference``
    attributes; a thread that never set them sees these class attributes, the
    defaults of a new thread (grad on, inference off).

    Writers must save the old value and restore it (``prev = _Mode.grad; _Mode.grad =
    x; try: ... finally: _Mode.grad = prev``), never assume what it was.
    """
    grad = True
    inference = False
    multithreading = True   # set_multithreading_enabled (no effect: see there)
    grad_layout = True      # enforce_grad_layout_policy (AccumulateGrad reads it)


_Mode = _ThreadMode()
