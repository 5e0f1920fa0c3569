"""DataPipes (PyTorch's deprecated composable datasets): the base classes and decorators."""
from . import datapipe, _decorator  # noqa: F401
