"""Discrete Fourier transforms, as ``torch.fft``.

Every transform takes PyTorch's arguments (``n``/``s``, ``dim``, ``norm`` in
``{None, "backward", "ortho", "forward"}``, ``out=``), returns PyTorch's dtypes (float32 ->
complex64, integers promoted to the default float dtype) and is differentiable (the
gradient nodes are ``FftR2CBackward0``, ``FftC2CBackward0`` and ``FftC2RBackward0``, written
in ember ops, so double backward works). The ops live in ``ember/_ops/fft.py``.

Example::

    >>> import ember
    >>> x = ember.tensor([1., 2., 3., 4.])
    >>> X = ember.fft.rfft(x)
    >>> X
    tensor([10.+0.j, -2.+2.j, -2.+0.j])
    >>> ember.fft.irfft(X, n=4)
    tensor([1., 2., 3., 4.])
"""
from ._tensor import Tensor
from ._ops.fft import (fft, ifft, fft2, ifft2, fftn, ifftn, rfft, irfft, rfft2, irfft2,
                       rfftn, irfftn, hfft, ihfft, hfft2, ihfft2, hfftn, ihfftn, fftfreq,
                       rfftfreq, fftshift, ifftshift)

__all__ = ['fft', 'ifft', 'fft2', 'ifft2', 'fftn', 'ifftn', 'rfft', 'irfft', 'rfft2', 'irfft2',
           'rfftn', 'irfftn', 'hfft', 'ihfft', 'hfft2', 'ihfft2', 'hfftn', 'ihfftn', 'fftfreq',
           'rfftfreq', 'fftshift', 'ifftshift', 'Tensor']
