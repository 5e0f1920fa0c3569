"""``ember.ao.quantization.backend_config.native``: the patterns ember's native quantized
kernels (fbgemm/x86 and qnnpack arithmetic) support, as PyTorch's native backend config:
linear, conv1d-3d with their batch-norm and ReLU fusions, batch norm, the binary ops
``add``/``mul`` (with ReLU), ``cat``, activations, and the ops that keep their input's
quantization (pooling, ``flatten``, ``relu``, views...).

NOTE: unlike PyTorch, the configs do not list ConvTranspose, embedding, RNN, matmul,
GroupNorm, InstanceNorm, PReLU and functional hardswish/elu/leaky_relu patterns (they
stay float)."""
import operator

from .backend_config import BackendConfig, BackendPatternConfig, DTypeConfig, ObservationType

__all__ = ['get_native_backend_config', 'get_native_backend_config_dict',
           'get_fbgemm_backend_config', 'get_qnnpack_backend_config',
           'get_x86_backend_config', 'get_onednn_backend_config']


def _sequential_fuser(fused_cls):
    """A fuser method that wraps the matched modules in ``fused_cls``."""
    def fuser_method(is_qat, *modules):
        return fused_cls(*modules)
    fuser_method.__name__ = 'fuser_method'
    return fuser_method


def _dtype_configs():
    import ember as em
    weighted = DTypeConfig(input_dtype=em.quint8, output_dtype=em.quint8,
                           weight_dtype=em.qint8, bias_dtype=em.float)
    dynamic = DTypeConfig(input_dtype=em.quint8, output_dtype=em.float,
                          weight_dtype=em.qint8, bias_dtype=em.float, is_dynamic=True)
    fp16 = DTypeConfig(input_dtype=em.float16, output_dtype=em.float16,
                       weight_dtype=em.float16, bias_dtype=em.float16)
    default = DTypeConfig(input_dtype=em.quint8, output_dtype=em.quint8)
    return weighted, dynamic, fp16, default


def _native_configs():
    import ember as em
    from ember import nn
    from ember.nn import functional as F
    from ember.ao.nn import intrinsic as nni, qat as nnqat
    from ember.ao.nn.intrinsic import qat as nniqat
    from .. import fuser_method_mappings as fm
    from ember.ao.nn.quantized import reference as ref
    weighted, dynamic, fp16, default = _dtype_configs()
    DIFF = ObservationType.OUTPUT_USE_DIFFERENT_OBSERVER_AS_INPUT
    SHARE = ObservationType.OUTPUT_SHARE_OBSERVER_WITH_INPUT
    NONE = ObservationType.INPUT_OUTPUT_NOT_OBSERVED
    configs = []

    def add(pattern, obs=DIFF, dtypes=(weighted,), **kw):
        c = BackendPatternConfig(pattern).set_observation_type(obs).set_dtype_configs(dtypes)
        for k, v in kw.items():
            getattr(c, 'set_' + k)(v)
        configs.append(c)

    relus = (nn.ReLU, F.relu)
    # linear
    lin_dtypes = (weighted, dynamic, fp16)
    add(nn.Linear, dtypes=lin_dtypes, root_module=nn.Linear, qat_module=nnqat.Linear,
        reference_quantized_module=ref.Linear)
    add(nnqat.Linear, dtypes=lin_dtypes, root_module=nn.Linear,
        reference_quantized_module=ref.Linear)
    add(F.linear, dtypes=lin_dtypes)
    for r in relus:
        add((nn.Linear, r), dtypes=lin_dtypes, fuser_method=_sequential_fuser(nni.LinearReLU),
            fused_module=nni.LinearReLU)
    add(nni.LinearReLU, dtypes=lin_dtypes, root_module=nn.Linear,
        qat_module=nniqat.LinearReLU, reference_quantized_module=ref.Linear)
    add(nniqat.LinearReLU, dtypes=lin_dtypes, root_module=nn.Linear,
        reference_quantized_module=ref.Linear)
    for r in relus:
        add((F.linear, r), dtypes=lin_dtypes)
    add((nn.Linear, nn.BatchNorm1d), dtypes=lin_dtypes, fuser_method=fm.fuse_linear_bn,
        fused_module=nni.LinearBn1d)
    add(nni.LinearBn1d, dtypes=lin_dtypes, root_module=nn.Linear,
        qat_module=nniqat.LinearBn1d, reference_quantized_module=ref.Linear)
    add(nniqat.LinearBn1d, dtypes=lin_dtypes, root_module=nn.Linear,
        reference_quantized_module=ref.Linear)
    # convolutions
    for nd in (1, 2, 3):
        conv, bn = getattr(nn, f'Conv{nd}d'), getattr(nn, f'BatchNorm{nd}d')
        qconv, rconv = getattr(nnqat, f'Conv{nd}d'), getattr(ref, f'Conv{nd}d')
        fconv = getattr(F, f'conv{nd}d')
        crelu, qcrelu = getattr(nni, f'ConvReLU{nd}d'), getattr(nniqat, f'ConvReLU{nd}d')
        cbn, qcbn = getattr(nni, f'ConvBn{nd}d'), getattr(nniqat, f'ConvBn{nd}d')
        cbnr, qcbnr = getattr(nni, f'ConvBnReLU{nd}d'), getattr(nniqat, f'ConvBnReLU{nd}d')
        add(conv, root_module=conv, qat_module=qconv, reference_quantized_module=rconv)
        add(qconv, root_module=conv, reference_quantized_module=rconv)
        add(fconv)
        for r in relus:
            add((conv, r), fuser_method=_sequential_fuser(crelu), fused_module=crelu)
        add(crelu, root_module=conv, qat_module=qcrelu, reference_quantized_module=rconv)
        add(qcrelu, root_module=conv, reference_quantized_module=rconv)
        for r in relus:
            add((fconv, r))
        add((conv, bn), fuser_method=fm.fuse_conv_bn, fused_module=cbn)
        for r in relus:
            add((conv, bn, r), fuser_method=fm.fuse_conv_bn_relu, fused_module=cbnr)
        add(cbn, root_module=conv, qat_module=qcbn, reference_quantized_module=rconv)
        add(cbnr, root_module=conv, qat_module=qcbnr, reference_quantized_module=rconv)
        add(qcbn, root_module=conv, reference_quantized_module=rconv)
        add(qcbnr, root_module=conv, reference_quantized_module=rconv)
    # binary ops
    for op in (operator.add, em.add, operator.mul, em.mul):
        for r in (nn.ReLU, F.relu, em.relu):
            add((op, r), dtypes=(default,))
        add(op, dtypes=(default,))
    add(em.cat, obs=SHARE, dtypes=(default,))
    # activations and ops with their own output observer
    for op in (nn.ELU, nn.LeakyReLU, nn.Hardswish, nn.Dropout, F.elu, F.hardswish,
               F.leaky_relu, F.dropout, nn.Hardsigmoid, F.hardsigmoid, 'hardsigmoid',
               'hardsigmoid_', nn.Sigmoid, em.sigmoid, 'sigmoid', 'sigmoid_', nn.Softmax,
               nn.Tanh, em.tanh, 'tanh', 'tanh_'):
        add(op, dtypes=(default,))
    # ops whose output shares the input's observer
    share = [nn.AdaptiveAvgPool1d, nn.AdaptiveAvgPool2d, nn.AdaptiveAvgPool3d,
             nn.AvgPool1d, nn.AvgPool2d, nn.AvgPool3d, nn.Hardtanh, nn.Identity,
             nn.MaxPool1d, nn.MaxPool2d, nn.MaxPool3d, nn.ReLU, nn.ReLU6,
             F.adaptive_avg_pool1d, F.adaptive_avg_pool2d, F.adaptive_avg_pool3d,
             F.hardtanh, F.max_pool1d, F.max_pool2d, F.max_pool3d, F.relu, F.relu6,
             F.avg_pool1d, F.avg_pool2d, F.avg_pool3d, em.clamp, em.flatten, em.mean,
             em.transpose, em.squeeze, em.unsqueeze,
             'contiguous', 'clamp', 'detach', 'detach_', 'mean', 'permute', 'repeat',
             'reshape', 'relu', 'relu_', 'squeeze', 'squeeze_', 'transpose', 'unsqueeze',
             'unsqueeze_', 'view']
    for op in share:
        add(op, obs=SHARE, dtypes=(default,))
    for op in ('shape', 'size'):
        add(op, obs=NONE, dtypes=(default,))
    # layer norm: float weight and bias
    layer_norm = DTypeConfig(input_dtype=em.quint8, output_dtype=em.quint8,
                             weight_dtype=em.float, bias_dtype=em.float)
    for op in (nn.LayerNorm, F.layer_norm):
        add(op, dtypes=(layer_norm,))
    # batch norm
    for nd in (2, 3):
        bn, bnrelu = getattr(nn, f'BatchNorm{nd}d'), getattr(nni, f'BNReLU{nd}d')
        for r in relus:
            add((bn, r), dtypes=(default,), fuser_method=_sequential_fuser(bnrelu),
                fused_module=bnrelu)
        add(bn, dtypes=(default,))
        add(bnrelu, dtypes=(default,))
    return configs


def get_native_backend_config():
    """The :class:`BackendConfig` of ember's native quantized kernels (the patterns
    PyTorch's ``fbgemm``/``x86``/``qnnpack`` share).

    Example::

        >>> bc = ember.ao.quantization.backend_config.get_native_backend_config()
        >>> bc.name
        'native'
    """
    return BackendConfig("native").set_backend_pattern_configs(_native_configs())


def get_native_backend_config_dict():
    """:func:`get_native_backend_config` as a dict (``BackendConfig.to_dict``).

    Example::

        >>> d = ember.ao.quantization.backend_config.get_native_backend_config_dict()
        >>> d['name']
        'native'
    """
    return get_native_backend_config().to_dict()


def _named(name):
    return BackendConfig(name).set_backend_pattern_configs(_native_configs())


def get_fbgemm_backend_config():
    """The :class:`BackendConfig` for the ``fbgemm`` engine (the native patterns).

    Example::

        >>> ember.ao.quantization.backend_config.get_fbgemm_backend_config().name
        'fbgemm'
    """
    return _named("fbgemm")


def get_x86_backend_config():
    """The :class:`BackendConfig` for the ``x86`` engine (the native patterns).

    Example::

        >>> ember.ao.quantization.backend_config.get_x86_backend_config().name
        'x86'
    """
    return _named("x86")


def get_qnnpack_backend_config():
    """The :class:`BackendConfig` for the ``qnnpack`` engine (the native patterns).

    NOTE: unlike PyTorch, the dtype configs carry no qnnpack range constraints
    (``quant_min``/``quant_max`` bounds, ``scale_min_lower_bound``).

    Example::

        >>> ember.ao.quantization.backend_config.get_qnnpack_backend_config().name
        'qnnpack'
    """
    return _named("qnnpack")


def get_onednn_backend_config():
    """The :class:`BackendConfig` for the ``onednn`` engine (the native patterns).

    Example::

        >>> ember.ao.quantization.backend_config.get_onednn_backend_config().name
        'onednn'
    """
    return _named("onednn")
