"""Helpers shared by the quantized modules: weight quantization from an observer, the
float/reference module checks of ``from_float``, the repr that hides packed parameters,
and the load-time staging of a module's quantizer values."""
import numpy as np

import ember
from ember import _dtype as D
from ember.nn import Module

__all__ = []


def _quantize_weight(float_wt, observer):
    """``float_wt`` quantized with the scale(s) and zero point(s) its (already fed)
    ``observer`` computes, per tensor or per channel as the observer's qscheme says."""
    scale, zp = observer.calculate_qparams()
    qscheme = observer.qscheme
    if qscheme in (D.per_tensor_symmetric, D.per_tensor_affine):
        return ember.quantize_per_tensor(float_wt.detach().float(), float(scale), int(zp),
                                         ember.qint8)
    if qscheme in (D.per_channel_symmetric, D.per_channel_affine):
        return ember.quantize_per_channel(float_wt.detach().float(), scale.double(),
                                          zp.long(), observer.ch_axis, ember.qint8)
    if qscheme is D.per_channel_affine_float_qparams:
        return ember.quantize_per_channel(float_wt.detach().float(), scale.float(),
                                          zp.float(), observer.ch_axis, observer.dtype)
    raise ValueError(f"Unexpected qscheme {qscheme}")


def _float_module_check(cls, mod, float_modules):
    """``from_float``'s checks: ``mod`` is one of ``float_modules`` and has a qconfig."""
    names = ', '.join(m.__name__ for m in float_modules)
    if type(mod) not in float_modules:
        raise AssertionError(f"nnq.{cls.__name__}.from_float only works for {names}, but got: "
                             f"{type(mod)}")
    if not hasattr(mod, 'qconfig'):
        raise AssertionError("Input float module must have qconfig defined")


def _hide_packed_params_repr(self, params_cls):
    """A module repr that leaves out children of type ``params_cls`` (packed weights)."""
    extra = self.extra_repr()
    lines = extra.split('\n') if extra else []
    for key, module in self._modules.items():
        if isinstance(module, params_cls):
            continue
        from ember.nn.modules.module import _addindent
        lines.append('(' + key + '): ' + _addindent(repr(module), 2))
    main = self._get_name() + '('
    if lines:
        if len(lines) == 1 and not any(isinstance(m, Module) and not isinstance(m, params_cls)
                                       for m in self._modules.values()):
            main += lines[0]
        else:
            main += '\n  ' + '\n  '.join(lines) + '\n'
    return main + ')'


def _scalar_tensor_value(v, kind):
    """A ``scale``/``zero_point`` entry of a state dict as a Python number."""
    if isinstance(v, ember.Tensor):
        return kind(v.item())
    return kind(v)


class _QParamsState:
    """Mixin: ``scale`` and ``zero_point`` saved as tensors in the state dict (as PyTorch),
    read at load time and applied when the load commits (ember's ``load_state_dict`` copies
    nothing until every key has been checked)."""

    def _save_qparams(self, destination, prefix):
        destination[prefix + 'scale'] = ember.tensor(self.scale)
        destination[prefix + 'zero_point'] = ember.tensor(self.zero_point)

    def _load_qparams(self, state_dict, prefix, missing_keys):
        vals = {}
        for name, kind in (('scale', float), ('zero_point', int)):
            key = prefix + name
            if key in state_dict:
                vals[name] = _scalar_tensor_value(state_dict.pop(key), kind)
            else:
                missing_keys.append(key)
        self.__dict__['_pending_qparams'] = vals

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        super()._save_to_state_dict(destination, prefix, keep_vars)
        self._save_qparams(destination, prefix)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        self._load_qparams(state_dict, prefix, missing_keys)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, False, missing_keys,
                                      unexpected_keys, error_msgs)

    def _commit_loads(self):
        super()._commit_loads()
        for k, v in self.__dict__.pop('_pending_qparams', {}).items():
            setattr(self, k, v)


def _check_input_dim(x, nd, name):
    if x.dim() != nd:
        raise ValueError(f"Input shape must be `{name}`!")


def _np(x):
    return np.asarray(x._data)


def _register_qparams(mod, scale, zero_point):
    """``scale`` and ``zero_point`` as buffers (float32 and int64 scalars), as the PyTorch
    modules that keep them so (activations, normalizations) do."""
    mod.register_buffer('scale', ember.tensor(float(_scalar_tensor_value(scale, float))))
    mod.register_buffer('zero_point', ember.tensor(int(_scalar_tensor_value(zero_point, int))))
