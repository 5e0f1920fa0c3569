"""Save / load of a 200 MB state_dict: ember vs torch, side by side in one run.

Runs alternate between the two libraries (best of N rounds each) and print the
ratio ember/torch for save and for load:

    python bench/bench_serialization.py [--mb 200] [--rounds 5]
"""
import argparse
import collections
import os
import sys
import tempfile
import time

os.environ.setdefault('OMP_NUM_THREADS', '1')
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))

import numpy as np  # noqa: E402
import torch  # noqa: E402

import ember  # noqa: E402

torch.set_num_threads(1)


def state_dict(m, arrays):
    return collections.OrderedDict((k, m.from_numpy(a.copy())) for k, a in arrays.items())


def make_arrays(mb):
    """A transformer-ish mix: big matrices, biases, norms, an int buffer; ~mb megabytes."""
    rng = np.random.default_rng(0)
    arrays = collections.OrderedDict()
    total, i = 0, 0
    while total < mb * 2 ** 20:
        w = rng.standard_normal((1024, 1024), dtype=np.float32)
        arrays[f'layer{i}.weight'] = w
        arrays[f'layer{i}.bias'] = rng.standard_normal(1024, dtype=np.float32)
        arrays[f'layer{i}.norm.weight'] = np.ones(1024, np.float32)
        arrays[f'layer{i}.num_batches_tracked'] = np.array(i, np.int64)
        total += w.nbytes + 2 * 4096 + 8
        i += 1
    return arrays, total


def best_alternating(fns, rounds):
    best = {k: float('inf') for k in fns}
    for _ in range(rounds):
        for k, f in fns.items():
            t0 = time.perf_counter()
            f()
            best[k] = min(best[k], time.perf_counter() - t0)
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--mb', type=float, default=200)
    ap.add_argument('--rounds', type=int, default=5)
    a = ap.parse_args()
    arrays, nbytes = make_arrays(a.mb)
    sds = {'ember': state_dict(ember, arrays), 'torch': state_dict(torch, arrays)}
    del arrays
    mods = {'ember': ember, 'torch': torch}
    with tempfile.TemporaryDirectory() as d:
        paths = {k: os.path.join(d, f'{k}.pt') for k in mods}
        saves = {k: (lambda k=k: mods[k].save(sds[k], paths[k])) for k in mods}
        loads = {k: (lambda k=k: mods[k].load(paths[k], weights_only=True)) for k in mods}
        for f in list(saves.values()) + list(loads.values()):
            f()   # warm up (page cache, imports)
        print(f"state_dict: {len(sds['ember'])} tensors, {nbytes / 2 ** 20:.0f} MB; "
              f"best of {a.rounds} alternating rounds", flush=True)
        for what, fns in (('save', saves), ('load', loads)):
            best = best_alternating(fns, a.rounds)
            r = best['ember'] / best['torch']
            print(f"{what:<5} ember={best['ember'] * 1e3:8.1f} ms  torch={best['torch'] * 1e3:8.1f} ms  "
                  f"ember/torch = {r:5.2f}x  (target <= 1.5x)", flush=True)
        # cross-check: each loads the other's file to equal values
        e = ember.load(paths['torch'])
        t = torch.load(paths['ember'], weights_only=True)
        for k in sds['ember']:
            assert np.array_equal(e[k].numpy(), sds['torch'][k].numpy())
            assert np.array_equal(t[k].numpy(), sds['ember'][k].numpy())
        print("cross-load check: ok")


if __name__ == '__main__':
    main()
