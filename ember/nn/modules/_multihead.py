"""MultiheadAttention, written beside the transformer layers' needs but exported (and named,
``__module__``) as ``ember.nn.modules.activation.MultiheadAttention``, where PyTorch has it:
checkpoints and pickled models name it there."""

__all__ = []
