"""``ember.export.graph_signature``: what each input and output of an exported graph is.

An exported graph takes the module's parameters, buffers and lifted constants as
placeholders before the user's inputs, and may return, before the user's outputs, the new
values of the buffers (or inputs) it mutates. The :class:`ExportGraphSignature` says which
placeholder is which (an :class:`InputSpec` per input, an :class:`OutputSpec` per output).
"""
import dataclasses
from enum import Enum, auto
from types import MappingProxyType
from typing import Any, Optional

__all__ = ['ConstantArgument', 'CustomObjArgument', 'ExportBackwardSignature',
           'ExportGraphSignature', 'InputKind', 'InputSpec', 'OutputKind', 'OutputSpec',
           'SymIntArgument', 'SymFloatArgument', 'SymBoolArgument', 'TensorArgument']


@dataclasses.dataclass
class TensorArgument:
    """A tensor input or output of the graph, by its node's name.

    Args:
        name (str): the node's name.

    Example::

        >>> ember.export.graph_signature.TensorArgument('x')
        TensorArgument(name='x')
    """
    name: str


@dataclasses.dataclass
class TokenArgument:
    """An effect token of the graph, by its node's name.

    Args:
        name (str): the node's name.

    Example::

        >>> ember.export.graph_signature.TokenArgument('token')
        TokenArgument(name='token')
    """
    name: str


@dataclasses.dataclass
class SymIntArgument:
    """A symbolic integer (a size read at run time) input or output, by its node's name.

    Args:
        name (str): the node's name.

    Example::

        >>> ember.export.graph_signature.SymIntArgument('s0')
        SymIntArgument(name='s0')
    """
    name: str


@dataclasses.dataclass
class SymFloatArgument:
    """A symbolic float input or output, by its node's name.

    Args:
        name (str): the node's name.

    Example::

        >>> ember.export.graph_signature.SymFloatArgument('f0')
        SymFloatArgument(name='f0')
    """
    name: str


@dataclasses.dataclass
class SymBoolArgument:
    """A symbolic bool input or output, by its node's name.

    Args:
        name (str): the node's name.

    Example::

        >>> ember.export.graph_signature.SymBoolArgument('b0')
        SymBoolArgument(name='b0')
    """
    name: str


@dataclasses.dataclass
class CustomObjArgument:
    """A script object input (ember has no TorchScript classes: kept for the signature's
    structure).

    Args:
        name (str): the node's name.
        class_fqn (str): the object's class.
        fake_val: a stand-in value. Default: None

    Example::

        >>> ember.export.graph_signature.CustomObjArgument('obj', 'my.Class')
        CustomObjArgument(name='obj', class_fqn='my.Class', fake_val=None)
    """
    name: str
    class_fqn: str
    fake_val: Optional[Any] = None


@dataclasses.dataclass
class ConstantArgument:
    """A non-tensor input or output (an int, float, bool, str or None), specialized into
    the graph.

    Args:
        name (str): the input's name (``''`` for an output).
        value: the value.

    Example::

        >>> ember.export.graph_signature.ConstantArgument('n', 3)
        ConstantArgument(name='n', value=3)
    """
    name: str
    value: Any


_ARG_TYPES = (TensorArgument, SymIntArgument, SymFloatArgument, SymBoolArgument,
              ConstantArgument, CustomObjArgument, TokenArgument)


class InputKind(Enum):
    """What a graph input is: ``USER_INPUT``, ``PARAMETER``, ``BUFFER``,
    ``CONSTANT_TENSOR``, ``CUSTOM_OBJ`` or ``TOKEN``.

    Example::

        >>> ember.export.graph_signature.InputKind.PARAMETER
        <InputKind.PARAMETER: 2>
    """
    USER_INPUT = auto()
    PARAMETER = auto()
    BUFFER = auto()
    CONSTANT_TENSOR = auto()
    CUSTOM_OBJ = auto()
    TOKEN = auto()


class OutputKind(Enum):
    """What a graph output is: ``USER_OUTPUT``, ``LOSS_OUTPUT``, ``BUFFER_MUTATION`` (the
    new value of a buffer), ``PARAMETER_MUTATION``, ``GRADIENT_TO_PARAMETER``,
    ``GRADIENT_TO_USER_INPUT``, ``USER_INPUT_MUTATION`` or ``TOKEN``.

    Example::

        >>> ember.export.graph_signature.OutputKind.BUFFER_MUTATION
        <OutputKind.BUFFER_MUTATION: 3>
    """
    USER_OUTPUT = auto()
    LOSS_OUTPUT = auto()
    BUFFER_MUTATION = auto()
    PARAMETER_MUTATION = auto()
    GRADIENT_TO_PARAMETER = auto()
    GRADIENT_TO_USER_INPUT = auto()
    USER_INPUT_MUTATION = auto()
    TOKEN = auto()


def _spec_str(name, kind, target, persistent=None):
    s = f'{name}: {kind.name}'
    if target is not None:
        s += f' target={target!r}'
    if persistent is not None:
        s += f' persistent={persistent}'
    return s


@dataclasses.dataclass
class InputSpec:
    """One graph input: its kind, its argument (the placeholder) and, for state, the fully
    qualified name in the module's ``state_dict`` (``target``).

    Args:
        kind (InputKind): what the input is.
        arg: a :class:`TensorArgument` (or another argument type) naming the placeholder.
        target (str or None): the state's name (``'lin.weight'``), None for user inputs.
        persistent (bool or None): for buffers, whether it is in the ``state_dict``.
            Default: None

    Example::

        >>> from ember.export.graph_signature import InputSpec, InputKind, TensorArgument
        >>> print(InputSpec(InputKind.PARAMETER, TensorArgument('p_w'), 'w'))
        p_w: PARAMETER target='w'
    """
    kind: InputKind
    arg: Any
    target: Optional[str]
    persistent: Optional[bool] = None

    def __post_init__(self):
        if self.kind == InputKind.BUFFER and self.persistent is None:
            raise AssertionError('Expected persistent to be set when kind is BUFFER')
        if not isinstance(self.arg, _ARG_TYPES):
            raise AssertionError(f'expected valid arg type, got {type(self.arg)}')

    def __str__(self):
        return _spec_str(getattr(self.arg, 'name', ''), self.kind, self.target,
                         self.persistent)


@dataclasses.dataclass
class OutputSpec:
    """One graph output: its kind, its argument and, for a mutation, the name of the state
    (or user input) whose new value it is (``target``).

    Args:
        kind (OutputKind): what the output is.
        arg: a :class:`TensorArgument` (or another argument type) naming the output node.
        target (str or None): the mutated buffer's name, None for user outputs.

    Example::

        >>> from ember.export.graph_signature import OutputSpec, OutputKind, TensorArgument
        >>> print(OutputSpec(OutputKind.USER_OUTPUT, TensorArgument('relu'), None))
        relu: USER_OUTPUT
    """
    kind: OutputKind
    arg: Any
    target: Optional[str]

    def __post_init__(self):
        if not isinstance(self.arg, _ARG_TYPES):
            raise AssertionError(f'expected valid arg type, got {type(self.arg)}')

    def __str__(self):
        return _spec_str(getattr(self.arg, 'name', ''), self.kind, self.target)


@dataclasses.dataclass
class ExportBackwardSignature:
    """Where the gradients of a joint (forward + backward) graph go.

    Args:
        gradients_to_parameters (dict): output name -> parameter name.
        gradients_to_user_inputs (dict): output name -> user input name.
        loss_output (str): the loss output's name.

    Example::

        >>> ember.export.ExportBackwardSignature({}, {}, 'loss').loss_output
        'loss'
    """
    gradients_to_parameters: dict
    gradients_to_user_inputs: dict
    loss_output: str


def _name(arg):
    return arg.name if isinstance(arg, (TensorArgument, SymIntArgument, SymFloatArgument,
                                        SymBoolArgument, CustomObjArgument,
                                        TokenArgument)) else arg.value


@dataclasses.dataclass
class ExportGraphSignature:
    """The inputs and outputs of an exported graph, in order: parameters, buffers, lifted
    constants, then user inputs; mutated state (``BUFFER_MUTATION`` ...) then user outputs.

    Args:
        input_specs (list of InputSpec): one per placeholder, in order.
        output_specs (list of OutputSpec): one per output, in order.

    Example::

        >>> ep = ember.export.export(ember.nn.Linear(4, 3), (ember.randn(2, 4),))
        >>> ep.graph_signature.parameters
        ('weight', 'bias')
        >>> ep.graph_signature.inputs_to_parameters
        mappingproxy({'p_weight': 'weight', 'p_bias': 'bias'})
    """
    input_specs: list
    output_specs: list

    def _ins(self, kind):
        return [s for s in self.input_specs if s.kind == kind]

    def _outs(self, kind):
        return [s for s in self.output_specs if s.kind == kind]

    @property
    def parameters(self):
        """The parameters' names, in input order (a tuple)."""
        return tuple(s.target for s in self._ins(InputKind.PARAMETER))

    @property
    def buffers(self):
        """The buffers' names, in input order (a tuple)."""
        return tuple(s.target for s in self._ins(InputKind.BUFFER))

    @property
    def non_persistent_buffers(self):
        """The names of the buffers that are not in the ``state_dict`` (a tuple)."""
        return tuple(s.target for s in self._ins(InputKind.BUFFER) if not s.persistent)

    @property
    def lifted_tensor_constants(self):
        """The names of the tensor constants lifted as inputs (a tuple)."""
        return tuple(s.target for s in self._ins(InputKind.CONSTANT_TENSOR))

    @property
    def lifted_custom_objs(self):
        """The names of the script objects lifted as inputs (a tuple)."""
        return tuple(s.target for s in self._ins(InputKind.CUSTOM_OBJ))

    @property
    def user_inputs(self):
        """The user inputs' names (constants by value), in order (a tuple)."""
        return tuple(_name(s.arg) for s in self._ins(InputKind.USER_INPUT))

    @property
    def user_outputs(self):
        """The user outputs' names (constants by value), in order (a tuple)."""
        return tuple(_name(s.arg) for s in self.output_specs
                     if s.kind in (OutputKind.USER_OUTPUT, OutputKind.LOSS_OUTPUT))

    def _map(self, specs):
        return MappingProxyType({s.arg.name: s.target for s in specs})

    @property
    def inputs_to_parameters(self):
        """Placeholder name -> parameter name (a read-only mapping)."""
        return self._map(self._ins(InputKind.PARAMETER))

    @property
    def inputs_to_buffers(self):
        """Placeholder name -> buffer name (a read-only mapping)."""
        return self._map(self._ins(InputKind.BUFFER))

    @property
    def inputs_to_lifted_tensor_constants(self):
        """Placeholder name -> constant name (a read-only mapping)."""
        return self._map(self._ins(InputKind.CONSTANT_TENSOR))

    @property
    def inputs_to_lifted_custom_objs(self):
        """Placeholder name -> script object name (a read-only mapping)."""
        return self._map(self._ins(InputKind.CUSTOM_OBJ))

    @property
    def buffers_to_mutate(self):
        """Output name -> name of the buffer it is the new value of (a read-only mapping)."""
        return self._map(self._outs(OutputKind.BUFFER_MUTATION))

    @property
    def parameters_to_mutate(self):
        """Output name -> name of the parameter it is the new value of."""
        return self._map(self._outs(OutputKind.PARAMETER_MUTATION))

    @property
    def user_inputs_to_mutate(self):
        """Output name -> name of the user input it is the new value of."""
        return self._map(self._outs(OutputKind.USER_INPUT_MUTATION))

    @property
    def backward_signature(self):
        """The :class:`ExportBackwardSignature` of a joint graph; None for a forward
        graph."""
        loss = self._outs(OutputKind.LOSS_OUTPUT)
        if not loss:
            return None
        return ExportBackwardSignature(
            {s.arg.name: s.target for s in self._outs(OutputKind.GRADIENT_TO_PARAMETER)},
            {s.arg.name: s.target for s in self._outs(OutputKind.GRADIENT_TO_USER_INPUT)},
            loss[0].arg.name)

    @property
    def assertion_dep_token(self):
        """The assertion token output (None: ember's graphs have no effect tokens)."""
        return None

    @property
    def input_tokens(self):
        """The effect-token inputs' names (a tuple)."""
        return tuple(s.arg.name for s in self._ins(InputKind.TOKEN))

    @property
    def output_tokens(self):
        """The effect-token outputs' names (a tuple)."""
        return tuple(s.arg.name for s in self._outs(OutputKind.TOKEN))

    def replace_all_uses(self, old, new):
        """Rename the argument ``old`` to ``new`` in every spec (after a node is renamed).

        Args:
            old (str): the node's old name.
            new (str): its new name.
        """
        if not isinstance(old, str) or not isinstance(new, str):
            raise AssertionError('old and new must be strings')
        for s in list(self.input_specs) + list(self.output_specs):
            if getattr(s.arg, 'name', None) == old and not isinstance(s.arg, ConstantArgument):
                s.arg.name = new

    def get_replace_hook(self, replace_inputs=False):
        """A hook for :meth:`ember.fx.Node.replace_all_uses_with` that keeps the signature's
        output names in step with a replaced node.

        Args:
            replace_inputs (bool): also rename inputs. Default: False
        """
        def hook(old, new, user):
            if user.op == 'output':
                self.replace_all_uses(old.name, new)
            if replace_inputs and old.op == 'placeholder':
                self.replace_all_uses(old.name, new)
        return hook

    def __str__(self):
        ins = '\n'.join(str(s) for s in self.input_specs)
        outs = '\n'.join(str(s) for s in self.output_specs)
        return f'\n# inputs\n{ins}\n\n# outputs\n{outs}\n'
