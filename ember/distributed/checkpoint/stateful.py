"""The ``Stateful`` protocol: objects with ``state_dict()`` and ``load_state_dict()``
(modules, optimizers) are saved through their state_dict and restored through
``load_state_dict``."""
from typing import Any, Dict, Protocol, runtime_checkable

__all__ = ['Stateful', 'StatefulT']


@runtime_checkable
class Stateful(Protocol):
    """An object checkpointed through ``state_dict()`` / ``load_state_dict(sd)``.

    Example::

        >>> isinstance(ember.nn.Linear(2, 2), Stateful)
        True
    """

    def state_dict(self) -> Dict[str, Any]:
        """The object's state (what is saved)."""
        ...

    def load_state_dict(self, state_dict: Dict[str, Any]) -> None:
        """Restore the state from ``state_dict`` (what was loaded)."""
        ...


StatefulT = Stateful
