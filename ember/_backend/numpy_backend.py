"""The CPU backend: NumPy arrays and NumPy's Mersenne Twister bit generator."""
import numpy as np

xp = np


def new_rng(seed):
    """A NumPy ``MT19937`` bit generator seeded as PyTorch seeds its CPU generator:
    ``init_genrand`` with the low 32 bits of ``seed``."""
    s = int(seed) & 0xFFFFFFFF
    bg = np.random.MT19937()
    try:
        bg._legacy_seeding(s)
    except AttributeError:          # init_genrand by hand
        key = [s]
        for i in range(1, 624):
            x = key[-1]
            key.append((1812433253 * (x ^ (x >> 30)) + i) & 0xFFFFFFFF)
        bg.state = {'bit_generator': 'MT19937',
                    'state': {'key': np.array(key, np.uint32), 'pos': 624}}
    return bg
