"""Builders of TensorBoard ``Summary`` protocol buffers (``ember.utils.tensorboard.summary``).

Each function takes values as ember tensors, NumPy arrays or Python numbers and returns a
``tensorboard.compat.proto.summary_pb2.Summary`` (or a part of one) laid out the way
TensorBoard's plugins read it: scalars, histograms, images, audio, text, hyper-parameters,
precision-recall curves, custom-scalar layouts and meshes.
:class:`~ember.utils.tensorboard.SummaryWriter` writes them to event files.
"""
import io
import json
import logging
import struct

import numpy as np
from google.protobuf import struct_pb2
from tensorboard.compat.proto.summary_pb2 import HistogramProto, Summary, SummaryMetadata
from tensorboard.compat.proto.tensor_pb2 import TensorProto
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto
from tensorboard.plugins.custom_scalar import layout_pb2
from tensorboard.plugins.pr_curve.plugin_data_pb2 import PrCurvePluginData
from tensorboard.plugins.text.plugin_data_pb2 import TextPluginData

from ..._tensor import Tensor
from ... import _dtype
from ._convert import _prepare_video, convert_to_HWC, make_np

__all__ = ['half_to_int', 'int_to_half', 'hparams', 'scalar', 'histogram_raw', 'histogram',
           'make_histogram', 'image', 'image_boxes', 'draw_boxes', 'make_image', 'video',
           'make_video', 'audio', 'custom_scalars', 'text', 'tensor_proto', 'pr_curve_raw',
           'pr_curve', 'compute_curve', 'mesh']

logger = logging.getLogger(__name__)

_PACK_F = struct.Struct('f')
_PACK_I = struct.Struct('i')


def half_to_int(f):
    """The bits of ``f`` stored as a 32-bit float, read as a signed 32-bit integer: how a
    half or bfloat16 value is kept in a ``TensorProto``'s ``half_val`` field.

    Args:
        f (float): the value.

    Returns:
        int. :func:`int_to_half` undoes it.

    Example::

        >>> half_to_int(1.0)
        1065353216
    """
    return _PACK_I.unpack(_PACK_F.pack(f))[0]


def int_to_half(i):
    """The inverse of :func:`half_to_int`: read the 32-bit integer ``i``'s bits as a float.

    Example::

        >>> int_to_half(1065353216)
        1.0
    """
    return _PACK_F.unpack(_PACK_I.pack(i))[0]


def _plugin_metadata(name, content=b''):
    return SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name=name,
                                                                  content=content))


def _shape_proto(shape):
    return TensorShapeProto(dim=[TensorShapeProto.Dim(size=int(d)) for d in shape])


# ------------------------------------------------------------------------------ scalars

def scalar(name, tensor, collections=None, new_style=False, double_precision=False):
    """A ``Summary`` holding one scalar.

    Args:
        name (str): the tag (series name in TensorBoard).
        tensor (Tensor, numpy.ndarray or number): a value with exactly one element.
        collections: ignored (kept for signature compatibility).
        new_style (bool): store the value in a ``TensorProto`` under the ``scalars``
            plugin instead of the legacy ``simple_value`` field. Default: ``False``.
        double_precision (bool): with ``new_style``, store a float64 instead of a float32.
            Default: ``False``.

    Returns:
        Summary

    Raises:
        AssertionError: ``tensor`` has more than one element.

    Example::

        >>> scalar('loss', ember.tensor(0.25)).value[0].simple_value
        0.25
    """
    value = _scalar_float(tensor)
    if new_style:
        if double_precision:
            proto = TensorProto(double_val=[value], dtype='DT_DOUBLE')
        else:
            proto = TensorProto(float_val=[value], dtype='DT_FLOAT')
        return Summary(value=[Summary.Value(tag=name, tensor=proto,
                                            metadata=_plugin_metadata('scalars'))])
    return Summary(value=[Summary.Value(tag=name, simple_value=value)])


_FAST_DTYPES = None


def _scalar_float(x):
    """``x`` (one element) as a Python float, read the way NumPy's ``float()`` reads it."""
    t = type(x)
    if t is float or t is int:
        return float(x)
    if t is Tensor or isinstance(x, Tensor):
        global _FAST_DTYPES
        if _FAST_DTYPES is None:
            _FAST_DTYPES = frozenset((_dtype.float32, _dtype.float64, _dtype.float16,
                                      _dtype.int8, _dtype.uint8, _dtype.int16,
                                      _dtype.int32, _dtype.int64, _dtype.bool))
        if x.dtype in _FAST_DTYPES and x.device.type == 'cpu' and x.numel() == 1:
            return float(x.item())
    arr = make_np(x).squeeze()
    if arr.ndim != 0:
        raise AssertionError(
            "Tensor should contain one element (0 dimensions). "
            f"Was given size: {arr.size} and {arr.ndim} dimensions.")
    return float(arr)


# ------------------------------------------------------------------------------ tensors

def _flat_list(arr):
    return arr.reshape(-1).tolist()


def _half_list(arr):
    return [half_to_int(v) for v in arr.astype(np.float32).reshape(-1).tolist()]


def _complex_list(arr):
    return np.stack([arr.real, arr.imag], -1).reshape(-1).tolist()


# dtype name -> (TensorProto dtype, TensorProto field, array -> list)
_TENSOR_TYPES = {
    'float16': ('DT_HALF', 'half_val', _half_list),
    'bfloat16': ('DT_BFLOAT16', 'half_val', _half_list),
    'float32': ('DT_FLOAT', 'float_val', _flat_list),
    'float64': ('DT_DOUBLE', 'double_val', _flat_list),
    'int8': ('DT_INT8', 'int_val', _flat_list),
    'uint8': ('DT_UINT8', 'uint32_val', _flat_list),
    'int16': ('DT_INT16', 'int_val', _flat_list),
    'int32': ('DT_INT32', 'int_val', _flat_list),
    'int64': ('DT_INT64', 'int64_val', _flat_list),
    'complex32': ('DT_COMPLEX32', 'scomplex_val', _complex_list),
    'complex64': ('DT_COMPLEX64', 'scomplex_val', _complex_list),
    'complex128': ('DT_COMPLEX128', 'dcomplex_val', _complex_list),
    'bool': ('DT_BOOL', 'bool_val', _flat_list),
}


def tensor_proto(tag, tensor):
    """A ``Summary`` holding a whole tensor (plugin ``tensor``).

    Args:
        tag (str): the tag.
        tensor (Tensor): the values; any shape, a floating, integer, complex or bool dtype.

    Returns:
        Summary

    Raises:
        ValueError: the tensor is 2 GB or more, or of a dtype ``TensorProto`` cannot hold.

    Example::

        >>> tensor_proto('w', ember.ones(2, 2)).value[0].tensor.dtype   # DT_FLOAT
        1
    """
    if tensor.numel() * tensor.itemsize >= (1 << 31):
        raise ValueError("tensor is bigger than protocol buffer's hard limit of 2GB in size")
    entry = _TENSOR_TYPES.get(getattr(tensor.dtype, '_name', None))
    if entry is None:
        raise ValueError(f"{tag} has unsupported tensor dtype {tensor.dtype}")
    dt, field, convert = entry
    t = tensor.detach()
    if t.dtype in (_dtype.bfloat16, _dtype.float16):
        t = t.to(_dtype.float32)
    elif t.dtype is _dtype.complex32:
        t = t.to(_dtype.complex64)
    arr = np.asarray(t.cpu())
    proto = TensorProto(dtype=dt, tensor_shape=_shape_proto(tensor.shape),
                        **{field: convert(arr)})
    return Summary(value=[Summary.Value(tag=tag, metadata=_plugin_metadata('tensor'),
                                        tensor=proto)])


# ------------------------------------------------------------------------------ histograms

def histogram_raw(name, min, max, num, sum, sum_squares, bucket_limits, bucket_counts):
    """A ``Summary`` holding a histogram given by its statistics.

    Args:
        name (str): the tag.
        min, max (float): the smallest and largest value.
        num (int): how many values.
        sum, sum_squares (float): the sum of the values and of their squares.
        bucket_limits (sequence of float): each bucket's right edge.
        bucket_counts (sequence of float): each bucket's count.

    Returns:
        Summary

    Example::

        >>> s = histogram_raw('h', 0., 2., 3, 3., 5., [1., 2.], [1, 2])
        >>> list(s.value[0].histo.bucket)
        [1.0, 2.0]
    """
    hist = HistogramProto(min=min, max=max, num=num, sum=sum, sum_squares=sum_squares,
                          bucket_limit=bucket_limits, bucket=bucket_counts)
    return Summary(value=[Summary.Value(tag=name, histo=hist)])


def histogram(name, values, bins, max_bins=None):
    """A ``Summary`` holding the histogram of ``values`` (taken as float64).

    Args:
        name (str): the tag.
        values (Tensor or numpy.ndarray): the values, any shape.
        bins: as :func:`numpy.histogram` takes them (a count, edges, or a method name).
        max_bins (int, optional): merge neighbouring buckets until at most this many remain.

    Returns:
        Summary

    Example::

        >>> histogram('w', ember.randn(100), bins=10).value[0].histo.num
        100.0
    """
    arr = make_np(values)
    return Summary(value=[Summary.Value(tag=name, histo=make_histogram(
        arr.astype(float), bins, max_bins))])


def make_histogram(values, bins, max_bins=None):
    """The ``HistogramProto`` of the array ``values``.

    TensorBoard keeps only each bucket's right edge, so the buckets are cut to the range
    that holds values, with one empty bucket kept (or added) on the left to carry the
    leftmost edge.

    Args:
        values (numpy.ndarray): the values.
        bins: as :func:`numpy.histogram` takes them.
        max_bins (int, optional): the most buckets to keep; neighbours are summed in groups
            (the last group padded with empty buckets).

    Returns:
        HistogramProto

    Raises:
        ValueError: ``values`` is empty.

    Example::

        >>> make_histogram(np.array([0.5, 1.5]), bins=[0., 1., 2.]).bucket_limit
        [0.0, 1.0, 2.0]
    """
    if values.size == 0:
        raise ValueError("The input has no element.")
    values = values.reshape(-1)
    counts, limits = np.histogram(values, bins=bins)
    n = len(counts)
    if max_bins is not None and n > max_bins:
        group = n // max_bins
        rest = n % group
        if rest:
            counts = np.concatenate([counts, np.zeros(group - rest, counts.dtype)])
        counts = counts.reshape(-1, group).sum(axis=-1)
        merged = np.empty(counts.size + 1, limits.dtype)
        merged[:-1] = limits[:-1:group]
        merged[-1] = limits[-1]
        limits = merged
    # the support: from the first to the last non-empty bucket (when every bucket is empty,
    # start past the end and stop after the first, which leaves one empty bucket)
    nonzero = np.flatnonzero(counts > 0)
    if nonzero.size:
        start, end = int(nonzero[0]), int(nonzero[-1]) + 1
    else:
        start, end = len(counts), 1
    if start > 0:
        counts = counts[start - 1:end]
    else:
        counts = np.concatenate([[0], counts[:end]])
    limits = limits[start:end + 1]
    if counts.size == 0 or limits.size == 0:
        raise ValueError("The histogram is empty, please file a bug report.")
    return HistogramProto(min=values.min(), max=values.max(), num=len(values),
                          sum=values.sum(), sum_squares=values.dot(values),
                          bucket_limit=limits.tolist(), bucket=counts.tolist())


# ------------------------------------------------------------------------------ images

def _scale_factor(arr):
    return 1 if arr.dtype == np.uint8 else 255


def image(tag, tensor, rescale=1, dataformats='NCHW'):
    """A ``Summary`` holding a PNG image.

    Floating values are taken in [0, 1] and uint8 values in [0, 255]; both are clipped to
    bytes. A batch (``N`` in ``dataformats``) is tiled into a grid of up to 8 a row; one
    channel (or none) becomes grey RGB.

    Args:
        tag (str): the tag.
        tensor (Tensor or numpy.ndarray): the image(s).
        rescale (float): scale both sides by this factor. Default: 1.
        dataformats (str): the layout of ``tensor``, e.g. ``'NCHW'``, ``'CHW'``, ``'HWC'``,
            ``'HW'``. Default: ``'NCHW'``.

    Returns:
        Summary

    Raises:
        AssertionError: ``dataformats`` repeats a letter or has another rank than the
            tensor.

    Example::

        >>> image('img', ember.rand(3, 8, 8), dataformats='CHW').value[0].image.width
        8
    """
    arr = convert_to_HWC(make_np(tensor), dataformats)
    scale = _scale_factor(arr)
    arr = (arr.astype(np.float32) * scale).clip(0, 255).astype(np.uint8)
    return Summary(value=[Summary.Value(tag=tag, image=make_image(arr, rescale=rescale))])


def image_boxes(tag, tensor_image, tensor_boxes, rescale=1, dataformats='CHW', labels=None):
    """A ``Summary`` holding a PNG image with boxes drawn on it.

    Args:
        tag (str): the tag.
        tensor_image (Tensor or numpy.ndarray): the image, laid out as ``dataformats``.
        tensor_boxes (Tensor or numpy.ndarray): ``(K, 4)`` boxes as ``(xmin, ymin, xmax,
            ymax)`` in pixels.
        rescale (float): scale factor. Default: 1.
        dataformats (str): the image layout. Default: ``'CHW'``.
        labels (list of str, optional): one caption per box.

    Returns:
        Summary

    Example::

        >>> s = image_boxes('det', ember.rand(3, 32, 32), ember.tensor([[2., 2., 20., 20.]]),
        ...                 labels=['cat'])
    """
    arr = convert_to_HWC(make_np(tensor_image), dataformats)
    boxes = make_np(tensor_boxes)
    arr = arr.astype(np.float32) * _scale_factor(arr)
    img = make_image(arr.clip(0, 255).astype(np.uint8), rescale=rescale, rois=boxes,
                     labels=labels)
    return Summary(value=[Summary.Value(tag=tag, image=img)])


def _draw_box(img, xmin, ymin, xmax, ymax, caption, color='black', color_text='black',
              thickness=2):
    from PIL import ImageDraw, ImageFont
    font = ImageFont.load_default()
    draw = ImageDraw.Draw(img)
    corners = [(xmin, ymin), (xmin, ymax), (xmax, ymax), (xmax, ymin), (xmin, ymin)]
    draw.line(corners, width=thickness, fill=color)
    if caption:
        l, t, r, b = font.getbbox(caption)
        tw, th = r - l, b - t
        margin = np.ceil(0.05 * th)
        draw.rectangle([(xmin, ymax - th - 2 * margin), (xmin + tw, ymax)], fill=color)
        draw.text((xmin + margin, ymax - th - margin), caption, fill=color_text, font=font)
    return img


def draw_boxes(disp_image, boxes, labels=None):
    """Draw red ``(xmin, ymin, xmax, ymax)`` boxes (and their ``labels``) on the PIL image
    ``disp_image``; returns the image.

    Example::

        >>> from PIL import Image
        >>> img = draw_boxes(Image.new('RGB', (32, 32)), np.array([[2, 2, 20, 20]]))
    """
    for i in range(boxes.shape[0]):
        disp_image = _draw_box(disp_image, boxes[i, 0], boxes[i, 1], boxes[i, 2],
                               boxes[i, 3], None if labels is None else labels[i],
                               color='Red')
    return disp_image


def make_image(tensor, rescale=1, rois=None, labels=None):
    """The ``Summary.Image`` (PNG) of a ``(H, W, C)`` uint8 array. Needs Pillow.

    Args:
        tensor (numpy.ndarray): ``(H, W, C)`` uint8, C = 1, 3 or 4.
        rescale (float): scale factor (Lanczos resampling). Default: 1.
        rois (numpy.ndarray, optional): boxes to draw, see :func:`draw_boxes`.
        labels (list of str, optional): their captions.

    Returns:
        Summary.Image

    Example::

        >>> make_image(np.zeros((4, 6, 3), np.uint8)).width
        6
    """
    from PIL import Image
    height, width, channel = tensor.shape
    img = Image.fromarray(tensor)
    if rois is not None:
        img = draw_boxes(img, rois, labels=labels)
    img = img.resize((int(width * rescale), int(height * rescale)),
                     Image.Resampling.LANCZOS)
    with io.BytesIO() as buf:
        img.save(buf, format='PNG')
        data = buf.getvalue()
    return Summary.Image(height=height, width=width, colorspace=channel,
                         encoded_image_string=data)


def video(tag, tensor, fps=4):
    """A ``Summary`` holding a GIF video of a ``(N, T, C, H, W)`` tensor (each frame's batch
    tiled in a grid). Needs moviepy; without it a message is printed and the value is left
    without an image, as torch does.

    Example::

        >>> s = video('clip', ember.rand(1, 8, 3, 16, 16), fps=4)
    """
    arr = _prepare_video(make_np(tensor))
    scale = _scale_factor(arr)
    arr = (arr.astype(np.float32) * scale).clip(0, 255).astype(np.uint8)
    return Summary(value=[Summary.Value(tag=tag, image=make_video(arr, fps))])


def make_video(tensor, fps):
    """The ``Summary.Image`` (GIF) of a ``(T, H, W, C)`` uint8 array, or ``None`` (after
    printing why) when moviepy is missing.

    Example::

        >>> gif = make_video(np.zeros((8, 16, 16, 3), np.uint8), fps=4)
    """
    try:
        import moviepy  # noqa: F401
    except ImportError:
        print("add_video needs package moviepy")
        return None
    try:
        from moviepy import editor as mpy
    except ImportError:
        print("moviepy is installed, but can't import moviepy.editor.",
              "Some packages could be missing [imageio, requests]")
        return None
    import tempfile
    _, h, w, c = tensor.shape
    clip = mpy.ImageSequenceClip(list(tensor), fps=fps)
    with tempfile.NamedTemporaryFile(suffix='.gif') as f:
        for kwargs in ({'verbose': False, 'logger': None}, {'verbose': False,
                                                            'progress_bar': False},
                       {'verbose': False}):
            try:
                clip.write_gif(f.name, **kwargs)
                break
            except TypeError:
                continue
        f.seek(0)
        data = f.read()
    return Summary.Image(height=h, width=w, colorspace=c, encoded_image_string=data)


# ------------------------------------------------------------------------------ audio, text

def audio(tag, tensor, sample_rate=44100):
    """A ``Summary`` holding a mono 16-bit WAV clip.

    Args:
        tag (str): the tag.
        tensor (Tensor or numpy.ndarray): the samples in [-1, 1], one dimension after
            squeezing; values outside are clipped (with a printed warning).
        sample_rate (int): samples per second. Default: 44100.

    Returns:
        Summary

    Raises:
        AssertionError: the squeezed input is not 1-D.

    Example::

        >>> audio('a', ember.zeros(100)).value[0].audio.length_frames
        100
    """
    import wave
    arr = make_np(tensor).squeeze()
    if abs(arr).max() > 1:
        print("warning: audio amplitude out of range, auto clipped.")
        arr = arr.clip(-1, 1)
    if arr.ndim != 1:
        raise AssertionError("input tensor should be 1 dimensional.")
    arr = (arr * np.iinfo(np.int16).max).astype('<i2')
    with io.BytesIO() as buf:
        with wave.open(buf, 'wb') as wav:
            wav.setnchannels(1)
            wav.setsampwidth(2)
            wav.setframerate(sample_rate)
            wav.writeframes(arr.data)
        data = buf.getvalue()
    clip = Summary.Audio(sample_rate=sample_rate, num_channels=1,
                         length_frames=arr.shape[-1], encoded_audio_string=data,
                         content_type='audio/wav')
    return Summary(value=[Summary.Value(tag=tag, audio=clip)])


def text(tag, text):
    """A ``Summary`` holding a (Markdown) string for the text plugin, under the tag
    ``tag + '/text_summary'``.

    Example::

        >>> text('notes', 'hello').value[0].tag
        'notes/text_summary'
    """
    smd = _plugin_metadata('text', TextPluginData(version=0).SerializeToString())
    proto = TensorProto(dtype='DT_STRING', string_val=[text.encode(encoding='utf_8')],
                        tensor_shape=_shape_proto([1]))
    return Summary(value=[Summary.Value(tag=tag + '/text_summary', metadata=smd,
                                        tensor=proto)])


def custom_scalars(layout):
    """A ``Summary`` holding a custom-scalars layout.

    Args:
        layout (dict): ``{category: {chart title: [kind, tags]}}`` where ``kind`` is
            ``'Multiline'`` (any list of tag regexes) or ``'Margin'`` (exactly three tags:
            value, lower, upper).

    Returns:
        Summary (tag ``custom_scalars__config__``)

    Raises:
        AssertionError: a ``'Margin'`` chart does not have three tags.

    Example::

        >>> s = custom_scalars({'loss': {'both': ['Multiline', ['loss/train', 'loss/val']]}})
        >>> s.value[0].tag
        'custom_scalars__config__'
    """
    categories = []
    for title, charts_spec in layout.items():
        charts = []
        for chart_title, spec in charts_spec.items():
            kind, tags = spec[0], spec[1]
            if kind == 'Margin':
                if len(tags) != 3:
                    raise AssertionError("len(tags) != 3")
                series = layout_pb2.MarginChartContent.Series(value=tags[0], lower=tags[1],
                                                              upper=tags[2])
                chart = layout_pb2.Chart(title=chart_title,
                                         margin=layout_pb2.MarginChartContent(series=[series]))
            else:
                chart = layout_pb2.Chart(title=chart_title,
                                         multiline=layout_pb2.MultilineChartContent(tag=tags))
            charts.append(chart)
        categories.append(layout_pb2.Category(title=title, chart=charts))
    proto = TensorProto(dtype='DT_STRING',
                        string_val=[layout_pb2.Layout(category=categories).SerializeToString()],
                        tensor_shape=TensorShapeProto())
    return Summary(value=[Summary.Value(tag='custom_scalars__config__', tensor=proto,
                                        metadata=_plugin_metadata('custom_scalars'))])


# ------------------------------------------------------------------------------ hparams

def _hparam_info(name, dtype, discrete):
    from tensorboard.plugins.hparams.api_pb2 import DataType, HParamInfo
    return HParamInfo(name=name, type=DataType.Value(dtype), domain_discrete=discrete)


def hparams(hparam_dict=None, metric_dict=None, hparam_domain_discrete=None):
    """The three ``Summary`` protos the hparams plugin reads: the experiment (hyper-parameter
    and metric names), the session start (the values) and the session end (success).

    Args:
        hparam_dict (dict): hyper-parameter name -> value (int, float, str, bool or a
            tensor whose first element is taken). ``None`` values are skipped.
        metric_dict (dict): metric name -> value (only the names are used here).
        hparam_domain_discrete (dict, optional): hyper-parameter name -> the list of values
            it can take (each of the same type as its value).

    Returns:
        tuple of Summary: ``(experiment, session_start_info, session_end_info)``

    Example::

        >>> exp, ssi, sei = hparams({'lr': 0.1, 'opt': 'sgd'}, {'hparam/acc': 0.9})
        >>> ssi.value[0].tag
        '_hparams_/session_start_info'

    Raises:
        TypeError: an argument is not a dict, or a discrete domain does not fit.
        ValueError: a hyper-parameter value has another type.
    """
    from tensorboard.plugins.hparams.api_pb2 import Experiment, MetricInfo, MetricName, Status
    from tensorboard.plugins.hparams.metadata import (EXPERIMENT_TAG, PLUGIN_DATA_VERSION,
                                                      PLUGIN_NAME, SESSION_END_INFO_TAG,
                                                      SESSION_START_INFO_TAG)
    from tensorboard.plugins.hparams.plugin_data_pb2 import (HParamsPluginData,
                                                             SessionEndInfo,
                                                             SessionStartInfo)
    for arg, what in ((hparam_dict, 'hparam_dict'), (metric_dict, 'metric_dict')):
        if not isinstance(arg, dict):
            msg = f"parameter: {what} should be a dictionary, nothing logged."
            logger.warning(msg)
            raise TypeError(msg)
    domains = hparam_domain_discrete or {}
    if not isinstance(domains, dict):
        raise TypeError(
            "parameter: hparam_domain_discrete should be a dictionary, nothing logged.")
    for k, v in domains.items():
        if (k not in hparam_dict or not isinstance(v, list)
                or not all(isinstance(d, type(hparam_dict[k])) for d in v)):
            raise TypeError(f"parameter: hparam_domain_discrete[{k}] should be a list of "
                            f"same type as hparam_dict[{k}].")

    def domain(k, field):
        if k not in domains:
            return None
        return struct_pb2.ListValue(values=[struct_pb2.Value(**{field: d})
                                            for d in domains[k]])

    infos = []
    ssi = SessionStartInfo()
    for k, v in hparam_dict.items():
        if v is None:
            continue
        if isinstance(v, (int, float)):   # bool is an int here: stored as a number
            ssi.hparams[k].number_value = v
            infos.append(_hparam_info(k, 'DATA_TYPE_FLOAT64', domain(k, 'number_value')))
        elif isinstance(v, str):
            ssi.hparams[k].string_value = v
            infos.append(_hparam_info(k, 'DATA_TYPE_STRING', domain(k, 'string_value')))
        elif isinstance(v, Tensor):
            ssi.hparams[k].number_value = make_np(v)[0]
            infos.append(_hparam_info(k, 'DATA_TYPE_FLOAT64', None))
        else:
            raise ValueError("value should be one of int, float, str, bool, or torch.Tensor")

    def wrap(tag, **content):
        data = HParamsPluginData(version=PLUGIN_DATA_VERSION, **content)
        smd = _plugin_metadata(PLUGIN_NAME, data.SerializeToString())
        return Summary(value=[Summary.Value(tag=tag, metadata=smd)])

    exp = Experiment(hparam_infos=infos,
                     metric_infos=[MetricInfo(name=MetricName(tag=k)) for k in metric_dict])
    return (wrap(EXPERIMENT_TAG, experiment=exp),
            wrap(SESSION_START_INFO_TAG, session_start_info=ssi),
            wrap(SESSION_END_INFO_TAG,
                 session_end_info=SessionEndInfo(status=Status.Value('STATUS_SUCCESS'))))


# ------------------------------------------------------------------------------ PR curves

def _pr_summary(tag, data, num_thresholds):
    content = PrCurvePluginData(version=0, num_thresholds=num_thresholds).SerializeToString()
    proto = TensorProto(dtype='DT_FLOAT', float_val=data.reshape(-1).tolist(),
                        tensor_shape=_shape_proto(data.shape[:2]))
    return Summary(value=[Summary.Value(tag=tag, metadata=_plugin_metadata('pr_curves',
                                                                           content),
                                        tensor=proto)])


def _np_or_raw(x):
    return make_np(x) if isinstance(x, Tensor) else x


def pr_curve_raw(tag, tp, fp, tn, fn, precision, recall, num_thresholds=127, weights=None):
    """A ``Summary`` holding a precision-recall curve given by its counts.

    Args:
        tag (str): the tag.
        tp, fp, tn, fn, precision, recall: 1-D sequences, one entry per threshold.
        num_thresholds (int): the number of thresholds (at most 127 are recorded).
            Default: 127.
        weights: unused.

    Returns:
        Summary (a ``(6, num_thresholds)`` float tensor)

    Example::

        >>> s = pr_curve_raw('pr', [3, 1], [2, 0], [0, 2], [0, 2], [0.6, 1.], [1., 0.33],
        ...                  num_thresholds=2)
    """
    num_thresholds = min(num_thresholds, 127)
    data = np.stack([_np_or_raw(a) for a in (tp, fp, tn, fn, precision, recall)])
    return _pr_summary(tag, data, num_thresholds)


def pr_curve(tag, labels, predictions, num_thresholds=127, weights=None):
    """A ``Summary`` holding the precision-recall curve of binary ``labels`` against
    ``predictions`` in [0, 1].

    Args:
        tag (str): the tag.
        labels (numpy.ndarray): the ground truth (0/1 or bool).
        predictions (numpy.ndarray): the probabilities, same shape.
        num_thresholds (int): the number of thresholds (at most 127). Default: 127.
        weights (float or numpy.ndarray, optional): per-example weights.

    Returns:
        Summary

    Example::

        >>> s = pr_curve('pr', np.array([1, 0, 1]), np.array([0.9, 0.4, 0.6]),
        ...              num_thresholds=5)
    """
    num_thresholds = min(num_thresholds, 127)
    data = compute_curve(labels, predictions, num_thresholds=num_thresholds,
                         weights=_np_or_raw(weights))
    return _pr_summary(tag, data, num_thresholds)


def compute_curve(labels, predictions, num_thresholds=None, weights=None):
    """The ``(6, num_thresholds)`` array of true/false positive/negative counts, precision
    and recall at the thresholds ``i / (num_thresholds - 1)``.

    Example::

        >>> compute_curve(np.array([1, 0]), np.array([0.9, 0.2]), num_thresholds=3).shape
        (6, 3)
    """
    tiny = 1e-7
    if weights is None:
        weights = 1.0
    buckets = np.int32(np.floor(predictions * (num_thresholds - 1)))
    pos = labels.astype(np.float64)
    span = (0, num_thresholds - 1)
    tp_b, _ = np.histogram(buckets, bins=num_thresholds, range=span, weights=pos * weights)
    fp_b, _ = np.histogram(buckets, bins=num_thresholds, range=span,
                           weights=(1.0 - pos) * weights)
    tp = np.cumsum(tp_b[::-1])[::-1]
    fp = np.cumsum(fp_b[::-1])[::-1]
    tn = fp[0] - fp
    fn = tp[0] - tp
    precision = tp / np.maximum(tiny, tp + fp)
    recall = tp / np.maximum(tiny, tp + fn)
    return np.stack((tp, fp, tn, fn, precision, recall))


# ------------------------------------------------------------------------------ meshes

def _mesh_value(name, display_name, description, tensor, content_type, components,
                json_config):
    from tensorboard.plugins.mesh import metadata
    arr = make_np(tensor) if isinstance(tensor, (Tensor, np.ndarray)) else np.asarray(tensor)
    smd = metadata.create_summary_metadata(name, display_name, content_type, components,
                                           list(arr.shape), description,
                                           json_config=json_config)
    proto = TensorProto(dtype='DT_FLOAT', float_val=arr.reshape(-1).tolist(),
                        tensor_shape=_shape_proto(arr.shape[:3]))
    return Summary.Value(tag=metadata.get_instance_name(name, content_type), tensor=proto,
                         metadata=smd)


def mesh(tag, vertices, colors, faces, config_dict, display_name=None, description=None):
    """A ``Summary`` holding a mesh or point cloud for the mesh plugin: one value per given
    part (vertices, faces, colors).

    Args:
        tag (str): the tag.
        vertices (Tensor): ``(B, N, 3)`` vertex coordinates.
        colors (Tensor, optional): ``(B, N, 3)`` RGB colours, 0-255.
        faces (Tensor, optional): ``(B, F, 3)`` vertex indices of each triangle.
        config_dict (dict, optional): three.js scene settings, stored as JSON.
        display_name (str, optional): the name shown; defaults to ``tag``.
        description (str, optional): a Markdown description.

    Returns:
        Summary

    Example::

        >>> s = mesh('cloud', ember.rand(1, 100, 3), None, None, None)
        >>> s.value[0].tag
        'cloud_VERTEX'
    """
    from tensorboard.plugins.mesh import metadata
    from tensorboard.plugins.mesh.plugin_data_pb2 import MeshPluginData
    json_config = '{}' if config_dict is None else json.dumps(config_dict, sort_keys=True)
    parts = [(t, kind) for t, kind in ((vertices, MeshPluginData.VERTEX),
                                       (faces, MeshPluginData.FACE),
                                       (colors, MeshPluginData.COLOR)) if t is not None]
    components = metadata.get_components_bitmask([kind for _, kind in parts])
    return Summary(value=[_mesh_value(tag, display_name, description, t, kind, components,
                                      json_config) for t, kind in parts])
