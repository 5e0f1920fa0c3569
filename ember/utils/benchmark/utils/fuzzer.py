"""Random benchmark inputs (PyTorch's ``torch.utils.benchmark`` fuzzer): parameters drawn
from simple distributions, tensors whose sizes, strides and layouts follow them, and a
:class:`Fuzzer` that draws valid combinations reproducibly from a seed.

The draws are NumPy ``RandomState`` streams and ember's generator (PyTorch's), so the same
seed gives the same parameters and tensor values as PyTorch's fuzzer.
"""
import functools
import itertools as it

import numpy as _np

__all__ = ["Fuzzer", "FuzzedParameter", "ParameterAlias", "FuzzedTensor"]

_DISTRIBUTIONS = ("loguniform", "uniform")


class FuzzedParameter:
    """A parameter the :class:`Fuzzer` draws for each sample.

    Args:
        name (str): the parameter's name (tensor sizes may refer to it).
        minval (int or float, optional): lower bound (inclusive).
        maxval (int or float, optional): upper bound (inclusive).
        distribution (str or dict): ``'loguniform'`` (an int, uniform in log space),
            ``'uniform'`` (ints when both bounds are ints, else floats), or a dict
            ``{value: probability}`` (then ``minval``/``maxval`` must be ``None``).
        strict (bool): draw once per sample and keep the value while other parameters
            are redrawn to satisfy constraints. Default: ``False``.

    Raises:
        AssertionError: unknown distribution, or a bad custom distribution.

    Example::

        >>> import numpy as np
        >>> p = FuzzedParameter('n', 1, 1024, distribution='loguniform')
        >>> 1 <= p.sample(np.random.RandomState(0)) <= 1024
        True

    NOTE: unlike PyTorch 2.13, whose normalisation check is inverted (it rejects every
    distribution that sums to one), a dict distribution must sum to one here.
    """

    def __init__(self, name, minval=None, maxval=None, distribution=None, strict=False):
        self._name = name
        self._minval = minval
        self._maxval = maxval
        self._distribution = self._check_distribution(distribution)
        self.strict = strict

    @property
    def name(self):
        """The parameter's name."""
        return self._name

    def sample(self, state):
        """Draw a value.

        Args:
            state (numpy.random.RandomState): the random stream.
        """
        if self._distribution == "loguniform":
            return self._loguniform(state)
        if self._distribution == "uniform":
            return self._uniform(state)
        if isinstance(self._distribution, dict):
            return self._custom_distribution(state)

    def _check_distribution(self, distribution):
        if not isinstance(distribution, dict):
            if distribution not in _DISTRIBUTIONS:
                raise AssertionError(f"Unknown distribution: {distribution}")
        else:
            if any(i < 0 for i in distribution.values()):
                raise AssertionError("Probabilities cannot be negative")
            if abs(sum(distribution.values()) - 1) > 1e-5:
                raise AssertionError("Distribution is not normalized")
            if self._minval is not None:
                raise AssertionError("When passing a custom distribution, 'minval' must be None")
            if self._maxval is not None:
                raise AssertionError("When passing a custom distribution, 'maxval' must be None")
        return distribution

    def _loguniform(self, state):
        output = int(2 ** state.uniform(
            low=_np.log2(self._minval) if self._minval is not None else None,
            high=_np.log2(self._maxval) if self._maxval is not None else None))
        if self._minval is not None and output < self._minval:
            return self._minval
        if self._maxval is not None and output > self._maxval:
            return self._maxval
        return output

    def _uniform(self, state):
        if isinstance(self._minval, int) and isinstance(self._maxval, int):
            return int(state.randint(low=self._minval, high=self._maxval + 1))
        return state.uniform(low=self._minval, high=self._maxval)

    def _custom_distribution(self, state):
        index = state.choice(_np.arange(len(self._distribution)),
                             p=tuple(self._distribution.values()))
        return list(self._distribution.keys())[index]


class ParameterAlias:
    """A parameter value that takes the value of another parameter (e.g. as one choice of
    a custom distribution, so that two sizes sometimes match). Chains are allowed, cycles
    are not.

    Args:
        alias_to (str): the name of the parameter to copy.

    Example::

        >>> ParameterAlias('x_len')
        ParameterAlias[alias_to: x_len]
    """

    def __init__(self, alias_to):
        self.alias_to = alias_to

    def __repr__(self):
        return f"ParameterAlias[alias_to: {self.alias_to}]"


def dtype_size(dtype):
    """Bytes per element of ``dtype``.

    Example::

        >>> dtype_size(ember.float64)
        8
    """
    import ember
    if dtype == ember.bool:
        return 1
    if dtype.is_floating_point or dtype.is_complex:
        return int(ember.finfo(dtype).bits / 8)
    return int(ember.iinfo(dtype).bits / 8)


def prod(values, base=1):
    """Product of sizes in Python integers (no overflow).

    Example::

        >>> prod([2, 3, 4])
        24
    """
    return functools.reduce(lambda x, y: int(x) * int(y), values, base)


class FuzzedTensor:
    """A tensor the :class:`Fuzzer` builds for each sample from the drawn parameters.

    Args:
        name (str): the tensor's name.
        size (tuple of int or str): the sizes; strings name parameters.
        steps (tuple of int or str, optional): allocate ``size * steps`` and slice with
            these steps (strided tensors).
        probability_contiguous (float): chance that the memory layout is contiguous
            (otherwise it is a random permutation of the dimensions). Default: 0.5.
        min_elements, max_elements (int, optional): bounds on the element count; other
            parameter draws are rejected.
        max_allocation_bytes (int, optional): bound on the bytes allocated before
            slicing.
        dim_parameter (str, optional): a parameter giving the number of dimensions
            (``size`` and ``steps`` are truncated or padded with 1).
        roll_parameter (str, optional): unused (as in PyTorch).
        dtype (ember.dtype): the dtype. Default: ``ember.float32``.
        cuda (bool): move the tensor to the GPU. Default: ``False``.
        tensor_constructor (callable, optional): ``f(size=, dtype=, **params)`` making
            the tensor instead of ``rand`` / ``randint(1, 127)``.

    Example::

        >>> t = FuzzedTensor('x', size=('n', 4))
        >>> t.satisfies_constraints({'n': 8})
        True
    """

    def __init__(self, name, size, steps=None, probability_contiguous=0.5, min_elements=None,
                 max_elements=None, max_allocation_bytes=None, dim_parameter=None,
                 roll_parameter=None, dtype=None, cuda=False, tensor_constructor=None):
        import ember
        self._name = name
        self._size = size
        self._steps = steps
        self._probability_contiguous = probability_contiguous
        self._min_elements = min_elements
        self._max_elements = max_elements
        self._max_allocation_bytes = max_allocation_bytes
        self._dim_parameter = dim_parameter
        self._dtype = ember.float32 if dtype is None else dtype
        self._cuda = cuda
        self._tensor_constructor = tensor_constructor

    @property
    def name(self):
        """The tensor's name."""
        return self._name

    @staticmethod
    def default_tensor_constructor(size, dtype, **kwargs):
        """``rand`` for floating dtypes, ``randint(1, 127)`` otherwise (on the CPU).

        Example::

            >>> FuzzedTensor.default_tensor_constructor((2, 3), ember.float32).shape
            torch.Size([2, 3])
        """
        import ember
        if dtype.is_floating_point or dtype.is_complex:
            return ember.rand(size=size, dtype=dtype, device="cpu")
        return ember.randint(1, 127, size=size, dtype=dtype, device="cpu")

    def _make_tensor(self, params, state):
        size, steps, allocation_size = self._get_size_and_steps(params)
        constructor = self._tensor_constructor or self.default_tensor_constructor
        raw_tensor = constructor(size=allocation_size, dtype=self._dtype, **params)
        if self._cuda:
            raw_tensor = raw_tensor.cuda()
        dim = len(size)
        order = _np.arange(dim)
        if state.rand() > self._probability_contiguous:
            while dim > 1 and _np.all(order == _np.arange(dim)):
                order = state.permutation(raw_tensor.dim())
            raw_tensor = raw_tensor.permute(tuple(int(i) for i in order)).contiguous()
            raw_tensor = raw_tensor.permute(tuple(int(i) for i in _np.argsort(order)))
        slices = [slice(0, s * step, step) for s, step in zip(size, steps)]
        tensor = raw_tensor[tuple(slices)]
        properties = {
            "numel": int(tensor.numel()),
            "order": order,
            "steps": steps,
            "is_contiguous": tensor.is_contiguous(),
            "dtype": str(self._dtype),
        }
        return tensor, properties

    def _get_size_and_steps(self, params):
        dim = params[self._dim_parameter] if self._dim_parameter is not None else len(self._size)

        def resolve(values, dim):
            values = tuple(params.get(i, i) for i in values)
            if len(values) > dim:
                values = values[:dim]
            if len(values) < dim:
                values = values + tuple(1 for _ in range(dim - len(values)))
            return values
        size = resolve(self._size, dim)
        steps = resolve(self._steps or (), dim)
        allocation_size = tuple(s * st for s, st in zip(size, steps))
        return size, steps, allocation_size

    def satisfies_constraints(self, params):
        """Whether the tensor built from ``params`` respects the element and allocation
        bounds.

        Args:
            params (dict): parameter values.
        """
        size, _, allocation_size = self._get_size_and_steps(params)
        num_elements = prod(size)
        if num_elements < 0:
            raise AssertionError("Computed number of elements is negative")
        allocation_bytes = prod(allocation_size, base=dtype_size(self._dtype))

        def nullable_greater(left, right):
            if left is None or right is None:
                return False
            return left > right
        return not any((nullable_greater(num_elements, self._max_elements),
                        nullable_greater(self._min_elements, num_elements),
                        nullable_greater(allocation_bytes, self._max_allocation_bytes)))


class Fuzzer:
    """Draws reproducible random benchmark inputs: parameter sets satisfying the
    constraints, and the tensors they define.

    Args:
        parameters (list): :class:`FuzzedParameter` objects (lists inside are flattened
            one level).
        tensors (list): :class:`FuzzedTensor` objects (lists inside are flattened).
        constraints (list of callable, optional): called with the parameters as keyword
            arguments; a ``False`` result rejects the draw.
        seed (int, optional): seed of the draws (and of ember's generator while
            :meth:`take` builds tensors). Default: a random seed.

    Raises:
        ValueError: a parameter and a tensor share a name.

    Example::

        >>> fuzzer = Fuzzer(parameters=[FuzzedParameter('n', 4, 16, distribution='uniform')],
        ...                 tensors=[FuzzedTensor('x', size=('n', 2))], seed=0)
        >>> tensors, properties, params = next(fuzzer.take(1))
        >>> tensors['x'].shape[0] == params['n']
        True
    """

    def __init__(self, parameters, tensors, constraints=None, seed=None):
        if seed is None:
            seed = int(_np.random.RandomState().randint(0, 2 ** 32 - 1, dtype=_np.int64))
        self._seed = seed
        self._parameters = Fuzzer._unpack(parameters, FuzzedParameter)
        self._tensors = Fuzzer._unpack(tensors, FuzzedTensor)
        self._constraints = constraints or ()
        p_names = {p.name for p in self._parameters}
        t_names = {t.name for t in self._tensors}
        name_overlap = p_names.intersection(t_names)
        if name_overlap:
            raise ValueError(f"Duplicate names in parameters and tensors: {name_overlap}")
        self._rejections = 0
        self._total_generated = 0

    @staticmethod
    def _unpack(values, cls):
        return tuple(it.chain.from_iterable([[i] if isinstance(i, cls) else i for i in values]))

    def take(self, n):
        """Yield ``n`` samples ``(tensors, tensor_properties, params)``: dicts by name of
        the tensors, of their properties (``numel``, ``order``, ``steps``,
        ``is_contiguous``, ``dtype``) and of the parameter values. Each call starts from
        the seed again (and reseeds ember's generator).

        Args:
            n (int): number of samples.
        """
        import ember
        state = _np.random.RandomState(self._seed)
        ember.manual_seed(int(state.randint(low=0, high=2 ** 63, dtype=_np.int64)))
        for _ in range(n):
            params = self._generate(state)
            tensors, tensor_properties = {}, {}
            for t in self._tensors:
                tensor, properties = t._make_tensor(params, state)
                tensors[t.name] = tensor
                tensor_properties[t.name] = properties
            yield tensors, tensor_properties, params

    @property
    def rejection_rate(self):
        """Share of drawn parameter sets that were rejected."""
        if not self._total_generated:
            return 0.
        return self._rejections / self._total_generated

    def _generate(self, state):
        strict_params = {}
        for _ in range(1000):
            candidate = {}
            for p in self._parameters:
                if p.strict:
                    if p.name in strict_params:
                        candidate[p.name] = strict_params[p.name]
                    else:
                        candidate[p.name] = p.sample(state)
                        strict_params[p.name] = candidate[p.name]
                else:
                    candidate[p.name] = p.sample(state)
            candidate = self._resolve_aliases(candidate)
            self._total_generated += 1
            if not all(f(candidate) for f in self._constraints):
                self._rejections += 1
                continue
            if not all(t.satisfies_constraints(candidate) for t in self._tensors):
                self._rejections += 1
                continue
            return candidate
        raise ValueError("Failed to generate a set of valid parameters.")

    @staticmethod
    def _resolve_aliases(params):
        params = dict(params)
        alias_count = sum(isinstance(v, ParameterAlias) for v in params.values())
        keys = list(params.keys())
        while alias_count:
            for k in keys:
                v = params[k]
                if isinstance(v, ParameterAlias):
                    params[k] = params[v.alias_to]
            alias_count_new = sum(isinstance(v, ParameterAlias) for v in params.values())
            if alias_count == alias_count_new:
                raise ValueError(f"ParameterAlias cycle detected\n{params}")
            alias_count = alias_count_new
        return params
