"""``ember.ao.quantization.observer``: modules that watch the tensors flowing through a
model during calibration (post-training quantization) or training (QAT) and compute the
scale and zero point to quantize them with (as ``torch.ao.quantization.observer``).

The statistics (running min/max, moving averages, the histogram and its L2 search) are
computed with the same float32 operations as PyTorch's, so the same calibration data
give the same scales and zero points; the buffers (``min_val``, ``max_val``, ``eps``,
``histogram``) have PyTorch's names, shapes and versions, so observer state dicts load
both ways.
"""

import warnings
from abc import ABCMeta, abstractmethod
from collections import OrderedDict
from dataclasses import dataclass
from enum import Enum, auto
from functools import partial

from ... import _dtype as D
from ..._backend import array_module
from ..._tensor import _new_tensor
from ...nn import factory_kwargs as _factory_kwargs
from ...nn.modules.module import Module
from .utils import (FLOAT32_EPS, _em, _qinfo, _qparams_from_range, calculate_qmin_qmax,
                    check_min_max_valid, is_per_channel, is_per_tensor, validate_qmin_qmax)

__all__ = [
    "default_affine_fixed_qparams_observer",
    "default_debug_observer",
    "default_dynamic_quant_observer",
    "default_fixed_qparams_range_0to1_observer",
    "default_fixed_qparams_range_neg1to1_observer",
    "default_float_qparams_observer",
    "default_float_qparams_observer_4bit",
    "default_histogram_observer",
    "default_observer",
    "default_per_channel_weight_observer",
    "default_placeholder_observer",
    "default_reuse_input_observer",
    "default_symmetric_fixed_qparams_observer",
    "default_weight_observer",
    "get_observer_state_dict",
    "load_observer_state_dict",
    "per_channel_weight_observer_range_neg_127_to_127",
    "weight_observer_range_neg_127_to_127",
    "FixedQParamsObserver",
    "HistogramObserver",
    "MinMaxObserver",
    "MovingAverageMinMaxObserver",
    "MovingAveragePerChannelMinMaxObserver",
    "NoopObserver",
    "ObserverBase",
    "PerChannelMinMaxObserver",
    "PlaceholderObserver",
    "RecordingObserver",
    "ReuseInputObserver",
    "UniformQuantizationObserverBase",
    "AffineQuantizedObserverBase",
    "Granularity",
    "MappingType",
    "PerAxis",
    "PerBlock",
    "PerGroup",
    "PerRow",
    "PerTensor",
    "PerToken",
    "TorchAODType",
    "ZeroPointDomain",
    "get_block_size",
]


class _PartialWrapper:
    """A constructor with some keyword arguments bound (``functools.partial`` kept in
    ``p``), plus arguments computed at each call (``callable_args``: name -> zero-argument
    function). Made by ``Observer.with_args`` / ``with_callable_args``."""

    def __init__(self, p):
        self.p = p
        self.callable_args = {}

    def __call__(self, *args, **keywords):
        for name, fn in self.callable_args.items():
            if name not in keywords:
                keywords = {**keywords, name: fn()}
        return self.p(*args, **keywords)

    def __repr__(self):
        return repr(self.p) + repr(self.callable_args)

    def with_args(self, **kwargs):
        return _with_args(self, **kwargs)

    def with_callable_args(self, **kwargs):
        result = _PartialWrapper(p=self.p)
        result.callable_args = {**self.callable_args, **kwargs}
        return result


def _documented(ctor, name, text):
    """Give the ``with_args`` constructor ``ctor`` (published as ``name``) a docstring."""
    target = ctor.p.func
    args = ", ".join(f"{k}={getattr(v, '__name__', v)}" for k, v in ctor.p.keywords.items())
    ctor.__doc__ = (f"{text}\n\nA constructor: ``{name}()`` builds "
                    f"``{getattr(target, '__name__', target)}({args})``.\n\nExample::\n\n"
                    f"    >>> obs = ember.ao.quantization.{name}()\n")
    return ctor


def _with_args(cls_or_self, **kwargs):
    """A factory that builds ``cls_or_self(**kwargs)`` (a new instance per call)."""
    return _PartialWrapper(partial(cls_or_self, **kwargs))


def _with_callable_args(cls_or_self, **kwargs):
    """A factory whose keyword arguments ``kwargs`` are functions called at each
    construction (e.g. to read a device at that time)."""
    return _PartialWrapper(partial(cls_or_self)).with_callable_args(**kwargs)


ABC = ABCMeta("ABC", (object,), {})


class ObserverBase(ABC, Module):
    r"""Base class of the observers: ``forward`` records statistics of the tensor it is
    given (and returns it unchanged); ``calculate_qparams`` turns them into quantization
    parameters.

    Args:
        dtype: the quantized dtype the reference model's ``quantize`` node will use.
        is_dynamic (bool): whether the observer stands for dynamic quantization.

    Example::

        >>> obs = ember.ao.quantization.MinMaxObserver()
        >>> isinstance(obs, ember.ao.quantization.ObserverBase)
        True
    """

    def __init__(self, dtype, is_dynamic=False):
        super().__init__()
        self.dtype = dtype
        self.is_dynamic = is_dynamic

    @abstractmethod
    def forward(self, x):
        pass

    @abstractmethod
    def calculate_qparams(self, **kwargs):
        pass

    with_args = classmethod(_with_args)
    with_callable_args = classmethod(_with_callable_args)


_ALLOWED_DTYPE_NAMES = ('qint8', 'quint8', 'quint4x2', 'qint32', 'int8', 'uint8', 'int16',
                        'int32', 'float8_e5m2', 'float8_e4m3fn', 'uint16')
_RR_WARNING = ("Please use quant_min and quant_max to specify the range for observers. "
               "                    reduce_range will be deprecated in a future release of "
               "PyTorch.")


class UniformQuantizationObserverBase(ObserverBase):
    r"""Common base of the observers that compute a uniform (affine or symmetric) scale and
    zero point from a min/max range.

    Args:
        dtype: ``quint8`` (default), ``qint8``, ``qint32``, ``quint4x2`` or an integer dtype.
        qscheme: ``per_tensor_affine`` (default), ``per_tensor_symmetric``,
            ``per_channel_affine``, ``per_channel_symmetric`` or
            ``per_channel_affine_float_qparams``.
        reduce_range (bool): drop one bit of the quantized range (warns: deprecated).
        quant_min (int), quant_max (int): a custom quantized range (must contain 0).
        factory_kwargs (dict): ``device``/``dtype`` of the buffers.
        eps (float): the smallest scale (float32's eps by default).
        is_dynamic (bool): dynamic quantization.

    Example::

        >>> obs = ember.ao.quantization.MinMaxObserver(dtype=ember.qint8)
        >>> (obs.quant_min, obs.quant_max)
        (-128, 127)
    """
    _version = 3

    def __init__(self, dtype=D.quint8, qscheme=D.per_tensor_affine, reduce_range=False,
                 quant_min=None, quant_max=None, factory_kwargs=None, eps=FLOAT32_EPS,
                 is_dynamic=False, **kwargs):
        factory_kwargs = _factory_kwargs(factory_kwargs)
        super().__init__(dtype=dtype, is_dynamic=is_dynamic, **kwargs)
        self.qscheme = qscheme
        if reduce_range:
            warnings.warn(_RR_WARNING, stacklevel=2)
        self.reduce_range = reduce_range
        self.register_buffer("eps", _em.tensor([eps], **factory_kwargs))
        if self.qscheme not in (D.per_tensor_affine, D.per_tensor_symmetric,
                                D.per_channel_affine, D.per_channel_symmetric,
                                D.per_channel_affine_float_qparams):
            raise AssertionError(
                "Default Observer only works for per_tensor_affine, per_tensor_symmetric, "
                "per_channel_affine, per_channel_symmetric and per_channel_float_qparams "
                "quantization scheme")
        allowed = tuple(getattr(D, n) for n in _ALLOWED_DTYPE_NAMES)
        if not any(self.dtype == d for d in allowed):
            raise AssertionError(
                "Default Observer only works for (" + ", ".join(str(d) for d in allowed)
                + ") data type")
        self.has_customized_qrange = (quant_min is not None) and (quant_max is not None)
        if self.has_customized_qrange:
            validate_qmin_qmax(quant_min, quant_max)
        self.quant_min, self.quant_max = calculate_qmin_qmax(
            quant_min, quant_max, self.has_customized_qrange, self.dtype, self.reduce_range)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        version = local_metadata.get("version", None)
        if version is None or version == 1:
            # eps became a buffer in version 2
            state_dict[prefix + "eps"] = _em.tensor([FLOAT32_EPS])
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict,
                                      missing_keys, unexpected_keys, error_msgs)

    def _validate_qmin_qmax(self, quant_min, quant_max):
        validate_qmin_qmax(quant_min, quant_max)

    def _calculate_qparams(self, min_val, max_val):
        r"""Scale (float32) and zero point for the range ``[min_val, max_val]`` (per tensor
        or per channel)."""
        return _qparams_from_range(min_val, max_val, self.quant_min, self.quant_max,
                                   self.dtype, self.eps, self.has_customized_qrange,
                                   self.qscheme, D.float32)

    def reset_min_max_vals(self):
        raise NotImplementedError("Cannot reset min/max values in the given observer.")


_ObserverBase = UniformQuantizationObserverBase


def _minmax_qscheme_error(name):
    return NotImplementedError(
        f"{name}'s qscheme only support torch.per_tensor_symmetric "
        "                    and torch.per_tensor_affine.")


class MinMaxObserver(UniformQuantizationObserverBase):
    r"""Records the running minimum and maximum of the tensors it sees and derives the
    scale and zero point from them.

    With :math:`x_\text{min}`, :math:`x_\text{max}` the running extremes (widened to
    contain 0) and :math:`[Q_\text{min}, Q_\text{max}]` the quantized range:

    * affine: :math:`s = (x_\text{max} - x_\text{min}) / (Q_\text{max} - Q_\text{min})`,
      :math:`z = Q_\text{min} - \text{round}(x_\text{min} / s)`;
    * symmetric: :math:`s = \max(-x_\text{min}, x_\text{max}) / ((Q_\text{max} -
      Q_\text{min}) / 2)`, :math:`z` = 0 (128 for ``quint8``).

    The scale is at least ``eps``. Before any observation the scale and zero point are 1.0
    and 0 (with a warning).

    Args:
        dtype, qscheme, reduce_range, quant_min, quant_max, factory_kwargs, eps, is_dynamic:
            see :class:`UniformQuantizationObserverBase` (per-tensor schemes only).

    Example::

        >>> obs = ember.ao.quantization.MinMaxObserver()
        >>> _ = obs(ember.tensor([-1.0, 0.5, 3.0]))
        >>> obs.calculate_qparams()
        (tensor([0.0157]), tensor([64], dtype=torch.int32))
    """

    def __init__(self, dtype=D.quint8, qscheme=D.per_tensor_affine, reduce_range=False,
                 quant_min=None, quant_max=None, factory_kwargs=None, eps=FLOAT32_EPS,
                 is_dynamic=False, **kwargs):
        if not is_per_tensor(qscheme):
            raise _minmax_qscheme_error("MinMaxObserver")
        super().__init__(dtype=dtype, qscheme=qscheme, reduce_range=reduce_range,
                         quant_min=quant_min, quant_max=quant_max,
                         factory_kwargs=factory_kwargs, eps=eps, is_dynamic=is_dynamic,
                         **kwargs)
        factory_kwargs = _factory_kwargs(factory_kwargs)
        self.register_buffer("min_val", _em.tensor(float("inf"), **factory_kwargs))
        self.register_buffer("max_val", _em.tensor(float("-inf"), **factory_kwargs))
        if (self.qscheme == D.per_tensor_symmetric and self.reduce_range
                and self.dtype == D.quint8):
            raise NotImplementedError("Cannot reduce range for symmetric "
                                      "                                       quantization "
                                      "for quint8")

    def forward(self, x_orig):
        r"""Records the running minimum and maximum of ``x_orig`` (returned unchanged)."""
        if x_orig.numel() == 0:
            return x_orig
        x = x_orig.detach().to(self.min_val.dtype)
        min_cur, max_cur = _em.aminmax(x)
        self.min_val.copy_(_em.min(min_cur, self.min_val))
        self.max_val.copy_(_em.max(max_cur, self.max_val))
        return x_orig

    def calculate_qparams(self):
        r"""The scale and zero point of the observed range."""
        return self._calculate_qparams(self.min_val, self.max_val)

    def extra_repr(self):
        return f"min_val={self.min_val}, max_val={self.max_val}"

    def reset_min_max_vals(self):
        """Forget the observed range."""
        self.min_val.copy_(_em.tensor(float("inf")))
        self.max_val.copy_(_em.tensor(float("-inf")))


class MovingAverageMinMaxObserver(MinMaxObserver):
    r"""Like :class:`MinMaxObserver`, but keeps moving averages of the minimum and maximum:
    ``x_min = x_min + c * (min(X) - x_min)`` (the first observation is taken as is), with
    ``c`` the ``averaging_constant``.

    Args:
        averaging_constant (float): the averaging constant ``c`` (1 makes it memoryless).
        dtype, qscheme, reduce_range, quant_min, quant_max, eps, is_dynamic: as
            :class:`MinMaxObserver` (dynamic only with ``averaging_constant=1``).

    Example::

        >>> obs = ember.ao.quantization.MovingAverageMinMaxObserver(averaging_constant=0.5)
        >>> _ = obs(ember.tensor([0.0, 2.0])); _ = obs(ember.tensor([0.0, 4.0]))
        >>> obs.max_val
        tensor(3.)
    """

    def __init__(self, averaging_constant=0.01, dtype=D.quint8, qscheme=D.per_tensor_affine,
                 reduce_range=False, quant_min=None, quant_max=None, eps=FLOAT32_EPS,
                 is_dynamic=False, **kwargs):
        if not is_per_tensor(qscheme):
            raise NotImplementedError(
                "MovingAverageMinMaxObserver's qscheme only support                 "
                "torch.per_tensor_symmetric and torch.per_tensor_affine.                 "
                f"but got: {qscheme}")
        self.averaging_constant = averaging_constant
        if is_dynamic and self.averaging_constant != 1:
            raise NotImplementedError(
                "MovingAverageMinMaxObserver doesn't support dynamic quantization for "
                f"averaging constant of {self.averaging_constant}")
        super().__init__(dtype=dtype, qscheme=qscheme, reduce_range=reduce_range,
                         quant_min=quant_min, quant_max=quant_max, eps=eps,
                         is_dynamic=is_dynamic, **kwargs)

    def forward(self, x_orig):
        if x_orig.numel() == 0:
            return x_orig
        x = x_orig.detach().to(self.min_val.dtype)
        min_val, max_val = self.min_val, self.max_val
        if bool(min_val == float("inf")) and bool(max_val == float("-inf")):
            min_val, max_val = _em.aminmax(x)
        else:
            min_cur, max_cur = _em.aminmax(x)
            min_val = min_val + self.averaging_constant * (min_cur - min_val)
            max_val = max_val + self.averaging_constant * (max_cur - max_val)
        self.min_val.copy_(min_val)
        self.max_val.copy_(max_val)
        return x_orig


def _per_channel_qscheme_error(name):
    return NotImplementedError(
        f"{name}'s qscheme only support                     torch.per_channel_symmetric, "
        "torch.per_channel_affine and torch.per_channel_affine_float_qparams.")


def _channel_rows(x, ch_axis):
    """``x`` with ``ch_axis`` swapped to the front and the rest flattened: one row per
    channel."""
    perm = list(range(x.dim()))
    perm[ch_axis] = 0
    perm[0] = ch_axis
    return _em.flatten(x.permute(perm), start_dim=1)


class PerChannelMinMaxObserver(UniformQuantizationObserverBase):
    r"""Records the running minimum and maximum of each slice along ``ch_axis`` and derives
    one scale and zero point per channel (as :class:`MinMaxObserver` does per tensor).

    Args:
        ch_axis (int): the channel axis.
        dtype, qscheme, reduce_range, quant_min, quant_max, factory_kwargs, eps: see
            :class:`UniformQuantizationObserverBase` (per-channel schemes only).

    Example::

        >>> obs = ember.ao.quantization.PerChannelMinMaxObserver(
        ...     dtype=ember.qint8, qscheme=ember.per_channel_symmetric)
        >>> _ = obs(ember.tensor([[-1.0, 1.0], [0.0, 2.54]]))
        >>> obs.calculate_qparams()[0]
        tensor([0.0078, 0.0199])
    """

    def __init__(self, ch_axis=0, dtype=D.quint8, qscheme=D.per_channel_affine,
                 reduce_range=False, quant_min=None, quant_max=None, factory_kwargs=None,
                 eps=FLOAT32_EPS, is_dynamic=False, **kwargs):
        if not is_per_channel(qscheme):
            raise _per_channel_qscheme_error("PerChannelMinMaxObserver")
        if is_dynamic:
            raise NotImplementedError(
                "PerChannelMinMaxObserver doesn't support dynamic quantization")
        super().__init__(dtype=dtype, qscheme=qscheme, reduce_range=reduce_range,
                         quant_min=quant_min, quant_max=quant_max,
                         factory_kwargs=factory_kwargs, eps=eps, is_dynamic=is_dynamic,
                         **kwargs)
        factory_kwargs = _factory_kwargs(factory_kwargs)
        self.ch_axis = ch_axis
        self.register_buffer("min_val", _em.tensor([], **factory_kwargs))
        self.register_buffer("max_val", _em.tensor([], **factory_kwargs))
        if (self.qscheme == D.per_channel_symmetric and self.reduce_range
                and self.dtype == D.quint8):
            raise NotImplementedError("Cannot reduce range for symmetric quantization for "
                                      "quint8")

    def forward(self, x_orig):
        return self._forward(x_orig)

    def _store(self, min_val, max_val):
        self.min_val.resize_(min_val.shape)
        self.max_val.resize_(max_val.shape)
        self.min_val.copy_(min_val)
        self.max_val.copy_(max_val)

    def _forward(self, x_orig):
        if x_orig.numel() == 0:
            return x_orig
        x = x_orig.detach()
        y = _channel_rows(x.to(self.min_val.dtype), self.ch_axis)
        min_val, max_val = self.min_val, self.max_val
        if min_val.numel() == 0 or max_val.numel() == 0:
            min_val, max_val = _em.aminmax(y, dim=1)
        else:
            min_cur, max_cur = _em.aminmax(y, dim=1)
            min_val = _em.min(min_cur, min_val)
            max_val = _em.max(max_cur, max_val)
        self._store(min_val, max_val)
        return x_orig

    def calculate_qparams(self):
        return self._calculate_qparams(self.min_val, self.max_val)

    def extra_repr(self):
        return f"min_val={self.min_val}, max_val={self.max_val}"

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        version = local_metadata.get("version")
        names = ("min_vals", "max_vals") if version is not None and version < 3 else \
            ("min_val", "max_val")
        for name, buf in zip(names, (self.min_val, self.max_val)):
            key = prefix + name
            if key in state_dict:
                # buffers start empty: take the stored shape before the values are copied
                buf.resize_(state_dict[key].shape)
            elif strict:
                missing_keys.append(key)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, False, missing_keys,
                                      unexpected_keys, error_msgs)

    def _load_from_state_dict_script(self, state_dict, prefix, local_metadata, strict,
                                     missing_keys, unexpected_keys, error_msgs):
        self._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                   unexpected_keys, error_msgs)

    def reset_min_max_vals(self):
        """Forget the observed ranges (empty buffers again)."""
        self.min_val = _em.rand(0)
        self.max_val = _em.rand(0)


class MovingAveragePerChannelMinMaxObserver(PerChannelMinMaxObserver):
    r"""Per-channel moving averages of the minimum and maximum (as
    :class:`MovingAverageMinMaxObserver`, one pair per slice along ``ch_axis``).

    Args:
        averaging_constant (float): the averaging constant.
        ch_axis (int): the channel axis.
        dtype, qscheme, reduce_range, quant_min, quant_max, eps: as
            :class:`PerChannelMinMaxObserver`.

    Example::

        >>> obs = ember.ao.quantization.MovingAveragePerChannelMinMaxObserver(
        ...     averaging_constant=0.5)
        >>> _ = obs(ember.tensor([[0.0, 2.0]])); _ = obs(ember.tensor([[0.0, 4.0]]))
        >>> obs.max_val
        tensor([3.])
    """

    def __init__(self, averaging_constant=0.01, ch_axis=0, dtype=D.quint8,
                 qscheme=D.per_channel_affine, reduce_range=False, quant_min=None,
                 quant_max=None, eps=FLOAT32_EPS, is_dynamic=False, **kwargs):
        if not is_per_channel(qscheme):
            raise _per_channel_qscheme_error("MovingAveragePerChannelMinMaxObserver")
        if is_dynamic:
            raise NotImplementedError("MovingAveragePerChannelMinMaxObserver doesn't support "
                                      "dynamic quantization")
        super().__init__(ch_axis=ch_axis, dtype=dtype, qscheme=qscheme,
                         reduce_range=reduce_range, quant_min=quant_min,
                         quant_max=quant_max, eps=eps, is_dynamic=is_dynamic, **kwargs)
        self.averaging_constant = averaging_constant

    def forward(self, x_orig):
        if x_orig.numel() == 0:
            return x_orig
        x = x_orig.detach().to(self.min_val.dtype)
        y = _channel_rows(x, self.ch_axis)
        min_val, max_val = self.min_val, self.max_val
        if min_val.numel() == 0 or max_val.numel() == 0:
            min_val, max_val = _em.aminmax(y, dim=1)
        else:
            min_cur, max_cur = _em.aminmax(y, dim=1)
            min_val = min_val + self.averaging_constant * (min_cur - min_val)
            max_val = max_val + self.averaging_constant * (max_cur - max_val)
        self._store(min_val, max_val)
        return x_orig


def _bincount_in_order(index, weights, n):
    """``bincount(index, weights, minlength=n)`` summed element by element in the weights'
    dtype (float32), in input order, as PyTorch's CPU kernel sums (a float64 sum rounded
    once differs by a few ulps on large bins)."""
    w = weights._data
    xp = array_module(w)
    add_at = getattr(xp.add, 'at', None)
    if add_at is None or n < int(index.max()) + 1:
        return _em.bincount(index, weights=weights, minlength=n)
    out = xp.zeros(n, dtype=w.dtype)
    add_at(out, index._data, w)
    return _new_tensor(out)


class HistogramObserver(UniformQuantizationObserverBase):
    r"""Keeps a running histogram (``bins`` bins over the observed min/max) of the tensors
    it sees; ``calculate_qparams`` searches it for the range whose quantization minimises
    the L2 error (dropping outliers), then computes the scale and zero point from that
    range as :class:`MinMaxObserver` does.

    When a new tensor widens the range, the old histogram is redistributed over the new
    bins (each old bin split into 16 and their mid-points re-binned), as PyTorch does.

    Args:
        bins (int): the number of histogram bins.
        dtype, qscheme, reduce_range, quant_min, quant_max, factory_kwargs, eps: see
            :class:`UniformQuantizationObserverBase` (per-tensor schemes only).

    Example::

        >>> obs = ember.ao.quantization.HistogramObserver(bins=64)
        >>> _ = obs(ember.arange(100.0))
        >>> obs.histogram.shape
        torch.Size([64])
    """

    def __init__(self, bins=2048, dtype=D.quint8, qscheme=D.per_tensor_affine,
                 reduce_range=False, quant_min=None, quant_max=None, factory_kwargs=None,
                 eps=FLOAT32_EPS, is_dynamic=False, **kwargs):
        if not is_per_tensor(qscheme):
            raise _minmax_qscheme_error("HistogramObserver")
        if is_dynamic:
            raise NotImplementedError("HistogramObserver doesn't support dynamic quantization")
        super().__init__(dtype=dtype, qscheme=qscheme, reduce_range=reduce_range,
                         quant_min=quant_min, quant_max=quant_max,
                         factory_kwargs=factory_kwargs, eps=eps, is_dynamic=is_dynamic,
                         **kwargs)
        factory_kwargs = _factory_kwargs(factory_kwargs)
        self.bins = bins
        self.register_buffer("histogram", _em.zeros(self.bins, **factory_kwargs))
        self.register_buffer("min_val", _em.tensor(float("inf"), **factory_kwargs))
        self.register_buffer("max_val", _em.tensor(float("-inf"), **factory_kwargs))
        self.dst_nbins = 2 ** _qinfo(self.dtype)[2]
        self.upsample_rate = 16

    def _get_norm(self, delta_begin, delta_end, density):
        r"""``density * (end^3 - begin^3) / 3``: the L2 norm of values spread uniformly
        between ``delta_begin`` and ``delta_end``."""
        norm = (delta_end * delta_end * delta_end - delta_begin * delta_begin * delta_begin) / 3
        return density * norm

    def _compute_quantization_error(self, next_start_bin, next_end_bin):
        r"""The L2 quantization error of the histogram when bins ``next_start_bin`` to
        ``next_end_bin`` are mapped onto the quantized range."""
        em = _em
        bin_width = (self.max_val.item() - self.min_val.item()) / self.bins
        dst_bin_width = bin_width * (next_end_bin - next_start_bin + 1) / self.dst_nbins
        if dst_bin_width == 0.0:
            return 0.0
        dev = self.histogram.device
        src_bin = em.arange(self.bins, device=dev)
        src_bin_begin = (src_bin - next_start_bin) * bin_width
        src_bin_end = src_bin_begin + bin_width
        last = self.dst_nbins - 1
        dst_bin_of_begin = em.clamp(em.div(src_bin_begin, dst_bin_width, rounding_mode="floor"),
                                    0, last)
        dst_bin_of_begin_center = (dst_bin_of_begin + 0.5) * dst_bin_width
        dst_bin_of_end = em.clamp(em.div(src_bin_end, dst_bin_width, rounding_mode="floor"),
                                  0, last)
        density = self.histogram / bin_width
        norm = em.zeros(self.bins, device=dev)
        half = dst_bin_width / 2
        norm += self._get_norm(src_bin_begin - dst_bin_of_begin_center,
                               em.ones(self.bins, device=dev) * half, density)
        norm += (dst_bin_of_end - dst_bin_of_begin - 1) * self._get_norm(
            em.tensor(-half), em.tensor(half), density)
        dst_bin_of_end_center = dst_bin_of_end * dst_bin_width + half
        norm += self._get_norm(em.tensor(-half), src_bin_end - dst_bin_of_end_center, density)
        return norm.sum().item()

    def _non_linear_param_search(self):
        r"""Search the histogram for the ``(min, max)`` with the smallest quantization error
        (an approximation of L2 minimisation: the range shrinks from the side with fewer
        values, 1e-5 of the mass at a time, until the error grows)."""
        if self.histogram.size()[0] != self.bins:
            raise AssertionError("bins mismatch")
        import numpy as np
        bin_width = (self.max_val - self.min_val) / self.bins
        total = _em.sum(self.histogram).item()
        csum = _em.cumsum(self.histogram, dim=0).numpy(force=True)
        f32 = np.float32
        stepsize = 1e-5
        alpha, beta = 0.0, 1.0
        start_bin, end_bin = 0, self.bins - 1
        norm_min = float("inf")
        while alpha < beta:
            next_alpha = alpha + stepsize
            next_beta = beta - stepsize
            lo_bound = f32(next_alpha * total)
            hi_bound = f32(next_beta * total)
            left, right = start_bin, end_bin
            while left < end_bin and csum[left] < lo_bound:
                left += 1
            while right > start_bin and csum[right] > hi_bound:
                right -= 1
            next_start_bin, next_end_bin = start_bin, end_bin
            if (left - start_bin) > (end_bin - right):
                next_start_bin = left
                alpha = next_alpha
            else:
                next_end_bin = right
                beta = next_beta
            if next_start_bin == start_bin and next_end_bin == end_bin:
                continue
            norm = self._compute_quantization_error(next_start_bin, next_end_bin)
            if norm > norm_min:
                break
            norm_min = norm
            start_bin, end_bin = next_start_bin, next_end_bin
        new_min = self.min_val + bin_width * start_bin
        new_max = self.min_val + bin_width * (end_bin + 1)
        return new_min, new_max

    def _upscale_histogram(self, histogram, orig_min, orig_max, update_min, update_max):
        """``histogram`` (over ``[orig_min, orig_max]``) redistributed over ``bins`` bins of
        ``[update_min, update_max]``: each bin split into ``upsample_rate`` parts whose
        mid-points are re-binned."""
        em = _em
        histogram = histogram.repeat_interleave(self.upsample_rate) / self.upsample_rate
        bin_size = (orig_max - orig_min) / (self.bins * self.upsample_rate)
        mid_points = (em.linspace(orig_min, orig_max, self.bins * self.upsample_rate + 1,
                                  device=orig_min.device)[:-1].to(histogram.device)
                      + 0.5 * bin_size)
        boundaries = em.linspace(update_min, update_max, self.bins + 1,
                                 device=update_min.device).to(histogram.device)
        buckets = em.bucketize(mid_points, boundaries, right=True) - 1
        buckets = em.clamp(buckets, 0, self.bins - 1)
        return _bincount_in_order(buckets, histogram, self.bins)

    def _combine_histograms(self, orig_hist, orig_min, orig_max, update_hist, update_min,
                            update_max):
        if bool(update_min == orig_min) and bool(update_max == orig_max):
            return orig_hist + update_hist
        if bool(orig_min == orig_max):
            bin_value = _em.sum(orig_hist)
            transformed = _em.histc(orig_min, bins=self.bins, min=update_min,
                                    max=update_max) * bin_value
            return transformed + update_hist
        if bool(update_min > orig_min):
            raise AssertionError("update_min must be <= orig_min")
        if bool(update_max < orig_max):
            raise AssertionError("update_max must be >= orig_max")
        transformed = self._upscale_histogram(orig_hist, orig_min, orig_max, update_min,
                                              update_max)
        return update_hist + transformed

    def _set_histogram(self, hist):
        self.histogram.detach_().resize_(hist.shape)
        self.histogram.copy_(hist)

    def reset_histogram(self, x, min_val, max_val):
        """Start the histogram afresh from ``x`` over ``[min_val, max_val]``."""
        self.min_val.resize_(min_val.shape)
        self.min_val.copy_(min_val)
        self.max_val.resize_(max_val.shape)
        self.max_val.copy_(max_val)
        if min_val.numel() != 1 or max_val.numel() != 1:
            raise AssertionError("histogram min/max values must be scalar.")
        self._set_histogram(_em.histc(x, self.bins, min=min_val, max=max_val))

    def forward(self, x_orig):
        if x_orig.numel() == 0:
            return x_orig
        x = x_orig.detach()
        x_min, x_max = _em.aminmax(x)
        if bool(x_min == -float("inf")) or bool(x_max == float("inf")):
            warnings.warn("torch.inf detected in input tensor, ignoring input", stacklevel=2)
            x = x[x.abs() != float("inf")]
            if x.numel() == 0:
                return x_orig
            x_min, x_max = _em.aminmax(x)
        current_min, current_max = self.min_val, self.max_val
        if bool(self.min_val == float("inf")) or bool(self.max_val == float("-inf")):
            self.reset_histogram(x, x_min, x_max)
            return x_orig
        new_min = _em.min(current_min, x_min).detach()
        new_max = _em.max(current_max, x_max).detach()
        update = _em.histc(x, self.bins, min=new_min, max=new_max).to(self.histogram.device)
        if bool(new_min == current_min) and bool(new_max == current_max):
            self._set_histogram(self.histogram + update)
        else:
            self._set_histogram(self._combine_histograms(self.histogram, current_min,
                                                         current_max, update, new_min,
                                                         new_max))
            self.min_val.detach_().resize_(new_min.shape)
            self.min_val.copy_(new_min)
            self.max_val.detach_().resize_(new_max.shape)
            self.max_val.copy_(new_max)
        return x_orig

    def calculate_qparams(self):
        if bool(self.min_val == float("inf")) and bool(self.max_val == float("-inf")):
            warnings.warn("must run observer before calling calculate_qparams."
                          "                                    Returning default scale and "
                          "zero point ", stacklevel=2)
            dev = self.min_val.device.type
            return _em.tensor([1.0], device=dev), _em.tensor([0], device=dev)
        if self.bins != len(self.histogram):
            raise AssertionError("The number of bins in histogram should be equal to the "
                                 "number of bins supplied while making this observer")
        new_min, new_max = self._non_linear_param_search()
        return self._calculate_qparams(new_min, new_max)

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        super()._save_to_state_dict(destination, prefix, keep_vars)
        destination[prefix + "min_val"] = self.min_val
        destination[prefix + "max_val"] = self.max_val

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        version = local_metadata.get("version", None)
        if version is None or version < 3:
            # version 2 kept uninitialised min/max as empty tensors
            for name, v in (("min_val", float("inf")), ("max_val", float("-inf"))):
                key = prefix + name
                if key in state_dict and tuple(state_dict[key].shape) == (0,):
                    state_dict[key] = _em.tensor(v)
        for name in ("min_val", "max_val"):
            key = prefix + name
            if key in state_dict:
                setattr(self, name, state_dict[key])
            elif strict:
                missing_keys.append(key)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict,
                                      missing_keys, unexpected_keys, error_msgs)

    def extra_repr(self):
        return f"min_val={self.min_val}, max_val={self.max_val}"


class FixedQParamsObserver(ObserverBase):
    r"""An observer with fixed quantization parameters (for ops whose output range is
    known, e.g. sigmoid's ``[0, 1]``); per tensor only.

    Args:
        scale (float): the scale.
        zero_point (int): the zero point.
        dtype, qscheme, quant_min, quant_max: the quantization it stands for.

    Example::

        >>> obs = ember.ao.quantization.FixedQParamsObserver(scale=1 / 256, zero_point=0)
        >>> obs.calculate_qparams()
        (tensor([0.0039]), tensor([0], dtype=torch.int32))
    """

    def __init__(self, scale, zero_point, dtype=D.quint8, qscheme=D.per_tensor_affine,
                 quant_min=0, quant_max=255, is_dynamic=False, **kwargs):
        if is_dynamic:
            raise NotImplementedError(
                "FixedQParamsObserver doesn't support dynamic quantization")
        super().__init__(dtype=dtype, is_dynamic=is_dynamic, **kwargs)
        self.quant_min = quant_min
        self.quant_max = quant_max
        self.register_buffer("scale", _em.tensor([scale], dtype=D.float32))
        self.register_buffer("zero_point", _em.tensor([zero_point], dtype=D.int32))
        self.dtype = dtype
        self.qscheme = qscheme

    def forward(self, X):
        return X

    def calculate_qparams(self):
        return self.scale, self.zero_point


class PlaceholderObserver(ObserverBase):
    r"""An observer that records nothing: it carries its configuration (dtype,
    ``is_dynamic``, range) to the quantized module's ``from_float`` (e.g. for float16, or
    for dynamic quantization).

    Args:
        dtype: the dtype the reference ``quantize`` node uses (float32 by default).
        custom_op_name (str): an op needing no observation.
        compute_dtype: deprecated; when set, marks dynamic quantization (warns).
        quant_min (int), quant_max (int), qscheme, eps: the quantization it stands for.
        is_dynamic (bool): dynamic quantization.

    Example::

        >>> obs = ember.ao.quantization.PlaceholderObserver(dtype=ember.float16)
        >>> obs
        PlaceholderObserver(dtype=torch.float16, is_dynamic=False)
    """

    def __init__(self, dtype=D.float32, custom_op_name="", compute_dtype=None,
                 quant_min=None, quant_max=None, qscheme=None, eps=None, is_dynamic=False):
        super().__init__(dtype=dtype, is_dynamic=is_dynamic)
        if qscheme is None:
            qscheme = D.per_tensor_affine
        if eps is None:
            eps = FLOAT32_EPS
        self.dtype = dtype
        self.qscheme = qscheme
        self.quant_min = quant_min
        self.quant_max = quant_max
        self.eps = eps
        self.custom_op = custom_op_name
        if compute_dtype:
            warnings.warn("Please use `is_dynamic` instead of `compute_dtype`. "
                          "                    `compute_dtype` will be deprecated in a future "
                          "release                     of PyTorch.", stacklevel=2)

    def forward(self, x):
        return x

    def extra_repr(self):
        return f"dtype={self.dtype}, is_dynamic={self.is_dynamic}"

    def calculate_qparams(self):
        raise Exception(  # noqa: TRY002
            "calculate_qparams should not be called for PlaceholderObserver")


class RecordingObserver(ObserverBase):
    r"""A debugging observer that keeps a copy of every tensor it sees
    (``get_tensor_value()``).

    Args:
        dtype: the quantized dtype.

    Example::

        >>> obs = ember.ao.quantization.RecordingObserver()
        >>> _ = obs(ember.ones(2))
        >>> obs.get_tensor_value()
        [tensor([1., 1.])]
    """
    __annotations__ = {"tensor_val": list}

    def __init__(self, dtype=D.quint8):
        super().__init__(dtype=dtype, is_dynamic=False)
        self.tensor_val = []

    def forward(self, x):
        self.tensor_val.append(x.clone())
        return x

    def calculate_qparams(self):
        raise Exception(  # noqa: TRY002
            "calculate_qparams should not be called for RecordingObserver")

    def get_tensor_value(self):
        return self.tensor_val


class NoopObserver(ObserverBase):
    r"""An observer that does nothing and carries its dtype (float16 by default) to the
    quantized module's ``from_float``.

    Args:
        dtype: the dtype.
        custom_op_name (str): an op needing no observation.

    Example::

        >>> ember.ao.quantization.NoopObserver().dtype
        torch.float16
    """

    def __init__(self, dtype=D.float16, custom_op_name=""):
        super().__init__(dtype=dtype, is_dynamic=False)
        self.dtype = dtype
        self.custom_op = custom_op_name

    def forward(self, x):
        return x

    def calculate_qparams(self):
        raise Exception(  # noqa: TRY002
            "calculate_qparams should not be called for NoopObserver")


class ReuseInputObserver(ObserverBase):
    r"""Marks an op (``reshape`` and the like) whose output reuses its input's observer (FX
    graph mode only).

    Example::

        >>> ember.ao.quantization.ReuseInputObserver().dtype
        torch.quint8
    """

    def __init__(self):
        super().__init__(D.quint8, is_dynamic=False)

    def forward(self, x):
        return x

    def calculate_qparams(self):
        raise Exception(  # noqa: TRY002
            "calculate_qparams should not be called for ReuseInputObserver")


# ------------------------------------------------ affine quantization (torchao's) types


class MappingType(Enum):
    """How a float range maps onto the integer range: ``SYMMETRIC`` (``[-m, m]`` with
    ``m = max(|min|, |max|)``), ``SYMMETRIC_NO_CLIPPING_ERR`` (the larger of the two
    one-sided scales) or ``ASYMMETRIC`` (``[min, max]`` as is).

    Example::

        >>> MappingType.SYMMETRIC.name
        'SYMMETRIC'
    """
    SYMMETRIC = auto()
    SYMMETRIC_NO_CLIPPING_ERR = auto()
    ASYMMETRIC = auto()


class ZeroPointDomain(Enum):
    """Whether the zero point is an integer (``INT``), a float (``FLOAT``) or absent
    (``NONE``).

    Example::

        >>> ZeroPointDomain.INT.value
        1
    """
    INT = auto()
    FLOAT = auto()
    NONE = auto()


class TorchAODType(Enum):
    """Placeholders for the 1- to 7-bit integer dtypes.

    Example::

        >>> TorchAODType.INT4.name
        'INT4'
    """
    INT1 = auto()
    INT2 = auto()
    INT3 = auto()
    INT4 = auto()
    INT5 = auto()
    INT6 = auto()
    INT7 = auto()


@dataclass(frozen=True)
class Granularity:
    """Base class of the quantization granularities.

    Example::

        >>> isinstance(PerTensor(), Granularity)
        True
    """


@dataclass(frozen=True)
class PerBlock(Granularity):
    """One set of quantization parameters per block of ``block_size``.

    Example::

        >>> PerBlock((1, 32)).block_size
        (1, 32)
    """
    block_size: tuple


@dataclass(frozen=True)
class PerTensor(Granularity):
    """One set of quantization parameters for the whole tensor.

    Example::

        >>> get_block_size((4, 8), PerTensor())
        (4, 8)
    """


@dataclass(frozen=True)
class PerAxis(Granularity):
    """One set of quantization parameters per index along ``axis``.

    Example::

        >>> get_block_size((4, 8), PerAxis(0))
        (1, 8)
    """
    axis: int


@dataclass(frozen=True)
class PerGroup(Granularity):
    """One set of quantization parameters per group of ``group_size`` elements of a row.

    Example::

        >>> get_block_size((4, 8), PerGroup(4))
        (1, 4)
    """
    group_size: int


class PerRow(Granularity):
    """One set of quantization parameters per row (blocks ``(1, ..., last dim)``).

    Example::

        >>> get_block_size((2, 3, 4), PerRow())
        (1, 1, 4)
    """


class PerToken(Granularity):
    """One set of quantization parameters per token (the last dimension).

    Example::

        >>> get_block_size((2, 3, 4), PerToken())
        (1, 1, 4)
    """


def get_block_size(input_shape, granularity):
    """The block size that ``granularity`` gives a tensor of ``input_shape``.

    Args:
        input_shape (tuple): the tensor's shape.
        granularity (Granularity): an instance of a granularity.

    Example::

        >>> get_block_size((4, 8), PerAxis(1))
        (4, 1)
    """
    if not isinstance(granularity, Granularity):
        raise AssertionError("Please provide an instance of Granularity, not subclass of it")
    if isinstance(granularity, PerTensor):
        return input_shape
    if isinstance(granularity, PerAxis):
        block_size = list(input_shape)
        block_size[granularity.axis] = 1
        return tuple(block_size)
    if isinstance(granularity, PerRow):
        return (1,) * (len(input_shape) - 1) + (input_shape[-1],)
    if isinstance(granularity, PerGroup):
        if len(input_shape) != 2:
            raise AssertionError("Expecting input shape dim to be 2 for per group "
                                 f"quantization, gotinput shape: {input_shape}")
        return (1, granularity.group_size)
    if isinstance(granularity, PerToken):
        block_size = [1] * len(input_shape)
        block_size[-1] = input_shape[-1]
        return tuple(block_size)
    raise ValueError(f"Unsupported Granularity: {granularity}")


class AffineQuantizedObserverBase(ABC, Module):
    """Base of the affine-quantization observers (torchao's design): it holds the mapping
    type, target dtype, granularity and range; subclasses implement ``forward`` (update
    statistics) and ``calculate_qparams``.

    Args:
        mapping_type (MappingType), target_dtype, granularity (Granularity): the scheme.
        quant_min, quant_max, eps, scale_dtype, zero_point_dtype, preserve_zero,
        zero_point_domain: its details.

    NOTE: unlike PyTorch, ``convert`` (which rewrites an FX graph to torchao's
    ``pt2e_quant`` ops) is not provided: ember has no such ops.

    Example::

        >>> issubclass(AffineQuantizedObserverBase, ember.nn.Module)
        True
    """
    with_args = classmethod(_with_args)

    def __init__(self, mapping_type, target_dtype, granularity, quant_min=None,
                 quant_max=None, eps=None, scale_dtype=None, zero_point_dtype=None,
                 preserve_zero=True, zero_point_domain=ZeroPointDomain.INT, **kwargs):
        super().__init__()
        if granularity is None:
            raise AssertionError("granularity is None")
        self.mapping_type = mapping_type
        self.target_dtype = target_dtype
        self.granularity = granularity
        self.quant_min = quant_min
        self.quant_max = quant_max
        self.eps = eps
        self.scale_dtype = scale_dtype
        self.zero_point_dtype = zero_point_dtype
        self.preserve_zero = preserve_zero
        self.zero_point_domain = zero_point_domain
        self.block_size = None
        self.original_dtype = None

    @abstractmethod
    def forward(self, input):
        """Update statistics from ``input`` and return it."""

    @abstractmethod
    def calculate_qparams(self):
        """The ``(scale, zero_point)`` of the statistics."""


def _is_observer_script_module(mod, obs_type_name):
    """Scripted observers do not exist in ember (no TorchScript)."""
    return False


def _is_activation_post_process(module):
    from .fake_quantize import FakeQuantizeBase
    return isinstance(module, (ObserverBase, FakeQuantizeBase, AffineQuantizedObserverBase))


def _is_per_channel_script_obs_instance(module):
    return False


def get_observer_state_dict(mod):
    r"""The part of ``mod.state_dict()`` that holds observer statistics (keys containing
    ``activation_post_process``), with the state dict's ``_metadata``.

    Args:
        mod (Module): a prepared (observed) model.

    Example::

        >>> m = ember.nn.Sequential(ember.nn.Linear(2, 2))
        >>> m.activation_post_process = ember.ao.quantization.MinMaxObserver()
        >>> list(get_observer_state_dict(m))
        ['activation_post_process.eps', 'activation_post_process.min_val', \
'activation_post_process.max_val']
    """
    sd = mod.state_dict()
    od = OrderedDict((k, v) for k, v in sd.items() if "activation_post_process" in k)
    od._metadata = sd._metadata
    return od


def load_observer_state_dict(mod, obs_dict):
    r"""Load observer statistics saved by :func:`get_observer_state_dict` into the
    observers (and fake-quantize modules) of ``mod``; a missing or unexpected observer key
    raises.

    Args:
        mod (Module): a prepared model.
        obs_dict (dict): the saved observer state.

    Example::

        >>> m = ember.nn.Sequential(ember.nn.Linear(2, 2))
        >>> m.activation_post_process = ember.ao.quantization.MinMaxObserver()
        >>> load_observer_state_dict(m, get_observer_state_dict(m))
    """
    missing_keys, unexpected_keys = [], []
    for name, module in mod.named_modules():
        prefix = name + "."
        if _is_activation_post_process(module):
            module._load_from_state_dict(obs_dict, prefix, {}, False, missing_keys,
                                         unexpected_keys, [])
            module._commit_loads()   # ember's loads are checked first, then applied
    for k in missing_keys:
        if "observer" in k or "activation_post_process" in k:
            raise Exception(f"Missing keys for observer {k} in state_dict")  # noqa: TRY002
    for k in unexpected_keys:
        if "observer" in k or "activation_post_process" in k:
            raise Exception(f"Unexpected keys for observer {k} in state_dict")  # noqa: TRY002


# ------------------------------------------------------------------ default observers

default_observer = _documented(
    MinMaxObserver.with_args(quant_min=0, quant_max=127), "default_observer",
    "Default observer for static quantization (7-bit quint8 range), usually for debugging.")
default_placeholder_observer = PlaceholderObserver
default_debug_observer = RecordingObserver
default_weight_observer = _documented(
    MinMaxObserver.with_args(dtype=D.qint8, qscheme=D.per_tensor_symmetric),
    "default_weight_observer", "Default weight observer: symmetric qint8 per tensor.")
weight_observer_range_neg_127_to_127 = _documented(
    MinMaxObserver.with_args(dtype=D.qint8, qscheme=D.per_tensor_symmetric, quant_min=-127,
                             quant_max=127, eps=2 ** -12),
    "weight_observer_range_neg_127_to_127",
    "Symmetric qint8 weight observer restricted to [-127, 127].")
default_histogram_observer = _documented(
    HistogramObserver.with_args(quant_min=0, quant_max=127), "default_histogram_observer",
    "Default histogram observer, usually for post-training quantization.")
default_per_channel_weight_observer = _documented(
    PerChannelMinMaxObserver.with_args(dtype=D.qint8, qscheme=D.per_channel_symmetric),
    "default_per_channel_weight_observer",
    "Default per-channel weight observer: symmetric qint8 per channel (for backends with "
    "per-channel weights such as fbgemm).")
per_channel_weight_observer_range_neg_127_to_127 = _documented(
    PerChannelMinMaxObserver.with_args(dtype=D.qint8, qscheme=D.per_channel_symmetric,
                                       quant_min=-127, quant_max=127, eps=2 ** -12),
    "per_channel_weight_observer_range_neg_127_to_127",
    "Per-channel symmetric qint8 weight observer restricted to [-127, 127].")
default_dynamic_quant_observer = _documented(
    PlaceholderObserver.with_args(dtype=D.quint8, quant_min=0, quant_max=255,
                                  is_dynamic=True),
    "default_dynamic_quant_observer",
    "Default observer for dynamic quantization (a placeholder: quint8, dynamic).")
default_float_qparams_observer = _documented(
    PerChannelMinMaxObserver.with_args(dtype=D.quint8,
                                       qscheme=D.per_channel_affine_float_qparams, ch_axis=0),
    "default_float_qparams_observer",
    "Default observer with float zero points (per-row quint8, for embeddings).")
default_float_qparams_observer_4bit = _documented(
    PerChannelMinMaxObserver.with_args(dtype=D.quint4x2,
                                       qscheme=D.per_channel_affine_float_qparams, ch_axis=0),
    "default_float_qparams_observer_4bit",
    "Default observer with float zero points and 4-bit values (quint4x2).")
default_fixed_qparams_range_neg1to1_observer = _documented(
    FixedQParamsObserver.with_args(scale=2.0 / 256.0, zero_point=128, dtype=D.quint8,
                                   quant_min=0, quant_max=255),
    "default_fixed_qparams_range_neg1to1_observer",
    "Fixed-qparams observer for outputs in [-1, 1] (tanh): scale 2/256, zero point 128.")
default_fixed_qparams_range_0to1_observer = _documented(
    FixedQParamsObserver.with_args(scale=1.0 / 256.0, zero_point=0, dtype=D.quint8,
                                   quant_min=0, quant_max=255),
    "default_fixed_qparams_range_0to1_observer",
    "Fixed-qparams observer for outputs in [0, 1] (sigmoid): scale 1/256, zero point 0.")
default_symmetric_fixed_qparams_observer = default_fixed_qparams_range_neg1to1_observer
default_affine_fixed_qparams_observer = default_fixed_qparams_range_0to1_observer
default_reuse_input_observer = ReuseInputObserver


