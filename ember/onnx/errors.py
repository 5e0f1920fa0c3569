"""``ember.onnx.errors``: the exceptions of the ONNX exporter."""

__all__ = ['OnnxExporterError', 'OnnxExporterWarning', 'SymbolicValueError',
           'UnsupportedOperatorError']


class OnnxExporterWarning(UserWarning):
    """Warnings issued by the ONNX exporter.

    Example::

        >>> issubclass(ember.onnx.errors.OnnxExporterWarning, UserWarning)
        True
    """


class OnnxExporterError(RuntimeError):
    """Errors raised by the ONNX exporter (the base of its other errors).

    Example::

        >>> issubclass(ember.onnx.errors.UnsupportedOperatorError, ember.onnx.OnnxExporterError)
        True
    """


class UnsupportedOperatorError(OnnxExporterError):
    """Raised when an operator (or a layer) has no ONNX conversion.

    Args:
        name (str): the operator's name, e.g. ``'aten::fold'``.
        version (int): the opset version being exported.
        supported_version (int, optional): the first opset version that supports it.

    Example::

        >>> str(ember.onnx.errors.UnsupportedOperatorError('aten::fold', 17, None))
        "Exporting the operator 'aten::fold' to ONNX opset version 17 is not supported"
    """

    def __init__(self, name, version, supported_version):
        if supported_version is not None:
            msg = (f"Exporting the operator '{name}' to ONNX opset version {version} is not "
                   f"supported. Support for this operator was added in version "
                   f"{supported_version}, try exporting with this version")
        elif name.startswith(('aten::', 'prim::', 'quantized::')):
            msg = f"Exporting the operator '{name}' to ONNX opset version {version} is not supported"
        else:
            msg = (f"ONNX export failed on an operator with unrecognized namespace {name}. If you "
                   "are trying to export a custom operator, make sure you registered it with the "
                   "right domain and version.")
        super().__init__(msg)


class SymbolicValueError(OnnxExporterError):
    """Errors about a value of the exported graph (e.g. an argument that must be constant).

    Args:
        msg (str): the message.
        value: the offending value (kept as ``.value``).

    Example::

        >>> ember.onnx.errors.SymbolicValueError('bad', None).value is None
        True
    """

    def __init__(self, msg, value=None):
        super().__init__(msg)
        self.value = value
