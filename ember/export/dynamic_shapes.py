"""``ember.export.dynamic_shapes``: which input dimensions of an exported program may vary.

A dimension is marked dynamic in ``export(..., dynamic_shapes=...)`` with a :class:`Dim`
(a named size with a range; the same ``Dim`` on two dimensions makes them equal), a
derived ``Dim`` (``2 * batch``, ``batch + 1``) or a hint (``Dim.AUTO``, ``Dim.DYNAMIC``;
``Dim.STATIC`` or an int keeps it fixed).
"""
from ..utils import _pytree as pytree

__all__ = ['Constraint', 'Dim', 'ShapesCollection', 'AdditionalInputs', 'dims',
           'refine_dynamic_shapes_from_suggested_fixes']

_DOCS = ('For more information about this error, see: '
         'https://pytorch.org/docs/main/generated/exportdb/index.html#dynamic-shapes-validation')


class ConstraintViolationError(RuntimeError):
    """The example inputs or the program contradict a dynamic-shape specification.

    NOTE: unlike PyTorch, where it lives in ``torch.fx.experimental.symbolic_shapes``.

    Example::

        >>> try:
        ...     ember.export.export(m, (ember.zeros(3),),
        ...                         dynamic_shapes=({0: ember.export.Dim('n', min=5)},))
        ... except ember.export.dynamic_shapes.ConstraintViolationError as e:
        ...     print(e)
        3 not in range [5, int_oo]
    """


def _user_error(msg, kind='INVALID_INPUT'):
    from .._dynamo.exc import UserError, UserErrorType
    return UserError(getattr(UserErrorType, kind), msg)


class _IntInfinity:
    """The unbounded upper end of a size range (printed ``int_oo``)."""
    __slots__ = ()

    def __repr__(self):
        return 'int_oo'

    __str__ = __repr__

    def __eq__(self, other):
        return isinstance(other, _IntInfinity)

    def __hash__(self):
        return hash('int_oo')

    def __gt__(self, other):
        return not isinstance(other, _IntInfinity)

    def __ge__(self, other):
        return True

    def __lt__(self, other):
        return False

    def __le__(self, other):
        return isinstance(other, _IntInfinity)


int_oo = _IntInfinity()


class ValueRanges:
    """An inclusive range of sizes, printed ``VR[lower, upper]``.

    Args:
        lower (int): the smallest size.
        upper (int or int_oo): the largest size.

    Example::

        >>> ember.export.dynamic_shapes.ValueRanges(2, 64)
        VR[2, 64]
    """

    def __init__(self, lower, upper):
        self.lower = lower
        self.upper = upper

    def __repr__(self):
        return f'VR[{self.lower}, {self.upper}]'

    def __eq__(self, other):
        return isinstance(other, ValueRanges) and (self.lower, self.upper) == \
            (other.lower, other.upper)

    def __hash__(self):
        return hash((self.lower, self.upper))

    def __contains__(self, v):
        return self.lower <= v and (self.upper == int_oo or v <= self.upper)


class Symbol:
    """The symbol of a dynamic size in an exported program (a key of
    ``range_constraints``), printed by its name (``s0``), or an expression of one
    (``s0 + 1``, ``2*s0``).

    NOTE: unlike PyTorch, not a sympy symbol; symbols are numbered ``s0, s1, ...`` in the
    order the dynamic dimensions appear (PyTorch's numbers come from a hash of the source).

    Args:
        name (str): its printed form.

    Example::

        >>> ember.export.dynamic_shapes.Symbol('s0')
        s0
    """

    def __init__(self, name, root=None, fn=None):
        self.name = name
        self.root = root
        self.fn = fn
        self.dim_name = None        # the Dim's name, for messages
        self.hint_kind = None       # 'AUTO' / 'DYNAMIC' for Dim hints

    def __repr__(self):
        return self.name

    __str__ = __repr__

    def __eq__(self, other):
        return isinstance(other, Symbol) and self.name == other.name

    def __hash__(self):
        return hash(self.name)


class _DimHint:
    """``Dim.AUTO``, ``Dim.STATIC`` or ``Dim.DYNAMIC``."""

    def __init__(self, kind):
        self.type = kind

    def __repr__(self):
        return f'DimHint({self.type})'

    def __call__(self, min=None, max=None):
        h = _DimHint(self.type)
        h.min, h.max = min, max
        return h

    min = max = None


class Dim:
    """A dynamic dimension for ``export(..., dynamic_shapes=...)``: a named size in
    ``[min, max]``. The same ``Dim`` on several dimensions makes them equal; ``2 * d`` and
    ``d + 1`` are derived dimensions.

    ``Dim.AUTO`` lets export decide (dynamic here, as in PyTorch when the program does not
    specialize it), ``Dim.DYNAMIC`` asks for a dynamic dimension, ``Dim.STATIC`` a fixed one.

    Args:
        name (str): its name (used in messages).
        min (int, optional): the smallest size. Default: 0
        max (int, optional): the largest size. Default: unbounded

    Example::

        >>> batch = ember.export.Dim('batch', min=2, max=64)
        >>> ep = ember.export.export(model, (x,), dynamic_shapes={'x': {0: batch}})
    """
    AUTO = _DimHint('AUTO')
    STATIC = _DimHint('STATIC')
    DYNAMIC = _DimHint('DYNAMIC')

    def __init__(self, name, *, min=None, max=None):
        lo = 0 if min is None else min
        hi = int_oo if max is None else max
        if hi != int_oo and not hi >= lo:
            raise AssertionError(f'Cannot create Dim with inconsistent min={min}, max={max}')
        if not str(name).isidentifier():
            raise AssertionError(f'Dim name must be a valid identifier, got {name}')
        self.__name__ = name
        self.min = lo
        self.max = hi

    def __repr__(self):
        parts = [repr(self.__name__)]
        if self.min != 2:
            parts.append(f'min={self.min}')
        if self.max != int_oo:
            parts.append(f'max={self.max}')
        return f"Dim({', '.join(parts)})"

    def _derive(self, name, fn, inverse):
        return _DerivedDim(name, self, fn, inverse)

    def __add__(self, other):
        if type(other) is not int:
            raise NotImplementedError(f'Attempted to add {other} to {self.__name__}, where '
                                      'an integer was expected. (Only increasing linear '
                                      'operations with integer coefficients are supported.)')
        return self._derive(f'{self.__name__} + {other}', lambda v: v + other,
                            lambda v: v - other)

    __radd__ = __add__

    def __sub__(self, other):
        if type(other) is not int:
            raise NotImplementedError(f'Attempted to subtract {other} from {self.__name__}, '
                                      'where an integer was expected. (Only increasing '
                                      'linear operations with integer coefficients are '
                                      'supported.)')
        return self._derive(f'{self.__name__} - {other}', lambda v: v - other,
                            lambda v: v + other)

    def __rsub__(self, other):
        raise NotImplementedError(f'Attempted to negate {self.__name__}. (Only increasing '
                                  'linear operations with integer coefficients are '
                                  'supported.)')

    def __mul__(self, other):
        if type(other) is not int or other <= 0:
            raise NotImplementedError(f'Attempted to multiply {other} with {self.__name__}, '
                                      'where a positive integer was expected. (Only '
                                      'increasing linear operations with integer '
                                      'coefficients are supported.)')
        return self._derive(f'{other}*{self.__name__}', lambda v: v * other,
                            lambda v: v // other if v % other == 0 else None)

    __rmul__ = __mul__

    def __eq__(self, other):
        return self is other or (type(self) is type(other) and
                                 self.__name__ == other.__name__ and
                                 (self.min, self.max) == (other.min, other.max))

    def __hash__(self):
        return hash((self.__name__, self.min))


class _DerivedDim(Dim):
    """A dimension computed from a root :class:`Dim` (``2 * d``, ``d + 1``)."""

    def __init__(self, name, root, fn, inverse):
        self.__name__ = name
        self.root = root
        self.fn = fn
        self.inverse = inverse
        self.min = fn(root.min)
        self.max = int_oo if root.max == int_oo else fn(root.max)

    def __repr__(self):
        return self.__name__

    def _derive(self, name, fn, inverse):
        f, inv = self.fn, self.inverse

        def inverse2(v):
            r = inverse(v)
            return None if r is None else inv(r)
        return _DerivedDim(name.replace(self.__name__, f'({self.__name__})'), self.root,
                           lambda v: fn(f(v)), inverse2)


def dims(*names, min=None, max=None):
    """Several :class:`Dim` at once, with the same range.

    Args:
        names (str): their names.
        min (int, optional), max (int, optional): their range.

    Returns:
        tuple of Dim.

    Example::

        >>> h, w = ember.export.dims('h', 'w', min=2, max=512)
    """
    return tuple(Dim(n, min=min, max=max) for n in names)


Constraint = Dim
"""The type accepted where a dynamic dimension is specified (an alias of :class:`Dim`)."""


class ShapesCollection:
    """Dynamic shapes given per tensor (``sc[x] = {0: batch}``) rather than per argument;
    :meth:`dynamic_shapes` turns them into the argument structure ``export`` takes.

    Example::

        >>> sc = ember.export.ShapesCollection()
        >>> sc[x] = {0: ember.export.Dim('batch')}
        >>> ep = ember.export.export(m, (x,), dynamic_shapes=sc.dynamic_shapes(m, (x,)))
    """

    def __init__(self):
        self._shapes = {}

    def __setitem__(self, t, shape):
        from .._tensor import Tensor
        if not isinstance(t, Tensor):
            raise AssertionError(f'Cannot assign shape to non-tensor type {type(t)}')
        self._shapes[id(t)] = shape

    def __getitem__(self, t):
        return self._shapes.setdefault(id(t), {})

    def __len__(self):
        return len(self._shapes)

    def dynamic_shapes(self, m, args, kwargs=None):
        """The ``dynamic_shapes`` argument for ``export(m, args, kwargs)``.

        Args:
            m (Module): the module.
            args (tuple), kwargs (dict, optional): the example inputs.
        """
        from .._tensor import Tensor
        used = set()

        def spec(v):
            if isinstance(v, Tensor) and id(v) in self._shapes:
                used.add(id(v))
                return self._shapes[id(v)]
            return None
        res = pytree.tree_map(spec, (tuple(args), dict(kwargs or {})))
        if set(self._shapes) - used:
            raise ValueError('Some tensors that were assigned shapes were not found in '
                             'args. Maybe such tensors were copied when passing them as '
                             'args? Maybe such tensors are contained in classes that were '
                             'not registered with pytree?')
        return _by_name(m, args, kwargs, list(res[0]) + list(res[1].values()))


class AdditionalInputs:
    """Dynamic shapes inferred from several sets of example inputs: a dimension whose size
    differs between them is dynamic (``Dim.DYNAMIC``), the others static.

    Example::

        >>> ai = ember.export.AdditionalInputs()
        >>> ai.add((ember.zeros(2, 4),)); ai.add((ember.zeros(5, 4),))
        >>> ep = ember.export.export(m, (ember.zeros(3, 4),), dynamic_shapes=ai)
    """

    def __init__(self):
        self._examples = []

    def add(self, args, kwargs=None):
        """Add one set of example inputs.

        Args:
            args (tuple): positional inputs.
            kwargs (dict, optional): keyword inputs.
        """
        if not isinstance(args, tuple):
            raise AssertionError(f'Representative args {args} must be a tuple')
        if kwargs is not None and not isinstance(kwargs, dict):
            raise AssertionError(f'Representative kwargs {kwargs} must be None or a dict')
        self._examples.append((args, kwargs or {}))

    def dynamic_shapes(self, m, args, kwargs=None):
        """The ``dynamic_shapes`` argument inferred from the added inputs and ``args``.

        Args:
            m (Module): the module.
            args (tuple), kwargs (dict, optional): the example inputs of ``export``.
        """
        from .._tensor import Tensor
        leaves, spec = pytree.tree_flatten((tuple(args), dict(kwargs or {})))
        others = []
        for a, k in self._examples:
            ls, sp = pytree.tree_flatten((tuple(a), dict(k)))
            if sp != spec:
                raise ValueError('Expected additional inputs to have the same structure as '
                                 'the example inputs')
            others.append(ls)
        out = []
        for i, v in enumerate(leaves):
            if isinstance(v, Tensor):
                out.append(tuple(Dim.DYNAMIC if any(o[i].shape[j] != n for o in others)
                                 else None for j, n in enumerate(v.shape)))
            else:
                out.append(None)
        res = pytree.tree_unflatten(out, spec)
        return _by_name(m, args, kwargs, list(res[0]) + list(res[1].values()))

    def verify(self, ep):
        """Check that ``ep`` runs on every added set of inputs (through ``ep.module()``).

        Args:
            ep (ExportedProgram): the program exported with these dynamic shapes.
        """
        m = ep.module()
        for a, k in self._examples:
            m(*a, **k)


def _by_name(m, args, kwargs, specs):
    """The per-argument specs as a dict keyed by the forward's argument names."""
    from . import _input_names
    names = _input_names(m, tuple(args), dict(kwargs or {})) if m is not None else \
        [str(i) for i in range(len(specs))]
    return dict(zip(names, specs)) if m is not None else tuple(specs)


def refine_dynamic_shapes_from_suggested_fixes(msg, dynamic_shapes):
    """Apply the fixes a constraint-violation message suggests (``b = a``) to
    ``dynamic_shapes``.

    Args:
        msg (str): the error message, with its ``Suggested fixes:`` section.
        dynamic_shapes: the specification that failed.

    Example::

        >>> shapes = refine_dynamic_shapes_from_suggested_fixes(str(err), shapes)
    """
    fixes = {}
    if 'Suggested fixes:' in msg:
        for line in msg.split('Suggested fixes:', 1)[1].strip().splitlines():
            if '=' in line:
                k, v = (s.strip() for s in line.split('=', 1))
                fixes[k] = v
    roots = {}
    for leaf in pytree.tree_leaves(dynamic_shapes, is_leaf=lambda s: isinstance(s, Dim)):
        if isinstance(leaf, Dim):
            roots[leaf.__name__] = leaf

    def fix(s):
        if isinstance(s, Dim) and s.__name__ in fixes:
            v = fixes[s.__name__]
            if v.lstrip('-').isdigit():
                return int(v)
            return roots.get(v, s)
        return s
    return pytree.tree_map(fix, dynamic_shapes, is_leaf=lambda s: isinstance(s, (Dim, _DimHint)))


# -- processing the spec for export ---------------------------------------------------------
def process(dynamic_shapes, arg_names, args, kwargs):
    """Validate ``dynamic_shapes`` against the inputs; return
    ``(per_leaf, symbols, srcs)``: for each leaf index of ``(args, kwargs)`` with dynamic
    dims a dict ``{dim: Symbol}``, ``{Symbol: ValueRanges}`` (the range constraints), and
    each leaf's source text (``L['x']``).

    The error types and messages are PyTorch's (``UserError``, ``ConstraintViolationError``).
    """
    from .._tensor import Tensor
    inputs = list(args) + list(kwargs.values())
    names = list(arg_names)
    if dynamic_shapes is None:
        return {}, {}, {}
    if isinstance(dynamic_shapes, (ShapesCollection, AdditionalInputs)):
        dynamic_shapes = dict(zip(names, dynamic_shapes.dynamic_shapes(None, args, kwargs)))
    if isinstance(dynamic_shapes, dict):
        if list(dynamic_shapes) != names and sorted(dynamic_shapes) != sorted(names):
            raise _user_error(
                'When `dynamic_shapes` is specified as a dict, its top-level keys must be '
                f'the arg names {names} of `inputs`, but here they are '
                f'{list(dynamic_shapes)}. Alternatively, you could also ignore arg names '
                'entirely and specify `dynamic_shapes` as a list/tuple matching `inputs`. '
                + _DOCS)
        per_input = [(dynamic_shapes[n], f'[{n!r}]', f'L[{n!r}]') for n in names]
    elif isinstance(dynamic_shapes, (list, tuple)):
        if len(dynamic_shapes) != len(inputs):
            raise _user_error(
                'Detected mismatch between the structure of `inputs` and `dynamic_shapes`: '
                f'`inputs` has {len(inputs)} elements, but `dynamic_shapes` has '
                f'{len(dynamic_shapes)} elements\n' + _DOCS)
        per_input = [(s, f'[{i}]', f'L[{n!r}]') for i, (s, n) in
                     enumerate(zip(dynamic_shapes, names))]
    else:
        raise _user_error(f'Unexpected type {type(dynamic_shapes)} for `dynamic_shapes`: '
                          'expected a dict, a tuple or a list\n' + _DOCS)

    leaves = []          # (tensor, spec, path) in flattening order
    for value, (spec, path, src) in zip(inputs, per_input):
        _match(value, spec, 'dynamic_shapes' + path, src, leaves)

    symbols = {}         # Symbol -> ValueRanges
    by_root = {}         # Dim name -> (Dim, Symbol, (leaf, dim, size))
    per_leaf = {}
    counter = [0]

    def fresh(dim):
        s = Symbol(f's{counter[0]}')
        counter[0] += 1
        s.dim_name = dim.__name__ if isinstance(dim, Dim) else None
        s.hint_kind = dim.type if isinstance(dim, _DimHint) else None
        return s

    for idx, (t, spec, path, src) in enumerate(leaves):
        if not isinstance(t, Tensor) or spec is None:
            continue
        shape = tuple(t.shape)
        if isinstance(spec, (list, tuple)):
            if len(spec) != len(shape):
                raise _user_error(
                    f'Expected dynamic shape spec {spec!r} specified at `{path}` to have the '
                    f'same length as the actual tensor shape torch.Size({list(shape)}) '
                    f'(expected {len(shape)}, but got {len(spec)} instead)\n' + _DOCS)
            items = list(enumerate(spec))
        elif isinstance(spec, dict):
            items = list(spec.items())
            for d, _ in items:
                if not isinstance(d, int) or not -len(shape) <= d < len(shape):
                    raise IndexError('list assignment index out of range')
        else:
            raise _user_error(
                f'Unexpected input tensor shape {spec!r} specified at `{path}` (expected '
                'either a list/tuple of dimensions, or a dict mapping indices to '
                'dimensions, where each dimension is an int, a Dim, Dim.AUTO, Dim.STATIC, '
                'or Dim.DYNAMIC)\n' + _DOCS)
        dyn = {}
        for d, v in items:
            if not (v is None or type(v) is int or isinstance(v, (Dim, _DimHint))):
                raise _user_error(
                    f'Unexpected dimension mapped to index {d} in input tensor shape '
                    f'{spec!r} specified at `{path}` (expected None, an int, a Dim, '
                    f'Dim.AUTO, Dim.STATIC, or Dim.DYNAMIC,  but got {v!r} instead)\n' + _DOCS)
            d = d % len(shape)
            size = shape[d]
            where = f'{src}.size()[{d}]'
            if v is None or (isinstance(v, _DimHint) and v.type == 'STATIC'):
                continue
            if type(v) is int:
                if v != size:
                    raise ConstraintViolationError(
                        f'Static shape constraint of {v} does not match input size of '
                        f'{size}, for {where}')
                continue
            if isinstance(v, _DimHint):
                s = fresh(v)
                lo = 2 if v.min is None else v.min
                hi = int_oo if v.max is None else v.max
                symbols[s] = ValueRanges(lo, hi)
                dyn[d] = s
                continue
            root = v.root if isinstance(v, _DerivedDim) else v
            prev = by_root.get(root.__name__)
            if prev is not None and prev[0] != root:
                raise _user_error(
                    f'Found different definitions {prev[0]!r} and {root!r} for the same '
                    f'symbolic dimension {root!r}!')
            if isinstance(v, _DerivedDim):
                rv = v.inverse(size)
                if rv is None:
                    raise _user_error(
                        f'Expected shape[{d}] = {size} of input Tensor to be of the form '
                        f'{v.__name__}, where {root.__name__} is an integer')
                rsize = rv
            else:
                rsize = size
            if prev is None:
                if not (root.min <= rsize and (root.max == int_oo or rsize <= root.max)):
                    raise ConstraintViolationError(
                        f'{rsize} not in range [{max(root.min, 2)}, {root.max}]')
                sym = fresh(root)
                symbols[sym] = ValueRanges(root.min, root.max)
                by_root[root.__name__] = (root, sym, rsize, where)
            else:
                sym, psize, pwhere = prev[1], prev[2], prev[3]
                if rsize != psize:
                    raise _user_error(f'{where} = {size} is not equal to {pwhere} = '
                                      f'{v.fn(psize) if isinstance(v, _DerivedDim) else psize}',
                                      'CONSTRAINT_VIOLATION')
            if isinstance(v, _DerivedDim):
                expr = _derived_symbol(v, sym)
                symbols.setdefault(expr, ValueRanges(
                    v.fn(symbols[sym].lower),
                    int_oo if symbols[sym].upper == int_oo else v.fn(symbols[sym].upper)))
                dyn[d] = expr
            else:
                dyn[d] = sym
        if dyn:
            per_leaf[idx] = dyn
    srcs = {i: leaf[3] for i, leaf in enumerate(leaves)}
    return per_leaf, symbols, srcs


def _derived_symbol(v, sym):
    name = v.__name__.replace(v.root.__name__, sym.name)
    return Symbol(name, sym, v.fn)


def _match(value, spec, path, src, acc):
    """Walk an input and its spec together, appending ``(leaf, spec, path)`` per leaf."""
    from .._tensor import Tensor
    if isinstance(value, Tensor):
        acc.append((value, spec, path, src))
        return
    if pytree.tree_is_leaf(value):
        acc.append((value, None, path, src))
        return
    children, ctx = pytree.tree_flatten(value)
    if spec is None or isinstance(spec, (_DimHint,)):
        for leaf in children:
            acc.append((leaf, None, path, src))
        return
    if isinstance(value, dict):
        if not isinstance(spec, dict) or set(spec) != set(value):
            raise _user_error(f'Detected mismatch between the structure of `inputs` and '
                              f'`dynamic_shapes`: `inputs{path[len("dynamic_shapes"):]}` has '
                              f'keys {list(value)}, but `{path}` has keys '
                              f'{list(spec) if isinstance(spec, dict) else spec}\n' + _DOCS)
        for k in value:
            _match(value[k], spec[k], f'{path}[{k!r}]', f'{src}[{k!r}]', acc)
        return
    if isinstance(value, (list, tuple)):
        if not isinstance(spec, (list, tuple)) or len(spec) != len(value):
            raise _user_error(
                'Detected mismatch between the structure of `inputs` and `dynamic_shapes`: '
                f'`inputs{path[len("dynamic_shapes"):]}` has {len(value)} elements, but '
                f'`{path}` has {len(spec) if isinstance(spec, (list, tuple)) else spec} '
                'elements\n' + _DOCS)
        for i, (v, s) in enumerate(zip(value, spec)):
            _match(v, s, f'{path}[{i}]', f'{src}[{i}]', acc)
        return
    for leaf in children:
        acc.append((leaf, None, path, src))
