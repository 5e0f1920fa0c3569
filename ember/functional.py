"""``ember.functional``: the functions PyTorch keeps in ``torch.functional`` (``einsum``,
``meshgrid``, ``split``, ``norm``, ``unique``...). They are the ``ember.xxx`` functions
themselves, looked up on access, so ``ember.functional.einsum is ember.einsum``.

Example::

    >>> import ember.functional
    >>> ember.functional.broadcast_shapes((2, 1), (3,))
    torch.Size([2, 3])
"""
__all__ = ['atleast_1d', 'atleast_2d', 'atleast_3d', 'align_tensors', 'broadcast_shapes',
           'broadcast_tensors', 'cartesian_prod', 'block_diag', 'cdist', 'chain_matmul',
           'einsum', 'istft', 'lu', 'norm', 'meshgrid', 'pca_lowrank', 'split', 'stft',
           'svd_lowrank', 'tensordot', 'unique', 'unique_consecutive', 'unravel_index']


def __getattr__(name):
    if name in __all__:
        import ember
        try:
            return getattr(ember, name)
        except AttributeError:
            pass
    raise AttributeError(f"module 'ember.functional' has no attribute '{name}'")


def __dir__():
    import ember
    return sorted(set(globals()) | {n for n in __all__ if hasattr(ember, n)})
