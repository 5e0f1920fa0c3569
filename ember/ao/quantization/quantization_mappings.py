"""``ember.ao.quantization.quantization_mappings``: which module class each float module
becomes in static, dynamic and quantization-aware-training quantization, the modules that
get a qconfig in ``prepare``, and the float-to-quantized operator table, as
``torch.ao.quantization.quantization_mappings``.

The tables name classes of ``ember.ao.nn.quantized`` & co.; they are resolved on first use
(those packages load lazily and themselves use the quantization package).
"""
import copy
import importlib

from ...nn.utils.parametrize import type_before_parametrizations

# The DEFAULT_* tables are module attributes resolved on first use (``__getattr__``); they
# stay out of ``__all__`` so that ``from ... import *`` (the package's) does not resolve them
# while ``ember.ao.nn.quantized`` may still be importing.
__all__ = [
    'no_observer_set',
    'get_default_static_quant_module_mappings',
    'get_default_static_quant_reference_module_mappings',
    'get_embedding_static_quant_module_mappings',
    'get_default_static_sparse_quant_module_mappings',
    'get_static_quant_module_class',
    'get_dynamic_quant_module_class',
    'get_default_qat_module_mappings',
    'get_embedding_qat_module_mappings',
    'get_default_dynamic_quant_module_mappings',
    'get_default_dynamic_sparse_quant_module_mappings',
    'get_default_qconfig_propagation_list',
    'get_default_compare_output_module_list',
    'get_default_float_to_quantized_operator_mappings',
    'get_quantized_operator',
]

# Where the short prefixes of the tables below live.
_PACKAGES = {
    'nn': 'ember.nn',
    'F': 'ember.nn.functional',
    'stubs': 'ember.ao.quantization.stubs',
    'fq': 'ember.ao.quantization.fake_quantize',
    'nni': 'ember.ao.nn.intrinsic.modules.fused',
    'nniqat': 'ember.ao.nn.intrinsic.qat',
    'nniq': 'ember.ao.nn.intrinsic.quantized',
    'nniqd': 'ember.ao.nn.intrinsic.quantized.dynamic',
    'nnqat': 'ember.ao.nn.qat',
    'nnqatd': 'ember.ao.nn.qat.dynamic',
    'nnq': 'ember.ao.nn.quantized',
    'nnqd': 'ember.ao.nn.quantized.dynamic',
    'nnqr': 'ember.ao.nn.quantized.reference',
    'nnquantizable': 'ember.ao.nn.quantizable',
    'qops': None,       # ember.ops.quantized: a namespace object, not a module
    'sparseq': 'ember.ao.nn.sparse.quantized',
    'sparseqd': 'ember.ao.nn.sparse.quantized.dynamic',
}

_TABLES = {
    'DEFAULT_REFERENCE_STATIC_QUANT_MODULE_MAPPINGS': """
        stubs.QuantStub nnq.Quantize | stubs.DeQuantStub nnq.DeQuantize
        nn.Linear nnqr.Linear | nn.Conv1d nnqr.Conv1d | nn.Conv2d nnqr.Conv2d
        nn.Conv3d nnqr.Conv3d | nn.ConvTranspose1d nnqr.ConvTranspose1d
        nn.ConvTranspose2d nnqr.ConvTranspose2d | nn.ConvTranspose3d nnqr.ConvTranspose3d
        nn.Embedding nnqr.Embedding | nn.EmbeddingBag nnqr.EmbeddingBag
        nn.GRUCell nnqr.GRUCell | nn.LSTMCell nnqr.LSTMCell | nn.RNNCell nnqr.RNNCell
        nn.LSTM nnqr.LSTM""",
    'DEFAULT_STATIC_QUANT_MODULE_MAPPINGS': """
        stubs.QuantStub nnq.Quantize | stubs.DeQuantStub nnq.DeQuantize
        nn.BatchNorm2d nnq.BatchNorm2d | nn.BatchNorm3d nnq.BatchNorm3d
        nn.Dropout nnq.Dropout | nn.Conv1d nnq.Conv1d | nn.Conv2d nnq.Conv2d
        nn.Conv3d nnq.Conv3d | nn.ConvTranspose1d nnq.ConvTranspose1d
        nn.ConvTranspose2d nnq.ConvTranspose2d | nn.ConvTranspose3d nnq.ConvTranspose3d
        nn.ELU nnq.ELU | nn.Embedding nnq.Embedding | nn.EmbeddingBag nnq.EmbeddingBag
        nn.GroupNorm nnq.GroupNorm | nn.Hardswish nnq.Hardswish
        nn.InstanceNorm1d nnq.InstanceNorm1d | nn.InstanceNorm2d nnq.InstanceNorm2d
        nn.InstanceNorm3d nnq.InstanceNorm3d | nn.LayerNorm nnq.LayerNorm
        nn.LeakyReLU nnq.LeakyReLU
        nn.modules.linear.NonDynamicallyQuantizableLinear nnq.Linear
        nn.Linear nnq.Linear | nn.ReLU6 nnq.ReLU6 | nn.PReLU nnq.PReLU
        nnq.FloatFunctional nnq.QFunctional
        nni.BNReLU2d nniq.BNReLU2d | nni.BNReLU3d nniq.BNReLU3d
        nni.ConvReLU1d nniq.ConvReLU1d | nni.ConvReLU2d nniq.ConvReLU2d
        nni.ConvReLU3d nniq.ConvReLU3d | nni.ConvAdd2d nniq.ConvAdd2d
        nni.ConvAddReLU2d nniq.ConvAddReLU2d | nni.LinearReLU nniq.LinearReLU
        nni.LinearLeakyReLU nniq.LinearLeakyReLU | nni.LinearTanh nniq.LinearTanh
        nniqat.ConvBn1d nnq.Conv1d | nniqat.ConvBn2d nnq.Conv2d | nniqat.ConvBn3d nnq.Conv3d
        nniqat.ConvBnReLU1d nniq.ConvReLU1d | nniqat.ConvBnReLU2d nniq.ConvReLU2d
        nniqat.ConvBnReLU3d nniq.ConvReLU3d | nniqat.ConvReLU2d nniq.ConvReLU2d
        nniqat.ConvReLU3d nniq.ConvReLU3d | nniqat.LinearReLU nniq.LinearReLU
        nniqat.LinearBn1d nnq.Linear | nnqat.Linear nnq.Linear | nnqat.Conv2d nnq.Conv2d
        nnqat.Conv3d nnq.Conv3d""",
    'DEFAULT_QAT_MODULE_MAPPINGS': """
        nn.Conv2d nnqat.Conv2d | nn.Conv3d nnqat.Conv3d | nn.Linear nnqat.Linear
        nn.modules.linear.NonDynamicallyQuantizableLinear nnqat.Linear
        nni.ConvBn1d nniqat.ConvBn1d | nni.ConvBn2d nniqat.ConvBn2d
        nni.ConvBn3d nniqat.ConvBn3d | nni.ConvBnReLU1d nniqat.ConvBnReLU1d
        nni.ConvBnReLU2d nniqat.ConvBnReLU2d | nni.ConvBnReLU3d nniqat.ConvBnReLU3d
        nni.ConvReLU2d nniqat.ConvReLU2d | nni.ConvReLU3d nniqat.ConvReLU3d
        nni.LinearReLU nniqat.LinearReLU | nni.LinearBn1d nniqat.LinearBn1d""",
    'DEFAULT_DYNAMIC_QUANT_MODULE_MAPPINGS': """
        nn.GRUCell nnqd.GRUCell | nn.Linear nnqd.Linear | nnqatd.Linear nnqd.Linear
        nn.modules.linear.NonDynamicallyQuantizableLinear nnqd.Linear
        nn.LSTM nnqd.LSTM | nn.GRU nnqd.GRU | nn.LSTMCell nnqd.LSTMCell
        nn.RNNCell nnqd.RNNCell | nni.LinearReLU nniqd.LinearReLU
        nn.EmbeddingBag nnq.EmbeddingBag | nn.Embedding nnq.Embedding""",
    'DEFAULT_FLOAT_TO_QUANTIZED_OPERATOR_MAPPINGS': """
        F.elu qops.elu | F.hardswish qops.hardswish | F.instance_norm qops.instance_norm
        F.layer_norm qops.layer_norm | F.leaky_relu qops.leaky_relu | F.dropout qops.dropout""",
    'DEFAULT_MODULE_TO_ACT_POST_PROCESS': """
        nn.Hardsigmoid fq.default_fixed_qparams_range_0to1_fake_quant
        nn.Sigmoid fq.default_fixed_qparams_range_0to1_fake_quant
        nn.Softmax fq.default_fixed_qparams_range_0to1_fake_quant
        nn.Tanh fq.default_fixed_qparams_range_neg1to1_fake_quant""",
    'DEFAULT_STATIC_SPARSE_QUANT_MODULE_MAPPINGS': 'nn.Linear sparseq.Linear',
    'DEFAULT_DYNAMIC_SPARSE_QUANT_MODULE_MAPPINGS': 'nn.Linear sparseqd.Linear',
}

_resolved = {}
_MISSING = object()


def _resolve(spec):
    """The object a table entry names (``'nnq.Linear'``), or ``_MISSING`` when its package or
    name does not exist (yet)."""
    prefix, _, path = spec.partition('.')
    if _PACKAGES[prefix] is None:
        import ember
        obj = getattr(getattr(ember, 'ops', None), 'quantized', _MISSING)
        if obj is _MISSING:
            return _MISSING
    else:
        try:
            obj = importlib.import_module(_PACKAGES[prefix])
        except ImportError:
            return _MISSING
    for part in path.split('.'):
        obj = getattr(obj, part, _MISSING)
        if obj is _MISSING:
            return _MISSING
    return obj


def _table(name):
    """The table ``name`` as a dict: entries whose classes do not exist (yet) are left out;
    a table of classes is kept once all its entries resolve."""
    table = _resolved.get(name)
    if table is None:
        table, complete = {}, True
        for entry in _TABLES[name].replace('\n', '|').split('|'):
            if entry.strip():
                key, value = (_resolve(s) for s in entry.split())
                if key is not _MISSING and value is not _MISSING:
                    table[key] = value
                else:
                    complete = False
        # functions are looked up afresh (while quantized tensors live, ``F.leaky_relu``
        # & co. are the seam's observing bindings, other objects than at another time)
        if complete and all(isinstance(k, type) for k in table):
            _resolved[name] = table
    return table


def _table_keys(name):
    """The float classes of table ``name`` that exist, whether or not their targets do."""
    keys = set()
    for entry in _TABLES[name].replace('\n', '|').split('|'):
        if entry.strip():
            key = _resolve(entry.split()[0])
            if key is not _MISSING:
                keys.add(key)
    return keys


def __getattr__(name):
    if name in _TABLES:
        return _table(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def no_observer_set():
    """The module classes that ``prepare`` must not give an output observer (their own
    observers are inside): ``nn.quantizable.LSTM`` and ``MultiheadAttention``.

    Returns:
        set[type]

    Example::

        >>> ember.ao.quantization.no_observer_set()
    """
    return {c for c in (_resolve('nnquantizable.LSTM'),
                        _resolve('nnquantizable.MultiheadAttention')) if c is not _MISSING}


def get_default_static_quant_module_mappings():
    """A copy of the default float-to-quantized module mapping of post-training static
    quantization (``nn.Conv2d -> nn.quantized.Conv2d``, ``QuantStub -> Quantize``...).

    Returns:
        dict[type, type]

    Example::

        >>> m = ember.ao.quantization.get_default_static_quant_module_mappings()
        >>> m[nn.Linear].__name__
        'Linear'
    """
    return copy.deepcopy(_table('DEFAULT_STATIC_QUANT_MODULE_MAPPINGS'))


def get_default_static_quant_reference_module_mappings():
    """A copy of the float-to-reference-quantized module mapping (``is_reference=True``
    conversion).

    Returns:
        dict[type, type]

    Example::

        >>> m = ember.ao.quantization.get_default_static_quant_reference_module_mappings()
    """
    return copy.deepcopy(_table('DEFAULT_REFERENCE_STATIC_QUANT_MODULE_MAPPINGS'))


def get_embedding_static_quant_module_mappings():
    """The static mapping plus the QAT embeddings (``nn.qat.Embedding(Bag)`` to
    ``nn.quantized.Embedding(Bag)``).

    Returns:
        dict[type, type]

    Example::

        >>> m = ember.ao.quantization.get_embedding_static_quant_module_mappings()
    """
    mapping = get_default_static_quant_module_mappings()
    for name in ('EmbeddingBag', 'Embedding'):
        key, value = _resolve(f'nnqat.{name}'), _resolve(f'nnq.{name}')
        if key is not _MISSING and value is not _MISSING:
            mapping[key] = value
    return mapping


def get_default_static_sparse_quant_module_mappings():
    """A copy of the module mapping of static sparse quantization.

    NOTE: unlike PyTorch, ember has no ``ao.nn.sparse`` modules yet: the mapping is empty.

    Returns:
        dict[type, type]

    Example::

        >>> ember.ao.quantization.get_default_static_sparse_quant_module_mappings()
        {}
    """
    return copy.deepcopy(_table('DEFAULT_STATIC_SPARSE_QUANT_MODULE_MAPPINGS'))


def _module_class(mapping, float_module_class, additional):
    table = dict(mapping)
    table.update(additional or {})
    cls = table.get(float_module_class, None)
    if cls is None:
        raise AssertionError(f'Floating point module class {str(float_module_class)}'
                             ' does not have a corresponding quantized module class')
    return copy.deepcopy(cls)


def get_static_quant_module_class(float_module_class, additional_static_quant_mapping=None,
                                  is_reference=False):
    """The statically quantized class of a float module class.

    Args:
        float_module_class (type): e.g. ``nn.Conv2d``.
        additional_static_quant_mapping (dict, optional): extra entries, taking precedence.
        is_reference (bool): look in the reference mapping. Default: ``False``

    Returns:
        type

    Raises:
        AssertionError: the class has no quantized counterpart.

    Example::

        >>> ember.ao.quantization.get_static_quant_module_class(nn.Conv2d)
    """
    name = ('DEFAULT_REFERENCE_STATIC_QUANT_MODULE_MAPPINGS' if is_reference
            else 'DEFAULT_STATIC_QUANT_MODULE_MAPPINGS')
    return _module_class(_table(name), float_module_class, additional_static_quant_mapping)


def get_dynamic_quant_module_class(float_module_class, additional_dynamic_quant_mapping=None):
    """The dynamically quantized class of a float module class.

    Args:
        float_module_class (type): e.g. ``nn.Linear``.
        additional_dynamic_quant_mapping (dict, optional): extra entries, taking precedence.

    Returns:
        type

    Raises:
        AssertionError: the class has no dynamically quantized counterpart.

    Example::

        >>> ember.ao.quantization.get_dynamic_quant_module_class(nn.LSTM)
    """
    return _module_class(_table('DEFAULT_DYNAMIC_QUANT_MODULE_MAPPINGS'), float_module_class,
                         additional_dynamic_quant_mapping)


def get_default_qat_module_mappings():
    """A copy of the float-to-QAT module mapping that ``prepare_qat`` uses
    (``nn.Linear -> nn.qat.Linear``, ``nn.intrinsic.ConvBn2d -> nn.intrinsic.qat.ConvBn2d``...).

    Returns:
        dict[type, type]

    Example::

        >>> m = ember.ao.quantization.get_default_qat_module_mappings()
    """
    return copy.deepcopy(_table('DEFAULT_QAT_MODULE_MAPPINGS'))


def get_embedding_qat_module_mappings():
    """The QAT mapping plus the embeddings (``nn.Embedding(Bag) -> nn.qat.Embedding(Bag)``).

    Returns:
        dict[type, type]

    Example::

        >>> m = ember.ao.quantization.get_embedding_qat_module_mappings()
    """
    from ...nn.modules.sparse import Embedding, EmbeddingBag
    from ..nn.qat import modules as nnqat
    mapping = get_default_qat_module_mappings()
    mapping[EmbeddingBag] = nnqat.EmbeddingBag
    mapping[Embedding] = nnqat.Embedding
    return mapping


def get_default_dynamic_quant_module_mappings():
    """The float-to-dynamically-quantized module mapping of ``quantize_dynamic`` (the table
    itself, not a copy, as in PyTorch).

    Returns:
        dict[type, type]

    Example::

        >>> m = ember.ao.quantization.get_default_dynamic_quant_module_mappings()
    """
    return _table('DEFAULT_DYNAMIC_QUANT_MODULE_MAPPINGS')


def get_default_dynamic_sparse_quant_module_mappings():
    """The module mapping of dynamic sparse quantization (the table itself).

    NOTE: unlike PyTorch, ember has no ``ao.nn.sparse`` modules yet: the mapping is empty.

    Returns:
        dict[type, type]

    Example::

        >>> ember.ao.quantization.get_default_dynamic_sparse_quant_module_mappings()
        {}
    """
    return _table('DEFAULT_DYNAMIC_SPARSE_QUANT_MODULE_MAPPINGS')


def get_default_qconfig_propagation_list():
    """The module classes that ``prepare`` gives an output observer when they are leaves:
    every key of the static, QAT and dynamic mappings, and ``nn.Sequential``.

    Returns:
        set[type]

    Example::

        >>> nn.Linear in ember.ao.quantization.get_default_qconfig_propagation_list()
        True
    """
    from ...nn.modules.container import Sequential
    return (_table_keys('DEFAULT_STATIC_QUANT_MODULE_MAPPINGS')
            | _table_keys('DEFAULT_QAT_MODULE_MAPPINGS')
            | _table_keys('DEFAULT_DYNAMIC_QUANT_MODULE_MAPPINGS') | {Sequential})


def get_default_compare_output_module_list():
    """The module classes whose outputs the numeric suite records: the keys and values of
    the static, QAT and dynamic mappings, and ``nn.Sequential``.

    Returns:
        set[type]

    Example::

        >>> s = ember.ao.quantization.get_default_compare_output_module_list()
    """
    out = get_default_qconfig_propagation_list()
    for name in ('DEFAULT_STATIC_QUANT_MODULE_MAPPINGS', 'DEFAULT_QAT_MODULE_MAPPINGS',
                 'DEFAULT_DYNAMIC_QUANT_MODULE_MAPPINGS'):
        out |= set(_table(name).values())
    return out


def get_default_float_to_quantized_operator_mappings():
    """A copy of the float-functional-to-quantized-op mapping (``F.elu ->
    ops.quantized.elu``...).

    Returns:
        dict

    Example::

        >>> m = ember.ao.quantization.get_default_float_to_quantized_operator_mappings()
    """
    return copy.deepcopy(_table('DEFAULT_FLOAT_TO_QUANTIZED_OPERATOR_MAPPINGS'))


def get_quantized_operator(float_op):
    """The quantized op of a float functional (``F.leaky_relu`` ->
    ``ops.quantized.leaky_relu``).

    Args:
        float_op (Callable): the float functional.

    Returns:
        Callable

    Raises:
        AssertionError: it has no quantized op.

    Example::

        >>> op = ember.ao.quantization.get_quantized_operator(F.leaky_relu)
    """
    # compared by the op behind each binding: while quantized tensors live, ``F.leaky_relu``
    # is the seam's observing binding, another object than the one taken at another time
    from ember._ops._dispatch import raw_op
    table = {raw_op(k): v for k, v in
             _table('DEFAULT_FLOAT_TO_QUANTIZED_OPERATOR_MAPPINGS').items()}
    op = table.get(raw_op(float_op))
    if op is None:
        raise AssertionError(f'Operator {str(float_op)} does not have corresponding quantized op')
    return op


def _get_special_act_post_process(module):
    """The fixed-qparams fake-quantize constructor of a module whose output range is known
    (sigmoid, tanh...), or None."""
    return _table('DEFAULT_MODULE_TO_ACT_POST_PROCESS').get(type_before_parametrizations(module))


def _has_special_act_post_process(module):
    return module.training and type(module) in _table('DEFAULT_MODULE_TO_ACT_POST_PROCESS')
