"""Helpers shared by the quantization-aware-training modules (``ember.ao.nn.qat`` and
``ember.ao.nn.intrinsic.qat``)."""

__all__ = []


def _need_qconfig(qconfig):
    """torch's check that a QAT module is given a qconfig."""
    if not qconfig:
        raise AssertionError('qconfig must be provided for QAT module')


def _check_float_qconfig(mod):
    """torch's checks that the float module handed to ``from_float`` carries a qconfig."""
    if not hasattr(mod, 'qconfig'):
        raise AssertionError('Input float module must have qconfig defined')
    if not mod.qconfig:
        raise AssertionError('Input float module must have a valid qconfig')
