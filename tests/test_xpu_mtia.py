"""``ember.xpu`` and ``ember.mtia`` against torch's CPU build: unavailable, and each call
answers or raises as torch's does."""
import pytest
import torch

import ember

CALLS = ['is_available()', 'device_count()', 'is_initialized()', 'manual_seed(0)',
         'manual_seed_all(0)', 'empty_cache()', 'synchronize()', 'current_device()',
         'is_bf16_supported()', 'memory_allocated()', 'init()', 'seed()', 'initial_seed()',
         'get_rng_state()']


@pytest.mark.parametrize('ns', ['xpu', 'mtia'])
def test_namespaces_answer_as_torch_cpu_build(ns):
    for call in CALLS:
        got = []
        for m in (ember, torch):
            try:
                got.append(repr(eval('m.' + ns + '.' + call)))
            except Exception as e:
                got.append((type(e).__name__, str(e)))
        assert got[0] == got[1], (ns, call)
