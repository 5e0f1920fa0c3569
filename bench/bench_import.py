"""Import cost: wall time and peak RSS of ``import ember`` vs ``import torch`` (and ``import
numpy``, ember's floor), each in fresh interpreters, best of N. Targets (issue 6):
``import ember`` <= 0.3 s and <= 60 MB RSS.

    python bench/bench_import.py [rounds]
"""
import json
import subprocess
import sys

CODE = ("import time, resource; t0 = time.perf_counter(); import {mod}; "
        "t = time.perf_counter() - t0; import json; "
        "print(json.dumps([t, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024]))")


def measure(mod, rounds):
    best_t, best_m = float('inf'), float('inf')
    for _ in range(rounds):
        out = subprocess.run([sys.executable, '-c', CODE.format(mod=mod)], capture_output=True,
                             text=True, check=True)
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
