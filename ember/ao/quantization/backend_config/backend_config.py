"""``ember.ao.quantization.backend_config.backend_config``: how a backend says which
patterns it quantizes, with which dtypes and how their inputs and outputs are observed
(as ``torch.ao.quantization.backend_config.backend_config``)."""
from dataclasses import dataclass
from enum import Enum

__all__ = ['BackendConfig', 'BackendPatternConfig', 'DTypeConfig', 'DTypeWithConstraints',
           'ObservationType']


class ObservationType(Enum):
    """How the output of a pattern is observed relative to its input.

    * ``OUTPUT_USE_DIFFERENT_OBSERVER_AS_INPUT``: the output gets its own observer
      (``conv``, ``linear``, ``add``...);
    * ``OUTPUT_SHARE_OBSERVER_WITH_INPUT``: the output shares the input's observer (ops
      that do not change the range much: ``maxpool``, ``flatten``, ``relu``, ``cat``);
    * ``INPUT_OUTPUT_NOT_OBSERVED``: neither is observed (``size``, ``shape``).

    Example::

        >>> ObservationType.OUTPUT_SHARE_OBSERVER_WITH_INPUT.name
        'OUTPUT_SHARE_OBSERVER_WITH_INPUT'
    """
    OUTPUT_USE_DIFFERENT_OBSERVER_AS_INPUT = 0
    OUTPUT_SHARE_OBSERVER_WITH_INPUT = 1
    INPUT_OUTPUT_NOT_OBSERVED = 2


@dataclass
class DTypeWithConstraints:
    """A dtype with the constraints a backend puts on its quantization parameters.

    Args:
        dtype: the dtype (``ember.quint8``...).
        quant_min_lower_bound, quant_max_upper_bound: bounds on the quantized range.
        scale_min_lower_bound, scale_max_upper_bound: bounds on the scale.
        scale_exact_match, zero_point_exact_match: required exact qparams.

    Example::

        >>> DTypeWithConstraints(dtype=ember.quint8, quant_min_lower_bound=0).dtype
        torch.quint8
    """
    dtype: object = None
    quant_min_lower_bound: object = None
    quant_max_upper_bound: object = None
    scale_min_lower_bound: object = None
    scale_max_upper_bound: object = None
    scale_exact_match: object = None
    zero_point_exact_match: object = None


def _constraint(d):
    return d if isinstance(d, DTypeWithConstraints) else DTypeWithConstraints(dtype=d)


class DTypeConfig:
    """A combination of dtypes a backend supports for a pattern.

    Args:
        input_dtype, output_dtype, weight_dtype, bias_dtype: dtypes (or
            :class:`DTypeWithConstraints`).
        is_dynamic (bool, optional): whether the activation is quantized dynamically.

    Example::

        >>> c = DTypeConfig(input_dtype=ember.quint8, output_dtype=ember.quint8,
        ...                 weight_dtype=ember.qint8, bias_dtype=ember.float)
        >>> c.weight_dtype
        torch.qint8
    """

    def __init__(self, input_dtype=None, output_dtype=None, weight_dtype=None,
                 bias_dtype=None, is_dynamic=None):
        self.input_dtype_with_constraints = _constraint(input_dtype)
        self.output_dtype_with_constraints = _constraint(output_dtype)
        self.weight_dtype_with_constraints = _constraint(weight_dtype)
        self.bias_dtype = bias_dtype
        self.is_dynamic = is_dynamic

    @property
    def input_dtype(self):
        """The input's dtype."""
        return self.input_dtype_with_constraints.dtype

    @property
    def output_dtype(self):
        """The output's dtype."""
        return self.output_dtype_with_constraints.dtype

    @property
    def weight_dtype(self):
        """The weight's dtype."""
        return self.weight_dtype_with_constraints.dtype

    @classmethod
    def from_dict(cls, dtype_config_dict):
        """A config from a dict with keys ``input_dtype``, ``output_dtype``,
        ``weight_dtype``, ``bias_type`` and ``is_dynamic``."""
        return cls(dtype_config_dict.get('input_dtype'), dtype_config_dict.get('output_dtype'),
                   dtype_config_dict.get('weight_dtype'), dtype_config_dict.get('bias_type'),
                   dtype_config_dict.get('is_dynamic'))

    def to_dict(self):
        """The config as a dict (keys as :meth:`from_dict`; unset entries left out)."""
        d = {}
        for key, value in (('input_dtype', self.input_dtype_with_constraints),
                           ('output_dtype', self.output_dtype_with_constraints),
                           ('weight_dtype', self.weight_dtype_with_constraints)):
            if value.dtype is not None:
                d[key] = value
        if self.bias_dtype is not None:
            d['bias_type'] = self.bias_dtype
        if self.is_dynamic is not None:
            d['is_dynamic'] = self.is_dynamic
        return d

    def __repr__(self):
        return (f"DTypeConfig(input_dtype_with_constraints={self.input_dtype_with_constraints}, "
                f"output_dtype_with_constraints={self.output_dtype_with_constraints}, "
                f"weight_dtype_with_constraints={self.weight_dtype_with_constraints}, "
                f"bias_dtype={self.bias_dtype}, is_dynamic={self.is_dynamic})")


class BackendPatternConfig:
    """How one pattern (a module type, a function, a method name, or a tuple of them in
    the order they run, e.g. ``(nn.Conv2d, nn.BatchNorm2d, nn.ReLU)``) is quantized by a
    backend: its observation type, supported dtypes, and the modules it becomes at each
    stage (fused, QAT, reference quantized). Setters return the config, so calls chain.

    Args:
        pattern: the pattern.

    Example::

        >>> c = (BackendPatternConfig(ember.nn.Linear)
        ...      .set_observation_type(ObservationType.OUTPUT_USE_DIFFERENT_OBSERVER_AS_INPUT)
        ...      .set_root_module(ember.nn.Linear))
        >>> c.pattern
        <class 'torch.nn.modules.linear.Linear'>
    """

    def __init__(self, pattern=None):
        self.pattern = pattern
        self.observation_type = ObservationType.OUTPUT_USE_DIFFERENT_OBSERVER_AS_INPUT
        self.dtype_configs = []
        self.root_module = None
        self.qat_module = None
        self.reference_quantized_module = None
        self.fused_module = None
        self.fuser_method = None
        self._root_node_getter = None
        self._extra_inputs_getter = None
        self._num_tensor_args_to_observation_type = {}
        self._input_type_to_index = {}
        self._pattern_complex_format = None

    def __repr__(self):
        items = {k: v for k, v in self.__dict__.items()
                 if v not in (None, [], {}) or k == 'pattern'}
        return f"BackendPatternConfig({items})"

    def set_pattern(self, pattern):
        """Set the pattern (a single op or a tuple of ops in run order)."""
        self.pattern = pattern
        return self

    def set_observation_type(self, observation_type):
        """Set the :class:`ObservationType`."""
        self.observation_type = observation_type
        return self

    def add_dtype_config(self, dtype_config):
        """Add a supported :class:`DTypeConfig`."""
        self.dtype_configs.append(dtype_config)
        return self

    def set_dtype_configs(self, dtype_configs):
        """Set the supported :class:`DTypeConfig` list."""
        self.dtype_configs = list(dtype_configs)
        return self

    def set_root_module(self, root_module):
        """Set the module the pattern is rooted at (``nn.Linear`` for ``LinearReLU``)."""
        self.root_module = root_module
        return self

    def set_qat_module(self, qat_module):
        """Set the module the pattern's module becomes for QAT."""
        self.qat_module = qat_module
        return self

    def set_reference_quantized_module(self, reference_quantized_module):
        """Set the reference quantized module of the root module."""
        self.reference_quantized_module = reference_quantized_module
        return self

    def set_fused_module(self, fused_module):
        """Set the fused module the pattern becomes in ``fuse_fx``."""
        self.fused_module = fused_module
        return self

    def set_fuser_method(self, fuser_method):
        """Set the function ``fuser(is_qat, *modules)`` that builds the fused module."""
        self.fuser_method = fuser_method
        return self

    def _set_root_node_getter(self, root_node_getter):
        self._root_node_getter = root_node_getter
        return self

    def _set_extra_inputs_getter(self, extra_inputs_getter):
        self._extra_inputs_getter = extra_inputs_getter
        return self

    def _set_num_tensor_args_to_observation_type(self, d):
        self._num_tensor_args_to_observation_type = d
        return self

    def _set_input_type_to_index(self, d):
        self._input_type_to_index = d
        return self

    def _set_pattern_complex_format(self, pattern):
        self._pattern_complex_format = pattern
        return self

    @classmethod
    def from_dict(cls, backend_pattern_config_dict):
        """A config from a dict (keys ``pattern``, ``observation_type``,
        ``dtype_configs``, ``root_module``, ``qat_module``, ``reference_quantized_module``,
        ``fused_module``, ``fuser_method``)."""
        d = backend_pattern_config_dict
        conf = cls(d.get('pattern'))
        if 'observation_type' in d:
            conf.set_observation_type(d['observation_type'])
        for dc in d.get('dtype_configs', []):
            conf.add_dtype_config(dc if isinstance(dc, DTypeConfig) else DTypeConfig.from_dict(dc))
        conf.set_root_module(d.get('root_module'))
        conf.set_qat_module(d.get('qat_module'))
        conf.set_reference_quantized_module(d.get('reference_quantized_module'))
        conf.set_fused_module(d.get('fused_module'))
        conf.set_fuser_method(d.get('fuser_method'))
        return conf

    def to_dict(self):
        """The config as a dict (keys as :meth:`from_dict`; unset entries left out)."""
        d = {'pattern': self.pattern, 'observation_type': self.observation_type,
             'dtype_configs': [c.to_dict() for c in self.dtype_configs]}
        for key in ('root_module', 'qat_module', 'reference_quantized_module',
                    'fused_module', 'fuser_method'):
            if getattr(self, key) is not None:
                d[key] = getattr(self, key)
        return d


class BackendConfig:
    """The set of :class:`BackendPatternConfig` a backend supports, used by
    ``prepare_fx``/``convert_fx``/``fuse_fx`` to decide what to fuse, observe and
    quantize. A pattern set twice keeps the latest config.

    Args:
        name (str): the backend's name.

    Example::

        >>> bc = BackendConfig("my_backend").set_backend_pattern_config(
        ...     BackendPatternConfig(ember.nn.Linear))
        >>> len(bc.configs)
        1
    """

    def __init__(self, name=""):
        self.name = name
        self._pattern_complex_format_to_config = {}

    def __repr__(self):
        return f"BackendConfig({self.__dict__})"

    def set_name(self, name):
        """Set the backend's name."""
        self.name = name
        return self

    def set_backend_pattern_config(self, config):
        """Add (or replace) the config of ``config.pattern``."""
        self._pattern_complex_format_to_config[config.pattern] = config
        return self

    def set_backend_pattern_configs(self, configs):
        """Add (or replace) several configs."""
        for conf in configs:
            self.set_backend_pattern_config(conf)
        return self

    @property
    def configs(self):
        """The list of :class:`BackendPatternConfig`."""
        return list(self._pattern_complex_format_to_config.values())

    @classmethod
    def from_dict(cls, backend_config_dict):
        """A config from a dict with ``name`` and ``configs`` (a list of pattern config
        dicts)."""
        conf = cls(backend_config_dict.get('name', ''))
        for d in backend_config_dict.get('configs', []):
            conf.set_backend_pattern_config(
                d if isinstance(d, BackendPatternConfig) else BackendPatternConfig.from_dict(d))
        return conf

    def to_dict(self):
        """The config as a dict (``name``, ``configs``)."""
        return {'name': self.name, 'configs': [c.to_dict() for c in self.configs]}
