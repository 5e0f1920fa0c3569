"""``ember._dynamo.utils``: the helpers of ``torch._dynamo.utils`` that libraries call."""

__all__ = ['is_compile_supported']


def is_compile_supported(device_type):
    """Whether ``torch.compile`` can be used for ``device_type`` (``"cpu"``, ``"cuda"``...).

    As PyTorch's CPU build answers: True for ``"cpu"``, False for any other device type.

    NOTE: unlike PyTorch, "compiling" in ember runs the code eagerly.

    Args:
        device_type (str): a device type.

    Example::

        >>> ember._dynamo.utils.is_compile_supported("cpu")
        True
    """
    from .eval_frame import is_dynamo_supported
    return is_dynamo_supported() and device_type == 'cpu'
