"""Registries linking constraints to transforms.

``biject_to(constraint)`` gives a bijective :class:`Transform` from the reals onto
``constraint`` (so its ``log_abs_det_jacobian`` is defined: use it for HMC-style
samplers); ``transform_to(constraint)`` gives some (not necessarily bijective)
transform onto ``constraint`` (use it for unconstrained optimization).  Both map
the constraint's *type*; register your own with ``biject_to.register(...)``.

Example::

    >>> from ember.distributions import constraints, transform_to
    >>> t = transform_to(constraints.positive)
    >>> t(ember.tensor([0.0]))
    tensor([1.])
"""
from numbers import Number

from . import constraints, transforms

__all__ = ["ConstraintRegistry", "biject_to", "transform_to"]


class ConstraintRegistry:
    """Registry mapping constraint types to transform factories: ``registry(constraint)``
    looks up ``type(constraint)`` and returns the factory's transform, which maps the
    whole real space onto the constraint's set. ``biject_to`` and ``transform_to`` are the
    two instances; :meth:`register` adds a factory (also as a decorator).

    Example::

        >>> from ember.distributions import constraints
        >>> reg = ConstraintRegistry()
        >>> @reg.register(constraints.greater_than)
        ... def _(c):
        ...     return ember.distributions.transforms.ExpTransform()
        >>> reg(constraints.positive)
        ExpTransform()
    """

    def __init__(self):
        self._registry = {}
        super().__init__()

    def register(self, constraint, factory=None):
        """Register ``factory(constraint) -> Transform`` for a constraint subclass (or
        the type of a constraint instance).  Usable as a decorator.

        Args:
            constraint (type or Constraint): a Constraint subclass or an instance.
            factory (callable): constraint -> Transform.
        """
        if factory is None:
            return lambda factory: self.register(constraint, factory)
        if isinstance(constraint, constraints.Constraint):
            constraint = type(constraint)
        if not isinstance(constraint, type) or not issubclass(constraint,
                                                              constraints.Constraint):
            raise TypeError("Expected constraint to be either a Constraint subclass or "
                            f"instance, but got {constraint}")
        self._registry[constraint] = factory
        return factory

    def __call__(self, constraint):
        """The transform registered for ``type(constraint)``.

        Raises:
            NotImplementedError: when nothing is registered for that type.
        """
        try:
            factory = self._registry[type(constraint)]
        except KeyError:
            raise NotImplementedError(
                f"Cannot transform {type(constraint).__name__} constraints") from None
        return factory(constraint)


biject_to = ConstraintRegistry()
biject_to.__doc__ = """The registry of bijective transforms: ``biject_to(constraint)`` is an
invertible :class:`Transform` from unconstrained reals onto ``constraint``'s set (its
``log_abs_det_jacobian`` is exact), for use where the inverse matters, as in HMC.
Unregistered constraint types raise ``NotImplementedError``.

Example::

    >>> from ember.distributions import biject_to, constraints
    >>> biject_to(constraints.simplex)
    StickBreakingTransform()
"""
transform_to = ConstraintRegistry()
transform_to.__doc__ = """The registry of transforms onto constraints: ``transform_to(constraint)``
is a :class:`Transform` from unconstrained reals onto ``constraint``'s set, not necessarily
bijective (for unconstrained optimisation). Unregistered constraint types raise
``NotImplementedError``.

Example::

    >>> from ember.distributions import transform_to, constraints
    >>> transform_to(constraints.simplex)
    SoftmaxTransform()
    >>> transform_to(constraints.unit_interval)(ember.tensor([0.]))
    tensor([0.5000])
"""


def _both(*cs):
    def deco(fn):
        for c in cs:
            biject_to.register(c, fn)
            transform_to.register(c, fn)
        return fn
    return deco


@_both(constraints.real)
def _to_real(constraint):
    return transforms.identity_transform


@biject_to.register(constraints.independent)
def _biject_to_independent(constraint):
    return transforms.IndependentTransform(biject_to(constraint.base_constraint),
                                           constraint.reinterpreted_batch_ndims)


@transform_to.register(constraints.independent)
def _transform_to_independent(constraint):
    return transforms.IndependentTransform(transform_to(constraint.base_constraint),
                                           constraint.reinterpreted_batch_ndims)


# positive / nonnegative share their classes with greater_than / greater_than_eq, so
# the lower-bound map below is the one that serves them (as in PyTorch).
@_both(constraints.greater_than, constraints.greater_than_eq)
def _to_greater_than(constraint):
    return transforms.ComposeTransform([transforms.ExpTransform(),
                                        transforms.AffineTransform(constraint.lower_bound, 1)])


@_both(constraints.less_than)
def _to_less_than(constraint):
    return transforms.ComposeTransform([transforms.ExpTransform(),
                                        transforms.AffineTransform(constraint.upper_bound, -1)])


@_both(constraints.interval, constraints.half_open_interval)
def _to_interval(constraint):
    lo, hi = constraint.lower_bound, constraint.upper_bound
    if isinstance(lo, Number) and lo == 0 and isinstance(hi, Number) and hi == 1:
        return transforms.SigmoidTransform()
    return transforms.ComposeTransform([transforms.SigmoidTransform(),
                                        transforms.AffineTransform(lo, hi - lo)])


@biject_to.register(constraints.simplex)
def _biject_to_simplex(constraint):
    return transforms.StickBreakingTransform()


@transform_to.register(constraints.simplex)
def _transform_to_simplex(constraint):
    return transforms.SoftmaxTransform()


@transform_to.register(constraints.lower_cholesky)
def _transform_to_lower_cholesky(constraint):
    return transforms.LowerCholeskyTransform()


@transform_to.register(constraints.positive_definite)
@transform_to.register(constraints.positive_semidefinite)
def _transform_to_positive_definite(constraint):
    return transforms.PositiveDefiniteTransform()


@_both(constraints.corr_cholesky)
def _to_corr_cholesky(constraint):
    return transforms.CorrCholeskyTransform()


@biject_to.register(constraints.cat)
def _biject_to_cat(constraint):
    return transforms.CatTransform([biject_to(c) for c in constraint.cseq], constraint.dim,
                                   constraint.lengths)


@transform_to.register(constraints.cat)
def _transform_to_cat(constraint):
    return transforms.CatTransform([transform_to(c) for c in constraint.cseq],
                                   constraint.dim, constraint.lengths)


@biject_to.register(constraints.stack)
def _biject_to_stack(constraint):
    return transforms.StackTransform([biject_to(c) for c in constraint.cseq], constraint.dim)


@transform_to.register(constraints.stack)
def _transform_to_stack(constraint):
    return transforms.StackTransform([transform_to(c) for c in constraint.cseq],
                                     constraint.dim)
