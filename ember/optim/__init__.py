"""``ember.optim``: optimizers that update parameters from their gradients, learning-rate
schedulers (:mod:`ember.optim.lr_scheduler`) and weight averaging
(:mod:`ember.optim.swa_utils`)."""
from .optimizer import Optimizer  # noqa: F401
from .sgd import SGD  # noqa: F401
from .adam import Adam  # noqa: F401
from .adamw import AdamW  # noqa: F401
from .adamax import Adamax  # noqa: F401
from .nadam import NAdam  # noqa: F401
from .radam import RAdam  # noqa: F401
from .adagrad import Adagrad  # noqa: F401
from .adadelta import Adadelta  # noqa: F401
from .rmsprop import RMSprop  # noqa: F401
from .rprop import Rprop  # noqa: F401
from .asgd import ASGD  # noqa: F401
from .lbfgs import LBFGS  # noqa: F401
from .sparse_adam import SparseAdam  # noqa: F401
from ._adafactor import Adafactor  # noqa: F401
from ._muon import Muon  # noqa: F401
from ._stateless import swap_in_optimizer_params_and_state  # noqa: F401
from . import optimizer, sgd  # noqa: F401


def __getattr__(name):
    # lr_scheduler and swa_utils are imported on first use (import ember stays fast)
    if name in ('lr_scheduler', 'swa_utils'):
        import importlib
        return importlib.import_module(f'{__name__}.{name}')
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = ['Adafactor', 'Muon', 'swap_in_optimizer_params_and_state', 'ASGD', 'Adadelta', 'Adagrad', 'Adam', 'AdamW', 'Adamax', 'LBFGS', 'NAdam',
           'Optimizer', 'RAdam', 'RMSprop', 'Rprop', 'SGD', 'SparseAdam', 'lr_scheduler',
           'swa_utils']
