"""Per-op speed table (issue 23): every op of the op database, ember vs torch, one thread.

Usage::

    python bench/bench_ops_all.py [--quick] [--sizes small,medium,large] [--ops NAME ...]
                                  [--out PREFIX] [--max-call SECONDS] [--op-timeout SECONDS]

Every :class:`OpInfo` of ``tests/_ops/opdb.py`` (and its ``opdb_*.py`` family files) is timed
on ember and on torch side by side, forward and (where the op is differentiable and the
dtype floating) forward + backward (``autograd.grad`` of every differentiable output under
ones, as in tests/_ops/test_opdb.py), at representative sizes:

* ``small`` ~64 elements (8x8), ``medium`` ~16K (128x128), ``large`` ~1M (1024x1024): the
  larger of the op's largest input array and its output (a broadcast's work).

Sizes come generically from the op's own samples. One sample per op is picked (float32
where the op takes it; a contiguous one with finite values and the most elements among
those torch accepts), and every dimension > 1 of every array argument is multiplied by the
same integer ``K`` (dimensions of 1 stay 1, so broadcasting and ratios such as ``4 * hidden``
survive); integer and bool values are tiled from the sample's (index values stay in
range), floating ones drawn uniformly between the sample's extremes. ``K`` grows
until the size reaches the one wanted, torch's forward raises (the op's non-tensor
arguments pin a shape), its output passes 16x the largest size, or one torch forward takes
longer than ``--max-call``; the ``shape`` column shows what was timed. Where torch refuses
K = 2 already (a shape argument such as ``normalized_shape`` pins it), the ints inside the
tuple/list arguments are scaled too (``scaled`` column: ``tuples``), and failing that every
int > 1 among the arguments (``ints``: sizes, groups, ...). Ops whose sample cannot be
scaled so are timed once, at the sample's size (``sample`` in the size column).

Timing reuses ``bench/_runner.py``'s timer: after a warm-up call and a calibration call,
each side's call count per round is set so that a round lasts about ``--round-ms``, the two
libraries run in alternating rounds, and the best round counts (``--quick``: 3 rounds of
~1 ms; default 7 of ~10 ms). Slow calls get fewer rounds: at most ``--budget`` seconds of
rounds per side and timing (a calibration call as long as a round counts as one; a
warm-up call longer than the budget is the only timing). Each op's forward is timed with
inputs that do not require grad; forward + backward with every floating input requiring
grad (where torch refuses that, e.g. a loss's target, the first input only).

Threads: ``OMP_NUM_THREADS=1`` (and the BLAS variables), ``torch.set_num_threads(1)``,
``ember.set_num_threads(1)``.

Robustness: the ops run in a worker process; an op that raises on one side is reported as
``error`` with the message (``n/a`` where torch raises at the timed size, as for a torch
backward that is not implemented), a crash or a hang (``--op-timeout``) of the worker is
reported for that op and the worker restarts; an ember call that takes longer than
``--call-limit`` seconds is interrupted and reported as ``timeout``.

Output: progress per op on stdout; at the end a table sorted by the ratio ember/torch
(worst first), with the geometric mean of all ratios (target <= 1.0x), the count of rows
over 2x (target: none), the ops over 2x, and the rows of the ops named in issue 23's list
(target <= 1.5x each); written as markdown and CSV to ``PREFIX.md`` / ``PREFIX.csv``
(default ``bench/results/ops_all``).

Examples::

    python bench/bench_ops_all.py --quick --sizes small,medium      # all ops, a few minutes
    python bench/bench_ops_all.py --ops gelu 'layer_norm*' --sizes large
    python bench/bench_ops_all.py --out /tmp/ops                     # full rounds, all sizes

The machine's load shows in the figures: on a shared machine rerun the worst rows
(``--ops``) before trusting a single ratio. Nothing here is asserted in the tests (bench/ is
outside pytest's ``testpaths``).
"""
import argparse
import csv
import fnmatch
import json
import math
import os
import select
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SIZES = {'small': 64, 'medium': 128 * 128, 'large': 1024 * 1024}
# ops of issue 23's list of gaps (target <= 1.5x each): name patterns
# (those not in the op database, such as randn/normal_, the distributions' samplers or
# conv2d, match nothing here: bench_distributions.py, bench_layers.py time them)
WATCH = ['F.gelu*', 'nn.functional.cross_entropy', '*group_norm', '*layer_norm', 'fft.*fft2',
         '*stft*', 'linalg.ldl_factor*', '*randn*', 'normal*', '*_standard_gamma*',
         'poisson', 'binomial', '*conv2d*']
THREAD_ENV = ('OMP_NUM_THREADS', 'OPENBLAS_NUM_THREADS', 'MKL_NUM_THREADS',
              'NUMEXPR_NUM_THREADS', 'VECLIB_MAXIMUM_THREADS')


# ============================================================================ worker side

class _Timeout(Exception):
    pass


def _alarm(sig, frame):
    raise _Timeout('ember call interrupted')


def _worker(opts):
    """Read ``name<TAB>kmax`` lines on stdin, answer one JSON line per op on the
    protocol stream (the original stdout; the ops' own prints go to stderr)."""
    import signal
    import warnings
    proto = os.fdopen(os.dup(1), 'w', buffering=1)
    os.dup2(2, 1)
    sys.path.insert(0, HERE)
    sys.path.insert(0, os.path.join(ROOT, 'tests'))
    warnings.simplefilter('ignore')
    import numpy as np
    import torch
    import ember
    from _runner import _time
    from _ops.opdb import OPS, Maker, seed_of
    torch.set_num_threads(1)
    ember.set_num_threads(1)
    signal.signal(signal.SIGALRM, _alarm)
    ops = {op.name: op for op in OPS}
    tensors = (torch.Tensor, ember.Tensor)

    def send(obj):
        proto.write(json.dumps(obj) + '\n')

    def flat(x):
        if isinstance(x, (tuple, list)):
            return [t for v in x for t in flat(v)]
        return [x] if isinstance(x, tensors) else []

    def arrays_of(s):
        return list(s.args) + [v for v in s.kw.values() if isinstance(v, np.ndarray)]

    def binder(op, s):
        """``f(m, values, kw)`` calling the op as the harness does, and the call
        ``(values, kw)``: the positional values (the sample's args, then its array keyword
        args; numpy arrays become tensors) and the other keyword args."""
        akeys = [k for k, v in s.kw.items() if isinstance(v, np.ndarray)]
        n = len(s.args)

        def f(m, a, kw):
            g = s.ref if s.ref is not None and m is torch else op.fn
            if s.pre == 't':
                a = [x.mT if isinstance(x, tensors) and x.dim() >= 2 else x for x in a]
            return g(m, *a[:n], **kw, **dict(zip(akeys, a[n:])))
        kw = {k: v for k, v in s.kw.items() if not isinstance(v, np.ndarray)}
        return f, (arrays_of(s), kw)

    def make(m, call, grad):
        out = []
        for a in call[0]:
            if isinstance(a, np.ndarray):
                t = torch.from_numpy(a.copy()) if m is torch else ember.from_numpy(a.copy())
                if grad and a.dtype.kind in 'fc':
                    t.requires_grad_(True)
                    grad = grad is True      # 'first': the first floating input only
                a = t
            out.append(a)
        return out, call[1]

    def scale_ints(x, K, bare):
        """Ints > 1 inside tuples/lists (shapes such as ``normalized_shape``), and with
        ``bare`` plain ints too (sizes, groups), times K."""
        if isinstance(x, (tuple, list)):
            return type(x)(scale_ints(v, K, True) for v in x)
        if bare and isinstance(x, int) and not isinstance(x, bool) and x > 1:
            return x * K
        return x

    def grow(a, K):
        """``a`` with every dim > 1 times K: integer and bool values tiled (indices stay in
        range, masks keep their pattern), floating ones drawn uniformly between the
        sample's finite extremes (tiling would make matrices singular)."""
        shape = tuple(d * K if d > 1 else d for d in a.shape)
        fin = a[np.isfinite(a)] if a.dtype.kind in 'fc' else None
        if fin is None or not fin.size:
            return a[np.ix_(*[np.arange(n) % d for n, d in zip(shape, a.shape)])]
        rng = np.random.default_rng(K)

        def draw(x):
            return rng.uniform(x.min(), x.max(), shape) if x.min() < x.max() else \
                np.full(shape, x.min())
        if a.dtype.kind == 'c':
            return (draw(fin.real) + 1j * draw(fin.imag)).astype(a.dtype)
        return draw(fin).astype(a.dtype)

    def scaled(call, K, level=0):
        """The call with every dim > 1 of its arrays times K (values tiled); with
        ``level`` 1 also the ints of its tuple/list args, with 2 all its ints > 1."""
        if K == 1:
            return call
        pos, kw = [], dict(call[1])
        for a in call[0]:
            if isinstance(a, np.ndarray) and a.ndim:
                a = grow(a, K)
            elif level:
                a = scale_ints(a, K, level > 1)
            pos.append(a)
        if level:
            kw = {k: scale_ints(v, K, level > 1) for k, v in kw.items()}
        return pos, kw

    def in_size(call, K=1):
        return max([math.prod(d * K if d > 1 else d for d in a.shape)
                    for a in call[0] if isinstance(a, np.ndarray)] or [0])

    def shapes(call):
        return ','.join('x'.join(map(str, a.shape)) or '0d' for a in call[0]
                        if isinstance(a, np.ndarray)) or '-'

    def msg(e):
        return f'{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ""}'[:160]

    def once(fn):
        t0 = time.perf_counter()
        r = fn()
        return time.perf_counter() - t0, r

    def measure(fns):
        """{label: seconds per call} (best round, alternating), or raises
        (label, exception) of the first side that fails its warm-up call."""
        number, calib, best = {}, {}, {}
        for k, fn in fns.items():
            try:
                if k == 'ember':
                    signal.setitimer(signal.ITIMER_REAL, opts.call_limit)
                try:
                    t0, _ = once(fn)          # warm-up (first calls pay one-time costs)
                    slow = t0 > opts.budget
                    t1 = t0 if slow else once(fn)[0]      # calibration
                finally:
                    signal.setitimer(signal.ITIMER_REAL, 0)
            except Exception as e:  # noqa: BLE001 - reported
                raise RuntimeError(k, e)
            number[k] = max(1, min(10000, int(opts.round_ms / 1e3 / max(t1, 1e-7))))
            calib[k] = t1
            # a call as long as a round is a round of its own
            best[k] = t1 if number[k] == 1 else float('inf')
        rounds = opts.rounds - all(v < float('inf') for v in best.values())
        if max(calib.values()) * rounds > opts.budget:       # slow calls: fewer rounds
            rounds = int(opts.budget / max(calib.values()))
        if any(v == float('inf') for v in best.values()):
            rounds = max(rounds, 1)
        for _ in range(rounds):
            for k, fn in fns.items():
                best[k] = min(best[k], _time(fn, number[k]))
        return best

    def fwd(f, ins, m):
        return lambda: f(m, *ins)

    def fwd_bwd(f, ins, m):
        """The step forward + backward, or None where nothing is differentiable."""
        leaves = [t for t in ins[0] if isinstance(t, tensors) and t.requires_grad]
        outs = [o for o in flat(f(m, *ins)) if o.requires_grad]
        if not (leaves and outs):
            return None
        gos = [m.ones_like(o) for o in outs]

        def step():
            outs = [o for o in flat(f(m, *ins)) if o.requires_grad]
            m.autograd.grad(outs, leaves, gos, allow_unused=True)
        return step

    def pick(op, dtype):
        """The sample to time: torch must accept it; contiguous, finite, differentiable,
        with no torch-only reference preferred, then the most elements."""
        samples = list(op.samples(Maker(dtype, seed_of(op.name, dtype))))

        def score(s):
            arrs = [a for a in arrays_of(s) if isinstance(a, np.ndarray)]
            finite = all(np.isfinite(a).all() for a in arrs if a.dtype.kind in 'fc')
            empty = any(a.size == 0 for a in arrs)
            return (not empty, s.pre != 't', s.ref is None, finite, bool(s.grad),
                    in_size((arrs, {})), sum(a.size for a in arrs))
        last = None
        for s in sorted(samples, key=score, reverse=True):
            f, values = binder(op, s)
            try:
                out = f(torch, *make(torch, values, False))
                return s, f, values, sum(o.numel() for o in flat(out))
            except Exception as e:  # noqa: BLE001
                last = e
        raise RuntimeError('torch raises on every sample' +
                           (f' ({msg(last)})' if last else ' (no samples)'))

    def ember_runs(f, values):
        try:
            signal.setitimer(signal.ITIMER_REAL, opts.call_limit)
            try:
                f(ember, *make(ember, values, False))
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            return True
        except Exception:  # noqa: BLE001
            return False

    def n_ints(x, bare):
        if isinstance(x, (tuple, list)):
            return sum(n_ints(v, True) for v in x)
        return int(bare and isinstance(x, int) and not isinstance(x, bool) and x > 1)

    def probe(f, call, out0, targets, kmax):
        """``(level, [(K, size)])``: the scaling level (see ``scaled``) and the K accepted,
        ascending, up to the largest target; the size of a K is the larger of its largest
        input and its output (a broadcast's work). Level 0 first; where it refuses K = 2,
        levels 1 and 2 where the call has such ints."""
        ks = [(1, max(in_size(call), out0))]
        if kmax < 2:
            return 0, ks
        dims = max([sum(d > 1 for d in a.shape) for a in call[0]
                    if isinstance(a, np.ndarray)] or [0])
        args = list(call[0]) + list(call[1].values())
        prev = None
        for level in (0, 1, 2):
            m_dims = dims + (sum(n_ints(a, level > 1) for a in args
                                 if not isinstance(a, np.ndarray)) if level else 0)
            if not m_dims or m_dims == prev:
                continue          # nothing (more) to scale at this level
            prev = m_dims
            K = 1
            while ks[-1][1] < max(targets) * 1.4:
                K = max(K + 1, math.ceil(K * 2 ** (1 / m_dims)))
                if K > kmax:
                    break
                send({'probe': K})
                vals = scaled(call, K, level)
                try:
                    t, out = once(lambda: f(torch, *make(torch, vals, False)))
                except Exception:  # noqa: BLE001 - the op's other args pin a shape
                    break
                n_out = sum(o.numel() for o in flat(out))
                if t > opts.max_call or n_out > 16 * max(targets):
                    break
                if len(ks) == 1 and not ember_runs(f, vals) and ember_runs(f, call):
                    break    # torch does not validate a shape the scaling broke; ember does
                ks.append((K, max(in_size(vals), n_out)))
            if len(ks) > 1:
                return level, ks
        return 0, ks

    def time_row(f, vals, mode, grad):
        """The row's status, times and message: ``grad`` True gives every floating input
        requires_grad, ``'first'`` the first one only."""
        try:
            fns = {}
            for m in (torch, ember):     # torch first: its failure is n/a
                lab = m.__name__
                try:
                    ins = make(m, vals, grad if mode != 'fwd' else False)
                    fns[lab] = fwd(f, ins, m) if mode == 'fwd' else fwd_bwd(f, ins, m)
                except Exception as e:  # noqa: BLE001
                    raise RuntimeError(lab, e)
            if fns['torch'] is None:
                return dict(status='n/a', msg='no differentiable output')
            if fns['ember'] is None:
                raise RuntimeError('ember', ValueError('no output requires grad (torch has one)'))
            t = measure(fns)
            return dict(status='ok', ember=t['ember'], torch=t['torch'],
                        ratio=t['ember'] / t['torch'])
        except RuntimeError as e:
            if len(e.args) == 2 and e.args[0] in ('ember', 'torch'):
                side, err = e.args
                st = ('timeout' if isinstance(err, _Timeout) else 'error') \
                    if side == 'ember' else 'n/a'
                return dict(status=st, msg=f'{side}: {msg(err)}')
            return dict(status='error', msg=f'bench: {msg(e)}')
        except _Timeout as e:
            return dict(status='timeout', msg=f'ember: {msg(e)}')
        except Exception as e:  # noqa: BLE001
            return dict(status='error', msg=f'bench: {msg(e)}')

    def run_op(name, kmax):
        op = ops[name]
        dtype = 'float32' if 'float32' in op.dtypes else op.dtypes[0]
        res = {'op': name, 'dtype': dtype, 'rows': []}
        try:
            s, f, values, out0 = pick(op, dtype)
        except Exception as e:  # noqa: BLE001
            res['rows'].append({'size': '-', 'mode': 'fwd', 'status': 'n/a', 'msg': msg(e)})
            return res
        res['sample'] = s.desc
        targets = [SIZES[z] for z in opts.sizes]
        level, ks = probe(f, values, out0, targets, kmax)
        chosen = []          # (label, K), distinct K
        for z in opts.sizes:
            K = min(ks, key=lambda kn: abs(math.log(max(kn[1], 1) / SIZES[z])))[0]
            if len(ks) == 1:
                z = 'sample'
            if K not in [k for _, k, _ in chosen]:
                chosen.append((z, K, dict(ks)[K]))
        grad = op.grad and s.grad and np.dtype(dtype).kind in 'fc'
        for z, K, n in chosen:
            vals = scaled(values, K, level)
            base = {'size': z, 'K': K, 'shape': shapes(vals), 'n': n,
                    'scaled': ['', 'tuples', 'ints'][level] if K > 1 else ''}
            for mode in ('fwd', 'fwd+bwd') if grad else ('fwd',):
                row = dict(base, mode=mode)
                res['rows'].append(row)
                row.update(time_row(f, vals, mode, True))
                if mode != 'fwd' and row['status'] == 'n/a' and 'torch:' in row['msg']:
                    first = time_row(f, vals, mode, 'first')
                    if first['status'] != 'n/a':      # e.g. a target that takes no grad
                        row.update(first, msg=(first.get('msg', '') +
                                               ' (grad of the first input only)').strip())
        return res

    for m in (torch, ember):      # the first backwards of a process pay one-time costs
        x = m.ones(2, 3, requires_grad=True)
        t_end = time.perf_counter() + 0.3
        while time.perf_counter() < t_end:
            m.autograd.grad([(x * x).sum()], [x])
    import gc
    gc.freeze()     # the imports' objects: no side's collections scan the other's heap
    send({'hello': [op.name for op in OPS], 'torch': torch.__version__,
          'numpy': np.__version__})
    for line in sys.stdin:
        name, kmax = line.rstrip('\n').split('\t')
        try:
            res = run_op(name, int(kmax))
        except BaseException as e:  # noqa: BLE001 - never lose the worker over one op
            res = {'op': name, 'rows': [{'size': '-', 'mode': 'fwd', 'status': 'error',
                                         'msg': f'bench: {msg(e)}'}]}
        send({'result': res})


# ============================================================================ parent side

class Worker:
    """The worker process, restarted after a crash or a hang."""

    def __init__(self, args):
        self.args, self.p = args, None
        self.log = tempfile.TemporaryFile('w+')

    def start(self):
        env = dict(os.environ)
        for k in THREAD_ENV:
            env[k] = '1'
        for k in ('OPENBLAS_CORETYPE', 'OPENBLAS_L2_SIZE'):
            env.pop(k, None)
        a = self.args
        cmd = [sys.executable, os.path.abspath(__file__), '--worker', '--sizes',
               ','.join(a.sizes), '--rounds', str(a.rounds), '--round-ms', str(a.round_ms),
               '--budget', str(a.budget), '--max-call', str(a.max_call),
               '--call-limit', str(a.call_limit)]
        self.log.seek(0)
        self.log.truncate()
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=self.log, text=True, bufsize=1, cwd=ROOT, env=env)
        return self.read(timeout=300)

    def read(self, timeout):
        """The next JSON message, or None after a crash or ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.p.stdout], [], [], left)[0]:
                return None
            line = self.p.stdout.readline()
            if not line:
                return None
            return json.loads(line)

    def stop(self):
        if self.p and self.p.poll() is None:
            self.p.kill()
        if self.p:
            self.p.wait()

    def why(self):
        code = self.p.poll()
        self.log.seek(0)
        tail = ' | '.join(self.log.read().strip().splitlines()[-2:])[-200:]
        return f'worker exit code {code}' + (f' ({tail})' if tail else '')

    def run(self, name, kmax, timeout):
        """(result, None), or (None, (kind, message, last probed K))."""
        self.p.stdin.write(f'{name}\t{kmax}\n')
        self.p.stdin.flush()
        k = 1
        while True:
            r = self.read(timeout)
            if r is None:
                kind = 'timeout' if self.p.poll() is None else 'crash'
                self.stop()
                return None, (kind, self.why() if kind == 'crash'
                              else f'no answer in {timeout:.0f}s', k)
            if 'probe' in r:
                k = r['probe']
            else:
                return r['result'], None


def _fmt_t(s):
    return '' if s is None else f'{s * 1e6:.1f}'


def _geomean(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float('nan')


def _report(results, args, info, elapsed):
    """Summary lines (printed and written) and the files."""
    rows = [dict(r, op=res['op'], dtype=res.get('dtype', ''), sample=res.get('sample', ''))
            for res in results for r in res['rows']]
    ok = [r for r in rows if r.get('status') == 'ok']
    ok.sort(key=lambda r: -r['ratio'])
    bad = [r for r in rows if r.get('status') != 'ok']
    ratios = [r['ratio'] for r in ok]
    over = [r for r in ok if r['ratio'] > 2]
    worst = {}
    for r in over:
        worst.setdefault(r['op'], r)
    lines = [f"ops: {len(results)}, rows timed: {len(ok)}, not timed: {len(bad)} "
             f"(error {sum(r['status'] == 'error' for r in bad)}, "
             f"timeout {sum(r['status'] == 'timeout' for r in bad)}, "
             f"crash {sum(r['status'] == 'crash' for r in bad)}, "
             f"n/a {sum(r['status'] == 'n/a' for r in bad)}); run took {elapsed:.0f}s",
             f"geomean ember/torch = {_geomean(ratios):.2f}x  (target <= 1.0x)"]
    for key, vals in (('size', args.sizes + ['sample']), ('mode', ['fwd', 'fwd+bwd'])):
        parts = [f"{v} {_geomean([r['ratio'] for r in ok if r[key] == v]):.2f}x "
                 f"({sum(r[key] == v for r in ok)})" for v in vals
                 if any(r[key] == v for r in ok)]
        lines.append(f"  geomean by {key}: " + ', '.join(parts))
    lines.append(f"rows over 2x: {len(over)} of {len(ok)}, ops over 2x: {len(worst)}  "
                 f"(target: none)")
    lines.append('  ' + ', '.join(f"{op} {r['ratio']:.1f}x" for op, r in worst.items()))
    watch = [r for r in ok if any(fnmatch.fnmatch(r['op'], p) for p in WATCH)]
    lines.append(f"issue 23's list (target <= 1.5x each): {len(watch)} rows, "
                 f"{sum(r['ratio'] > 1.5 for r in watch)} over 1.5x")
    lines += [f"  {r['op']:<36} {r['size']:<7} {r['mode']:<8} {r['ratio']:6.2f}x"
              for r in watch[:40]]
    out = args.out
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    cols = ['op', 'size', 'mode', 'elements', 'shape', 'scaled', 'sample', 'dtype',
            'ember_us', 'torch_us', 'ratio',
            'status', 'msg']

    def cells(r):
        return [r['op'], r.get('size', ''), r.get('mode', ''), r.get('n', ''),
                r.get('shape', ''), r.get('scaled', ''), r['sample'], r['dtype'],
                _fmt_t(r.get('ember')), _fmt_t(r.get('torch')),
                f"{r['ratio']:.3f}" if 'ratio' in r else '', r['status'], r.get('msg', '')]
    with open(out + '.csv', 'w', newline='') as fh:
        w = csv.writer(fh)
        w.writerow(cols)
        for r in ok + bad:
            w.writerow(cells(r))
    with open(out + '.md', 'w') as fh:
        fh.write(f"# Per-op speed, ember vs torch (one thread)\n\n"
                 f"Command: `{info['command']}`  \n"
                 f"Date: {info['date']}; torch {info.get('torch')}, numpy {info.get('numpy')}; "
                 f"{os.cpu_count()} cores, load average at start {info['load']} "
                 f"(where the machine is loaded the ratios are noisy: rerun a row with `--ops`).\n\n"
                 f"Sizes: small ~{SIZES['small']}, medium ~{SIZES['medium']}, large "
                 f"~{SIZES['large']} elements (the largest input or the output); "
                 f"`sample`: the op's sample "
                 f"could not be scaled. Times are microseconds per call, best of "
                 f"{args.rounds} alternating rounds.\n\n```\n" + '\n'.join(lines) + "\n```\n\n")
        fh.write('| ' + ' | '.join(cols) + ' |\n|' + '---|' * len(cols) + '\n')
        for r in ok + bad:
            fh.write('| ' + ' | '.join(str(c).replace('|', '/') for c in cells(r)) + ' |\n')
    return lines


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--ops', nargs='+', help='op names or glob patterns (default: all)')
    p.add_argument('--sizes', default='small,medium,large')
    p.add_argument('--quick', action='store_true', help='3 rounds of ~1 ms per timing')
    p.add_argument('--out', default=os.path.join(HERE, 'results', 'ops_all'),
                   help='output prefix: PREFIX.md and PREFIX.csv')
    p.add_argument('--rounds', type=int)
    p.add_argument('--round-ms', type=float)
    p.add_argument('--budget', type=float, help='seconds of rounds per side and timing')
    p.add_argument('--max-call', type=float, default=0.05,
                   help='scaling stops where one torch forward takes longer (s)')
    p.add_argument('--call-limit', type=float, default=10.0,
                   help='an ember call longer than this is interrupted (s)')
    p.add_argument('--op-timeout', type=float, help='seconds per op before the worker is '
                   'restarted (default 120, 300 without --quick)')
    p.add_argument('--worker', action='store_true', help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    args.sizes = [z.strip() for z in args.sizes.split(',') if z.strip()]
    if any(z not in SIZES for z in args.sizes):
        p.error(f'--sizes: choose among {", ".join(SIZES)}')
    args.rounds = args.rounds or (3 if args.quick else 7)
    args.round_ms = args.round_ms or (1.0 if args.quick else 10.0)
    args.budget = args.budget or (0.25 if args.quick else 3.0)
    args.op_timeout = args.op_timeout or (120 if args.quick else 300)
    for ext in ('.md', '.csv'):
        if args.out.endswith(ext):
            args.out = args.out[:-len(ext)]
    if args.worker:
        return _worker(args)

    t0 = time.perf_counter()
    info = {'command': 'python bench/bench_ops_all.py ' + ' '.join(argv or sys.argv[1:]),
            'date': time.strftime('%Y-%m-%d %H:%M'),
            'load': ' '.join(f'{x:.1f}' for x in os.getloadavg())}
    w = Worker(args)
    hello = w.start()
    if hello is None:
        sys.exit('the worker did not start: ' + w.why())
    info.update(torch=hello['torch'], numpy=hello['numpy'])
    names = hello['hello']
    if args.ops:
        names = [n for n in names if any(n == q or fnmatch.fnmatch(n, q) for q in args.ops)]
        if not names:
            sys.exit(f'no op matches {args.ops}')
    print(f"{len(names)} ops, sizes {','.join(args.sizes)}, {args.rounds} rounds of "
          f"~{args.round_ms:g} ms; load average {info['load']}", flush=True)
    results = []
    try:
        for i, name in enumerate(names):
            kmax, tries = 1 << 30, 0
            while True:
                if w.p is None or w.p.poll() is not None:
                    if w.start() is None:
                        sys.exit('the worker did not restart: ' + w.why())
                res, fail = w.run(name, kmax, args.op_timeout)
                if res is not None:
                    break
                kind, why, k = fail
                tries += 1
                if kind == 'crash' and k > 1 and tries < 3:
                    kmax = k - 1               # crashed while probing K: stay below it
                    continue
                res = {'op': name, 'rows': [{'size': '-', 'mode': 'fwd', 'status': kind,
                                             'msg': why}]}
                break
            results.append(res)
            parts = []
            for r in res['rows']:
                v = f"{r['ratio']:.2f}x" if r['status'] == 'ok' else r['status']
                parts.append(f"{r['size']}/{r['mode']} {v}")
            print(f"[{i + 1}/{len(names)} {time.perf_counter() - t0:5.0f}s] {name}: "
                  + ', '.join(parts), flush=True)
    except KeyboardInterrupt:
        print('interrupted: writing what was timed', flush=True)
    finally:
        w.stop()
    lines = _report(results, args, info, time.perf_counter() - t0)
    print('\n'.join(lines))
    print(f'written: {args.out}.md, {args.out}.csv')


if __name__ == '__main__':
    main()
