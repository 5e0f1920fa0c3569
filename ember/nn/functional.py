"""``ember.nn.functional``: the stateless functions behind the layers. Each is bound to
its one definition in ``ember/_ops``."""
from .._ops import _args
from .._tensor import Tensor
from .._ops.conv import (conv1d, conv2d, conv3d, conv_transpose1d, conv_transpose2d,
                         conv_transpose3d)
from .._ops.activation import *  # noqa: F401,F403
from .._ops.rrelu import *  # noqa: F401,F403
from .._ops.loss import *  # noqa: F401,F403
from .._ops.pooling import *  # noqa: F401,F403
from .._ops.fractional_pool import *  # noqa: F401,F403
from .._ops.vision import *  # noqa: F401,F403
from .._ops.channel_shuffle import *  # noqa: F401,F403
from .._ops.distance import *  # noqa: F401,F403
from .._ops.dropout import *  # noqa: F401,F403
from .._ops.embedding import *  # noqa: F401,F403
from .._ops.rnn import *  # noqa: F401,F403
from .._ops.attention import *  # noqa: F401,F403
from .._ops.normalization import *  # noqa: F401,F403
from .._ops.nn_misc import *  # noqa: F401,F403
from .._ops import nn_misc as _misc
from .._ops import (activation as _act, loss as _loss, pooling as _pool, vision as _vision,
                    distance as _dist, dropout as _drop, embedding as _emb, rnn as _rnn,
                    attention as _attn, normalization as _norm, fractional_pool as _frac,
                    channel_shuffle as _cshuf, rrelu as _rrelu)
from .._ops.linear import linear
from .._ops.padding import pad
from .._ops.normalization import native_batch_norm as _native_batch_norm
from .._ops.normalization import _batch_norm_degenerate
# the __torch_function__ helpers torch.nn.functional also exposes: ember.overrides' (one definition)
from ..overrides import (has_torch_function, has_torch_function_unary,  # noqa: F401
                         has_torch_function_variadic, handle_torch_function)

__all__ = ['linear', 'conv1d', 'conv2d', 'conv3d',
           'conv_transpose1d', 'conv_transpose2d', 'conv_transpose3d', 'pad', 'batch_norm']
# every op family lists the names it gives this namespace in its ``__all__``
for _m in (_act, _rrelu, _loss, _pool, _frac, _vision, _cshuf, _dist, _drop, _emb, _rnn, _attn,
           _norm, _misc):
    __all__ += [_n for _n in _m.__all__ if _n not in __all__]
del _m
__all__ += ['has_torch_function', 'has_torch_function_unary', 'has_torch_function_variadic',
            'handle_torch_function']


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """Applies batch normalization over dim 1 of an ``(N, C, *)`` input:
    ``(x - mean) / sqrt(var + eps) * weight + bias``. In training mode the batch statistics
    are used and ``running_mean`` / ``running_var`` (if given) are updated in place:
    ``running = (1 - momentum) * running + momentum * batch_stat`` (unbiased variance).

    Args:
        input (Tensor): ``(N, C, *)``.
        running_mean (Tensor or None): ``(C)`` running mean.
        running_var (Tensor or None): ``(C)`` running variance.
        weight (Tensor, optional): ``(C)`` scale. Default: None.
        bias (Tensor, optional): ``(C)`` shift. Default: None.
        training (bool): use batch statistics. Default: ``False``.
        momentum (float): running-statistics factor. Default: 0.1.
        eps (float): added to the variance. Default: 1e-5.

    Example::

        >>> F.batch_norm(ember.tensor([[1.], [3.]]), None, None, training=True)
        tensor([[-1.0000],
                [ 1.0000]])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'batch_norm')
    for arg, pos, v in (('weight', 2, weight), ('bias', 3, bias),
                        ('running_mean', 4, running_mean), ('running_var', 5, running_var)):
        if v is not None and not isinstance(v, Tensor):
            _args.tensor(v, 'batch_norm', arg, pos)
    if training:
        size = input.shape
        if not size:
            raise IndexError("tuple index out of range")
        n = size[0]
        for s in size[2:]:
            n *= s
        if n == 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input "
                             f"size {size}")
    r = _batch_norm_degenerate(input, weight, bias, running_mean, running_var)
    if r is not None:
        return r
    if not training and (running_mean is None or running_var is None):
        raise RuntimeError("running_mean must be defined in evaluation mode")
    return _native_batch_norm(input, weight, bias, running_mean, running_var, training,
                              momentum, eps)[0]
