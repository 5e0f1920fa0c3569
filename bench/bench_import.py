"""Import cost: wall time and peak RSS of ``import ember`` vs ``import torch`` (and ``import
numpy``, ember's floor), each in fresh interpreters, best of N. Targets (issue 6):
``import ember`` <= 0.3 s and <= 60 MB RSS.

    python bench/bench_import.py [rounds]

The children run with bytecode caching on (``PYTHONDONTWRITEBYTECODE`` removed from their
environment) after one warm-up import that writes the caches: what a user sees from the
second import on. (torch's wheel ships compiled bytecode; an editable ember install under
``PYTHONDONTWRITEBYTECODE=1`` would otherwise recompile its sources on every import.)
"""
import json
import os
import subprocess
import sys

_ENV = {k: v for k, v in os.environ.items() if k != 'PYTHONDONTWRITEBYTECODE'}

CODE = ("import time, resource; t0 = time.perf_counter(); import {mod}; "
        "t = time.perf_counter() - t0; import json; "
        "print(json.dumps([t, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024]))")


def measure(mod, rounds):
    best_t, best_m = float('inf'), float('inf')
    subprocess.run([sys.executable, '-c', f'import {mod}'], env=_ENV, check=True)   # warm-up
    for _ in range(rounds):
        out = subprocess.run([sys.executable, '-c', CODE.format(mod=mod)], capture_output=True,
                             text=True, check=True, env=_ENV)
        t, m = json.loads(out.stdout.strip().splitlines()[-1])
        best_t, best_m = min(best_t, t), min(best_m, m)
    return best_t, best_m


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    res = {mod: measure(mod, rounds) for mod in ('numpy', 'ember', 'torch')}
    for mod, (t, m) in res.items():
        print(f"import {mod:<8} {t * 1e3:8.1f} ms  {m:7.1f} MB RSS", flush=True)
    (te, me), (tt, mt) = res['ember'], res['torch']
    print(f"{'import time':<44} ember/torch = {te / tt:5.2f}x  (target ember <= 0.3 s: "
          f"{'ok' if te <= 0.3 else 'over'})")
    print(f"{'peak RSS':<44} ember/torch = {me / mt:5.2f}x  (target ember <= 60 MB: "
          f"{'ok' if me <= 60 else 'over'})")


if __name__ == '__main__':
    main()
