"""``ember._dynamo.config``: Dynamo's configuration flags, as ``torch._dynamo.config``.

NOTE: unlike PyTorch, ember has no compiler, so no flag changes what runs; the flags exist
with PyTorch 2.13's defaults so that libraries that read, set or ``patch`` them work. As in
PyTorch, setting a name that is not a flag raises ``AttributeError``, and ``patch`` (a
context manager and decorator) restores the previous values on exit.
"""
import contextlib
import copy
import sys
import types

_DEFAULTS = {
    'accumulated_cache_size_limit': 256, 'allow_rnn': False,
    'allow_unspec_int_on_nn_module': False, 'assume_static_by_default': True,
    'automatic_dynamic_shapes': True, 'cache_size_limit': 8, 'capture_dynamic_output_shape_ops':
    False, 'capture_func_transforms': True, 'capture_scalar_outputs': False,
    'compiled_autograd': False, 'disable': False, 'do_not_emit_runtime_asserts': False,
    'dynamic_shapes': True, 'error_on_recompile': False, 'fail_on_recompile_limit_hit': False,
    'force_parameter_static_shapes': True,
    'force_unspec_int_unbacked_size_like_on_torchrec_kjt': False, 'guard_nn_modules': True,
    'inline_inbuilt_nn_modules': True, 'log_compilation_metrics': True,
    'numpy_default_complex': 'complex128', 'numpy_default_float': 'float64',
    'numpy_default_int': 'int64', 'optimize_ddp': True, 'optimize_ddp_lazy_compile': False,
    'prefer_deferred_runtime_asserts_over_guards': False, 'raise_on_ctx_manager_usage': True,
    'replay_record_enabled': False, 'skip_fwd_side_effects_in_bwd_under_checkpoint': False,
    'specialize_float': False, 'specialize_int': False, 'suppress_errors': False,
    'trace_numpy': True, 'traceable_tensor_subclasses': set(),
    'use_numpy_random_stream': False, 'verbose': False,
}
_ALIASES = {'recompile_limit': 'cache_size_limit',
            'accumulated_recompile_limit': 'accumulated_cache_size_limit'}
_values = copy.deepcopy(_DEFAULTS)


def _key(name):
    name = _ALIASES.get(name, name)
    if name not in _values:
        raise AttributeError(f"{__name__}.{name} does not exist")
    return name


def get_config_copy():
    """A copy of every flag's current value, as a dict.

    Example::

        >>> ember._dynamo.config.get_config_copy()['cache_size_limit']
        8
    """
    return copy.deepcopy(_values)


def patch(arg1=None, arg2=None, **kwargs):
    """Set flags for the duration of a ``with`` block or a decorated function, then
    restore them: ``patch("name", value)``, ``patch({"name": value})`` or
    ``patch(name=value)``.

    Raises:
        AttributeError: on entering, for a name that is not a flag (nothing is set).

    Example::

        >>> with ember._dynamo.config.patch(capture_scalar_outputs=True):
        ...     pass
    """
    if isinstance(arg1, str):
        changes = {arg1: arg2}
    elif isinstance(arg1, dict):
        changes = dict(arg1)
    elif arg1 is None:
        changes = {}
    else:
        raise AssertionError(f"expected a str or dict, got {type(arg1).__name__}")
    changes.update(kwargs)

    @contextlib.contextmanager
    def _patched():
        old = {_key(k): _values[_key(k)] for k in changes}
        for k, v in changes.items():
            _values[_key(k)] = v
        try:
            yield
        finally:
            _values.update(old)

    class _Patch(contextlib.ContextDecorator):
        def __enter__(self):
            self._cm = _patched()
            return self._cm.__enter__()

        def __exit__(self, *exc):
            return self._cm.__exit__(*exc)

    return _Patch()


class _ConfigModule(types.ModuleType):
    def __getattr__(self, name):
        return _values[_key(name)]

    def __setattr__(self, name, value):
        if name.startswith('__') or name in ('patch', 'get_config_copy'):
            return super().__setattr__(name, value)
        _values[_key(name)] = value


sys.modules[__name__].__class__ = _ConfigModule
