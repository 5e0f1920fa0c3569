"""``ember.optim``: optimizers that update parameters from their gradients."""
from .optimizer import Optimizer  # noqa: F401
from .sgd import SGD  # noqa: F401
from . import optimizer, sgd  # noqa: F401

__all__ = ['Optimizer', 'SGD']
