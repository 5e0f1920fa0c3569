import os
import sys

os.environ.setdefault('OMP_NUM_THREADS', '1')
sys.path.insert(0, os.path.dirname(__file__))

import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _torch_one_thread():
    try:
        import torch
        torch.set_num_threads(1)
    except ImportError:
        pass
    yield
