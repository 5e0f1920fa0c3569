"""``ember.jit.annotations``: the type names TorchScript annotations use
(``BroadcastingList2[int]``: an int or a list of 2 ints), as ``torch.jit.annotations``.

NOTE: unlike PyTorch, nothing is compiled from these; they exist so that annotated code
(torchvision's ops) imports and runs eagerly.
"""
from typing import Any, Dict, List, Optional, Tuple, Union  # noqa: F401

__all__ = ['BroadcastingList1', 'BroadcastingList2', 'BroadcastingList3', 'Any', 'Dict',
           'List', 'Optional', 'Tuple', 'Union']


class _BroadcastingList:
    """``BroadcastingListN[T]``: TorchScript reads a T or a list of N T's; subscripting
    gives None outside TorchScript, as in PyTorch."""

    def __getitem__(self, types):
        return None


BroadcastingList1 = _BroadcastingList()
BroadcastingList2 = _BroadcastingList()
BroadcastingList3 = _BroadcastingList()
