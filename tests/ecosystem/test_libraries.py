"""The PyTorch ecosystem on ember: each program of ``programs/`` runs on real torch and
under ``python -m ember run`` and prints the same numbers. The libraries are in the
``test`` extra (and the ``ecosystem`` one), so none is skipped: a missing library fails."""
from ._compare import compare


def test_transformers_gpt2():
    compare('gpt2_tiny.py')


def test_lightning_fit_validate_predict():
    compare('lightning_fit.py')


def test_torchmetrics():
    compare('torchmetrics_basic.py')


def test_accelerate_accumulation():
    compare('accelerate_accumulate.py')


def test_safetensors_roundtrip():
    compare('safetensors_roundtrip.py')


def test_timm_models():
    # torchvision, which timm imports, cannot load its compiled operators on torch's CPU wheel:
    # the programs define their schemas on the oracle (programs/_torchvision_schemas.py)
    compare('timm_models.py', rtol=1e-3, atol=1e-4)
