"""``ember.nn.utils``."""
from .init import skip_init  # noqa: F401
