"""ember.backends: the flags and queries scripts touch, with torch 2.13's CPU-build values
where ember's answer is the same kind of fact, and settable flags."""
import pytest
import torch

import ember
import ember.backends.cudnn as cudnn

SAME = ['cudnn.is_available()', 'cudnn.version()', 'cudnn.enabled', 'cudnn.benchmark',
        'cudnn.deterministic', 'cudnn.allow_tf32', 'cudnn.benchmark_limit',
        'cuda.matmul.allow_tf32', 'cuda.matmul.allow_fp16_reduced_precision_reduction',
        'cuda.matmul.allow_bf16_reduced_precision_reduction', 'mps.is_available()',
        'mps.is_built()', 'mkldnn.enabled', 'opt_einsum.is_available()', 'opt_einsum.enabled',
        'cuda.flash_sdp_enabled()', 'cuda.mem_efficient_sdp_enabled()',
        'cuda.math_sdp_enabled()', 'cuda.cudnn_sdp_enabled()', 'cuda.is_built()',
        ]


@pytest.mark.parametrize('src', SAME)
def test_same_as_torch(src):
    assert eval('ember.backends.' + src) == eval('torch.backends.' + src)


def test_flags_are_settable():
    old = cudnn.benchmark, cudnn.deterministic
    try:
        ember.backends.cudnn.benchmark = True
        ember.backends.cudnn.deterministic = True
        assert cudnn.benchmark and cudnn.deterministic
        with cudnn.flags(enabled=False, benchmark=False):
            assert not cudnn.enabled and not cudnn.benchmark
        assert cudnn.enabled and cudnn.benchmark
    finally:
        cudnn.benchmark, cudnn.deterministic = old


def test_allow_tf32_follows_matmul_precision_like_torch():
    for m in (torch, ember):
        try:
            m.set_float32_matmul_precision('high')
            assert m.backends.cuda.matmul.allow_tf32 is True
        finally:
            m.set_float32_matmul_precision('highest')
        assert m.backends.cuda.matmul.allow_tf32 is False
    ember.backends.cuda.matmul.allow_tf32 = True
    assert ember.get_float32_matmul_precision() == 'high'
    ember.backends.cuda.matmul.allow_tf32 = False
    assert ember.get_float32_matmul_precision() == 'highest'


def test_mkldnn_and_misc_queries():
    # NOTE: ember does not use oneDNN, so mkldnn.is_available() is False (torch: True)
    assert ember.backends.mkldnn.is_available() is False
    assert isinstance(ember.backends.mkl.is_available(), bool)
    assert isinstance(ember.backends.openmp.is_available(), bool)
    assert isinstance(ember.backends.cpu.get_cpu_capability(), str)
    with pytest.warns(FutureWarning):
        with ember.backends.cuda.sdp_kernel(enable_flash=False):
            assert not ember.backends.cuda.flash_sdp_enabled()
    assert ember.backends.cuda.flash_sdp_enabled()


def test_disable_global_flags_freezes_flags_like_torch():
    """Run in a subprocess: freezing lasts for the rest of the process."""
    import subprocess
    import sys
    code = r'''
import torch, ember
out = []
for m in (ember, torch):
    m.backends.disable_global_flags()
    row = [m.backends.flags_frozen()]
    for mod, names in ((m.backends.cudnn, ['enabled', 'benchmark', 'deterministic',
                                           'allow_tf32', 'benchmark_limit']),
                       (m.backends.mkldnn, ['enabled', 'deterministic', 'allow_tf32'])):
        for n in names:
            try:
                setattr(mod, n, getattr(mod, n))
                row.append('ok')
            except RuntimeError as e:
                row.append(str(e))
    mod.some_other_attribute = 1
    with m.backends.cudnn.flags(enabled=False):
        row.append(m.backends.cudnn.enabled)
    row.append(m.backends.cudnn.enabled)
    out.append(row)
assert out[0] == out[1], out
print('ok')
'''
    r = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                       timeout=120)
    assert r.stdout.strip() == 'ok', r.stderr
