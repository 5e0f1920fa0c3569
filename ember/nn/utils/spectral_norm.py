"""Spectral normalization by a forward pre-hook (the older API; see
``nn.utils.parametrizations.spectral_norm`` for the parametrization form).

``weight = weight_orig / sigma``, ``sigma`` the largest singular value of the weight
(reshaped to a matrix), estimated by power iteration on the buffers ``<name>_u`` and
``<name>_v`` (one or more steps per forward in training mode, none in eval mode)."""
from ..parameter import Parameter, UninitializedParameter

__all__ = ['SpectralNorm', 'SpectralNormLoadStateDictPreHook', 'SpectralNormStateDictHook',
           'spectral_norm', 'remove_spectral_norm']


def _normalize(x, eps, out=None):
    from ..._ops.distance import normalize
    return normalize(x, dim=0, eps=eps, out=out)


class SpectralNorm:
    """The forward pre-hook of :func:`spectral_norm`.

    Args:
        name (str): the parameter's name. Default: ``'weight'``
        n_power_iterations (int): power-iteration steps per training forward. Default: 1
        dim (int): the dimension of the output channels. Default: 0
        eps (float): epsilon of the normalizations. Default: 1e-12

    Example::

        >>> m = nn.utils.spectral_norm(nn.Linear(3, 2))
        >>> type(list(m._forward_pre_hooks.values())[0]).__name__
        'SpectralNorm'
    """
    _version = 1

    def __init__(self, name='weight', n_power_iterations=1, dim=0, eps=1e-12):
        self.name = name
        self.dim = dim
        if n_power_iterations <= 0:
            raise ValueError('Expected n_power_iterations to be positive, but got '
                             f'n_power_iterations={n_power_iterations}')
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight):
        """The weight as a matrix whose rows are the slices along ``dim``.

        Args:
            weight (Tensor): the weight.

        Example::

            >>> SpectralNorm().reshape_weight_to_matrix(ember.zeros(4, 3, 2)).shape
            torch.Size([4, 6])
        """
        mat = weight
        if self.dim != 0:
            mat = mat.permute(self.dim, *[d for d in range(mat.dim()) if d != self.dim])
        return mat.reshape(mat.size(0), -1)

    def compute_weight(self, module, do_power_iteration):
        """``<name>_orig / sigma``, running the power iteration first (updating the ``u``
        and ``v`` buffers in place) when ``do_power_iteration``.

        Args:
            module (nn.Module): the module.
            do_power_iteration (bool): run ``n_power_iterations`` steps first.

        Example::

            >>> w = hook.compute_weight(m, do_power_iteration=False)
        """
        from ...autograd.grad_mode import no_grad
        from ..._memory_format import contiguous_format
        weight = getattr(module, self.name + '_orig')
        u = getattr(module, self.name + '_u')
        v = getattr(module, self.name + '_v')
        mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with no_grad():
                for _ in range(self.n_power_iterations):
                    v = _normalize(mat.t().mv(u), self.eps, out=v)
                    u = _normalize(mat.mv(v), self.eps, out=u)
                u = u.clone(memory_format=contiguous_format)
                v = v.clone(memory_format=contiguous_format)
        sigma = u.dot(mat.mv(v))
        return weight / sigma

    def remove(self, module):
        """Turn ``module.<name>`` back into a plain parameter holding the normalized weight.

        Args:
            module (nn.Module): the module.

        Example::

            >>> hook.remove(m)
        """
        from ...autograd.grad_mode import no_grad
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        delattr(module, self.name)
        delattr(module, self.name + '_u')
        delattr(module, self.name + '_v')
        delattr(module, self.name + '_orig')
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name,
                self.compute_weight(module, do_power_iteration=module.training))

    def _solve_v_and_rescale(self, weight_mat, u, target_sigma):
        from ..._ops.products import multi_dot
        v = multi_dot([weight_mat.t().mm(weight_mat).pinverse(), weight_mat.t(),
                       u.unsqueeze(1)]).squeeze(1)
        return v.mul_(target_sigma / u.dot(weight_mat.mv(v)))

    @staticmethod
    def apply(module, name, n_power_iterations, dim, eps):
        """Reparametrize ``module.<name>``; returns the registered hook.

        Args:
            module (nn.Module): the module.
            name (str): the parameter's name.
            n_power_iterations (int): power-iteration steps per training forward.
            dim (int): the dimension of the output channels.
            eps (float): epsilon of the normalizations.

        Example::

            >>> SpectralNorm.apply(nn.Linear(3, 2), 'weight', 1, 0, 1e-12)
        """
        from ...autograd.grad_mode import no_grad
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(f'Cannot register two spectral_norm hooks on the same '
                                   f'parameter {name}')
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        if weight is None:
            raise ValueError(f'`SpectralNorm` cannot be applied as parameter `{name}` is None')
        if isinstance(weight, UninitializedParameter):
            raise ValueError("The module passed to `SpectralNorm` can't have uninitialized "
                             "parameters. Make sure to run the dummy forward before applying "
                             "spectral normalization")
        with no_grad():
            h, w = fn.reshape_weight_to_matrix(weight).size()
            u = _normalize(weight.new_empty(h).normal_(0, 1), fn.eps)
            v = _normalize(weight.new_empty(w).normal_(0, 1), fn.eps)
        delattr(module, fn.name)
        module.register_parameter(fn.name + '_orig', weight)
        setattr(module, fn.name, weight.data)
        module.register_buffer(fn.name + '_u', u)
        module.register_buffer(fn.name + '_v', v)
        module.register_forward_pre_hook(fn)
        module._register_state_dict_hook(SpectralNormStateDictHook(fn))
        module._register_load_state_dict_pre_hook(SpectralNormLoadStateDictPreHook(fn))
        return fn


class SpectralNormLoadStateDictPreHook:
    """Load pre-hook of :func:`spectral_norm`: converts state dicts saved before version 1
    (holding ``<name>`` and no ``<name>_v``) by solving for ``v``.

    Args:
        fn (SpectralNorm): the hook's owner.

    Example::

        >>> SpectralNormLoadStateDictPreHook(SpectralNorm())
    """

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, state_dict, prefix, local_metadata, strict, missing_keys,
                 unexpected_keys, error_msgs):
        from ...autograd.grad_mode import no_grad
        fn = self.fn
        version = local_metadata.get('spectral_norm', {}).get(fn.name + '.version', None)
        if version is None or version < 1:
            key = prefix + fn.name
            if (version is None and all(key + s in state_dict for s in ('_orig', '_u', '_v'))
                    and key not in state_dict):
                return
            missing = False
            for suffix in ('_orig', '', '_u'):
                if key + suffix not in state_dict:
                    missing = True
                    if strict:
                        missing_keys.append(key + suffix)
            if missing:
                return
            with no_grad():
                weight_orig = state_dict[key + '_orig']
                weight = state_dict.pop(key)
                sigma = (weight_orig / weight).mean()
                mat = fn.reshape_weight_to_matrix(weight_orig)
                u = state_dict[key + '_u']
                state_dict[key + '_v'] = fn._solve_v_and_rescale(mat, u, sigma)


class SpectralNormStateDictHook:
    """State-dict hook of :func:`spectral_norm`: records the format version in the
    metadata (``spectral_norm`` -> ``<name>.version``).

    Args:
        fn (SpectralNorm): the hook's owner.

    Example::

        >>> SpectralNormStateDictHook(SpectralNorm())
    """

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, module, state_dict, prefix, local_metadata):
        meta = local_metadata.setdefault('spectral_norm', {})
        key = self.fn.name + '.version'
        if key in meta:
            raise RuntimeError(f"Unexpected key in metadata['spectral_norm']: {key}")
        meta[key] = self.fn._version


def spectral_norm(module, name='weight', n_power_iterations=1, eps=1e-12, dim=None):
    """Apply spectral normalization to a parameter of ``module``:
    ``W = W_orig / sigma(W_orig)``, ``sigma`` estimated by power iteration.

    The parameter becomes ``<name>_orig``; the buffers ``<name>_u`` and ``<name>_v`` hold
    the power-iteration vectors (drawn from the default generator as PyTorch draws them);
    a forward pre-hook recomputes ``<name>``, updating ``u`` and ``v`` in training mode.

    Args:
        module (nn.Module): the module.
        name (str): the parameter's name. Default: ``'weight'``
        n_power_iterations (int): power-iteration steps per training forward. Default: 1
        eps (float): epsilon of the normalizations. Default: 1e-12
        dim (int, optional): the output-channel dimension; default 0, or 1 for the
            transposed convolutions.

    Returns:
        the module, with the hook.

    Example::

        >>> conv = nn.utils.spectral_norm(nn.Conv2d(3, 6, 3))
        >>> conv.weight_u.shape, conv.weight_v.shape     # 6 rows, 3 * 3 * 3 columns
        (torch.Size([6]), torch.Size([27]))
    """
    if dim is None:
        from ..modules.conv import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
        dim = 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d)) else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def _hook_of(h):
    return getattr(h, 'hook', h)


def remove_spectral_norm(module, name='weight'):
    """Remove the spectral normalization of ``module.<name>`` (the parameter keeps the
    normalized value, without a further power-iteration step).

    Args:
        module (nn.Module): the module.
        name (str): the parameter's name. Default: ``'weight'``

    Returns:
        the module.

    NOTE: unlike PyTorch, the load_state_dict pre-hook of the spectral norm is removed too
    (PyTorch 2.13 misses it, as it is stored wrapped, so a later ``load_state_dict`` of the
    plain module reports ``weight_orig`` and ``weight_u`` as missing).

    Example::

        >>> conv = nn.utils.spectral_norm(nn.Conv2d(3, 6, 3))
        >>> conv = nn.utils.remove_spectral_norm(conv)
        >>> sorted(conv.state_dict())
        ['bias', 'weight']
    """
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, SpectralNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            break
    else:
        raise ValueError(f"spectral_norm of '{name}' not found in {module}")
    for k, hook in module._state_dict_hooks.items():
        if isinstance(hook, SpectralNormStateDictHook) and hook.fn.name == name:
            del module._state_dict_hooks[k]
            break
    for k, hook in module._load_state_dict_pre_hooks.items():
        h = _hook_of(hook)
        if isinstance(h, SpectralNormLoadStateDictPreHook) and h.fn.name == name:
            del module._load_state_dict_pre_hooks[k]
            break
    return module
