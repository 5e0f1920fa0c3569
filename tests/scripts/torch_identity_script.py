"""Who is torch? Printed under ``python -m ember run`` (tests/test_main.py), from this process
and from a child that asks importlib.metadata before it imports torch."""
import importlib.metadata as md
import subprocess
import sys

import torch
import torch.version

v = torch.__version__
print(type(v).__name__, str(v), v >= '2.6', v < (2, 14), v == (2, 13, 0))
print(torch.version.__version__, type(torch.version.__version__).__name__,
      torch.version.cuda, torch.version.git_version != '')
d = md.distribution('torch')
print(md.version('torch'), d.metadata['Name'], sorted(md.packages_distributions()['torch'])[0])
child = ("import importlib.metadata as md; print(md.version('torch')); import torch; "
         "print(torch.__version__, type(torch.__version__).__name__, torch.__name__)")
print(subprocess.run([sys.executable, '-c', child], capture_output=True, text=True).stdout.strip())
