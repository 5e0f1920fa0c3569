"""``FloatFunctional`` (observed float arithmetic in a model to be quantized),
``FXFloatFunctional`` and ``QFunctional`` (its quantized replacement)."""
import ember
from ember.nn import Module, Identity
from ember._quantized import ops as _qops
from .utils import _QParamsState

__all__ = ['FloatFunctional', 'FXFloatFunctional', 'QFunctional']


class FloatFunctional(Module):
    r"""Float arithmetic whose results an observer can watch (``add``, ``cat``, ``mul``,
    ``add_relu``, ``matmul``; the ``*_scalar`` forms are not observed). ``convert``
    replaces it by :class:`QFunctional`.

    Example::

        >>> f = nn.quantized.FloatFunctional()
        >>> f.add(ember.ones(2), ember.ones(2))
        tensor([2., 2.])
    """

    def __init__(self):
        super().__init__()
        self.activation_post_process = Identity()

    def forward(self, x):
        raise RuntimeError("FloatFunctional is not intended to use the 'forward'. Please use "
                           "the underlying operation")

    def add(self, x, y):
        """``x + y``, observed."""
        return self.activation_post_process(ember.add(x, y))

    def add_scalar(self, x, y):
        """``x + y`` for a number ``y`` (not observed)."""
        return ember.add(x, y)

    def mul(self, x, y):
        """``x * y``, observed."""
        return self.activation_post_process(ember.mul(x, y))

    def mul_scalar(self, x, y):
        """``x * y`` for a number ``y`` (not observed)."""
        return ember.mul(x, y)

    def cat(self, x, dim=0):
        """``ember.cat(x, dim)``, observed."""
        return self.activation_post_process(ember.cat(x, dim=dim))

    def add_relu(self, x, y):
        """``relu(x + y)``, observed."""
        return self.activation_post_process(ember.nn.functional.relu(ember.add(x, y)))

    def matmul(self, x, y):
        """``x @ y``, observed."""
        return self.activation_post_process(ember.matmul(x, y))


class FXFloatFunctional(Module):
    r"""The float arithmetic of :class:`FloatFunctional` without observers, for FX graph
    mode (which observes the ops in the graph).

    Example::

        >>> nn.quantized.FXFloatFunctional().mul(ember.ones(2), ember.ones(2))
        tensor([1., 1.])
    """

    def forward(self, x):
        raise RuntimeError("FloatFunctional is not intended to use the 'forward'. Please use "
                           "the underlying operation")

    def add(self, x, y):
        """``x + y``."""
        return ember.add(x, y)

    def add_scalar(self, x, y):
        """``x + y`` for a number ``y``."""
        return ember.add(x, y)

    def mul(self, x, y):
        """``x * y``."""
        return ember.mul(x, y)

    def mul_scalar(self, x, y):
        """``x * y`` for a number ``y``."""
        return ember.mul(x, y)

    def cat(self, x, dim=0):
        """``ember.cat(x, dim)``."""
        return ember.cat(x, dim=dim)

    def add_relu(self, x, y):
        """``relu(x + y)``."""
        return ember.nn.functional.relu(ember.add(x, y))

    def matmul(self, x, y):
        """``x @ y``."""
        return ember.matmul(x, y)


class QFunctional(_QParamsState, Module):
    r"""Quantized arithmetic with one output :attr:`scale` and :attr:`zero_point`: the
    quantized form of :class:`FloatFunctional` (``ember.ops.quantized.add`` & co.).

    Example::

        >>> f = nn.quantized.QFunctional()
        >>> f.scale, f.zero_point = 0.2, 0
        >>> a = ember.quantize_per_tensor(ember.tensor([1.0, 2.0]), 0.1, 0, ember.quint8)
        >>> f.add(a, a).int_repr()
        tensor([10, 20], dtype=torch.uint8)
    """

    def __init__(self):
        super().__init__()
        self.scale = 1.0
        self.zero_point = 0
        self.activation_post_process = Identity()

    def _get_name(self):
        return 'QFunctional'

    def extra_repr(self):
        return f"scale={self.scale}, zero_point={self.zero_point}"

    def forward(self, x):
        raise RuntimeError("Functional is not intended to use the 'forward'. Please use the "
                           "underlying operation")

    def add(self, x, y):
        """Quantized ``x + y``."""
        return self.activation_post_process(_qops.add(x, y, self.scale, self.zero_point))

    def add_scalar(self, x, y):
        """Quantized ``x + y`` for a number ``y`` (its own output parameters)."""
        return self.activation_post_process(_qops.add_scalar(x, y))

    def mul(self, x, y):
        """Quantized ``x * y``."""
        return self.activation_post_process(_qops.mul(x, y, self.scale, self.zero_point))

    def mul_scalar(self, x, y):
        """Quantized ``x * y`` for a number ``y`` (its own output parameters)."""
        return self.activation_post_process(_qops.mul_scalar(x, y))

    def cat(self, x, dim=0):
        """Quantized ``cat`` requantized to this module's parameters."""
        return self.activation_post_process(_qops.cat(x, dim, self.scale, self.zero_point))

    def add_relu(self, x, y):
        """Quantized ``relu(x + y)``."""
        return self.activation_post_process(_qops.add_relu(x, y, self.scale,
                                                           self.zero_point))

    def matmul(self, x, y):
        """Quantized ``x @ y``."""
        return self.activation_post_process(_qops.matmul(x, y, self.scale, self.zero_point))

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        """A QFunctional with the output parameters of ``mod``'s observer."""
        if type(mod) is not FloatFunctional:
            raise AssertionError("QFunctional.from_float expects an instance of "
                                 "FloatFunctional")
        scale, zero_point = mod.activation_post_process.calculate_qparams()
        new_mod = QFunctional()
        new_mod.scale = float(scale)
        new_mod.zero_point = int(zero_point)
        return new_mod
