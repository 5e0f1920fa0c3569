"""``ember.backends.mps``: Apple's Metal backend, which ember does not have."""


def is_available():
    """False: ember has no MPS backend."""
    return False


def is_built():
    """False: ember has no MPS backend."""
    return False


def is_macos_or_newer(major, minor):
    return False


def is_macos13_or_newer(minor=0):
    return False
