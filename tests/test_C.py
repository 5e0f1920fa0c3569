"""``ember._C``'s dispatch-key names, ``_nn._parse_to``, ``_TensorMeta`` and
``_log_api_usage_once`` against ``torch._C``."""
import threading

import pytest
import torch

import ember

EK, TK = ember._C.DispatchKey, torch._C.DispatchKey


def test_dispatch_keys_match_torch():
    assert {k: int(v.value) for k, v in EK.__members__.items()} == {
        k: int(v.value) for k, v in TK.__members__.items()}
    for name in ('AutocastCPU', 'CPU', 'Autograd', 'Undefined'):
        e, t = getattr(EK, name), getattr(TK, name)
        assert (str(e), repr(e), e.name) == (str(t), repr(t).replace('torch.', ''), t.name)


def test_dispatch_key_sets_like_torch():
    def build(m):
        K, S = m._C.DispatchKey, m._C.DispatchKeySet
        s = S(K.AutocastCPU) | S(K.AutocastCUDA) | S(K.AutocastXPU)
        return (repr(s), s.has(K.AutocastCPU), s.has(K.CPU),
                repr(s.remove(K.AutocastCUDA)), repr(S(K.AutocastCPU).add(K.AutocastXPU)),
                s.highestPriorityTypeId().name,
                repr(s - S(K.AutocastCPU)))
    assert build(ember) == build(torch)


def test_exclude_autocast_keys_turns_autocast_off():
    """As torchvision's autocast kernels use it: inside the guard, ops under autocast run in
    their own dtypes; autocast is back after it."""
    def run(m):
        K, S = m._C.DispatchKey, m._C.DispatchKeySet
        keys = S(K.AutocastCPU) | S(K.AutocastCUDA)
        a, b = m.ones(4, 4), m.ones(4, 4)
        with m.autocast('cpu', dtype=m.bfloat16):
            before = (a @ b).dtype
            with m._C._ExcludeDispatchKeyGuard(keys):
                inside = (a @ b).dtype
                enabled = m.is_autocast_enabled('cpu')
            after = (a @ b).dtype
        return str(before), str(inside), enabled, str(after), m.is_autocast_enabled('cpu')
    assert run(ember) == run(torch) == ('torch.bfloat16', 'torch.float32', False,
                                        'torch.bfloat16', False)
    K = ember._C.DispatchKey
    ks = ember._C.DispatchKeySet(K.AutocastCPU)
    assert not ember._C._dispatch_tls_is_dispatch_key_excluded(K.AutocastCPU)
    seen = []
    with ember._C._ExcludeDispatchKeyGuard(ks):
        assert ember._C._dispatch_tls_is_dispatch_key_excluded(K.AutocastCPU)
        th = threading.Thread(target=lambda: seen.append(
            ember._C._dispatch_tls_is_dispatch_key_excluded(K.AutocastCPU)))
        th.start()
        th.join()
    assert seen == [False] and not ember._C._dispatch_tls_is_dispatch_key_excluded(K.AutocastCPU)
    with pytest.raises(TypeError):
        ember._C._ExcludeDispatchKeyGuard(K.AutocastCPU)
    for m in (ember, torch):
        with pytest.raises(TypeError):
            m._C.DispatchKeySet()


def test_nn_parse_to_like_torch():
    cases = [((ember.float64,), {}), (('cpu', ember.float16), {'non_blocking': True}),
             (('cpu',), {}), ((None, ember.int32, True), {}),
             ((ember.ones(1, dtype=ember.int8),), {}), ((ember.float32, True), {}),
             ((), {'dtype': ember.float64, 'memory_format': ember.channels_last})]

    def to_torch(v):
        if isinstance(v, ember.dtype):
            return getattr(torch, str(v).split('.')[1])
        if isinstance(v, ember.Tensor):
            return torch.from_numpy(v.numpy())
        if v is ember.channels_last:
            return torch.channels_last
        return v
    for args, kw in cases:
        got = ember._C._nn._parse_to(*args, **kw)
        want = torch._C._nn._parse_to(*map(to_torch, args),
                                      **{k: to_torch(v) for k, v in kw.items()})
        assert [str(x) for x in got] == [str(x) for x in want], (args, kw)


def test_tensor_meta_and_usage_log():
    assert isinstance(ember.Tensor, ember._C._TensorMeta)
    assert ember._C._log_api_usage_once('python.test') is None


def test_get_tracing_state_outside_tracing_is_none():
    """torchvision's ``_is_tracing`` (MultiScaleRoIAlign) asks it; None as torch's when
    nothing is being traced."""
    assert ember._C._get_tracing_state() is None
    assert torch._C._get_tracing_state() is None
