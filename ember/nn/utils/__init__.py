"""``ember.nn.utils``."""
from .init import skip_init  # noqa: F401
from . import rnn  # noqa: F401,E402
