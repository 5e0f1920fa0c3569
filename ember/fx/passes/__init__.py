"""FX graph passes (``shape_prop``, ``split_module``)."""
from . import shape_prop, split_module  # noqa: F401
