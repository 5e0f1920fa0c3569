"""Custom configs of the FX graph mode workflow (as
``torch.ao.quantization.fx.custom_config``): :class:`PrepareCustomConfig`,
:class:`ConvertCustomConfig`, :class:`FuseCustomConfig`.

NOTE: unlike PyTorch, standalone modules, float-to-observed and observed-to-quantized
custom module mappings and input/output quantized indexes are recorded but not acted on;
non-traceable modules and preserved attributes are."""
__all__ = ['PrepareCustomConfig', 'ConvertCustomConfig', 'FuseCustomConfig',
           'StandaloneModuleConfigEntry']


class StandaloneModuleConfigEntry:
    """What a standalone module is prepared with (qconfig mapping, example inputs, its
    own prepare custom config, backend config).

    Example::

        >>> StandaloneModuleConfigEntry(None, (), None, None).example_inputs
        ()
    """

    def __init__(self, qconfig_mapping, example_inputs, prepare_custom_config,
                 backend_config):
        self.qconfig_mapping = qconfig_mapping
        self.example_inputs = example_inputs
        self.prepare_custom_config = prepare_custom_config
        self.backend_config = backend_config


def _repr(obj):
    d = {k: v for k, v in vars(obj).items() if v not in ({}, [], None)}
    return f"{obj.__class__.__name__}({d})"


class PrepareCustomConfig:
    """Custom settings of ``prepare_fx``/``prepare_qat_fx``; setters return the config.

    Example::

        >>> c = (PrepareCustomConfig().set_non_traceable_module_names(["head"])
        ...      .set_preserved_attributes(["version"]))
        >>> c.to_dict()
        {'non_traceable_module_name': ['head'], 'preserved_attributes': ['version']}
    """

    def __init__(self):
        self.standalone_module_names = {}
        self.standalone_module_classes = {}
        self.float_to_observed_mapping = {}
        self.non_traceable_module_names = []
        self.non_traceable_module_classes = []
        self.input_quantized_indexes = []
        self.output_quantized_indexes = []
        self.preserved_attributes = []

    def __repr__(self):
        return _repr(self)

    def set_standalone_module_name(self, module_name, qconfig_mapping, example_inputs,
                                   prepare_custom_config, backend_config):
        """Record the module named ``module_name`` as a standalone module."""
        self.standalone_module_names[module_name] = StandaloneModuleConfigEntry(
            qconfig_mapping, example_inputs, prepare_custom_config, backend_config)
        return self

    def set_standalone_module_class(self, module_class, qconfig_mapping, example_inputs,
                                    prepare_custom_config, backend_config):
        """Record modules of ``module_class`` as standalone modules."""
        self.standalone_module_classes[module_class] = StandaloneModuleConfigEntry(
            qconfig_mapping, example_inputs, prepare_custom_config, backend_config)
        return self

    def set_float_to_observed_mapping(self, float_class, observed_class, quant_type=None):
        """Record a float custom module class and its observed class."""
        from ..quant_type import QuantType
        quant_type = QuantType.STATIC if quant_type is None else quant_type
        self.float_to_observed_mapping.setdefault(quant_type, {})[float_class] = \
            observed_class
        return self

    def set_non_traceable_module_names(self, module_names):
        """Modules (by name) that are not traced through (kept as calls)."""
        self.non_traceable_module_names = list(module_names)
        return self

    def set_non_traceable_module_classes(self, module_classes):
        """Module types that are not traced through (kept as calls)."""
        self.non_traceable_module_classes = list(module_classes)
        return self

    def set_input_quantized_indexes(self, indexes):
        """Indexes of graph inputs that are already quantized."""
        self.input_quantized_indexes = list(indexes)
        return self

    def set_output_quantized_indexes(self, indexes):
        """Indexes of graph outputs to leave quantized."""
        self.output_quantized_indexes = list(indexes)
        return self

    def set_preserved_attributes(self, attributes):
        """Attributes of the model copied onto the prepared model."""
        self.preserved_attributes = list(attributes)
        return self

    @classmethod
    def from_dict(cls, prepare_custom_config_dict):
        """A config from the older dict form (``non_traceable_module_name``,
        ``non_traceable_module_class``, ``input_quantized_idxs``,
        ``output_quantized_idxs``, ``preserved_attributes``...)."""
        d = prepare_custom_config_dict
        conf = cls()
        for name, mapping, inputs, pcc, bc in d.get("standalone_module_name", []):
            conf.set_standalone_module_name(name, mapping, inputs, pcc, bc)
        for klass, mapping, inputs, pcc, bc in d.get("standalone_module_class", []):
            conf.set_standalone_module_class(klass, mapping, inputs, pcc, bc)
        for quant_type, mapping in d.get("float_to_observed_custom_module_class", {}).items():
            for f, o in mapping.items():
                conf.set_float_to_observed_mapping(f, o, quant_type)
        conf.set_non_traceable_module_names(d.get("non_traceable_module_name", []))
        conf.set_non_traceable_module_classes(d.get("non_traceable_module_class", []))
        conf.set_input_quantized_indexes(d.get("input_quantized_idxs", []))
        conf.set_output_quantized_indexes(d.get("output_quantized_idxs", []))
        conf.set_preserved_attributes(d.get("preserved_attributes", []))
        return conf

    def to_dict(self):
        """The config in the older dict form (empty entries left out)."""
        d = {}
        if self.standalone_module_names:
            d["standalone_module_name"] = [
                (k, v.qconfig_mapping, v.example_inputs, v.prepare_custom_config,
                 v.backend_config) for k, v in self.standalone_module_names.items()]
        if self.standalone_module_classes:
            d["standalone_module_class"] = [
                (k, v.qconfig_mapping, v.example_inputs, v.prepare_custom_config,
                 v.backend_config) for k, v in self.standalone_module_classes.items()]
        if self.float_to_observed_mapping:
            d["float_to_observed_custom_module_class"] = self.float_to_observed_mapping
        for key, value in (("non_traceable_module_name", self.non_traceable_module_names),
                           ("non_traceable_module_class", self.non_traceable_module_classes),
                           ("input_quantized_idxs", self.input_quantized_indexes),
                           ("output_quantized_idxs", self.output_quantized_indexes),
                           ("preserved_attributes", self.preserved_attributes)):
            if value:
                d[key] = value
        return d


class ConvertCustomConfig:
    """Custom settings of ``convert_fx``; setters return the config.

    Example::

        >>> ConvertCustomConfig().set_preserved_attributes(["version"]).to_dict()
        {'preserved_attributes': ['version']}
    """

    def __init__(self):
        self.observed_to_quantized_mapping = {}
        self.preserved_attributes = []

    def __repr__(self):
        return _repr(self)

    def set_observed_to_quantized_mapping(self, observed_class, quantized_class,
                                          quant_type=None):
        """Record an observed custom module class and its quantized class."""
        from ..quant_type import QuantType
        quant_type = QuantType.STATIC if quant_type is None else quant_type
        self.observed_to_quantized_mapping.setdefault(quant_type, {})[observed_class] = \
            quantized_class
        return self

    def set_preserved_attributes(self, attributes):
        """Attributes of the observed model copied onto the converted model."""
        self.preserved_attributes = list(attributes)
        return self

    @classmethod
    def from_dict(cls, convert_custom_config_dict):
        """A config from the older dict form (``observed_to_quantized_custom_module_class``,
        ``preserved_attributes``)."""
        conf = cls()
        for quant_type, mapping in convert_custom_config_dict.get(
                "observed_to_quantized_custom_module_class", {}).items():
            for o, q in mapping.items():
                conf.set_observed_to_quantized_mapping(o, q, quant_type)
        conf.set_preserved_attributes(convert_custom_config_dict.get("preserved_attributes", []))
        return conf

    def to_dict(self):
        """The config in the older dict form (empty entries left out)."""
        d = {}
        if self.observed_to_quantized_mapping:
            d["observed_to_quantized_custom_module_class"] = self.observed_to_quantized_mapping
        if self.preserved_attributes:
            d["preserved_attributes"] = self.preserved_attributes
        return d


class FuseCustomConfig:
    """Custom settings of ``fuse_fx``; setters return the config.

    Example::

        >>> FuseCustomConfig().set_preserved_attributes(["version"]).to_dict()
        {'preserved_attributes': ['version']}
    """

    def __init__(self):
        self.preserved_attributes = []

    def __repr__(self):
        return _repr(self)

    def set_preserved_attributes(self, attributes):
        """Attributes of the model copied onto the fused model."""
        self.preserved_attributes = list(attributes)
        return self

    @classmethod
    def from_dict(cls, fuse_custom_config_dict):
        """A config from the older dict form (``preserved_attributes``)."""
        return cls().set_preserved_attributes(
            fuse_custom_config_dict.get("preserved_attributes", []))

    def to_dict(self):
        """The config in the older dict form (empty entries left out)."""
        return {"preserved_attributes": self.preserved_attributes} \
            if self.preserved_attributes else {}
