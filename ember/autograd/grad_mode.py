"""Grad mode: ``no_grad``, ``enable_grad``, ``set_grad_enabled``, ``inference_mode``.

Both switches are per thread, as in PyTorch: turning grad mode off in one thread does
not affect any other, and every new thread starts with grad mode on and inference mode
off, whatever the thread that started it was doing.
"""
import functools
import inspect
import sys
import threading

__all__ = ['no_grad', 'enable_grad', 'set_grad_enabled', 'inference_mode',
           'set_multithreading_enabled', 'enforce_grad_layout_policy', 'is_grad_enabled', 'is_inference_mode_enabled']


from .._grad_state import _Mode, _ThreadMode  # noqa: E402,F401  (the one per-thread state)


def is_grad_enabled():
    """Whether operations run now record the autograd graph, in the calling thread (False
    inside :class:`no_grad`, or ``set_grad_enabled(False)``).

    Example::

        >>> ember.autograd.is_grad_enabled()
        True
        >>> with ember.no_grad():
        ...     ember.autograd.is_grad_enabled()
        False
    """
    return _Mode.grad


def is_inference_mode_enabled():
    """Whether :class:`inference_mode` is on in the calling thread.

    Example::

        >>> with ember.inference_mode():
        ...     ember.is_inference_mode_enabled()
        True
        >>> ember.is_inference_mode_enabled()
        False
    """
    return _Mode.inference


class _DecoratorContextManager:
    """Context manager usable as a decorator (for functions and generators)."""

    def __call__(self, func):
        if inspect.isclass(func):
            raise RuntimeError("Decorating classes is not supported")
        if inspect.isgeneratorfunction(func):
            @functools.wraps(func)
            def gen_wrapper(*args, **kwargs):
                # the mode is on while the generator runs, not while the caller holds it
                gen = func(*args, **kwargs)
                try:
                    with self.clone():
                        resp = gen.send(None)
                    while True:
                        try:
                            req = yield resp
                        except GeneratorExit:
                            with self.clone():
                                gen.close()
                            raise
                        except BaseException:
                            with self.clone():
                                resp = gen.throw(sys.exc_info()[1])
                        else:
                            with self.clone():
                                resp = gen.send(req)
                except StopIteration as e:
                    return e.value
            return gen_wrapper

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)
        return wrapper

    def clone(self):
        return self.__class__()


class _NoParamDecoratorContextManager(_DecoratorContextManager):
    """Also usable as a bare decorator: ``@no_grad`` as well as ``@no_grad()``."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class no_grad(_NoParamDecoratorContextManager):
    """Context manager (and decorator) that disables gradient calculation.

    This context manager is thread local; it will not affect computation in other
    threads.

    Example::

        >>> x = ember.tensor([1.], requires_grad=True)
        >>> with ember.no_grad():
        ...     y = x * 2
        >>> y.requires_grad
        False
    """

    def __init__(self):
        self.prev = False

    def __enter__(self):
        self.prev = _Mode.grad
        _Mode.grad = False

    def __exit__(self, *args):
        _Mode.grad = self.prev


class enable_grad(_NoParamDecoratorContextManager):
    """Context manager (and decorator) that enables gradient calculation.

    This context manager is thread local; it will not affect computation in other
    threads.

    Example::

        >>> with ember.no_grad():
        ...     with ember.enable_grad():
        ...         y = x * 2
    """

    def __enter__(self):
        self.prev = _Mode.grad
        _Mode.grad = True

    def __exit__(self, *args):
        _Mode.grad = self.prev


class set_grad_enabled(_DecoratorContextManager):
    """Sets gradient calculation on or off; works as a function, context manager or
    decorator.

    Args:
        mode (bool): whether to enable grad.

    Only the calling thread's grad mode changes; other threads are not affected.

    Example::

        >>> with ember.set_grad_enabled(False):
        ...     y = x * 2
    """

    def __init__(self, mode):
        self.prev = _Mode.grad
        self.mode = bool(mode)
        _Mode.grad = self.mode

    def __call__(self, func):
        _Mode.grad = self.prev
        return super().__call__(func)

    def __enter__(self):
        _Mode.grad = self.mode

    def __exit__(self, *args):
        _Mode.grad = self.prev

    def clone(self):
        return self.__class__(self.mode)


class inference_mode(_DecoratorContextManager):
    """Like ``no_grad``, and marks the mode as inference mode.

    This context manager is thread local; it will not affect computation in other
    threads.

    Args:
        mode (bool): whether to enable inference mode (default True).

    NOTE: unlike PyTorch, tensors created in inference mode are ordinary tensors
    (they are not marked as inference tensors).

    Example::

        >>> with ember.inference_mode():
        ...     y = x * 2
    """

    def __new__(cls, mode=True):
        if isinstance(mode, bool):
            return super().__new__(cls)
        return cls()(mode)   # bare @inference_mode

    def __init__(self, mode=True):
        self.mode = mode

    def __call__(self, func):
        if isinstance(func, bool):
            return self.__class__(func)
        return super().__call__(func)

    def __enter__(self):
        self.prev = (_Mode.grad, _Mode.inference)
        # inference_mode(False) turns inference mode off and grad mode on (as torch)
        _Mode.grad = not self.mode
        _Mode.inference = bool(self.mode)

    def __exit__(self, *args):
        _Mode.grad, _Mode.inference = self.prev

    def clone(self):
        return self.__class__(self.mode)


class _ThreadSwitch(_DecoratorContextManager):
    """A per-thread switch of ``_Mode`` (the attribute ``_attr``), set at construction
    (so it also works as a plain call) and restored on exit."""
    _attr = None

    def __init__(self, mode=True):
        self.prev = getattr(_Mode, self._attr)
        self.mode = bool(mode)
        setattr(_Mode, self._attr, self.mode)

    def __enter__(self):
        pass

    def __exit__(self, *args):
        setattr(_Mode, self._attr, self.prev)

    def clone(self):
        return self.__class__(self.mode)


class set_multithreading_enabled(_ThreadSwitch):
    """Context manager (and function) that enables or disables multithreaded backward.

    In PyTorch, ``mode=False`` makes a backward pass that would run on per-device worker
    threads run on the calling thread instead. Ember's backward always runs on the
    calling thread, so the setting is only recorded (and reported by
    ``_is_multithreading_enabled``). It is thread local, as in PyTorch, and takes
    effect at once, like ``set_grad_enabled``.

    Args:
        mode (bool): whether to enable multithreaded backward.

    Example::

        >>> with ember.autograd.grad_mode.set_multithreading_enabled(False):
        ...     y.backward()
    """
    _attr = 'multithreading'

    def __init__(self, mode):
        super().__init__(mode)


class enforce_grad_layout_policy(_ThreadSwitch):
    """Context manager (and function) that turns the gradient layout contract on or off.

    By the contract, a leaf's first accumulated gradient gets the leaf's strides when the
    leaf is non-overlapping and dense (a permuted or channels_last parameter gets a
    gradient of the same layout), else contiguous strides. With ``enable=False`` a fresh
    incoming gradient that nobody else holds becomes ``.grad`` as it is, whatever its
    strides (no copy); a gradient that must be copied still gets the contract's layout.
    Thread local, effective at once (like :class:`set_grad_enabled`).

    Args:
        enable (bool): enforce the contract (``True``, the default) or relax it.

    Example::

        >>> p = ember.empty(2, 3, 4).permute(2, 0, 1).requires_grad_()
        >>> with ember.autograd.enforce_grad_layout_policy(False):
        ...     (p * 2).sum().backward()
        >>> p.grad.shape
        torch.Size([4, 2, 3])
    """
    _attr = 'grad_layout'

    def __init__(self, enable=True):
        super().__init__(enable)


def _is_multithreading_enabled():
    """Whether multithreaded backward is enabled in the calling thread."""
    return _Mode.multithreading
