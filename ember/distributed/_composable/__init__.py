"""``ember.distributed._composable``: the composable distributed APIs under their older
import path (``torch.distributed._composable``), kept because libraries still import
``torch.distributed._composable.fsdp``.

NOTE: unlike PyTorch, the composable ``checkpoint``, ``replicate`` and ``contract`` are
not provided here yet.
"""
