"""The PyTorch ecosystem on ember: each program of ``programs/`` runs on real torch and
under ``python -m ember run`` and prints the same numbers. A library that is not installed
skips its program (these libraries are an optional extra)."""
import importlib.util

import pytest

from ._compare import compare


def test_transformers_gpt2():
    pytest.importorskip('transformers')
    pytest.importorskip('safetensors')
    compare('gpt2_tiny.py')


def test_lightning_fit_validate_predict():
    pytest.importorskip('lightning')
    compare('lightning_fit.py')


def test_torchmetrics():
    pytest.importorskip('torchmetrics')
    compare('torchmetrics_basic.py')


def test_accelerate_accumulation():
    pytest.importorskip('accelerate')
    compare('accelerate_accumulate.py')


def test_safetensors_roundtrip():
    pytest.importorskip('safetensors')
    compare('safetensors_roundtrip.py')


def test_timm_models():
    # not imported here: on torch's CPU wheel, torchvision (which timm imports) fails at
    # import (see the program's head), so only its presence is checked
    if importlib.util.find_spec('timm') is None:
        pytest.skip('timm is not installed')
    compare('timm_models.py', rtol=1e-3, atol=1e-4)
