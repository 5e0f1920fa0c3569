"""Turning what users log (tensors, arrays, numbers, figures) into NumPy arrays and image
layouts for the summary builders.

Everything here runs after a tensor's values were copied to host memory, so it works on
NumPy arrays directly.
"""
import numpy as np

from ..._tensor import Tensor
from ... import _dtype

__all__ = ['make_np', 'make_grid', 'convert_to_HWC', 'figure_to_image']


def make_np(x):
    """Return ``x`` as a NumPy array.

    Args:
        x (Tensor, numpy.ndarray or Python/NumPy scalar): the value to convert. A scalar
            becomes a one-element 1-D array; a tensor is detached and copied to the CPU
            (a ``bfloat16`` tensor is first cast to ``float16``, which NumPy can hold).

    Returns:
        numpy.ndarray

    Example::

        >>> make_np(ember.tensor([1., 2.]))
        array([1., 2.], dtype=float32)
        >>> make_np(3.5)
        array([3.5])
    """
    if isinstance(x, np.ndarray):
        return x
    if np.isscalar(x):
        return np.array([x])
    if isinstance(x, Tensor):
        if x.device.type == 'meta':   # no values to read: a placeholder draw, as torch does
            return np.random.randn(1)
        if x.dtype is _dtype.bfloat16:
            x = x.to(_dtype.float16)
        # the host values, as ``x.detach().cpu().numpy()`` (``__array__`` also serves
        # backends whose CPU arrays are not plain ndarrays, like the strict check backend)
        return np.asarray(x.detach().cpu())
    raise NotImplementedError(
        f"Got {type(x)}, but numpy array or torch tensor are expected.")


def make_grid(images, ncols=8):
    """Tile a batch of images ``(N, C, H, W)`` (C = 1 or 3) into one ``(3, H*rows, W*cols)``
    canvas, row by row, with at most ``ncols`` images a row; unused cells stay zero."""
    if not isinstance(images, np.ndarray):
        raise AssertionError("plugin error, should pass numpy array here")
    if images.shape[1] == 1:
        images = np.concatenate([images] * 3, 1)
    if images.ndim != 4 or images.shape[1] != 3:
        raise AssertionError("Input should be a 4D numpy array with 3 channels")
    n, _, h, w = images.shape
    ncols = min(n, ncols)
    nrows = int(np.ceil(float(n) / ncols))
    canvas = np.zeros((3, h * nrows, w * ncols), dtype=images.dtype)
    for i in range(n):
        r, c = divmod(i, ncols)
        canvas[:, r * h:(r + 1) * h, c * w:(c + 1) * w] = images[i]
    return canvas


def convert_to_HWC(tensor, input_format):
    """Rearrange an image array laid out as ``input_format`` (letters among N, C, H, W)
    into height x width x channels. A batch (``N``) is tiled into a grid; one channel or no
    channel axis is repeated to three channels.

    Args:
        tensor (numpy.ndarray): the image(s).
        input_format (str): one letter per axis of ``tensor``, e.g. ``'CHW'``, ``'NHWC'``.

    Returns:
        numpy.ndarray of shape ``(H, W, C)``.
    """
    if len(set(input_format)) != len(input_format):
        raise AssertionError(
            "You can not use the same dimension shorthand twice. "
            f"input_format: {input_format}")
    if len(tensor.shape) != len(input_format):
        raise AssertionError(
            "size of input tensor and input format are different. "
            f"tensor shape: {tensor.shape}, input_format: {input_format}")
    fmt = input_format.upper()
    if len(fmt) == 4:
        nchw = tensor.transpose([fmt.find(c) for c in 'NCHW'])
        return make_grid(nchw).transpose(1, 2, 0)
    if len(fmt) == 3:
        hwc = tensor.transpose([fmt.find(c) for c in 'HWC'])
        if hwc.shape[2] == 1:
            hwc = np.concatenate([hwc] * 3, 2)
        return hwc
    if len(fmt) == 2:
        hw = tensor.transpose([fmt.find(c) for c in 'HW'])
        return np.stack([hw] * 3, 2)
    return None   # other ranks have no image layout (torch returns nothing as well)


def figure_to_image(figures, close=True):
    """Render a matplotlib figure, or a list of them, to an RGB array.

    Args:
        figures (matplotlib.figure.Figure or list of them): what to render.
        close (bool): close each figure after rendering. Default: ``True``.

    Returns:
        numpy.ndarray: ``(3, H, W)`` uint8 for one figure, ``(N, 3, H, W)`` for a list.

    Example::

        >>> fig = plt.figure(); plt.plot([1, 2, 3])
        >>> figure_to_image(fig).shape
        (3, 480, 640)
    """
    import matplotlib.pyplot as plt
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    def render(fig):
        canvas = FigureCanvasAgg(fig)
        canvas.draw()
        rgba = np.frombuffer(canvas.buffer_rgba(), dtype=np.uint8)
        w, h = fig.canvas.get_width_height()
        chw = np.moveaxis(rgba.reshape(h, w, 4)[:, :, :3], 2, 0)
        if close:
            plt.close(fig)
        return chw

    if isinstance(figures, list):
        return np.stack([render(f) for f in figures])
    return render(figures)


def _prepare_video(video):
    """``(B, T, C, H, W)`` -> ``(T, H*rows, W*cols, C)``: each frame's batch tiled in a
    grid whose cell count is the batch size padded to a power of two."""
    b, t, c, h, w = video.shape
    if video.dtype == np.uint8:
        video = np.float32(video) / 255.0
    n = video.shape[0]
    if n & (n - 1) or n == 0:
        pad = int(2 ** n.bit_length() - n)
        video = np.concatenate((video, np.zeros((pad, t, c, h, w))), axis=0)
    nrows = 2 ** ((b.bit_length() - 1) // 2)
    ncols = video.shape[0] // nrows
    video = video.reshape(nrows, ncols, t, c, h, w).transpose(2, 0, 4, 1, 5, 3)
    return video.reshape(t, nrows * h, ncols * w, c)
