"""Checking the dynamic dimensions of a capture: the module is captured again on inputs
whose dynamic sizes are changed (within their ranges), and the graphs must be the same.
A dimension the program specializes (``x.view(3, -1)``, ``len(x)``, a branch on the size)
or two dimensions that must be equal (``x + y``) then raise PyTorch's constraint-violation
``UserError``; a ``Dim.AUTO`` dimension that is specialized becomes static, as in PyTorch.
"""
__all__ = []


def _resize(t, shape):
    import ember
    for d, n in enumerate(shape):
        old = t.shape[d]
        if n != old and old > 0:
            t = t.index_select(d, ember.arange(n) % old)
    return t


def _same(a, b, ia, ib):
    if hasattr(a, 'op') or hasattr(b, 'op'):
        return hasattr(a, 'op') and hasattr(b, 'op') and ia.get(a) == ib.get(b)
    if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and \
            all(_same(x, y, ia, ib) for x, y in zip(a, b))
    if isinstance(a, dict) or isinstance(b, dict):
        return isinstance(a, dict) and isinstance(b, dict) and a.keys() == b.keys() and \
            all(_same(a[k], b[k], ia, ib) for k in a)
    if isinstance(a, slice) or isinstance(b, slice):
        return isinstance(a, slice) and isinstance(b, slice) and \
            _same((a.start, a.stop, a.step), (b.start, b.stop, b.step), ia, ib)
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:   # noqa: BLE001 - values that do not compare are different
        return False


def same_graph(g1, g2):
    """Whether two captures recorded the same program (same ops, same constants)."""
    n1, n2 = list(g1.nodes), list(g2.nodes)
    if len(n1) != len(n2):
        return False
    i1 = {n: i for i, n in enumerate(n1)}
    i2 = {n: i for i, n in enumerate(n2)}
    for a, b in zip(n1, n2):
        if a.op != b.op or a.target is not b.target and a.target != b.target:
            return False
        if a.op == 'placeholder' and a.meta.get('_kind', ('',))[0] == 'constant':
            # a tensor the capture could not follow, made from the sizes
            va, vb = a.meta.get('val'), b.meta.get('val')
            if getattr(va, 'shape', None) != getattr(vb, 'shape', None) or \
                    getattr(va, 'dtype', None) != getattr(vb, 'dtype', None):
                return False
        if not _same(a.args, b.args, i1, i2) or not _same(a.kwargs, b.kwargs, i1, i2):
            return False
    return True


def _error(msg):
    from .._dynamo.exc import UserError, UserErrorType
    return UserError(UserErrorType.CONSTRAINT_VIOLATION, msg)


def verify(recapture, flat, per_leaf, symbols, graph, srcs):
    """Recapture with changed dynamic sizes and compare with ``graph``.

    Args:
        recapture (callable): ``recapture(flat_inputs) -> graph`` (raises if the module
            fails on them).
        flat (list): the example inputs' leaves.
        per_leaf (dict): leaf index -> ``{dim: Symbol}``.
        symbols (dict): ``{Symbol: ValueRanges}``.
        graph (Graph): the first capture's graph.
        srcs (dict): leaf index -> its source text (``L['x']``).

    Returns:
        ``(auto, shapes)``: the root Symbols found specialized that came from ``Dim.AUTO``
        (to make static), and the symbolic sizes of the captured values (see
        :func:`_shape_exprs`).
    """
    from .dynamic_shapes import int_oo
    roots = [s for s in symbols if s.fn is None]
    hint = {}
    where = {}
    for i, dims in per_leaf.items():
        for d, s in dims.items():
            r = s if s.fn is None else s.root
            if r not in hint:
                size = flat[i].shape[d]
                hint[r] = size if s.fn is None else _inverse(s, size)
                where[r] = f'{srcs[i]}.size()[{d}]'

    def values_for(choice):
        out = []
        for i, v in enumerate(flat):
            dims = per_leaf.get(i)
            if not dims:
                out.append(v)
                continue
            shape = list(v.shape)
            for d, s in dims.items():
                r = s if s.fn is None else s.root
                n = choice.get(r, hint[r])
                shape[d] = n if s.fn is None else s.fn(n)
            out.append(_resize(v, shape))
        return out

    seen = []          # (choice, graph) of the recaptures that matched

    def ok(choice):
        try:
            g2 = recapture(values_for(choice))
        except Exception:   # noqa: BLE001 - the module fails on these sizes
            return False
        if same_graph(graph, g2):
            seen.append((choice, g2))
            return True
        return False

    def pick(r, k, mode):
        """A size to try for ``r``: next to the example's ('near'), at the low end of
        its range ('low') or far up it ('far'); ``k`` keeps the roots' sizes apart."""
        rng = symbols[r]
        lo = max(rng.lower, 2)
        hi = None if rng.upper == int_oo else rng.upper
        if mode == 'low':
            v = lo + k
            if v == hint[r]:
                v += len(roots) + 1
        elif mode == 'near':
            v = hint[r] + 1 + k
        else:
            v = (hi if hi is not None else max(4 * hint[r], hint[r] + 16)) - k
        if hi is not None and v > hi:
            v = max(lo, hint[r] - 1 - k)
        if v < lo or (hi is not None and v > hi) or v == hint[r]:
            return None
        return v

    trials = []
    for mode in ('near', 'low', 'far'):
        choice = {}
        for k, r in enumerate(roots):
            v = pick(r, k, mode)
            if v is not None:
                choice[r] = v
        if choice and choice not in trials:
            trials.append(choice)
    if all(ok(c) for c in trials):
        return set(), _shape_exprs(graph, seen, hint)
    # find the culprit(s)
    auto = set()
    narrowed = {}
    for r in roots:
        fails = []
        for mode in ('near', 'low', 'far'):
            v = pick(r, 0, mode)
            if v is not None and not ok({r: v}):
                fails.append(v)
        if not fails:
            continue
        v = fails[0]
        name = r.dim_name if r.hint_kind is None else where[r]
        partner = next((q for q in roots if q is not r and hint[q] == hint[r] and
                        ok({r: v, q: v})), None)
        if partner is not None:
            if roots.index(partner) > roots.index(r):     # named after the later one
                r, partner = partner, r
                name = r.dim_name if r.hint_kind is None else where[r]
            pname = partner.dim_name if partner.hint_kind is None else where[partner]
            raise _error(
                f'Constraints violated ({name})! For more information, run with '
                f'TORCH_LOGS="+dynamic".\n  - The values of {name} = {where[r]} and '
                f'{pname} = {where[partner]} must always be equal.\n'
                f'Suggested fixes:\n  {name} = {pname}\n')
        lo_r, hi_r = _valid_range(r, hint[r], symbols[r], ok)
        if lo_r == hi_r:                      # only the example's size works
            if r.hint_kind == 'AUTO':
                auto.add(r)
                continue
            raise _error(
                f'Constraints violated ({name})! For more information, run with '
                f'TORCH_LOGS="+dynamic".\n  - You marked {name} as dynamic but your code '
                f'specialized it to be a constant ({hint[r]}). If you\'re using '
                'mark_dynamic, either remove it or use maybe_mark_dynamic. If you\'re '
                'using Dim.DYNAMIC, replace it with either Dim.STATIC or Dim.AUTO.\n'
                + (f'Suggested fixes:\n  {name} = {hint[r]}\n' if r.hint_kind is None
                   else ''))
        rng = symbols[r]
        full = (lo_r, hi_r) == (max(rng.lower, 2), rng.upper)
        if full:                              # not an interval (say, even sizes only)
            if r.hint_kind == 'AUTO':
                auto.add(r)
                continue
            raise _error(
                f'Constraints violated ({name})! For more information, run with '
                f'TORCH_LOGS="+dynamic".\n  - Not all values of {name} = {where[r]} in the '
                f'specified range satisfy the generated guard (the program is not the same '
                f'for {where[r]} = {v})')
        if r.hint_kind is not None:           # a hint: the range narrows to what works
            narrowed[r] = (lo_r, hi_r)
            continue
        spec = ''.join([f'{rng.lower} <= ' if rng.lower > 2 else '', name,
                        f' <= {rng.upper}' if rng.upper != int_oo else ''])
        spec = f' {spec}' if spec != name else ''
        upper = 'IntInfinity()' if hi_r == int_oo else hi_r
        fix = ', '.join([repr(name)] + ([f'min={lo_r}'] if lo_r != 2 else []) +
                        ([f'max={hi_r}'] if hi_r != int_oo else []))
        raise _error(
            f'Constraints violated ({name})! For more information, run with '
            f'TORCH_LOGS="+dynamic".\n  - Not all values of {name} = {where[r]} in the '
            f'specified range{spec} satisfy the generated guard {lo_r} <= {where[r]} and '
            f'{where[r]} <= {upper}\nSuggested fixes:\n  {name} = Dim({fix})\n')
    if narrowed:
        from .dynamic_shapes import ValueRanges
        for r, (lo_r, hi_r) in narrowed.items():
            symbols[r] = ValueRanges(lo_r, hi_r)
            for s in list(symbols):
                if s.fn is not None and s.root is r:
                    symbols[s] = ValueRanges(s.fn(lo_r),
                                             int_oo if hi_r == int_oo else s.fn(hi_r))
        again, shapes = verify(recapture, flat, per_leaf, symbols, graph, srcs)
        return auto | again, shapes
    return auto, {}


def _valid_range(r, h, rng, ok):
    """The interval of sizes around the example's ``h`` for which the program is the same
    (searched by bisection, assuming one interval): ``(lower, upper)``, ``upper`` possibly
    ``int_oo``."""
    from .dynamic_shapes import int_oo
    lo = max(rng.lower, 2)
    if h < lo:
        lo = h

    def good(v):
        return v == h or ok({r: v})
    if good(lo):
        low = lo
    else:
        bad, fine = lo, h            # good(bad) False, good(fine) True
        while fine - bad > 1:
            mid = (bad + fine) // 2
            if good(mid):
                fine = mid
            else:
                bad = mid
        low = fine
    if rng.upper != int_oo:
        top = rng.upper
        if good(top):
            return low, top
    else:
        fine, top = h, max(2 * h, h + 8)
        while good(top):
            if top > 1 << 16:
                return low, int_oo
            fine, top = top, 2 * top
    fine = max(h, low)
    bad = top
    while bad - fine > 1:
        mid = (fine + bad) // 2
        if good(mid):
            fine = mid
        else:
            bad = mid
    return low, fine


def _expr(a, sym, b):
    head = sym.name if a == 1 else f'{a}*{sym.name}'
    return head if b == 0 else f'{head} + {b}' if b > 0 else f'{head} - {-b}'


def _shape_exprs(graph, seen, hint):
    """``{node name: {dim: 'expr'}}``: the sizes of the captured values that change with
    the dynamic dimensions, written ``a*s + b`` in one symbol (found from the recaptures at
    other sizes; a size that no such expression fits is left out)."""
    from .._tensor import Tensor
    out = {}
    graphs = [list(g.nodes) for _, g in seen]
    for i, n in enumerate(graph.nodes):
        v = n.meta.get('val')
        if n.op == 'placeholder' or not isinstance(v, Tensor):
            continue
        dims = {}
        for d, size in enumerate(v.shape):
            others = []
            for (choice, _), nodes in zip(seen, graphs):
                w = nodes[i].meta.get('val')
                if not isinstance(w, Tensor) or w.dim() != v.dim():
                    others = None
                    break
                others.append((choice, w.shape[d]))
            if not others or all(o == size for _, o in others):
                continue
            for r, h in hint.items():
                fits = set()
                for choice, o in others:
                    dv = choice.get(r, h) - h
                    if dv == 0 or (o - size) % dv:
                        fits = None
                        break
                    fits.add((o - size) // dv)
                if fits and len(fits) == 1:
                    a = fits.pop()
                    if a > 0:
                        dims[d] = _expr(a, r, size - a * h)
                        break
        if dims:
            out[n.name] = dims
    return out


def _inverse(s, size):
    # s.fn(v) = a * v + b
    b = s.fn(0)
    a = s.fn(1) - b
    return (size - b) // a
