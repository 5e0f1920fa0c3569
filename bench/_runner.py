"""Side-by-side runner: the same workload under several implementations (ember, torch,
numpy), run alternately, best of N rounds; prints times and ratios to the reference."""
import os
import time

os.environ.setdefault('OMP_NUM_THREADS', '1')


def _time(fn, number):
    t0 = time.perf_counter()
    for _ in range(number):
        fn()
    return (time.perf_counter() - t0) / number


def best(fn, number=5, rounds=5):
    """The best of ``rounds`` timings of ``number`` calls (seconds per call)."""
    return min(_time(fn, number) for _ in range(rounds))


def compare(name, fns, ref='torch', number=100, rounds=7, target=None):
    """Run each of ``fns`` (label -> zero-arg callable) ``number`` times per round,
    alternating labels, ``rounds`` rounds; report the best round of each, and the ratio of
    ``ember`` to ``ref``. Returns the ratio."""
    best = {k: float('inf') for k in fns}
    for f in fns.values():
        f()   # warm up
    for _ in range(rounds):
        for k, f in fns.items():
            best[k] = min(best[k], _time(f, number))
    ratio = best['ember'] / best[ref]
    times = '  '.join(f"{k}={v * 1e6:9.1f}us" for k, v in best.items())
    tgt = f"  (target <= {target}x)" if target else ''
    print(f"{name:<44} {times}  ember/{ref} = {ratio:5.2f}x{tgt}", flush=True)
    return ratio
