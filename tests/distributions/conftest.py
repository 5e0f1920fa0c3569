"""tests/distributions is a package (so its test modules' names, e.g. test_transforms,
do not clash with other directories'); its own directory also goes on sys.path so the
helpers there import by bare name (``from _part2_util import ...``)."""
import os
import sys

_here = os.path.dirname(os.path.abspath(__file__))
if _here not in sys.path:
    sys.path.insert(0, _here)
