"""Padding layers: reflection, replication, zero, constant and circular padding of the last
1, 2 or 3 dims, each a thin module over ``ember.nn.functional.pad``."""
from .utils import _ntuple
from .. import functional as F
from .module import Module

__all__ = ['CircularPad1d', 'CircularPad2d', 'CircularPad3d', 'ConstantPad1d', 'ConstantPad2d',
           'ConstantPad3d', 'ReflectionPad1d', 'ReflectionPad2d', 'ReflectionPad3d',
           'ReplicationPad1d', 'ReplicationPad2d', 'ReplicationPad3d', 'ZeroPad1d',
           'ZeroPad2d', 'ZeroPad3d']




class _PadNd(Module):
    __constants__ = ['padding']
    _n = 1           # padded dims
    _mode = 'constant'

    def __init__(self, padding):
        super().__init__()
        self.padding = _ntuple(2 * self._n)(padding)

    def _check_input_dim(self, input):
        pass

    def forward(self, input):
        self._check_input_dim(input)
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self):
        return f"{self.padding}"


class _CircularPadNd(_PadNd):
    _mode = 'circular'

    def _check_input_dim(self, input):
        n = self._n
        if input.dim() != n + 1 and input.dim() != n + 2:
            raise ValueError(f"expected {n + 1}D or {n + 2}D input (got {input.dim()}D input)")


class CircularPad1d(_CircularPadNd):
    """Pad the last dim of the input circularly (wrapping around).

    Args:
        padding (int or tuple): the size of the padding; an int pads both sides, a 2-tuple is
            ``(left, right)``.

    Shape:
        - Input: ``(C, W_in)`` or ``(N, C, W_in)``.
        - Output: ``(C, W_out)`` or ``(N, C, W_out)``, ``W_out = W_in + left + right``.

    Example::

        >>> nn.CircularPad1d(2)(ember.arange(4.).view(1, 1, 4))
        tensor([[[2., 3., 0., 1., 2., 3., 0., 1.]]])
    """
    _n = 1


class CircularPad2d(_CircularPadNd):
    """Pad the last 2 dims of the input circularly (wrapping around).

    Args:
        padding (int or tuple): an int pads every side, a 4-tuple is
            ``(left, right, top, bottom)``.

    Shape:
        - Input: ``(C, H_in, W_in)`` or ``(N, C, H_in, W_in)``.
        - Output: ``(C, H_out, W_out)`` or ``(N, C, H_out, W_out)``.

    Example::

        >>> nn.CircularPad2d(1)(ember.ones(1, 1, 2, 2)).shape
        torch.Size([1, 1, 4, 4])
    """
    _n = 2


class CircularPad3d(_CircularPadNd):
    """Pad the last 3 dims of the input circularly (wrapping around).

    Args:
        padding (int or tuple): an int pads every side, a 6-tuple is
            ``(left, right, top, bottom, front, back)``.

    Shape:
        - Input: ``(C, D_in, H_in, W_in)`` or ``(N, C, D_in, H_in, W_in)``.
        - Output: ``(C, D_out, H_out, W_out)`` or ``(N, C, D_out, H_out, W_out)``.

    Example::

        >>> nn.CircularPad3d(1)(ember.ones(1, 1, 2, 2, 2)).shape
        torch.Size([1, 1, 4, 4, 4])
    """
    _n = 3


class _ConstantPadNd(_PadNd):
    __constants__ = ['padding', 'value']

    def __init__(self, padding, value):
        super().__init__(padding)
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, 'constant', self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pad the last dim of the input with a constant value.

    Args:
        padding (int or tuple): an int pads both sides, a 2-tuple is ``(left, right)``.
        value (float): the fill value.

    Shape:
        - Input: ``(C, W_in)`` or ``(N, C, W_in)``.
        - Output: ``(C, W_out)`` or ``(N, C, W_out)``, ``W_out = W_in + left + right``.

    Example::

        >>> nn.ConstantPad1d(1, 3.5)(ember.zeros(1, 2))
        tensor([[3.5000, 0.0000, 0.0000, 3.5000]])
    """
    _n = 1


class ConstantPad2d(_ConstantPadNd):
    """Pad the last 2 dims of the input with a constant value.

    Args:
        padding (int or tuple): an int pads every side, a 4-tuple is
            ``(left, right, top, bottom)``.
        value (float): the fill value.

    Shape:
        - Input: ``(C, H_in, W_in)`` or ``(N, C, H_in, W_in)``.
        - Output: ``(C, H_out, W_out)`` or ``(N, C, H_out, W_out)``.

    Example::

        >>> nn.ConstantPad2d((1, 0, 2, 0), 1.)(ember.zeros(1, 2, 2)).shape
        torch.Size([1, 4, 3])
    """
    _n = 2


class ConstantPad3d(_ConstantPadNd):
    """Pad the last 3 dims of the input with a constant value.

    Args:
        padding (int or tuple): an int pads every side, a 6-tuple is
            ``(left, right, top, bottom, front, back)``.
        value (float): the fill value.

    Shape:
        - Input: ``(C, D_in, H_in, W_in)`` or ``(N, C, D_in, H_in, W_in)``.
        - Output: ``(C, D_out, H_out, W_out)`` or ``(N, C, D_out, H_out, W_out)``.

    Example::

        >>> nn.ConstantPad3d(1, 0.5)(ember.zeros(1, 1, 1, 1)).shape
        torch.Size([1, 3, 3, 3])
    """
    _n = 3


class _ReflectionPadNd(_PadNd):
    _mode = 'reflect'


class ReflectionPad1d(_ReflectionPadNd):
    """Pad the last dim of the input by reflecting it at the border (the edge is not
    repeated).

    Args:
        padding (int or tuple): an int pads both sides, a 2-tuple is ``(left, right)``; each
            must be smaller than the padded dim.

    Shape:
        - Input: ``(C, W_in)`` or ``(N, C, W_in)``.
        - Output: ``(C, W_out)`` or ``(N, C, W_out)``, ``W_out = W_in + left + right``.

    Example::

        >>> nn.ReflectionPad1d(2)(ember.arange(4.).view(1, 1, 4))
        tensor([[[2., 1., 0., 1., 2., 3., 2., 1.]]])
    """
    _n = 1


class ReflectionPad2d(_ReflectionPadNd):
    """Pad the last 2 dims of the input by reflecting it at the border.

    Args:
        padding (int or tuple): an int pads every side, a 4-tuple is
            ``(left, right, top, bottom)``.

    Shape:
        - Input: ``(C, H_in, W_in)`` or ``(N, C, H_in, W_in)``.
        - Output: ``(C, H_out, W_out)`` or ``(N, C, H_out, W_out)``.

    Example::

        >>> nn.ReflectionPad2d(1)(ember.ones(1, 1, 3, 3)).shape
        torch.Size([1, 1, 5, 5])
    """
    _n = 2


class ReflectionPad3d(_ReflectionPadNd):
    """Pad the last 3 dims of the input by reflecting it at the border.

    Args:
        padding (int or tuple): an int pads every side, a 6-tuple is
            ``(left, right, top, bottom, front, back)``.

    Shape:
        - Input: ``(C, D_in, H_in, W_in)`` or ``(N, C, D_in, H_in, W_in)``.
        - Output: ``(C, D_out, H_out, W_out)`` or ``(N, C, D_out, H_out, W_out)``.

    Example::

        >>> nn.ReflectionPad3d(1)(ember.ones(1, 1, 2, 2, 2)).shape
        torch.Size([1, 1, 4, 4, 4])
    """
    _n = 3


class _ReplicationPadNd(_PadNd):
    _mode = 'replicate'


class ReplicationPad1d(_ReplicationPadNd):
    """Pad the last dim of the input by repeating its edge value.

    Args:
        padding (int or tuple): an int pads both sides, a 2-tuple is ``(left, right)``.

    Shape:
        - Input: ``(C, W_in)`` or ``(N, C, W_in)``.
        - Output: ``(C, W_out)`` or ``(N, C, W_out)``, ``W_out = W_in + left + right``.

    Example::

        >>> nn.ReplicationPad1d(2)(ember.arange(4.).view(1, 1, 4))
        tensor([[[0., 0., 0., 1., 2., 3., 3., 3.]]])
    """
    _n = 1


class ReplicationPad2d(_ReplicationPadNd):
    """Pad the last 2 dims of the input by repeating its edge values.

    Args:
        padding (int or tuple): an int pads every side, a 4-tuple is
            ``(left, right, top, bottom)``.

    Shape:
        - Input: ``(C, H_in, W_in)`` or ``(N, C, H_in, W_in)``.
        - Output: ``(C, H_out, W_out)`` or ``(N, C, H_out, W_out)``.

    Example::

        >>> nn.ReplicationPad2d(1)(ember.ones(1, 1, 3, 3)).shape
        torch.Size([1, 1, 5, 5])
    """
    _n = 2


class ReplicationPad3d(_ReplicationPadNd):
    """Pad the last 3 dims of the input by repeating its edge values.

    Args:
        padding (int or tuple): an int pads every side, a 6-tuple is
            ``(left, right, top, bottom, front, back)``.

    Shape:
        - Input: ``(C, D_in, H_in, W_in)`` or ``(N, C, D_in, H_in, W_in)``.
        - Output: ``(C, D_out, H_out, W_out)`` or ``(N, C, D_out, H_out, W_out)``.

    Example::

        >>> nn.ReplicationPad3d(1)(ember.ones(1, 1, 2, 2, 2)).shape
        torch.Size([1, 1, 4, 4, 4])
    """
    _n = 3


class ZeroPad1d(ConstantPad1d):
    """Pad the last dim of the input with zeros.

    Args:
        padding (int or tuple): an int pads both sides, a 2-tuple is ``(left, right)``.

    Shape:
        - Input: ``(C, W_in)`` or ``(N, C, W_in)``.
        - Output: ``(C, W_out)`` or ``(N, C, W_out)``, ``W_out = W_in + left + right``.

    Example::

        >>> nn.ZeroPad1d((1, 2))(ember.ones(1, 2))
        tensor([[0., 1., 1., 0., 0.]])
    """

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    """Pad the last 2 dims of the input with zeros.

    Args:
        padding (int or tuple): an int pads every side, a 4-tuple is
            ``(left, right, top, bottom)``.

    Shape:
        - Input: ``(C, H_in, W_in)`` or ``(N, C, H_in, W_in)``.
        - Output: ``(C, H_out, W_out)`` or ``(N, C, H_out, W_out)``.

    Example::

        >>> nn.ZeroPad2d(1)(ember.ones(1, 2, 2)).shape
        torch.Size([1, 4, 4])
    """

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad3d(ConstantPad3d):
    """Pad the last 3 dims of the input with zeros.

    Args:
        padding (int or tuple): an int pads every side, a 6-tuple is
            ``(left, right, top, bottom, front, back)``.

    Shape:
        - Input: ``(C, D_in, H_in, W_in)`` or ``(N, C, D_in, H_in, W_in)``.
        - Output: ``(C, D_out, H_out, W_out)`` or ``(N, C, D_out, H_out, W_out)``.

    Example::

        >>> nn.ZeroPad3d(1)(ember.ones(1, 1, 1, 1)).shape
        torch.Size([1, 3, 3, 3])
    """

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"
