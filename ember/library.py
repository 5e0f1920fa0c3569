"""``ember.library``: user-defined operators, and ``ember.ops``, the namespace they live in.

An operator has a qualified name ``"namespace::name"``, a schema (its arguments' types, which
of them it mutates, its returns), kernels per device type, optionally a fake kernel (run on
``meta`` tensors, to compute output shapes and dtypes) and an autograd formula. Two ways to
make one, as in PyTorch: :func:`custom_op` (the schema is inferred from the function's type
annotations) and :class:`Library` (``define`` a schema string, ``impl`` kernels). Every
operator is reachable as ``ember.ops.<namespace>.<name>``; ``ember.ops.aten.<name>`` gives
ember's own function of that name.

NOTE: unlike PyTorch, ember has no dispatcher: a call runs the kernel of the first tensor
argument's device type (the fake kernel for ``meta`` tensors), with autograd around it when
a formula is registered. There is no compiler, so fake kernels only serve ``meta`` tensors.
"""
import ast
import collections.abc
import inspect
import typing

__all__ = ['Library', 'custom_op', 'define', 'impl', 'impl_abstract', 'infer_schema',
           'register_autograd', 'register_fake', 'register_kernel', 'CustomOpDef', 'ops']

_OPS = {}                # "ns::name" -> _Op
_NO_DEFAULT = object()    # a schema argument without a default
_DEFINED_NAMESPACES = {}  # ns -> the Library(kind='DEF') that owns it


# ------------------------------------------------------------------ schemas
def _tensor_cls():
    from ._tensor import Tensor
    return Tensor


def _type_table():
    """Python annotation -> schema type name (arguments)."""
    from . import _dtype
    from ._device import device
    T = _tensor_cls()
    scalar = typing.Union[int, float, bool]
    table = {}

    def seqs(tp):
        return (typing.Sequence[tp], typing.List[tp], collections.abc.Sequence[tp], list[tp])
    for py, name in ((int, 'SymInt'), (float, 'float'), (bool, 'bool'), (scalar, 'Scalar')):
        table[py] = name
        table[typing.Optional[py]] = name + '?'
        for s in seqs(py):
            table[s] = name + '[]'
            table[typing.Optional[s]] = name + '[]?'
    table[T] = 'Tensor'
    table[typing.Optional[T]] = 'Tensor?'
    for s in seqs(T):
        table[s] = 'Tensor[]'
    for s in seqs(typing.Optional[T]):
        table[s] = 'Tensor?[]'
    for py, name in ((str, 'str'), (_dtype.dtype, 'ScalarType'), (device, 'Device')):
        table[py] = name
        table[typing.Optional[py]] = name + '?'
    return table


def _return_table():
    T = _tensor_cls()
    return {T: 'Tensor', typing.List[T]: 'Tensor[]', list[T]: 'Tensor[]', int: 'SymInt',
            float: 'float', bool: 'bool', typing.Union[int, float, bool]: 'Scalar'}


def _default_text(v):
    if v is None or isinstance(v, (bool, int, float)):
        return repr(v)
    if isinstance(v, str):
        return '"' + v + '"'
    return None


def infer_schema(prototype_function, /, *, mutates_args, op_name=None):
    """The operator schema of a type-annotated Python function, as a string:
    ``"(Tensor x, SymInt n=2) -> Tensor"`` (prefixed with ``op_name`` if given).

    Args:
        prototype_function (Callable): every parameter and the return annotated
            (``Tensor``, ``Optional[Tensor]``, ``List[Tensor]``, ``int``, ``float``,
            ``bool``, ``str``, sequences and optionals of those, ``dtype``, ``device``).
        mutates_args (Iterable[str] or "unknown"): the parameters the function writes
            in place (``"unknown"``: every Tensor parameter).
        op_name (str, optional): the name to put in front.

    Raises:
        ValueError: for a missing or unsupported annotation, ``*args``/``**kwargs``, an
            unsupported default, or a mutated parameter that is not a Tensor.

    Example::

        >>> def f(x: ember.Tensor, n: int = 2) -> ember.Tensor: ...
        >>> ember.library.infer_schema(f, mutates_args=())
        '(Tensor x, SymInt n=2) -> Tensor'
    """
    sig = inspect.signature(prototype_function)

    def fail(what):
        raise ValueError(f"infer_schema(func): {what} Got func with signature {sig})")
    if mutates_args != 'unknown':
        if isinstance(mutates_args, str) or not isinstance(mutates_args,
                                                           collections.abc.Iterable):
            raise ValueError("mutates_args must either be a sequence of the names of the "
                             "arguments that are mutated or the string 'unknown'. ")
        mutates_args = set(mutates_args)
    try:
        hints = typing.get_type_hints(prototype_function)
    except Exception:       # noqa: BLE001 - unresolvable string annotations: use the raw ones
        hints = {}
    table = _type_table()
    params, seen_kwonly, used = [], False, set()
    for i, (name, p) in enumerate(sig.parameters.items()):
        if p.kind not in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
            fail("We do not support positional-only args, varargs, or varkwargs.")
        ann = hints.get(name, p.annotation)
        if ann is p.empty:
            fail(f"Parameter {name} must have a type annotation.")
        if ann not in table:
            fail(f"Parameter {name} has unsupported type {ann}. The valid types are: "
                 f"{list(table)}.")
        ty = table[ann]
        if p.kind == p.KEYWORD_ONLY and not seen_kwonly:
            params.append('*')
            seen_kwonly = True
        mutated = (mutates_args == 'unknown' and ty.startswith('Tensor')) or (
            mutates_args != 'unknown' and name in mutates_args)
        if mutated:
            if not ty.startswith('Tensor'):
                fail(f"Parameter {name} is in mutable_args but only Tensors or collections "
                     f"of Tensors can be mutated")
            used.add(name)
            ty = f"Tensor(a{i}!)" + ty[len('Tensor'):]
        text = f"{ty} {name}"
        if p.default is not p.empty:
            d = _default_text(p.default)
            if d is None:
                fail(f"Parameter {name} has an unsupported default value type "
                     f"{type(p.default)}. Please file an issue on GitHub so we can prioritize "
                     f"this.")
            text += '=' + d
        params.append(text)
    if mutates_args != 'unknown' and mutates_args - used:
        fail(f"{mutates_args - used} in mutates_args were not found in the custom op's "
             "signature. mutates_args should contain the names of all args that the custom "
             "op mutates, or just the string 'unknown' if you don't know.")
    ret = hints.get('return', sig.return_annotation)
    if ret is sig.empty:
        fail("No return type annotation was provided. Please add one.")
    rtable = _return_table()
    if ret is None or ret is type(None):
        rets = '()'
    elif typing.get_origin(ret) in (tuple, typing.Tuple):
        parts = []
        for a in typing.get_args(ret):
            if a not in rtable:
                fail(f"Return has unsupported type {a}. The valid types are: {rtable}.")
            parts.append(rtable[a])
        rets = '(' + ', '.join(parts) + ')'
    elif ret in rtable:
        rets = rtable[ret]
    else:
        fail(f"Return has unsupported type {ret}. The valid types are: {rtable}.")
    schema = f"({', '.join(params)}) -> {rets}"
    return (op_name + schema) if op_name is not None else schema


def _parse_schema(text):
    """``name(args) -> returns`` (or ``(args) -> returns``) -> (name, [(type, name,
    mutable, default or _NO_DEFAULT, kwonly)], returns)."""
    text = text.strip()
    open_at = text.index('(')
    name = text[:open_at].strip()
    depth, close_at = 0, None
    for i in range(open_at, len(text)):
        c = text[i]
        if c == '(':
            depth += 1
        elif c == ')':
            depth -= 1
            if depth == 0:
                close_at = i
                break
    if close_at is None or '->' not in text[close_at:]:
        raise RuntimeError(f"Could not parse the schema {text!r}")
    args, kwonly, part, depth = [], False, '', 0
    body = text[open_at + 1:close_at]
    pieces = []
    for c in body + ',':
        if c in '([':
            depth += 1
        elif c in ')]':
            depth -= 1
        if c == ',' and depth == 0:
            if part.strip():
                pieces.append(part.strip())
            part = ''
        else:
            part += c
    for piece in pieces:
        if piece == '*':
            kwonly = True
            continue
        decl, eq, default = piece.partition('=')
        ty, _, aname = decl.strip().rpartition(' ')
        value = _NO_DEFAULT
        if eq:
            try:
                value = ast.literal_eval(default.strip())
            except (ValueError, SyntaxError):
                value = default.strip()
        args.append((ty, aname, '!' in ty, value, kwonly))
    return name, args, text[close_at + 1:].split('->', 1)[1].strip()


# ------------------------------------------------------------------ the operator
def _alias_error(name):
    return RuntimeError(
        f"{name} (with implementation in {__name__}): The output of this custom operator (1) "
        "must not also be an input to this custom operator and (2) may not alias any inputs "
        "to this custom operator or other returns. The most common way to trigger this error "
        "is if we have y = custom_op(x) and y and x are the same Tensor. Please instead "
        "return a clone of the offending output tensor(s) (e.g. return x.clone()) or "
        "refactor the custom operator to not return y.")


def _is_default(v, default):
    if default is _NO_DEFAULT:
        return False
    if v is default:
        return True
    return type(v) in (bool, int, float, str) and type(v) is type(default) and v == default


def _tensors(values):
    T = _tensor_cls()
    for v in values:
        if isinstance(v, T):
            yield v
        elif isinstance(v, (list, tuple)):
            yield from (x for x in v if isinstance(x, T))


class _Op:
    """One operator: its schema, kernels, fake kernel and autograd formula."""

    def __init__(self, qualname, schema_text, *, composite_kernels=False):
        self.qualname = qualname
        self.ns, self.name = qualname.split('::')
        _, self.args, self.returns = _parse_schema(self.name + schema_text
                                                   if schema_text.startswith('(')
                                                   else schema_text)
        self.schema = schema_text
        self.kernels = {}            # device type (or None: any) -> fn
        self.fake = None
        self.backward = self.setup_context = None
        self.composite = composite_kernels   # Library.impl kernels: autograd traces through
        self._function = None

    # -- binding
    def _bind(self, args, kwargs):
        """All arguments in schema order, schema defaults filled in."""
        if len(args) > len(self.args):
            raise TypeError(f"{self.qualname}() takes {len(self.args)} arguments but "
                            f"{len(args)} were given")
        values = list(args)
        for ty, name, _, default, _ in self.args[len(values):]:
            if name in kwargs:
                values.append(kwargs.pop(name))
            elif default is not _NO_DEFAULT:
                values.append(default)
            else:
                raise RuntimeError(f"{self.qualname}() is missing value for argument "
                                   f"'{name}'. Declaration: {self.qualname}"
                                   f"{self.schema[self.schema.index('('):]}")
        if kwargs:
            raise TypeError(f"{self.qualname}() got an unexpected keyword argument "
                            f"'{next(iter(kwargs))}'")
        return values

    def _kernel_for(self, values):
        dev = next((t.device.type for t in _tensors(values)), 'cpu')
        if dev == 'meta':
            if self.fake is None:
                raise RuntimeError(f"There was no fake impl registered for "
                                   f"<CustomOpDef({self.qualname})>. This is necessary for "
                                   "torch.compile/export/fx tracing to work. Please use "
                                   "`register_fake` to add an fake impl.")
            return self.fake
        k = self.kernels.get(dev, self.kernels.get(None))
        if k is None:
            raise NotImplementedError(
                f"Could not run '{self.qualname}' with arguments from the "
                f"'{dev.upper()}' backend. This could be because the operator doesn't exist "
                "for this backend, or was omitted during the selective/custom build process "
                "(if using custom build).")
        return k

    def _run_kernel(self, kernel, values):
        pos, kw = [], {}
        for (ty, name, mut, default, kwonly), v in zip(self.args, values):
            if kwonly:          # keyword-only schema arguments are passed by keyword
                if not (self.composite and _is_default(v, default)):
                    kw[name] = v
            else:
                pos.append(v)
        if self.composite:      # as PyTorch's dispatcher: trailing defaults are left out
            n = len(pos)
            while n and _is_default(pos[n - 1], self.args[n - 1][3]):
                n -= 1
            pos = pos[:n]
        out = kernel(*pos, **kw)
        for (ty, name, mut, _, _), v in zip(self.args, values):
            if mut:
                for t in _tensors([v]):
                    t._bump()
        if out is not None and not self.composite:
            T = _tensor_cls()
            outs = [out] if isinstance(out, T) else [
                o for o in (out if isinstance(out, (tuple, list)) else ()) if isinstance(o, T)]
            ins = {id(t._storage_obj()) for t in _tensors(values)}
            seen = set()
            for o in outs:
                key = id(o._storage_obj())
                if key in ins or key in seen:
                    raise _alias_error(self.name)
                seen.add(key)
        return out

    def __call__(self, *args, **kwargs):
        from .autograd import grad_mode
        values = self._bind(args, dict(kwargs))
        kernel = self._kernel_for(values)
        if self.composite or kernel is self.fake:
            return self._run_kernel(kernel, values)
        if not (grad_mode.is_grad_enabled() and any(t.requires_grad
                                                    for t in _tensors(values))):
            with grad_mode.no_grad():
                return self._run_kernel(kernel, values)
        return self._function_class().apply(self, kernel, *values)

    def _function_class(self):
        """The ``autograd.Function`` that runs this operator when an input requires grad:
        its node is ``GeneratedBackwardFor_<ns>_<name>_defaultBackward``, as PyTorch's."""
        if self._function is None:
            from .autograd.function import Function

            def forward(op, kernel, *values):
                return op._run_kernel(kernel, values)

            def setup_context(ctx, inputs, output):
                op = inputs[0]
                ctx._op = op
                if op.setup_context is not None:
                    op.setup_context(ctx, tuple(inputs[2:]), output)

            def backward(ctx, *grads):
                op = ctx._op
                if op.backward is None:
                    raise RuntimeError(f"Trying to backward through {op.ns}.{op.name}.default "
                                       "but no autograd formula was registered. Please use "
                                       "register_autograd to add one.")
                res = op.backward(ctx, *grads)
                if not isinstance(res, tuple):
                    res = (res,)
                if len(res) != len(op.args):
                    raise RuntimeError(
                        f"{op.qualname}: expected the backward formula to return "
                        f"{len(op.args)} gradients (one per input), got {len(res)}")
                return (None, None) + res
            name = f"GeneratedBackwardFor_{self.ns}_{self.name}_default"
            self._function = type(name, (Function,), {
                'forward': staticmethod(forward), 'setup_context': staticmethod(setup_context),
                'backward': staticmethod(backward)})
        return self._function


def _provided_namespace(ns):
    """Register the operators ember writes in Python for a library whose compiled
    operators cannot load under ember (``torchvision``), on first use of its namespace."""
    if ns == 'torchvision':
        from . import _vision_ops
        _vision_ops.register()


def _lookup(op):
    """The ``_Op`` of a qualified name, a :class:`CustomOpDef` or an ``ember.ops`` entry."""
    if isinstance(op, CustomOpDef):
        return op._op
    if isinstance(op, (OpOverload, OpOverloadPacket)) and op._op is not None:
        return op._op
    if isinstance(op, str):
        if op not in _OPS:
            _provided_namespace(op.partition('::')[0])
        if op not in _OPS:
            raise ValueError(f"operator {op} does not exist; define it first (custom_op or "
                             "Library.define)")
        return _OPS[op]
    raise TypeError(f"expected an operator name, CustomOpDef or OpOverload, got "
                    f"{type(op).__name__}")


def _register(qualname, op):
    if qualname in _OPS:
        raise RuntimeError(f"Tried to register an operator ({qualname}) with the same name "
                           "and overload name multiple times.")
    _OPS[qualname] = op


# ------------------------------------------------------------------ custom_op
class CustomOpDef:
    """An operator made by :func:`custom_op`: call it like the function it wraps; add
    per-device kernels, a fake kernel and an autograd formula with its ``register_*``
    methods.

    Example::

        >>> @ember.library.custom_op("mylib::double", mutates_args=())
        ... def double(x: ember.Tensor) -> ember.Tensor:
        ...     return x * 2
        >>> double(ember.ones(2))
        tensor([2., 2.])
    """

    def __init__(self, op, fn):
        self._op = op
        self._init_fn = fn

    def __repr__(self):
        return f"<CustomOpDef({self._op.qualname})>"

    def __call__(self, *args, **kwargs):
        return self._op(*args, **kwargs)

    @property
    def _opoverload(self):
        return getattr(getattr(ops, self._op.ns), self._op.name).default

    def register_kernel(self, device_types, fn=None, /):
        """Use ``fn`` for tensors of ``device_types`` (``"cpu"``, ``"cuda"``, a list, or
        None for every device); decorator form when ``fn`` is omitted.

        Example::

            >>> @double.register_kernel("cpu")
            ... def _(x):
            ...     return x + x
        """
        def reg(f):
            types = [device_types] if device_types is None or isinstance(
                device_types, str) else list(device_types)
            for t in types:
                self._op.kernels[t] = f
            return f
        return reg if fn is None else reg(fn)

    def register_fake(self, fn, /):
        """The fake kernel: given ``meta`` tensors, returns outputs of the right shape and
        dtype (e.g. ``ember.empty_like(x)``) without computing values.

        Example::

            >>> @double.register_fake
            ... def _(x):
            ...     return ember.empty_like(x)
        """
        self._op.fake = fn
        return fn

    def register_autograd(self, backward, /, *, setup_context=None):
        """The autograd formula: ``setup_context(ctx, inputs, output)`` saves what the
        backward needs; ``backward(ctx, *grad_outputs)`` returns one gradient per input
        (``None`` for non-differentiable ones).

        Example::

            >>> double.register_autograd(lambda ctx, g: g * 2)
        """
        if not callable(backward):
            raise TypeError("backward must be a callable")
        self._op.backward = backward
        self._op.setup_context = setup_context


def custom_op(name, fn=None, /, *, mutates_args, device_types=None, schema=None, tags=None):
    """Make a Python function an operator ``ember.ops.<namespace>.<name>``.

    Args:
        name (str): ``"namespace::name"``.
        fn (Callable, optional): the implementation (decorator form when omitted); its
            parameters and return must be annotated, unless ``schema`` is given.
        mutates_args (Iterable[str] or "unknown"): the parameters it writes in place.
        device_types (str or list, optional): the device types ``fn`` serves (default:
            all).
        schema (str, optional): the schema, instead of inferring it.

    Returns:
        CustomOpDef

    Example::

        >>> @ember.library.custom_op("mylib::scale", mutates_args=())
        ... def scale(x: ember.Tensor, s: float) -> ember.Tensor:
        ...     return x * s
        >>> ember.ops.mylib.scale(ember.ones(2), 3.0)
        tensor([3., 3.])
    """
    def make(f):
        ns, opname = name.split('::')
        text = schema if schema is not None else infer_schema(f, mutates_args=mutates_args)
        op = _Op(f"{ns}::{opname}", text)
        types = [device_types] if device_types is None or isinstance(device_types, str) \
            else list(device_types)
        for t in types:
            op.kernels[t] = f
        _register(op.qualname, op)
        d = CustomOpDef(op, f)
        op.custom = d
        return d
    return make if fn is None else make(fn)


def register_kernel(op, device_types, func=None, /, *, lib=None):
    """:meth:`CustomOpDef.register_kernel` for an operator given by name or object.

    Example::

        >>> ember.library.register_kernel("mylib::scale", "cpu", lambda x, s: x * s)
    """
    o = _lookup(op)
    return CustomOpDef(o, None).register_kernel(device_types, func)


def register_fake(op, func=None, /, *, lib=None, _stacklevel=1):
    """Register the fake kernel of an operator given by name or object (decorator form
    when ``func`` is omitted).

    Example::

        >>> @ember.library.register_fake("mylib::scale")
        ... def _(x, s):
        ...     return ember.empty_like(x)
    """
    o = _lookup(op)

    def reg(f):
        o.fake = f
        return f
    return reg if func is None else reg(func)


impl_abstract = register_fake


def register_autograd(op, backward, /, *, setup_context=None, lib=None):
    """:meth:`CustomOpDef.register_autograd` for an operator given by name or object.

    Example::

        >>> ember.library.register_autograd("mylib::scale", lambda ctx, g: (g * 3, None))
    """
    CustomOpDef(_lookup(op), None).register_autograd(backward, setup_context=setup_context)


# ------------------------------------------------------------------ Library
class Library:
    """A handle to define operators in a namespace (``kind="DEF"``: this library owns
    the namespace; ``"FRAGMENT"``: adds to it) or to add kernels to existing ones
    (``"IMPL"``).

    Args:
        ns (str): the namespace.
        kind (str): ``"DEF"``, ``"IMPL"`` or ``"FRAGMENT"``.
        dispatch_key (str, optional): the default key for :meth:`impl`.

    Example::

        >>> lib = ember.library.Library("mylib3", "DEF")
        >>> lib.define("triple(Tensor x) -> Tensor")
        'mylib3::triple'
        >>> lib.impl("triple", lambda x: x * 3, "CPU")
        >>> ember.ops.mylib3.triple(ember.ones(1))
        tensor([3.])
    """

    def __init__(self, ns, kind, dispatch_key=''):
        if kind not in ('IMPL', 'DEF', 'FRAGMENT'):
            raise ValueError(f"Unsupported kind: {kind}")
        if kind == 'DEF':
            if ns in _DEFINED_NAMESPACES:
                raise RuntimeError(
                    f"Only a single TORCH_LIBRARY can be used to register the namespace {ns}; "
                    "please put all of your definitions in a single TORCH_LIBRARY block.  If "
                    "you were trying to specify implementations, consider using "
                    "TORCH_LIBRARY_IMPL (which can be duplicated).")
            _DEFINED_NAMESPACES[ns] = self
        self.ns, self.kind, self.dispatch_key = ns, kind, dispatch_key
        self._defined = []

    def __repr__(self):
        return f"Library(kind={self.kind}, ns={self.ns}, dispatch_key={self.dispatch_key})>"

    def define(self, schema, alias_analysis='', *, tags=()):
        """Declare an operator from a schema string ``"name(args) -> returns"``; returns
        its qualified name.

        Example::

            >>> lib.define("plus(Tensor x, float a=1.0) -> Tensor")
            'mylib3::plus'
        """
        if self.kind == 'IMPL':
            raise RuntimeError("define() is not allowed on an IMPL library")
        name, _, _ = _parse_schema(schema)
        qual = f"{self.ns}::{name}"
        op = _Op(qual, schema, composite_kernels=True)
        _register(qual, op)
        self._defined.append(qual)
        return qual

    def impl(self, op_name, fn, dispatch_key='', *, with_keyset=False):
        """Register ``fn`` as the kernel of ``op_name`` for ``dispatch_key`` (``"CPU"``,
        ``"CUDA"``, ``"Meta"``, ``"CompositeImplicitAutograd"``...). Autograd records the
        ops ``fn`` applies.

        Example::

            >>> lib.impl("plus", lambda x, a=1.0: x + a, "CPU")
        """
        name = op_name if isinstance(op_name, str) else _lookup(op_name).name
        qual = name if '::' in name else f"{self.ns}::{name}"
        o = _lookup(qual)
        key = (dispatch_key or self.dispatch_key or 'CompositeImplicitAutograd')
        if key == 'Meta':
            o.fake = fn
        elif key in ('CPU', 'CUDA'):
            o.kernels[key.lower()] = fn
        else:
            o.kernels[None] = fn

    def _destroy(self):
        for q in self._defined:
            _OPS.pop(q, None)
        self._defined = []
        if _DEFINED_NAMESPACES.get(self.ns) is self:
            del _DEFINED_NAMESPACES[self.ns]


def define(qualname, schema, *, lib=None, tags=()):
    """Declare operator ``qualname`` (``"ns::name"``) with ``schema`` (``"(args) ->
    returns"``).

    Example::

        >>> ember.library.define("mylib4::neg2", "(Tensor x) -> Tensor")
    """
    ns, name = qualname.split('::')
    lib = lib if lib is not None else Library(ns, 'FRAGMENT')
    lib.define(name + schema, tags=tags)


def impl(qualname, types, func=None, *, lib=None):
    """Register a kernel of ``qualname`` for device ``types`` (``"cpu"``, ``"cuda"``, a
    list, or ``"default"``); decorator form when ``func`` is omitted.

    Example::

        >>> @ember.library.impl("mylib4::neg2", "cpu")
        ... def _(x):
        ...     return -2 * x
    """
    o = _lookup(qualname)

    def reg(f):
        for t in ([types] if isinstance(types, str) else list(types)):
            t = t.lower()
            if t == 'meta':
                o.fake = f
            else:
                o.kernels[None if t in ('default', 'compositeimplicitautograd') else t] = f
        return f
    return reg if func is None else reg(func)


# ------------------------------------------------------------------ ember.ops
class OpOverload:
    """One overload of an operator (``ember.ops.ns.name.default``): call it as the
    operator.

    Example::

        >>> ember.ops.mylib.scale.default(ember.ones(1), 2.0)
        tensor([2.])
    """

    def __init__(self, qualname, overload, call, op=None):
        self._qualname, self._overload, self._call, self._op = qualname, overload, call, op

    def __call__(self, *args, **kwargs):
        return self._call(*args, **kwargs)

    def __str__(self):
        return f"{self._qualname.replace('::', '.')}.{self._overload}"

    def __repr__(self):
        return (f"<OpOverload(op='{self._qualname.replace('::', '.')}', "
                f"overload='{self._overload}')>")


class OpOverloadPacket:
    """All overloads of an operator (``ember.ops.ns.name``): call it to run the
    operator; ``.default`` (and, for ``aten``, any overload name) is an
    :class:`OpOverload`.

    NOTE: unlike PyTorch, every overload of an ``aten`` operator is ember's one function of
    that name (it accepts all of PyTorch's overloads' arguments).

    Example::

        >>> ember.ops.aten.add.Tensor(ember.ones(1), ember.ones(1))
        tensor([2.])
    """

    def __init__(self, qualname, call, op=None):
        self._qualname, self._call, self._op = qualname, call, op

    def __call__(self, *args, **kwargs):
        return self._call(*args, **kwargs)

    def __getattr__(self, name):
        if name.startswith('__'):
            raise AttributeError(name)
        if self._op is None or name == 'default':
            return OpOverload(self._qualname, name, self._call, self._op)
        raise AttributeError(f"The underlying op of '{self}' has no overload name '{name}'")

    def __str__(self):
        return self._qualname.replace('::', '.')

    def __repr__(self):
        return f"<OpOverloadPacket(op='{self}')>"

    # packets of one operator are equal, and equal to its name ('aten.mm'): dictionaries
    # keyed by operator (FlopCounterMode's counts) can be indexed with either
    def __eq__(self, other):
        if isinstance(other, OpOverloadPacket):
            return self._qualname == other._qualname
        if isinstance(other, str):
            return str(self) == other
        return NotImplemented

    def __hash__(self):
        return hash(str(self))


class _OpNamespace:
    def __init__(self, ns):
        self._ns = ns

    def __getattr__(self, name):
        if name.startswith('__'):
            raise AttributeError(name)
        qual = f"{self._ns}::{name}"
        op = _OPS.get(qual)
        if op is not None:
            return OpOverloadPacket(qual, op, op)
        if self._ns == 'quantized':
            from ._quantized.ops import OPS as _quantized_ops
            fn = _quantized_ops.get(name)
            if fn is not None:
                return OpOverloadPacket(qual, fn)
        if self._ns == 'aten':
            fn = _aten_function(name)
            if fn is not None:
                return OpOverloadPacket(qual, fn)
        if self._ns == 'torchaudio':
            raise AttributeError(
                f"torchaudio::{name} is not available on ember: torchaudio's operators live in "
                "its compiled library, which is built against PyTorch's C++ runtime (libtorch) "
                "and cannot be loaded by ember; torchaudio is not supported")
        raise AttributeError(f"'_OpNamespace' '{self._ns}' object has no attribute '{name}'")

    def __repr__(self):
        return f"<module 'torch.ops.{self._ns}' from 'torch.ops'>"


def _aten_function(name):
    import ember
    from ._ops._util import ATEN
    fn = ATEN.get(name)
    if fn is not None:
        return fn
    for space in (ember, ember.nn.functional, ember.linalg, ember.special):
        fn = getattr(space, name, None)
        if callable(fn) and not isinstance(fn, type):
            return fn
    fn = getattr(_tensor_cls(), name, None)
    if callable(fn):
        return fn
    return None


class _Ops:
    """``ember.ops``: ``ember.ops.<namespace>.<name>`` for every operator; ``aten`` gives
    ember's own functions.

    Example::

        >>> ember.ops.aten.relu(ember.tensor([-1., 2.]))
        tensor([0., 2.])
    """

    def __init__(self):
        self.loaded_libraries = set()

    def __getattr__(self, ns):
        if ns.startswith('__'):
            raise AttributeError(ns)
        _provided_namespace(ns)
        return _OpNamespace(ns)

    def load_library(self, path):
        """Load the shared library at ``path`` into the process (running its initialization
        code) and add its real path to ``ember.ops.loaded_libraries``.

        NOTE: unlike PyTorch, a library built against PyTorch's C++ runtime (libtorch/c10:
        compiled custom operators such as torchvision's) cannot register anything with
        ember; it is refused with the ``OSError`` PyTorch raises for a library it cannot
        load, before anything is loaded. Write such operators in Python with
        :class:`ember.library.Library` instead. torchvision's operator library
        (``torchvision/_C``) is the exception: ember provides its operators in Python
        (``ember._vision_ops``), so asking for it registers them under ``torchvision::``
        and succeeds (the binary itself is not loaded), and ``torchvision.ops`` runs on them.

        Args:
            path (str): the path of the shared library.

        Raises:
            OSError: if the library cannot be loaded.

        Example::

            >>> ember.ops.load_library("/no/such/lib.so")
            Traceback (most recent call last):
            OSError: Could not load this library: /no/such/lib.so
        """
        import ctypes
        import os
        path = os.path.realpath(path)
        if os.path.basename(os.path.dirname(path)) == 'torchvision':
            from . import _vision_ops          # torchvision's operators written for ember
            _vision_ops.register()
            name = os.path.basename(path).split('.')[0]
            if name in ('_C', '_C_stable') and os.path.isfile(path):
                self.loaded_libraries.add(path)
                return
        try:
            with open(path, 'rb') as f:
                data = f.read(64 << 20)      # the dynamic section's names come first
            if b'libc10.so' in data or b'libtorch' in data or b'c10.dll' in data:
                raise ImportError(f"{path} is built against PyTorch's C++ runtime (libtorch), "
                                  "which ember does not have")
            ctypes.CDLL(path)
        except Exception as e:
            why = ''
            if 'torchaudio' in path.split(os.sep):
                why = (" (torchaudio's compiled library is built against PyTorch's C++ runtime, "
                       "which ember does not have: torchaudio is not supported on ember)")
            raise OSError(f"Could not load this library: {path}{why}") from e
        self.loaded_libraries.add(path)


ops = _Ops()

