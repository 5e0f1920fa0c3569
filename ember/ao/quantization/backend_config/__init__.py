"""``ember.ao.quantization.backend_config``: what a quantization backend supports
(:class:`BackendConfig`, :class:`BackendPatternConfig`, :class:`DTypeConfig`,
:class:`ObservationType`) and the configs of the native engines, as
``torch.ao.quantization.backend_config``."""
from .backend_config import (BackendConfig, BackendPatternConfig, DTypeConfig,
                             DTypeWithConstraints, ObservationType)
from .native import (get_native_backend_config, get_native_backend_config_dict,
                     get_fbgemm_backend_config, get_qnnpack_backend_config,
                     get_x86_backend_config, get_onednn_backend_config)

__all__ = ['get_fbgemm_backend_config', 'get_native_backend_config',
           'get_native_backend_config_dict', 'get_qnnpack_backend_config',
           'get_x86_backend_config', 'get_onednn_backend_config', 'BackendConfig',
           'BackendPatternConfig', 'DTypeConfig', 'DTypeWithConstraints', 'ObservationType']
