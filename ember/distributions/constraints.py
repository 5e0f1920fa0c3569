"""Constraints: regions of values over which a parameter or a sample is valid.

Each constraint object answers ``check(value)`` with a boolean tensor over the
``sample_shape + batch_shape`` of ``value`` (its ``event_dim`` rightmost dims are
reduced).  The objects and classes below carry the names of
``torch.distributions.constraints`` so that their ``repr`` reads the same.
"""
import ember

__all__ = [
    "Constraint", "boolean", "cat", "corr_cholesky", "dependent", "dependent_property",
    "greater_than", "greater_than_eq", "independent", "integer_interval", "interval",
    "half_open_interval", "is_dependent", "less_than", "lower_cholesky", "lower_triangular",
    "MixtureSameFamilyConstraint", "multinomial", "nonnegative", "nonnegative_integer",
    "one_hot", "positive", "positive_semidefinite", "positive_definite", "positive_integer",
    "real", "real_vector", "simplex", "square", "stack", "symmetric", "unit_interval",
]


class Constraint:
    """Abstract base class of constraints.

    Attributes:
        is_discrete (bool): whether the constrained space is discrete (default False).
        event_dim (int): how many rightmost dims form one event; ``check`` reduces them.

    Example::

        >>> ember.distributions.constraints.positive.check(ember.tensor([1., -1.]))
        tensor([ True, False])
    """
    is_discrete = False
    event_dim = 0

    def check(self, value):
        """Boolean tensor of ``sample_shape + batch_shape``: does each event satisfy it?"""
        raise NotImplementedError

    def __repr__(self):
        return type(self).__name__[1:] + "()"


class _Dependent(Constraint):
    """Placeholder for a constraint that depends on other variables, such as the support
    of a distribution whose bounds are parameters: it cannot be checked (``check`` raises
    ``ValueError``). ``constraints.dependent`` is an instance; calling it makes a new one
    with static ``is_discrete``/``event_dim``.

    Args:
        is_discrete (bool, optional): a static ``is_discrete``; reading it when not given
            raises ``NotImplementedError``.
        event_dim (int, optional): a static ``event_dim``; the same rule.

    Example::

        >>> d = constraints.dependent(is_discrete=False, event_dim=0)
        >>> d.event_dim, constraints.is_dependent(d)
        (0, True)
    """

    def __init__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        self._is_discrete = is_discrete
        self._event_dim = event_dim
        super().__init__()

    @property
    def is_discrete(self):
        if self._is_discrete is NotImplemented:
            raise NotImplementedError(".is_discrete cannot be determined statically")
        return self._is_discrete

    @property
    def event_dim(self):
        if self._event_dim is NotImplemented:
            raise NotImplementedError(".event_dim cannot be determined statically")
        return self._event_dim

    def __call__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        """A new dependent constraint with the given static attributes."""
        if is_discrete is NotImplemented:
            is_discrete = self._is_discrete
        if event_dim is NotImplemented:
            event_dim = self._event_dim
        return _Dependent(is_discrete=is_discrete, event_dim=event_dim)

    def check(self, x):
        raise ValueError("Cannot determine validity of dependent constraint")


def is_dependent(constraint):
    """Whether ``constraint`` is a dependent constraint (``_Dependent`` instance).

    Example::

        >>> is_dependent(constraints.dependent)
        True
    """
    return isinstance(constraint, _Dependent)


class _DependentProperty(property, _Dependent):
    """A property that is also a dependent constraint (used for ``support``).

    Args:
        fn (callable): the getter.
        is_discrete (bool): optional static ``is_discrete``.
        event_dim (int): optional static ``event_dim``.

    Example::

        >>> class U(Distribution):
        ...     @constraints.dependent_property(is_discrete=False, event_dim=0)
        ...     def support(self):
        ...         return constraints.interval(self.low, self.high)
    """

    def __init__(self, fn=None, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        property.__init__(self, fn)
        self._is_discrete = is_discrete
        self._event_dim = event_dim

    def __call__(self, fn):
        return _DependentProperty(fn, is_discrete=self._is_discrete, event_dim=self._event_dim)


class _IndependentConstraint(Constraint):
    """Reinterprets ``reinterpreted_batch_ndims`` batch dims of ``base_constraint`` as
    event dims: an event is valid only when all its entries are.

    Args:
        base_constraint (Constraint): the constraint of one entry.
        reinterpreted_batch_ndims (int): how many dims to aggregate.

    Example::

        >>> c = constraints.independent(constraints.positive, 1)
        >>> c.check(ember.tensor([[1., 2.], [1., -1.]]))
        tensor([ True, False])
    """

    def __init__(self, base_constraint, reinterpreted_batch_ndims):
        if not isinstance(base_constraint, Constraint):
            raise AssertionError(
                f"base_constraint must be a Constraint, got {type(base_constraint).__name__}")
        if not isinstance(reinterpreted_batch_ndims, int):
            raise AssertionError("reinterpreted_batch_ndims must be an int, got "
                                 f"{type(reinterpreted_batch_ndims).__name__}")
        if reinterpreted_batch_ndims < 0:
            raise AssertionError(
                f"reinterpreted_batch_ndims must be >= 0, got {reinterpreted_batch_ndims}")
        self.base_constraint = base_constraint
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims
        super().__init__()

    @property
    def is_discrete(self):
        return self.base_constraint.is_discrete

    @property
    def event_dim(self):
        return self.base_constraint.event_dim + self.reinterpreted_batch_ndims

    def check(self, value):
        res = self.base_constraint.check(value)
        n = self.reinterpreted_batch_ndims
        if res.dim() < n:
            raise ValueError(f"Expected value.dim() >= {self.event_dim} but got {value.dim()}")
        res = res.reshape(tuple(res.shape[:res.dim() - n]) + (-1,))
        return res.all(-1)

    def __repr__(self):
        return (f"{type(self).__name__[1:]}({self.base_constraint!r}, "
                f"{self.reinterpreted_batch_ndims})")


class MixtureSameFamilyConstraint(Constraint):
    """Constraint of :class:`MixtureSameFamily`: adds back the component dim before
    checking with the component distribution's constraint.

    Args:
        base_constraint (Constraint): the component distribution's support.

    Example::

        >>> c = constraints.MixtureSameFamilyConstraint(constraints.real)
        >>> c.check(ember.tensor([0., 1.]))
        tensor([True, True])
    """

    def __init__(self, base_constraint):
        if not isinstance(base_constraint, Constraint):
            raise AssertionError(
                f"base_constraint must be a Constraint, got {type(base_constraint).__name__}")
        self.base_constraint = base_constraint
        super().__init__()

    @property
    def is_discrete(self):
        return self.base_constraint.is_discrete

    @property
    def event_dim(self):
        return self.base_constraint.event_dim

    def check(self, value):
        """Check ``value`` as an outcome of the mixture."""
        ed = self.event_dim
        res = self.base_constraint.check(value.unsqueeze(-1 - ed))
        if value.dim() < ed:
            raise ValueError(f"Expected value.dim() >= {ed} but got {value.dim()}")
        keep = value.dim() - ed
        return res.reshape(tuple(res.shape[:keep]) + (-1,)).all(-1)

    def __repr__(self):
        return f"{type(self).__name__}({self.base_constraint!r})"


class _Boolean(Constraint):
    """The two values ``{0, 1}``."""
    is_discrete = True

    def check(self, value):
        return (value == 0) | (value == 1)


class _OneHot(Constraint):
    """One-hot vectors."""
    is_discrete = True
    event_dim = 1

    def check(self, value):
        return ((value == 0) | (value == 1)).all(-1) & value.sum(-1).eq(1)


class _IntegerInterval(Constraint):
    """Integers in ``[lower_bound, upper_bound]``
    (``constraints.integer_interval``).

    Args:
        lower_bound ((float or Tensor)): the smallest allowed value.
        upper_bound ((float or Tensor)): the largest allowed value.

    Example::

        >>> constraints.integer_interval(0, 2).check(ember.tensor([0., 1.5, 2.]))
        tensor([ True, False,  True])
    """
    is_discrete = True

    def __init__(self, lower_bound, upper_bound):
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound
        super().__init__()

    def check(self, value):
        return (value % 1 == 0) & (self.lower_bound <= value) & (value <= self.upper_bound)

    def __repr__(self):
        return (f"{type(self).__name__[1:]}(lower_bound={self.lower_bound}, "
                f"upper_bound={self.upper_bound})")


class _IntegerLessThan(Constraint):
    """Integers in ``(-inf, upper_bound]``."""
    is_discrete = True

    def __init__(self, upper_bound):
        self.upper_bound = upper_bound
        super().__init__()

    def check(self, value):
        return (value % 1 == 0) & (value <= self.upper_bound)

    def __repr__(self):
        return f"{type(self).__name__[1:]}(upper_bound={self.upper_bound})"


class _IntegerGreaterThan(Constraint):
    """Integers in ``[lower_bound, inf)``."""
    is_discrete = True

    def __init__(self, lower_bound):
        self.lower_bound = lower_bound
        super().__init__()

    def check(self, value):
        return (value % 1 == 0) & (value >= self.lower_bound)

    def __repr__(self):
        return f"{type(self).__name__[1:]}(lower_bound={self.lower_bound})"


class _Real(Constraint):
    """The extended real line (everything but NaN)."""

    def check(self, value):
        return value == value


class _GreaterThan(Constraint):
    """The half line ``(lower_bound, inf]`` (``constraints.greater_than``).

    Args:
        lower_bound ((float or Tensor)): the excluded lower end.

    Example::

        >>> constraints.greater_than(0.).check(ember.tensor([-1., 0., 2.]))
        tensor([False, False,  True])
    """

    def __init__(self, lower_bound):
        self.lower_bound = lower_bound
        super().__init__()

    def check(self, value):
        return self.lower_bound < value

    def __repr__(self):
        return f"{type(self).__name__[1:]}(lower_bound={self.lower_bound})"


class _GreaterThanEq(Constraint):
    """The half line ``[lower_bound, inf)`` (``constraints.greater_than_eq``).

    Args:
        lower_bound ((float or Tensor)): the included lower end.

    Example::

        >>> constraints.greater_than_eq(0.).check(ember.tensor([-1., 0., 2.]))
        tensor([False,  True,  True])
    """

    def __init__(self, lower_bound):
        self.lower_bound = lower_bound
        super().__init__()

    def check(self, value):
        return self.lower_bound <= value

    def __repr__(self):
        return f"{type(self).__name__[1:]}(lower_bound={self.lower_bound})"


class _LessThan(Constraint):
    """The half line ``[-inf, upper_bound)`` (``constraints.less_than``).

    Args:
        upper_bound ((float or Tensor)): the excluded upper end.

    Example::

        >>> constraints.less_than(1.).check(ember.tensor([0., 1., 2.]))
        tensor([ True, False, False])
    """

    def __init__(self, upper_bound):
        self.upper_bound = upper_bound
        super().__init__()

    def check(self, value):
        return value < self.upper_bound

    def __repr__(self):
        return f"{type(self).__name__[1:]}(upper_bound={self.upper_bound})"


class _Interval(Constraint):
    """The closed interval ``[lower_bound, upper_bound]`` (``constraints.interval``).

    Args:
        lower_bound ((float or Tensor)): the included lower end.
        upper_bound ((float or Tensor)): the included upper end.

    Example::

        >>> constraints.interval(0., 1.).check(ember.tensor([0., 1., 2.]))
        tensor([ True,  True, False])
    """

    def __init__(self, lower_bound, upper_bound):
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound
        super().__init__()

    def check(self, value):
        return (self.lower_bound <= value) & (value <= self.upper_bound)

    def __repr__(self):
        return (f"{type(self).__name__[1:]}(lower_bound={self.lower_bound}, "
                f"upper_bound={self.upper_bound})")


class _HalfOpenInterval(Constraint):
    """The interval ``[lower_bound, upper_bound)`` (``constraints.half_open_interval``).

    Args:
        lower_bound ((float or Tensor)): the included lower end.
        upper_bound ((float or Tensor)): the excluded upper end.

    Example::

        >>> constraints.half_open_interval(0., 1.).check(ember.tensor([0., 1., 2.]))
        tensor([ True, False, False])
    """

    def __init__(self, lower_bound, upper_bound):
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound
        super().__init__()

    def check(self, value):
        return (self.lower_bound <= value) & (value < self.upper_bound)

    def __repr__(self):
        return (f"{type(self).__name__[1:]}(lower_bound={self.lower_bound}, "
                f"upper_bound={self.upper_bound})")


class _Simplex(Constraint):
    """The unit simplex over the last dim: ``x >= 0`` and ``x.sum(-1) == 1``."""
    event_dim = 1

    def check(self, value):
        return (value >= 0).all(dim=-1) & ((value.sum(-1) - 1).abs() < 1e-6)


class _Multinomial(Constraint):
    """Vectors (over the last dim) of nonnegative integers summing to at most
    ``upper_bound``: the outcomes of a multinomial draw (``constraints.multinomial``).

    Args:
        upper_bound (int): the largest allowed total count.

    Example::

        >>> constraints.multinomial(3).check(ember.tensor([[1., 2.], [2., 2.]]))
        tensor([ True, False])
    """
    is_discrete = True
    event_dim = 1

    def __init__(self, upper_bound):
        self.upper_bound = upper_bound

    def check(self, x):
        return (x >= 0).all(dim=-1) & (x.sum(dim=-1) <= self.upper_bound)


def _all_last2(b):
    return b.reshape(tuple(b.shape[:-2]) + (-1,)).all(-1)


class _LowerTriangular(Constraint):
    """Lower-triangular square matrices."""
    event_dim = 2

    def check(self, value):
        return _all_last2(value.tril() == value)


class _LowerCholesky(Constraint):
    """Lower-triangular square matrices with a positive diagonal."""
    event_dim = 2

    def check(self, value):
        pos = (value.diagonal(dim1=-2, dim2=-1) > 0).all(-1)
        return _all_last2(value.tril() == value) & pos


class _CorrCholesky(Constraint):
    """Lower Cholesky factors whose rows have unit length."""
    event_dim = 2

    def check(self, value):
        tol = ember.finfo(value.dtype).eps * value.size(-1) * 10
        norm = ember.linalg.norm(value.detach(), dim=-1)
        unit = (norm - 1.0).abs().le(tol).all(dim=-1)
        return _LowerCholesky().check(value) & unit


class _Square(Constraint):
    """Square matrices."""
    event_dim = 2

    def check(self, value):
        return ember.full(tuple(value.shape[:-2]), value.shape[-2] == value.shape[-1],
                          dtype=ember.bool, device=value.device)


class _Symmetric(_Square):
    """Symmetric square matrices."""

    def check(self, value):
        sq = super().check(value)
        if not sq.all():
            return sq
        return ember.isclose(value, value.mT, atol=1e-6).all(-2).all(-1)


class _PositiveSemidefinite(_Symmetric):
    """Positive semi-definite matrices."""

    def check(self, value):
        sym = super().check(value)
        if not sym.all():
            return sym
        return ember.linalg.eigvalsh(value).ge(0).all(-1)


class _PositiveDefinite(_Symmetric):
    """Positive definite matrices."""

    def check(self, value):
        sym = super().check(value)
        if not sym.all():
            return sym
        ok = ember.linalg.cholesky_ex(value).info.eq(0)
        if bool(ok.all()):
            return ok
        # a failed batch: decide matrix by matrix (eigenvalues), as a per-matrix
        # Cholesky would
        return ember.linalg.eigvalsh(value).gt(0).all(-1)


class _Cat(Constraint):
    """Applies the constraints ``cseq`` to consecutive pieces of ``dim`` of lengths
    ``lengths`` (as :func:`ember.cat` joins them) (``constraints.cat``).

    Args:
        cseq (sequence of Constraint): the pieces' constraints.
        dim (int): the dimension (default 0).
        lengths (sequence of int): the pieces' sizes (default all 1).

    Example::

        >>> c = constraints.cat([constraints.positive, constraints.real], dim=0, lengths=[1, 2])
        >>> c.check(ember.tensor([-1., -1., 5.]))
        tensor([False,  True,  True])
    """

    def __init__(self, cseq, dim=0, lengths=None):
        if not all(isinstance(c, Constraint) for c in cseq):
            raise AssertionError("All elements of cseq must be Constraint instances")
        self.cseq = list(cseq)
        if lengths is None:
            lengths = [1] * len(self.cseq)
        self.lengths = list(lengths)
        if len(self.lengths) != len(self.cseq):
            raise AssertionError(
                f"lengths ({len(self.lengths)}) must match cseq ({len(self.cseq)})")
        self.dim = dim
        super().__init__()

    @property
    def is_discrete(self):
        return any(c.is_discrete for c in self.cseq)

    @property
    def event_dim(self):
        return max(c.event_dim for c in self.cseq)

    def check(self, value):
        if not (-value.dim() <= self.dim < value.dim()):
            raise AssertionError(
                f"dim {self.dim} out of range for value with {value.dim()} dimensions")
        out, start = [], 0
        for c, n in zip(self.cseq, self.lengths):
            out.append(c.check(value.narrow(self.dim, start, n)))
            start = start + n
        return ember.cat(out, self.dim)


class _Stack(Constraint):
    """Applies the constraints ``cseq`` to the slices of ``dim`` (as :func:`ember.stack`
    joins them) (``constraints.stack``).

    Args:
        cseq (sequence of Constraint): one constraint per slice.
        dim (int): the dimension (default 0).

    Example::

        >>> c = constraints.stack([constraints.positive, constraints.real], dim=0)
        >>> c.check(ember.tensor([[1.], [-1.]]))
        tensor([[True],
                [True]])
    """

    def __init__(self, cseq, dim=0):
        if not all(isinstance(c, Constraint) for c in cseq):
            raise AssertionError("All elements of cseq must be Constraint instances")
        self.cseq = list(cseq)
        self.dim = dim
        super().__init__()

    @property
    def is_discrete(self):
        return any(c.is_discrete for c in self.cseq)

    @property
    def event_dim(self):
        d = max(c.event_dim for c in self.cseq)
        if self.dim + d < 0:
            d += 1
        return d

    def check(self, value):
        if not (-value.dim() <= self.dim < value.dim()):
            raise AssertionError(
                f"dim {self.dim} out of range for value with {value.dim()} dimensions")
        vs = [value.select(self.dim, i) for i in range(value.size(self.dim))]
        return ember.stack([c.check(v) for v, c in zip(vs, self.cseq)], self.dim)


dependent = _Dependent()
dependent_property = _DependentProperty
independent = _IndependentConstraint
boolean = _Boolean()
one_hot = _OneHot()
nonnegative_integer = _IntegerGreaterThan(0)
positive_integer = _IntegerGreaterThan(1)
integer_interval = _IntegerInterval
real = _Real()
real_vector = independent(real, 1)
positive = _GreaterThan(0.0)
nonnegative = _GreaterThanEq(0.0)
greater_than = _GreaterThan
greater_than_eq = _GreaterThanEq
less_than = _LessThan
multinomial = _Multinomial
unit_interval = _Interval(0.0, 1.0)
interval = _Interval
half_open_interval = _HalfOpenInterval
simplex = _Simplex()
lower_triangular = _LowerTriangular()
lower_cholesky = _LowerCholesky()
corr_cholesky = _CorrCholesky()
square = _Square()
symmetric = _Symmetric()
positive_semidefinite = _PositiveSemidefinite()
positive_definite = _PositiveDefinite()
cat = _Cat
stack = _Stack
