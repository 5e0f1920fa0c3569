"""``ember.ao.quantization._learnable_fake_quantize``: fake quantization with learnable
scale and zero point (as ``torch.ao.quantization._learnable_fake_quantize``)."""
from ... import _dtype as D
from ...nn.parameter import Parameter
from .fake_quantize import FakeQuantizeBase
from .utils import FLOAT32_EPS, _em, _qinfo

__all__ = []


class _LearnableFakeQuantize(FakeQuantizeBase):
    r"""Fake quantization whose scale and zero point are parameters learnt by
    backpropagation (LSQ), optionally initialised from an observer's static estimates.

    Args:
        observer: the observer constructor for static estimates.
        quant_min (int), quant_max (int): the quantized range (``quant_min < quant_max``).
        scale (float), zero_point (float): initial values.
        channel_len (int): number of channels for per-channel parameters (-1: per tensor).
        use_grad_scaling (bool): scale the parameter gradients by
            ``1 / sqrt(numel * quant_max)``.
        **observer_kwargs: more arguments for the observer.

    Example::

        >>> from ember.ao.quantization._learnable_fake_quantize import _LearnableFakeQuantize
        >>> fq = _LearnableFakeQuantize(ember.ao.quantization.MovingAverageMinMaxObserver)
        >>> sorted(n for n, _ in fq.named_parameters())
        ['scale', 'zero_point']
    """

    def __init__(self, observer, quant_min=0, quant_max=255, scale=1.0, zero_point=0.0,
                 channel_len=-1, use_grad_scaling=False, **observer_kwargs):
        super().__init__()
        if quant_min >= quant_max:
            raise AssertionError("quant_min must be strictly less than quant_max.")
        self.quant_min = quant_min
        self.quant_max = quant_max
        observer_kwargs["quant_min"] = quant_min
        observer_kwargs["quant_max"] = quant_max
        self.use_grad_scaling = use_grad_scaling
        if channel_len == -1:
            self.scale = Parameter(_em.tensor([scale]))
            self.zero_point = Parameter(_em.tensor([zero_point]))
        else:
            if not (isinstance(channel_len, int) and channel_len > 0):
                raise AssertionError("Channel size must be a positive integer.")
            self.scale = Parameter(_em.tensor([scale] * channel_len))
            self.zero_point = Parameter(_em.tensor([zero_point] * channel_len))
        self.activation_post_process = observer(**observer_kwargs)
        lo, hi, _ = _qinfo(self.activation_post_process.dtype)
        if lo > quant_min:
            raise AssertionError("quant_min out of bound")
        if quant_max > hi:
            raise AssertionError("quant_max out of bound")
        self.dtype = self.activation_post_process.dtype
        self.qscheme = self.activation_post_process.qscheme
        self.ch_axis = getattr(self.activation_post_process, "ch_axis", -1)
        self.register_buffer("fake_quant_enabled", _em.tensor([1], dtype=D.uint8))
        self.register_buffer("static_enabled", _em.tensor([1], dtype=D.uint8))
        self.register_buffer("learning_enabled", _em.tensor([0], dtype=D.uint8))
        self.bitwidth = int(_em.log2(_em.tensor(quant_max - quant_min + 1).double()).item())
        self.register_buffer("eps", _em.tensor([FLOAT32_EPS]))

    def enable_param_learning(self):
        """Learn scale and zero point (observer updates off, fake quantization on)."""
        self.toggle_qparam_learning(enabled=True).toggle_fake_quant(
            enabled=True).toggle_observer_update(enabled=False)
        return self

    def enable_static_estimate(self):
        """Take scale and zero point from the observer (learning off, fake quantization
        on)."""
        self.toggle_qparam_learning(enabled=False).toggle_fake_quant(
            enabled=True).toggle_observer_update(enabled=True)

    def enable_static_observation(self):
        """Only observe (learning and fake quantization off)."""
        self.toggle_qparam_learning(enabled=False).toggle_fake_quant(
            enabled=False).toggle_observer_update(enabled=True)

    def toggle_observer_update(self, enabled=True):
        self.static_enabled[0] = int(enabled)
        return self

    def enable_observer(self, enabled=True):
        self.toggle_observer_update(enabled)

    def toggle_qparam_learning(self, enabled=True):
        self.learning_enabled[0] = int(enabled)
        self.scale.requires_grad = enabled
        self.zero_point.requires_grad = enabled
        return self

    def toggle_fake_quant(self, enabled=True):
        self.fake_quant_enabled[0] = int(enabled)
        return self

    def observe_quant_params(self):
        print(f"_LearnableFakeQuantize Scale: {self.scale.detach()}")
        print(f"_LearnableFakeQuantize Zero Point: {self.zero_point.detach()}")

    def calculate_qparams(self):
        self.scale.data.clamp_(min=self.eps.item())
        scale = self.scale.detach()
        zero_point = self.zero_point.detach().round().clamp(self.quant_min,
                                                            self.quant_max).long()
        return scale, zero_point

    def forward(self, X):
        if self.static_enabled[0] == 1:
            self.activation_post_process(X.detach())
            scale, zero_point = self.activation_post_process.calculate_qparams()
            self.scale.data.copy_(scale.to(self.scale.device))
            self.zero_point.data.copy_(zero_point.to(self.zero_point.device))
        else:
            self.scale.data.clamp_(min=self.eps.item())
        if self.fake_quant_enabled[0] == 1:
            if self.qscheme in (D.per_channel_symmetric, D.per_tensor_symmetric):
                self.zero_point.data.zero_()
            if self.use_grad_scaling:
                grad_factor = 1.0 / (X.numel() * self.quant_max) ** 0.5
            else:
                grad_factor = 1.0
            if self.qscheme in (D.per_channel_symmetric, D.per_channel_affine):
                X = _em._fake_quantize_learnable_per_channel_affine(
                    X, self.scale, self.zero_point, self.ch_axis, self.quant_min,
                    self.quant_max, grad_factor)
            else:
                X = _em._fake_quantize_learnable_per_tensor_affine(
                    X, self.scale, self.zero_point, self.quant_min, self.quant_max,
                    grad_factor)
        return X
