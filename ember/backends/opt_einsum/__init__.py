"""``ember.backends.opt_einsum``: einsum contraction-order optimisation through the
``opt_einsum`` package (when installed)."""
import importlib.util

strategy = 'auto'


def is_available():
    """Whether the ``opt_einsum`` package is installed."""
    return importlib.util.find_spec('opt_einsum') is not None


def get_opt_einsum():
    """The ``opt_einsum`` module, or None."""
    if not is_available():
        return None
    import opt_einsum
    return opt_einsum


enabled = is_available()
