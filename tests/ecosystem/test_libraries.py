"""The PyTorch ecosystem on ember: each program of ``programs/`` runs on real torch and
under ``python -m ember run`` and prints the same numbers. The libraries are in the
``test`` extra (and the ``ecosystem`` one)."""
import importlib.util

import pytest

from ._compare import compare


def _need(*names):
    """Skip when a library of the optional ``ecosystem`` extra is absent. Its presence is
    checked without importing it: in this (torch) process lightning and torchmetrics would
    import torchvision, which fails on torch's CPU wheel (see programs/_torchvision_schemas.py)."""
    for name in names:
        if importlib.util.find_spec(name) is None:
            pytest.skip(f'{name} is not installed')


def test_transformers_gpt2():
    # transformers, timm and torchvision are in the `test` extra: no skip
    compare('gpt2_tiny.py')


def test_lightning_fit_validate_predict():
    _need('lightning')
    compare('lightning_fit.py')


def test_torchmetrics():
    _need('torchmetrics')
    compare('torchmetrics_basic.py')


def test_accelerate_accumulation():
    _need('accelerate')
    compare('accelerate_accumulate.py')


def test_safetensors_roundtrip():
    _need('safetensors')
    compare('safetensors_roundtrip.py')


def test_timm_models():
    # torchvision, which timm imports, cannot load its compiled operators on torch's CPU wheel:
    # the programs define their schemas on the oracle (programs/_torchvision_schemas.py)
    compare('timm_models.py', rtol=1e-3, atol=1e-4)
