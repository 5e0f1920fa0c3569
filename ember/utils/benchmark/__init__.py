"""``ember.utils.benchmark``: timing statements and comparing the results (PyTorch's
``torch.utils.benchmark``).

* :class:`Timer` runs a statement under ``timeit`` with a warm-up and the thread count
  set, and returns a :class:`Measurement` (``timeit``, ``blocked_autorange``,
  ``adaptive_autorange``);
* :class:`Measurement` holds the timings and their statistics (median, IQR, significant
  figures) and prints as PyTorch's does;
* :class:`Compare` prints many measurements as tables;
* :class:`Fuzzer`, :class:`FuzzedParameter`, :class:`FuzzedTensor` draw random benchmark
  inputs.

NOTE: unlike PyTorch, C++ statements and Callgrind instruction counts are not supported.
"""
from .utils.common import *  # noqa: F401,F403
from .utils.timer import *  # noqa: F401,F403
from .utils.compare import *  # noqa: F401,F403
from .utils.fuzzer import *  # noqa: F401,F403
from .utils.valgrind_wrapper.timer_interface import *  # noqa: F401,F403
from .utils import common, compare  # noqa: F401
