"""``ember.utils``: hooks helpers, data loading (``ember.utils.data``)."""
from . import hooks  # noqa: F401
