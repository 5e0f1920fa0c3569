"""ember.nn.attention vs torch: SDPBackend's members and values, sdpa_kernel's effect on the
backend flags (and their restoration, also after an exception), its argument check, the
flash-attention registry functions."""
import pytest
import torch
import torch.backends.cuda as tbc

import ember
import ember.backends.cuda as ebc
from ember.nn import attention as A
from oracle import errors_both


def _flags(mod):
    return (mod.math_sdp_enabled(), mod.flash_sdp_enabled(), mod.mem_efficient_sdp_enabled(),
            mod.cudnn_sdp_enabled())


def test_members_and_names():
    tm = torch.nn.attention.SDPBackend.__members__
    assert list(A.SDPBackend.__members__) == list(tm)
    for name, v in tm.items():
        assert int(getattr(A.SDPBackend, name)) == int(v)
        e = getattr(A.SDPBackend, name)
        assert str(e) == str(v) and repr(e) == repr(v)
    assert sorted(A.__all__) == sorted(torch.nn.attention.__all__)
    assert A.WARN_FOR_UNFUSED_KERNELS is False
    assert ember.nn.attention is A


@pytest.mark.parametrize('sel', [['MATH'], ['FLASH_ATTENTION'], ['MATH', 'CUDNN_ATTENTION'],
                                 ['EFFICIENT_ATTENTION', 'FLASH_ATTENTION', 'FLASH_ATTENTION'],
                                 []])
def test_sdpa_kernel_flags(sel):
    before = _flags(tbc), _flags(ebc)
    for prio in (False, True):
        arg_t = [getattr(torch.nn.attention.SDPBackend, s) for s in sel]
        arg_e = [A.SDPBackend[s] for s in sel]
        if len(sel) == 1:
            arg_t, arg_e = arg_t[0], arg_e[0]
        with torch.nn.attention.sdpa_kernel(arg_t, set_priority=prio) as rt, \
                A.sdpa_kernel(arg_e, set_priority=prio) as re_:
            assert _flags(ebc) == _flags(tbc)
            assert rt == re_ == {}
        assert (_flags(tbc), _flags(ebc)) == before


def test_restored_after_error_and_bad_argument():
    with pytest.raises(ZeroDivisionError):
        with A.sdpa_kernel(A.SDPBackend.MATH):
            1 / 0
    assert _flags(ebc) == (True, True, True, True)

    def enter(m, arg):
        with m.nn.attention.sdpa_kernel(arg):
            pass
    errors_both(lambda m: enter(m, 'math'), 'Backend must be an instance of SDPBackend')
    errors_both(lambda m: enter(m, (m.nn.attention.SDPBackend.MATH,)), 'got tuple')


def test_sdpa_still_runs_under_any_selection():
    q = ember.randn(1, 2, 3, 4)
    ref = ember.nn.functional.scaled_dot_product_attention(q, q, q) \
        if hasattr(ember.nn.functional, 'scaled_dot_product_attention') else None
    with A.sdpa_kernel([A.SDPBackend.FLASH_ATTENTION]):
        if ref is not None:
            out = ember.nn.functional.scaled_dot_product_attention(q, q, q)
            assert bool((out == ref).all())


def test_flash_registry():
    assert A.current_flash_attention_impl() is None
    assert isinstance(A.list_flash_attention_impls(), list)
    removed = []

    class Handle:
        def remove(self):
            removed.append(True)
    A.register_flash_attention_impl('X1', register_fn=lambda: Handle())
    assert 'X1' in A.list_flash_attention_impls()
    A.activate_flash_attention_impl('X1')
    assert A.current_flash_attention_impl() == 'X1'
    A.restore_flash_attention_impl()
    assert A.current_flash_attention_impl() is None and removed == [True]
    with pytest.raises(ValueError, match="Unknown flash attention impl 'nope'"):
        A.activate_flash_attention_impl('nope')
    with pytest.raises(ValueError, match="Unknown flash attention impl 'nope'"):
        torch.nn.attention.activate_flash_attention_impl('nope')
