"""``ember.utils.model_zoo``: the old home of :func:`load_url` (``torch.utils.model_zoo``),
kept because model libraries (torchvision among them) still import it from here.

``load_url`` is :func:`ember.hub.load_state_dict_from_url`; ``tqdm`` is the progress bar
class (the ``tqdm`` package's when installed, a minimal stand-in otherwise).
"""
from ..hub import load_state_dict_from_url as load_url, tqdm

__all__ = ['load_url', 'tqdm']
