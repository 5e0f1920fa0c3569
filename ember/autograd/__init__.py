"""``ember.autograd``: reverse-mode automatic differentiation."""
from .grad_mode import (no_grad, enable_grad, set_grad_enabled, inference_mode,
                        is_grad_enabled, is_inference_mode_enabled, set_multithreading_enabled,
                        enforce_grad_layout_policy)
from .anomaly_mode import (detect_anomaly, set_detect_anomaly, is_anomaly_enabled,
                           is_anomaly_check_nan_enabled, set_anomaly_enabled)
from .graph import Node, AccumulateGrad
from . import graph
from .engine import run_backward
from ._backward import backward, grad  # the entry points (defined there: the submodules below use them)
from .function import (Function, FunctionCtx, InplaceFunction, NestedIOFunction,
                       once_differentiable)
from .variable import Variable, variable
from . import function
from .gradcheck import gradcheck, gradgradcheck
from . import functional
from . import forward_ad  # noqa: E402,F401
from . import profiler

__all__ = ['backward', 'grad', 'no_grad', 'enable_grad', 'set_grad_enabled', 'inference_mode',
           'is_grad_enabled', 'detect_anomaly', 'set_detect_anomaly', 'Function', 'gradcheck',
           'gradgradcheck', 'functional', 'Variable', 'set_multithreading_enabled',
           'enforce_grad_layout_policy']


