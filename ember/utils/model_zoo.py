"""``ember.utils.model_zoo``: the old home of :func:`load_url` (``torch.utils.model_zoo``),
kept because model libraries (torchvision among them) still import it from here.

``load_url`` is :func:`ember.hub.load_state_dict_from_url`; ``tqdm`` is the progress bar
class (the ``tqdm`` package's when installed, a minimal stand-in otherwise).
"""
import sys

from ..hub import load_state_dict_from_url as load_url

__all__ = ['load_url', 'tqdm']


class _ProgressBar:
    """A minimal stand-in for ``tqdm.tqdm`` when the package is not installed: prints the
    progress on stderr (a percentage, or a count when ``total`` is unknown).

    Args:
        total (int, optional): the expected count.
        disable (bool, optional): print nothing. Default: ``False``
        unit (str, optional): ignored (accepted for compatibility), like any other argument.

    Example::

        >>> with _ProgressBar(total=4, disable=True) as bar:
        ...     bar.update(2)
        >>> bar.n
        0
    """

    def __init__(self, total=None, disable=False, unit=None, *args, **kwargs):
        self.total = total
        self.disable = disable
        self.n = 0

    def update(self, n=1):
        """Advance by ``n`` and redraw (nothing at all once disabled)."""
        if self.disable:
            return
        self.n += n
        if self.total is None:
            sys.stderr.write(f"\r{self.n:.1f} bytes")
        else:
            sys.stderr.write(f"\r{100 * self.n / float(self.total):.1f}%")
        sys.stderr.flush()

    def set_description(self, *args, **kwargs):
        """Accepted and ignored."""

    def write(self, s):
        """Print a line on stderr."""
        sys.stderr.write(f"{s}\n")

    def close(self):
        """Stop drawing."""
        self.disable = True

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if not self.disable:
            sys.stderr.write("\n")


try:
    from tqdm import tqdm
except ImportError:
    tqdm = _ProgressBar
