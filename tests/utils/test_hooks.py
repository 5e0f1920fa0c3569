"""ember.utils.hooks: RemovableHandle and the full-backward-hook machinery."""
import torch

import ember
from ember.utils.hooks import RemovableHandle


def test_removable_handle_removes_and_is_context_manager():
    d = {}
    h = RemovableHandle(d)
    d[h.id] = 'hook'
    h.remove()
    assert d == {}
    h.remove()   # twice is fine
    with RemovableHandle(d) as h2:
        d[h2.id] = 'x'
    assert d == {}


def test_backward_hook_sees_grads_like_torch():
    out = {}
    for m in (ember, torch):
        lin = m.nn.Linear(2, 2)
        with m.no_grad():
            lin.weight.copy_(m.tensor([[1., 2.], [3., 4.]]))
            lin.bias.zero_()
        seen = []
        lin.register_full_backward_hook(lambda mod, gi, go: seen.append((gi[0].tolist(), go[0].tolist())))
        x = m.tensor([[1., 1.]], requires_grad=True)
        (lin(x) * 3).sum().backward()
        out[m.__name__] = seen
    assert out['ember'] == out['torch']
