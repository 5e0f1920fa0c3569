"""``ember.onnx``: export models to the ONNX format.

:func:`export` captures the model into an ``ember.fx`` graph by running it once on the
example inputs (every op applied to values that depend on the inputs becomes a node; layers
that have an ONNX conversion, such as ``LSTM`` or ``MultiheadAttention``, stay single
``call_module`` nodes), converts each node to ONNX operators and writes a real ONNX model
with the ``onnx`` package. ``onnx`` (and ``onnxruntime`` to run the result) are optional extras
(``pip install ember[onnx]``): importing this module never needs them.
"""
import enum
import io as _io

from . import errors
from .errors import OnnxExporterError

__all__ = ['export', 'is_in_onnx_export', 'errors', 'OnnxExporterError', 'OperatorExportTypes',
           'TrainingMode', 'ONNXProgram', 'ExportableModule', 'InputObserver',
           'register_custom_op_symbolic', 'unregister_custom_op_symbolic',
           'select_model_mode_for_export', 'producer_name', 'producer_version']

producer_name = 'ember'
producer_version = '0.1.0'
_DEFAULT_OPSET = 20
_MIN_OPSET = 9
_MAX_OPSET = 21
_in_export = False


class OperatorExportTypes(enum.IntEnum):
    """How operators are exported (ember exports plain ONNX in every case).

    Example::

        >>> ember.onnx.OperatorExportTypes.ONNX.value
        0
    """
    ONNX = 0
    ONNX_ATEN = 1
    ONNX_ATEN_FALLBACK = 2
    ONNX_FALLTHROUGH = 3


class TrainingMode(enum.IntEnum):
    """The mode the model is put in while exporting.

    Example::

        >>> ember.onnx.TrainingMode.EVAL.value
        0
    """
    EVAL = 0
    PRESERVE = 1
    TRAINING = 2


def is_in_onnx_export():
    """Returns whether it is in the middle of an ONNX export.

    Example::

        >>> ember.onnx.is_in_onnx_export()
        False
    """
    return _in_export


def _onnx():
    try:
        import onnx
    except ImportError as e:
        raise ImportError("ember.onnx.export needs the 'onnx' package: "
                          "pip install ember[onnx]") from e
    return onnx


class ONNXProgram:
    """An exported ONNX model (what :func:`export` returns with ``dynamo=True``).

    Args:
        model_proto: the ``onnx.ModelProto``.

    Example::

        >>> prog = ember.onnx.export(ember.nn.Linear(2, 3), (ember.ones(1, 2),), dynamo=True)
        >>> prog.model_proto.graph.node[0].op_type
        'Gemm'
    """

    def __init__(self, model_proto, exported_program=None):
        self.model_proto = model_proto
        self.exported_program = exported_program
        self._session = None

    def save(self, destination, **kwargs):
        """Write the model to ``destination`` (a path or binary file object)."""
        _onnx().save(self.model_proto, destination)

    def initialize_inference_session(self, initializer=None):
        """Create the ``onnxruntime`` session used by :meth:`__call__`."""
        import onnxruntime
        self._session = (initializer or (lambda b: onnxruntime.InferenceSession(
            b, providers=['CPUExecutionProvider'])))(self.model_proto.SerializeToString())

    def release(self):
        """Drop the inference session."""
        self._session = None

    def __call__(self, *args, **kwargs):
        """Run the model in onnxruntime on ember tensors; returns a list of ember tensors."""
        from .._tensor import Tensor
        from ._builder import to_numpy
        import ember
        if self._session is None:
            self.initialize_inference_session()
        names = [i.name for i in self._session.get_inputs()]
        vals = [a for a in args if isinstance(a, Tensor)] + list(kwargs.values())
        feed = {n: to_numpy(v) for n, v in zip(names, vals)}
        return [ember.tensor(o) for o in self._session.run(None, feed)]


class ExportableModule:
    """Base of modules that describe their own export arguments.

    NOTE: unlike PyTorch, this is a plain mix-in: subclass it together with
    ``ember.nn.Module`` and implement ``forward``; :func:`export` treats it as any module.

    Example::

        >>> issubclass(ember.onnx.ExportableModule, object)
        True
    """


class InputObserver:
    """Records the inputs a module's ``forward`` is called with (to derive export args).

    Args:
        value_if_missing (dict, optional): defaults for arguments missing in a call.

    Example::

        >>> obs = ember.onnx.InputObserver()
        >>> obs.inputs
        []
    """

    def __init__(self, value_if_missing=None):
        self.value_if_missing = dict(value_if_missing or {})
        self.inputs = []

    def __call__(self, model):
        obs = self
        original = model.forward

        def forward(*args, **kwargs):
            obs.inputs.append((args, kwargs))
            return original(*args, **kwargs)
        model.forward = forward
        return model


_custom_symbolics = {}


def register_custom_op_symbolic(symbolic_name, symbolic_fn, opset_version):
    """Register a symbolic function for an operator ``'<domain>::<op>'``.

    NOTE: unlike PyTorch, the registry is kept but ember's exporter uses its own tables.

    Example::

        >>> ember.onnx.register_custom_op_symbolic('custom::op', lambda g, x: x, 17)
    """
    if symbolic_name.startswith('::') or '::' not in symbolic_name:
        raise ValueError(f"Failed to register operator {symbolic_name}. The symbolic name must "
                         "match the format domain::name, and should start with a letter and "
                         "contain only alphanumerical characters")
    _custom_symbolics[(symbolic_name, opset_version)] = symbolic_fn


def unregister_custom_op_symbolic(symbolic_name, opset_version):
    """Remove a symbolic function registered with :func:`register_custom_op_symbolic`.

    Example::

        >>> ember.onnx.unregister_custom_op_symbolic('custom::op', 17)
    """
    _custom_symbolics.pop((symbolic_name, opset_version), None)


class select_model_mode_for_export:
    """Context manager that puts ``model`` in the mode ``mode`` (a :class:`TrainingMode`)
    and restores its previous mode on exit.

    Example::

        >>> m = ember.nn.Dropout()
        >>> with ember.onnx.select_model_mode_for_export(m, ember.onnx.TrainingMode.EVAL):
        ...     m.training
        False
    """

    def __init__(self, model, mode):
        self.model, self.mode = model, mode

    def __enter__(self):
        self.was = getattr(self.model, 'training', False)
        if self.mode == TrainingMode.TRAINING:
            self.model.train(True)
        elif self.mode == TrainingMode.EVAL:
            self.model.train(False)
        return self.model

    def __exit__(self, *exc):
        self.model.train(self.was)
        return False


def export(model, args=(), f=None, *, kwargs=None, verbose=None, input_names=None,
           output_names=None, opset_version=None, dynamo=True, external_data=True,
           dynamic_shapes=None, custom_translation_table=None, report=False, optimize=True,
           verify=False, profile=False, dump_exported_program=False, artifacts_dir='.',
           export_params=True, keep_initializers_as_inputs=False, dynamic_axes=None,
           training=TrainingMode.EVAL, operator_export_type=OperatorExportTypes.ONNX,
           do_constant_folding=True, custom_opsets=None, export_modules_as_functions=False,
           autograd_inlining=True):
    """Export a model to ONNX.

    Args:
        model (Module or callable): the model.
        args (tuple or Tensor): example positional inputs.
        f (str, path or file, optional): where to write the ``.onnx`` file.
        kwargs (dict, optional): example keyword inputs.
        input_names, output_names (list of str, optional): names of the graph's inputs and
            outputs.
        opset_version (int, optional): the ONNX opset (default 20; 9 to 21).
        dynamo (bool): when True return an :class:`ONNXProgram`; else ``None``.
        export_params (bool): store parameters as initializers (else as graph inputs).
        keep_initializers_as_inputs (bool): also list the initializers as graph inputs.
        dynamic_axes (dict, optional): ``{name: {axis: dim_name}}`` or ``{name: [axis]}``.
        training (TrainingMode): the mode the model runs in during export.

    NOTE: unlike PyTorch, one exporter serves both ``dynamo`` settings: the model is captured
    into an ``ember.fx.GraphModule`` by running it once (Python control flow and numbers
    read from shapes are fixed at the example's values, except that reshapes keep a
    dynamic leading axis free), ``dynamic_shapes`` is ignored (use ``dynamic_axes``), and the
    supported layers/ops are those of ``ember.onnx._convert``; anything else, including an
    op computed from the inputs outside the recorded graph, raises
    :class:`ember.onnx.errors.UnsupportedOperatorError` naming it. Opsets 9 to 21 are
    accepted; a conversion that needs a newer opset names the version it needs.

    Example::

        >>> prog = ember.onnx.export(ember.nn.Linear(2, 3), (ember.ones(1, 2),))
        >>> [i.name for i in prog.model_proto.graph.input]
        ['input']
    """
    global _in_export
    onnx = _onnx()
    from . import _capture, _convert, _builder
    from ..nn import modules as _mods
    from ..fx.node import Node
    opset = _DEFAULT_OPSET if opset_version is None else opset_version
    if type(opset) is not int or not _MIN_OPSET <= opset <= _MAX_OPSET:
        raise ValueError(f"Unsupported ONNX opset version: {opset_version}. Supported versions "
                         f"are {_MIN_OPSET} to {_MAX_OPSET}")
    if not isinstance(args, tuple):
        args = (args,)
    if args and isinstance(args[-1], dict) and kwargs is None:
        args, kwargs = args[:-1], args[-1]
    kwargs = kwargs or {}
    for what, names in (('input_names', input_names), ('output_names', output_names)):
        if names is not None and (isinstance(names, str) or
                                  not all(isinstance(x, str) for x in names)):
            raise TypeError(f"{what} must be a list of str, but got {names!r}")
    leaf = tuple(c for c in (getattr(_mods, k, None) for k in _convert.MODULES)
                 if isinstance(c, type))
    _in_export = True
    try:
        with select_model_mode_for_export(model, training) if hasattr(model, 'train') else \
                _io.StringIO():
            gm, inputs, out = _capture.capture(model, args, kwargs, leaf, input_names, opset)
            b = _builder.Builder(onnx, opset)
            cx = _convert.Context(b)
            for n in inputs:
                b.used.add(n.meta['onnx_name'])
            b.used.update(output_names or ())
            outs = ()
            for n in gm.graph.nodes:            # converters read the layers' modes
                if n.op == 'placeholder':
                    cx.env[n] = n.meta['onnx_name']
                elif n.op == 'output':
                    outs = n.args[0]
                else:
                    cx.env[n] = cx.convert(n)
    finally:
        _in_export = False
    flat_outs = []

    def flatten(o):
        if isinstance(o, dict):
            o = list(o.values())
        if isinstance(o, (list, tuple)):
            for x in o:
                flatten(x)
        elif o is not None:
            flat_outs.append(o)
    flatten(outs)
    h = onnx.helper
    dyn = {}
    for k, v in (dynamic_axes or {}).items():
        dyn[k] = dict(v) if isinstance(v, dict) else {a: f'{k}_dynamic_axes_{i + 1}'
                                                      for i, a in enumerate(v)}

    def info(name, t):
        arr = _builder.to_numpy(t)
        d = dyn.get(name, {})
        shape = [d.get(i, s) for i, s in enumerate(arr.shape)]
        return h.make_tensor_value_info(name, h.np_dtype_to_tensor_dtype(arr.dtype), shape)

    known = {n.meta['onnx_name'] for n in inputs}
    n_out = len(flat_outs)
    known.update(output_names[i] if output_names and i < len(output_names) else
                 (f'output_{i}' if n_out > 1 else 'output') for i in range(n_out))
    for k in dyn:
        if k not in known:
            import warnings
            warnings.warn(f"Provided key {k} for dynamic axes is not a valid input/output name")
    g_inputs = [info(n.meta['onnx_name'], n.meta['val']) for n in inputs]
    g_outputs = []
    for i, o in enumerate(flat_outs):
        name = output_names[i] if output_names and i < len(output_names) else \
            (f'output_{i}' if len(flat_outs) > 1 else 'output')
        src = cx.name(o) if isinstance(o, Node) else b.const(o)
        b.nodes.append(h.make_node('Identity', [src], [name], name=b.fresh('/Identity')))
        g_outputs.append(info(name, o.meta['val'] if isinstance(o, Node) else o))
    inits = list(b.inits.values())
    if not export_params:
        g_inputs += [h.make_tensor_value_info(p, b.inits[p].data_type, list(b.inits[p].dims))
                     for p in b.param_names]
        inits = [t for k, t in b.inits.items() if k not in b.param_names]
    elif keep_initializers_as_inputs:
        g_inputs += [h.make_tensor_value_info(k, t.data_type, list(t.dims))
                     for k, t in b.inits.items()]
    if any(n.meta['onnx_name'] in dyn for n in inputs):
        g_outputs = _infer_output_shapes(onnx, b, g_inputs, g_outputs, inits, opset, dyn)
    graph_proto = h.make_graph(b.nodes, 'main_graph', g_inputs, g_outputs, inits)
    proto = h.make_model(graph_proto, opset_imports=[h.make_opsetid('', opset)],
                         producer_name='pytorch', producer_version='2.13.0')
    proto.ir_version = min(proto.ir_version, 10)
    onnx.checker.check_model(proto)
    if verbose:
        print(h.printable_graph(proto.graph))
    if f is not None:
        onnx.save(proto, f)
    return ONNXProgram(proto) if dynamo else None


def _infer_output_shapes(onnx, b, g_inputs, g_outputs, inits, opset, dyn):
    """With dynamic input axes, the outputs' shapes come from ONNX shape inference (so an
    output axis that follows a dynamic input axis is not declared with the example's size);
    an axis inference cannot tell stays unnamed. ``dynamic_axes`` given for outputs win."""
    h = onnx.helper
    bare = [h.make_tensor_value_info(o.name, o.type.tensor_type.elem_type, None)
            for o in g_outputs]
    tmp = h.make_model(h.make_graph(b.nodes, 'g', g_inputs, bare, inits),
                       opset_imports=[h.make_opsetid('', opset)])
    try:
        inferred = onnx.shape_inference.infer_shapes(tmp)
        shapes = {}
        for v in list(inferred.graph.value_info) + list(inferred.graph.output):
            t = v.type.tensor_type
            if t.HasField('shape'):
                shapes[v.name] = [d.dim_param or (d.dim_value if d.HasField('dim_value') else None)
                                  for d in t.shape.dim]
    except Exception:
        shapes = {}
    out = []
    for o in g_outputs:
        dims = [d.dim_param or d.dim_value for d in o.type.tensor_type.shape.dim]
        got = shapes.get(o.name)
        d_user = dyn.get(o.name, {})
        if got is None or len(got) != len(dims):
            got = [None] * len(dims)
        final = [d_user[i] if i in d_user else got[i] for i in range(len(dims))]
        out.append(h.make_tensor_value_info(o.name, o.type.tensor_type.elem_type, final))
    return out
