"""``ember.ao.quantization.fake_quantize``: modules that simulate quantization during
training (QAT) by fake-quantizing the tensors they see with the scale and zero point their
observer computes (as ``torch.ao.quantization.fake_quantize``).

Their buffers (``scale``, ``zero_point``, ``fake_quant_enabled``, ``observer_enabled`` and
the observer's under ``activation_post_process.``) have PyTorch's names, dtypes and shapes,
so QAT checkpoints load both ways.
"""
from abc import ABC, abstractmethod

from ... import _dtype as D
from ...nn.modules.module import Module
from .observer import (_documented, _with_args, default_fixed_qparams_range_0to1_observer,
                       default_fixed_qparams_range_neg1to1_observer, FixedQParamsObserver,
                       HistogramObserver, MovingAverageMinMaxObserver,
                       MovingAveragePerChannelMinMaxObserver)
from .utils import _em, _qinfo

__all__ = [
    "FakeQuantizeBase",
    "FakeQuantize",
    "FixedQParamsFakeQuantize",
    "FusedMovingAvgObsFakeQuantize",
    "disable_fake_quant",
    "disable_observer",
    "enable_fake_quant",
    "enable_observer",
    "default_fake_quant",
    "default_weight_fake_quant",
    "default_dynamic_fake_quant",
    "default_fixed_qparams_range_neg1to1_fake_quant",
    "default_fixed_qparams_range_0to1_fake_quant",
    "default_symmetric_fixed_qparams_fake_quant",
    "default_affine_fixed_qparams_fake_quant",
    "default_per_channel_weight_fake_quant",
    "default_embedding_fake_quant",
    "default_embedding_fake_quant_4bit",
    "default_histogram_fake_quant",
    "default_fused_act_fake_quant",
    "default_fused_wt_fake_quant",
    "default_fused_per_channel_wt_fake_quant",
    "fused_wt_fake_quant_range_neg_127_to_127",
    "fused_per_channel_wt_fake_quant_range_neg_127_to_127",
]


def _is_per_channel(qscheme):
    return qscheme in (D.per_channel_symmetric, D.per_channel_affine,
                       D.per_channel_affine_float_qparams)


def _is_per_tensor(qscheme):
    return qscheme in (D.per_tensor_symmetric, D.per_tensor_affine)


def _is_symmetric_quant(qscheme):
    return qscheme in (D.per_tensor_symmetric, D.per_channel_symmetric)


def _is_float_qparams(qscheme):
    return qscheme == D.per_channel_affine_float_qparams


class FakeQuantizeBase(ABC, Module):
    r"""Base class of the fake-quantize modules: ``forward`` updates the statistics of the
    tensor it sees and fake-quantizes it; two uint8 buffers switch each part on and off
    (``fake_quant_enabled``, ``observer_enabled``).

    Example::

        >>> fq = ember.ao.quantization.FakeQuantize()
        >>> fq.disable_observer()
        >>> fq.observer_enabled
        tensor([0], dtype=torch.uint8)
    """

    def __init__(self):
        super().__init__()
        # buffers (not attributes) so that DDP replicates them; uint8 as NCCL has no bool
        self.register_buffer("fake_quant_enabled", _em.tensor([1], dtype=D.uint8))
        self.register_buffer("observer_enabled", _em.tensor([1], dtype=D.uint8))

    @abstractmethod
    def forward(self, x):
        pass

    @abstractmethod
    def calculate_qparams(self, **kwargs):
        pass

    def enable_fake_quant(self, enabled=True):
        """Turn fake quantization on (or off with ``enabled=False``)."""
        self.fake_quant_enabled[0] = 1 if enabled else 0

    def disable_fake_quant(self):
        """Turn fake quantization off (the input passes through)."""
        self.enable_fake_quant(False)

    def enable_observer(self, enabled=True):
        """Turn statistics collection on (or off with ``enabled=False``)."""
        self.observer_enabled[0] = 1 if enabled else 0

    def disable_observer(self):
        """Turn statistics collection off (scale and zero point stay as they are)."""
        self.enable_observer(False)

    @classmethod
    def with_args(cls, **kwargs):
        ctor = _with_args(cls, **kwargs)
        ctor.__module__ = "ember.ao.quantization.fake_quantize"
        return ctor


class FakeQuantize(FakeQuantizeBase):
    r"""Fake-quantize in training: ``x_out = (clamp(round(x / scale + zero_point), quant_min,
    quant_max) - zero_point) * scale``, with ``scale``/``zero_point`` recomputed by the
    observer (``activation_post_process``) from every input while the observer is enabled.

    Args:
        observer: the observer class (or ``with_args`` constructor).
        quant_min (int), quant_max (int): the quantized range (passed to the observer).
        is_dynamic (bool): stands for dynamic quantization.
        **observer_kwargs: more arguments for the observer.

    Example::

        >>> fq = ember.ao.quantization.FakeQuantize(quant_min=0, quant_max=255)
        >>> fq(ember.tensor([-1.0, 0.3, 2.0]))
        tensor([-1.0000,  0.3059,  2.0000])
        >>> fq.scale, fq.zero_point
        (tensor([0.0118]), tensor([85], dtype=torch.int32))
    """

    def __init__(self, observer=MovingAverageMinMaxObserver, quant_min=None, quant_max=None,
                 is_dynamic=False, **observer_kwargs):
        super().__init__()
        if quant_min is not None and quant_max is not None:
            if quant_min > quant_max:
                raise AssertionError("quant_min must be less than or equal to quant_max")
            dtype = observer_kwargs.get("dtype", D.quint8)
            if hasattr(observer, "p"):
                dtype = getattr(getattr(observer, "p", {}), "keywords", {}).get("dtype", dtype)
            lo, hi, _ = _qinfo(dtype)
            if lo > quant_min:
                raise AssertionError("quant_min out of bound")
            if quant_max > hi:
                raise AssertionError("quant_max out of bound")
            observer_kwargs.update({"quant_min": quant_min, "quant_max": quant_max})
        observer_kwargs["is_dynamic"] = is_dynamic
        self.activation_post_process = observer(**observer_kwargs)
        self.quant_min = self.activation_post_process.quant_min
        self.quant_max = self.activation_post_process.quant_max
        self.is_dynamic = self.activation_post_process.is_dynamic
        zp_dtype = D.float32 if _is_float_qparams(self.activation_post_process.qscheme) \
            else D.int32
        self.register_buffer("scale", _em.tensor([1.0], dtype=D.float32))
        self.register_buffer("zero_point", _em.tensor([0], dtype=zp_dtype))
        self.dtype = self.activation_post_process.dtype
        self.qscheme = self.activation_post_process.qscheme
        self.ch_axis = getattr(self.activation_post_process, "ch_axis", -1)
        if not (_is_per_channel(self.qscheme) or _is_per_tensor(self.qscheme)):
            raise AssertionError("Only per channel and per tensor quantization are supported "
                                 "in fake quantize got qscheme: " + str(self.qscheme))
        self.is_per_channel = _is_per_channel(self.qscheme)

    def calculate_qparams(self):
        return self.activation_post_process.calculate_qparams()

    def forward(self, X):
        if self.observer_enabled[0] == 1:
            self.activation_post_process(X.detach())
            scale, zero_point = self.calculate_qparams()
            scale = scale.to(self.scale.device)
            zero_point = zero_point.to(self.zero_point.device)
            if self.scale.shape != scale.shape:
                self.scale.resize_(scale.shape)
                self.zero_point.resize_(zero_point.shape)
            self.scale.copy_(scale)
            self.zero_point.copy_(zero_point)
        if self.fake_quant_enabled[0] == 1:
            app = self.activation_post_process
            if self.is_per_channel:
                X = _em.fake_quantize_per_channel_affine(X, self.scale, self.zero_point,
                                                         self.ch_axis, app.quant_min,
                                                         app.quant_max)
            else:
                X = _em.fake_quantize_per_tensor_affine(X, self.scale, self.zero_point,
                                                        app.quant_min, app.quant_max)
        return X

    def extra_repr(self):
        app = self.activation_post_process
        return (f"fake_quant_enabled={self.fake_quant_enabled}, "
                f"observer_enabled={self.observer_enabled}, "
                f"quant_min={app.quant_min}, quant_max={app.quant_max}, "
                f"dtype={self.dtype}, qscheme={self.qscheme}, ch_axis={self.ch_axis}, "
                f"scale={self.scale}, zero_point={self.zero_point}")

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        super()._save_to_state_dict(destination, prefix, keep_vars)
        destination[prefix + "scale"] = self.scale
        destination[prefix + "zero_point"] = self.zero_point

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        for name in ("scale", "zero_point"):
            key = prefix + name
            if key in state_dict:
                # a per-channel module's buffers take the stored size before the copy
                getattr(self, name).resize_(state_dict[key].shape)
            elif strict:
                missing_keys.append(key)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict,
                                      missing_keys, unexpected_keys, error_msgs)


class FixedQParamsFakeQuantize(FakeQuantize):
    r"""Fake-quantize with fixed quantization parameters (those of its
    :class:`~ember.ao.quantization.observer.FixedQParamsObserver`), per tensor only.

    Args:
        observer: a ``FixedQParamsObserver`` constructor.

    Example::

        >>> fq = ember.ao.quantization.default_fixed_qparams_range_0to1_fake_quant()
        >>> fq(ember.tensor([0.5, 2.0]))
        tensor([0.5000, 0.9961])
    """

    def __init__(self, observer):
        super().__init__(observer=observer)
        if type(self.activation_post_process) is not FixedQParamsObserver:
            raise AssertionError(f"{self.__class__.__name__}'s observer must be a "
                                 f"{FixedQParamsObserver.__name__}")
        self._observer_ctr = observer
        self.scale = self.activation_post_process.scale
        self.zero_point = self.activation_post_process.zero_point
        if not _is_per_tensor(self.qscheme):
            raise AssertionError("Only per tensor quantization is supported "
                                 "FixedQParamsFakeQuantize module, got qscheme:"
                                 + str(self.qscheme))

    def calculate_qparams(self):
        return self.scale, self.zero_point

    def extra_repr(self):
        app = self.activation_post_process
        return (f"fake_quant_enabled={self.fake_quant_enabled}, "
                f"observer_enabled={self.observer_enabled}, "
                f"scale={self.scale}, zero_point={self.zero_point}, "
                f"dtype={self.dtype}, quant_min={app.quant_min}, "
                f"quant_max={app.quant_max}, qscheme={self.qscheme}")


class FusedMovingAvgObsFakeQuantize(FakeQuantize):
    r"""Observe (moving-average min/max) and fake-quantize in one op
    (:func:`ember.fused_moving_avg_obs_fake_quant`); the scale and zero point are chosen
    as PyTorch's fused kernel chooses them. Its enable flags are int64 buffers.

    Args:
        observer: ``MovingAverageMinMaxObserver`` or
            ``MovingAveragePerChannelMinMaxObserver`` (or a ``with_args`` constructor).
        quant_min (int), quant_max (int): the quantized range.
        **observer_kwargs: more arguments for the observer.

    Example::

        >>> fq = ember.ao.quantization.FusedMovingAvgObsFakeQuantize()
        >>> fq(ember.tensor([-1.0, 0.3, 2.0]))
        tensor([-1.0000,  0.3059,  2.0000])
    """

    def __init__(self, observer=MovingAverageMinMaxObserver, quant_min=0, quant_max=255,
                 **observer_kwargs):
        super().__init__(observer, quant_min, quant_max, **observer_kwargs)
        if not isinstance(self.activation_post_process,
                          (MovingAverageMinMaxObserver, MovingAveragePerChannelMinMaxObserver)):
            raise AssertionError("Fused observer+fake_quant module only works with "
                                 "MovingAverageMinMaxObserver")
        self.register_buffer("fake_quant_enabled", _em.tensor([1], dtype=D.int64))
        self.register_buffer("observer_enabled", _em.tensor([1], dtype=D.int64))
        self.is_symmetric_quant = _is_symmetric_quant(self.activation_post_process.qscheme)

    def calculate_qparams(self):
        return self.activation_post_process.calculate_qparams()

    def extra_repr(self):
        app = self.activation_post_process
        return (f"fake_quant_enabled={self.fake_quant_enabled}, "
                f"observer_enabled={self.observer_enabled}, "
                f"scale={self.scale}, zero_point={self.zero_point}, dtype={self.dtype}, "
                f"quant_min={app.quant_min}, quant_max={app.quant_max}, "
                f"qscheme={self.qscheme}, reduce_range={app.reduce_range}")

    def forward(self, X):
        app = self.activation_post_process
        return _em.fused_moving_avg_obs_fake_quant(
            X, self.observer_enabled, self.fake_quant_enabled, app.min_val, app.max_val,
            self.scale, self.zero_point, app.averaging_constant, app.quant_min,
            app.quant_max, self.ch_axis, self.is_per_channel, self.is_symmetric_quant)


def _fq(name, text, cls, **kwargs):
    return _documented(cls.with_args(**kwargs), name, text)


default_fake_quant = _fq(
    "default_fake_quant", "Default fake-quantize for activations (moving-average min/max, "
    "quint8, 7-bit range).", FakeQuantize, observer=MovingAverageMinMaxObserver, quant_min=0,
    quant_max=255, dtype=D.quint8, qscheme=D.per_tensor_affine, reduce_range=True)
default_weight_fake_quant = _fq(
    "default_weight_fake_quant", "Default fake-quantize for weights (symmetric qint8 per "
    "tensor).", FakeQuantize, observer=MovingAverageMinMaxObserver, quant_min=-128,
    quant_max=127, dtype=D.qint8, qscheme=D.per_tensor_symmetric, reduce_range=False)
default_dynamic_fake_quant = _fq(
    "default_dynamic_fake_quant", "Default fake-quantize for dynamically quantized "
    "activations (memoryless observer).", FakeQuantize, observer=MovingAverageMinMaxObserver,
    quant_min=0, quant_max=255, is_dynamic=True, dtype=D.quint8, averaging_constant=1)
default_fixed_qparams_range_neg1to1_fake_quant = _fq(
    "default_fixed_qparams_range_neg1to1_fake_quant", "Fixed-qparams fake-quantize for "
    "outputs in [-1, 1].", FixedQParamsFakeQuantize,
    observer=default_fixed_qparams_range_neg1to1_observer)
default_fixed_qparams_range_0to1_fake_quant = _fq(
    "default_fixed_qparams_range_0to1_fake_quant", "Fixed-qparams fake-quantize for outputs "
    "in [0, 1].", FixedQParamsFakeQuantize, observer=default_fixed_qparams_range_0to1_observer)
default_symmetric_fixed_qparams_fake_quant = default_fixed_qparams_range_neg1to1_fake_quant
default_affine_fixed_qparams_fake_quant = default_fixed_qparams_range_0to1_fake_quant
default_per_channel_weight_fake_quant = _fq(
    "default_per_channel_weight_fake_quant", "Default fake-quantize for per-channel weights "
    "(symmetric qint8).", FakeQuantize, observer=MovingAveragePerChannelMinMaxObserver,
    quant_min=-128, quant_max=127, dtype=D.qint8, qscheme=D.per_channel_symmetric,
    reduce_range=False, ch_axis=0)
default_embedding_fake_quant = _fq(
    "default_embedding_fake_quant", "Default fake-quantize for embeddings (per-row float "
    "qparams, quint8).", FakeQuantize, observer=MovingAveragePerChannelMinMaxObserver,
    qscheme=D.per_channel_affine_float_qparams, dtype=D.quint8, quant_min=0, quant_max=255,
    ch_axis=0, averaging_constant=1)
default_embedding_fake_quant_4bit = _fq(
    "default_embedding_fake_quant_4bit", "Default fake-quantize for embeddings with 4-bit "
    "values.", FakeQuantize, observer=MovingAveragePerChannelMinMaxObserver,
    qscheme=D.per_channel_affine_float_qparams, ch_axis=0, dtype=D.quint4x2,
    averaging_constant=1)
default_histogram_fake_quant = _fq(
    "default_histogram_fake_quant", "Fake-quantize for activations with a histogram "
    "observer.", FakeQuantize, observer=HistogramObserver, quant_min=0, quant_max=255,
    dtype=D.quint8, qscheme=D.per_tensor_affine, reduce_range=True)
default_fused_act_fake_quant = _fq(
    "default_fused_act_fake_quant", "Fused observer + fake-quantize for activations (quint8).",
    FusedMovingAvgObsFakeQuantize, observer=MovingAverageMinMaxObserver, quant_min=0,
    quant_max=255, dtype=D.quint8)
default_fused_wt_fake_quant = _fq(
    "default_fused_wt_fake_quant", "Fused observer + fake-quantize for weights (symmetric "
    "qint8 per tensor).", FusedMovingAvgObsFakeQuantize, observer=MovingAverageMinMaxObserver,
    quant_min=-128, quant_max=127, dtype=D.qint8, qscheme=D.per_tensor_symmetric)
default_fused_per_channel_wt_fake_quant = _fq(
    "default_fused_per_channel_wt_fake_quant", "Fused observer + fake-quantize for "
    "per-channel weights.", FusedMovingAvgObsFakeQuantize,
    observer=MovingAveragePerChannelMinMaxObserver, quant_min=-128, quant_max=127,
    dtype=D.qint8, qscheme=D.per_channel_symmetric)
fused_wt_fake_quant_range_neg_127_to_127 = _fq(
    "fused_wt_fake_quant_range_neg_127_to_127", "Fused weight fake-quantize restricted to "
    "[-127, 127].", FusedMovingAvgObsFakeQuantize, observer=MovingAverageMinMaxObserver,
    quant_min=-127, quant_max=127, dtype=D.qint8, qscheme=D.per_tensor_symmetric,
    eps=2 ** -12)
fused_per_channel_wt_fake_quant_range_neg_127_to_127 = _fq(
    "fused_per_channel_wt_fake_quant_range_neg_127_to_127", "Fused per-channel weight "
    "fake-quantize restricted to [-127, 127].", FusedMovingAvgObsFakeQuantize,
    observer=MovingAveragePerChannelMinMaxObserver, quant_min=-127, quant_max=127,
    dtype=D.qint8, qscheme=D.per_channel_symmetric, eps=2 ** -12)


def _is_fake_quant_script_module(mod):
    """Scripted fake-quantize modules do not exist in ember (no TorchScript)."""
    return False


def disable_fake_quant(mod):
    """Turn fake quantization off in ``mod`` if it is a fake-quantize module (use with
    ``model.apply``).

    Example::

        >>> m = ember.nn.Sequential(ember.ao.quantization.FakeQuantize())
        >>> _ = m.apply(ember.ao.quantization.disable_fake_quant)
        >>> m[0].fake_quant_enabled
        tensor([0], dtype=torch.uint8)
    """
    if isinstance(mod, FakeQuantizeBase):
        mod.disable_fake_quant()


def enable_fake_quant(mod):
    """Turn fake quantization on in ``mod`` if it is a fake-quantize module (use with
    ``model.apply``).

    Example::

        >>> m = ember.nn.Sequential(ember.ao.quantization.FakeQuantize())
        >>> _ = m.apply(ember.ao.quantization.enable_fake_quant)
    """
    if isinstance(mod, FakeQuantizeBase):
        mod.enable_fake_quant()


def disable_observer(mod):
    """Turn observation off in ``mod`` if it is a fake-quantize module (use with
    ``model.apply``).

    Example::

        >>> m = ember.nn.Sequential(ember.ao.quantization.FakeQuantize())
        >>> _ = m.apply(ember.ao.quantization.disable_observer)
        >>> m[0].observer_enabled
        tensor([0], dtype=torch.uint8)
    """
    if isinstance(mod, FakeQuantizeBase):
        mod.disable_observer()


def enable_observer(mod):
    """Turn observation on in ``mod`` if it is a fake-quantize module (use with
    ``model.apply``).

    Example::

        >>> m = ember.nn.Sequential(ember.ao.quantization.FakeQuantize())
        >>> _ = m.apply(ember.ao.quantization.enable_observer)
    """
    if isinstance(mod, FakeQuantizeBase):
        mod.enable_observer()
