"""The CPU backend: NumPy arrays and NumPy's random Generator."""
import numpy as np

xp = np


def new_rng(seed):
    """A NumPy bit generator for ``seed`` (PCG64)."""
    return np.random.Generator(np.random.PCG64(seed))
