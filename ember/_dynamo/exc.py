"""``ember._dynamo.exc``: Dynamo's exception types, as ``torch._dynamo.exc``.

NOTE: unlike PyTorch, ember compiles nothing, so ember itself never raises these; they
exist with PyTorch's hierarchy so that libraries can name them in ``except`` clauses and
raise them (``Unsupported`` is a ``RuntimeError``, as in PyTorch).
"""
import enum

__all__ = ['TorchDynamoException', 'InternalTorchDynamoError', 'RestartAnalysis',
           'SpeculationRestartAnalysis', 'UnspecializeRestartAnalysis', 'SkipFrame',
           'TorchRuntimeError', 'InvalidBackend', 'ResetRequired', 'ShortenTraceback',
           'BackendCompilerFailed', 'Unsupported', 'RecompileError', 'UserErrorType',
           'UserError', 'FailOnRecompileLimitHit', 'UncapturedHigherOrderOpError',
           'IncorrectUsage', 'ObservedException']


class TorchDynamoException(RuntimeError):
    """Base of Dynamo's errors (a ``RuntimeError``)."""


class InternalTorchDynamoError(TorchDynamoException):
    """An internal error of the compiler."""


class RestartAnalysis(TorchDynamoException):
    """Tracing restarts (internal control flow of the compiler)."""

    def __init__(self, *args, restart_reason=None):
        self.restart_reason = restart_reason
        super().__init__(*args)


class SpeculationRestartAnalysis(RestartAnalysis):
    """Tracing restarts after a failed speculation."""


class UnspecializeRestartAnalysis(RestartAnalysis):
    """Tracing restarts with a value unspecialized."""


class SkipFrame(TorchDynamoException):
    """The frame is left to run eagerly."""


class TorchRuntimeError(TorchDynamoException):
    """An error raised by an op while it was traced."""


class InvalidBackend(TorchDynamoException):
    """The named backend does not exist."""

    def __init__(self, name):
        super().__init__(f"Invalid backend: {name!r}, see `torch._dynamo.list_backends()` "
                         "for available backends.")


class ResetRequired(TorchDynamoException):
    """``torch._dynamo.reset()`` must be called first."""


class ShortenTraceback(TorchDynamoException):
    """An error whose traceback is shortened."""

    def __init__(self, *args, first_useful_frame=None, **kwargs):
        self.first_useful_frame = first_useful_frame
        super().__init__(*args, **kwargs)


class BackendCompilerFailed(ShortenTraceback):
    """The backend compiler raised ``inner_exception``."""

    def __init__(self, backend_fn, inner_exception, first_useful_frame=None):
        self.backend_name = getattr(backend_fn, '__name__', '?')
        self.inner_exception = inner_exception
        super().__init__(f"backend={self.backend_name!r} raised:\n"
                         f"{type(inner_exception).__name__}: {inner_exception}",
                         first_useful_frame=first_useful_frame)


class Unsupported(TorchDynamoException):
    """Tracing met something the compiler does not support.

    Args:
        msg (str): the message.
    """

    def __init__(self, msg, *, case_name=None, real_stack=None):
        super().__init__(msg)
        self.msg = msg
        self.case_name = case_name
        self.real_stack = real_stack
        self.category = None
        self.add_to_stats()

    def remove_from_stats(self):
        pass

    def add_to_stats(self, category='unimplemented'):
        self.category = category


class RecompileError(TorchDynamoException):
    """A recompilation happened where it was forbidden."""


class UserErrorType(enum.Enum):
    """Kinds of :class:`UserError`."""
    DYNAMIC_CONTROL_FLOW = enum.auto()
    ANTI_PATTERN = enum.auto()
    STANDARD_LIBRARY = enum.auto()
    CONSTRAINT_VIOLATION = enum.auto()
    DYNAMIC_DIM = enum.auto()
    INVALID_INPUT = enum.auto()
    INVALID_OUTPUT = enum.auto()
    UNSUPPORTED_ALIASED_MUTATED_DYNAMIC_INPUTS = enum.auto()


class UserError(TorchDynamoException):
    """An error in the user's code, of kind ``error_type`` (a :class:`UserErrorType`)."""

    def __init__(self, error_type, msg, case_name=None):
        super().__init__(msg)
        self.error_type = error_type
        self.message = msg
        self.case_name = case_name


class FailOnRecompileLimitHit(Exception):
    """The recompile limit was hit with ``fail_on_recompile_limit_hit`` set."""


class UncapturedHigherOrderOpError(TorchDynamoException):
    """A higher-order op's body could not be captured."""


class IncorrectUsage(Exception):
    """A Dynamo API was used incorrectly."""


class ObservedException(TorchDynamoException):
    """An exception raised inside the traced user code."""
