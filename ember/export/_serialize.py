"""``ember.export.save`` / ``ember.export.load``: an :class:`ExportedProgram` in a zip
archive (``.pt2`` by convention).

Layout (every entry stored uncompressed)::

    ember_pt2/archive_format     the text 'ember-pt2'
    ember_pt2/version            the format's version ('1')
    ember_pt2/program.json       graph, signature, ranges, specs, tensors' metadata
    ember_pt2/data/<k>           the bytes of tensor k (C order, little endian)
    ember_pt2/extra/<name>       the extra files

Loading treats the file as hostile: only JSON is parsed (no pickle), a node's target is
resolved only among ember's op namespaces and ``Tensor`` methods (plus a few fixed
helpers), each tensor's byte count must equal what its dtype and shape need, and nothing
of the graph runs while loading.
"""
import io
import json
import keyword
import math
import operator
import os
import zipfile

__all__ = []

_ROOT = 'ember_pt2/'
_FORMAT = 'ember-pt2'
_VERSION = '1'
_MAX_DEPTH = 64


class SerializeError(RuntimeError):
    """An archive that is not a valid ``ember.export`` program.

    Example::

        >>> try:
        ...     ember.export.load(io.BytesIO(b'PK...'))
        ... except ember.export._serialize.SerializeError as e:
        ...     print(e)
    """


def _helpers():
    from . import _trace, _functionalize
    return {('builtins', 'getattr'): getattr,
            ('operator', 'getitem'): operator.getitem,
            ('operator', 'add'): operator.add, ('operator', 'sub'): operator.sub,
            ('operator', 'mul'): operator.mul, ('operator', 'floordiv'): operator.floordiv,
            ('operator', 'mod'): operator.mod, ('operator', 'neg'): operator.neg,
            ('operator', 'pos'): operator.pos, ('builtins', 'abs'): abs,
            ('operator', 'truediv'): operator.truediv, ('operator', 'pow'): operator.pow,
            ('ember.export._trace', 'sym_size'): _trace.sym_size,
            ('ember.export._trace', 'item'): _trace.item,
            ('ember.export._functionalize', 'batch_norm_functional'):
                _functionalize.batch_norm_functional,
            ('ember.export._functionalize', 'setitem_functional'):
                _functionalize.setitem_functional}


def _target_key(fn):
    for k, v in _helpers().items():
        if v is fn:
            return list(k)
    from ._trace import target_name
    name = target_name(fn)
    if name is None:
        raise SerializeError(f'ember.export.save: cannot serialize the node target {fn!r} '
                             '(only ember ops, Tensor methods and export helpers are)')
    return list(name)


def _resolve(key):
    if not (isinstance(key, list) and len(key) == 2 and all(isinstance(k, str) for k in key)):
        raise SerializeError(f'invalid node target {key!r}')
    fn = _helpers().get(tuple(key))
    if fn is not None:
        return fn
    from ._trace import resolve_target
    fn = resolve_target(*key)
    if fn is None:
        raise SerializeError(f'the node target {key[0]}.{key[1]} is not an ember op: refusing '
                             'to load it')
    return fn


# -- values ---------------------------------------------------------------------------------
def _enc(v, tensors):
    import ember
    if hasattr(v, 'op') and hasattr(v, 'graph'):          # fx Node
        return {'node': v.name}
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, int):
        return int(v)
    if isinstance(v, float):
        if math.isfinite(v):
            return v
        return {'float': repr(v)}
    if isinstance(v, complex):
        return {'complex': [_enc(v.real, tensors), _enc(v.imag, tensors)]}
    if isinstance(v, ember.dtype):
        return {'dtype': str(v).replace('torch.', '')}
    if isinstance(v, ember.device):
        return {'device': str(v)}
    if isinstance(v, ember.memory_format):
        return {'memory_format': str(v).replace('torch.', '')}
    if isinstance(v, ember.layout):
        return {'layout': str(v).replace('torch.', '')}
    if v is Ellipsis:
        return {'ellipsis': True}
    if isinstance(v, slice):
        return {'slice': [_enc(v.start, tensors), _enc(v.stop, tensors), _enc(v.step, tensors)]}
    if isinstance(v, ember.Tensor):
        return {'tensor': tensors(v)}
    if isinstance(v, list):
        return [_enc(x, tensors) for x in v]
    if isinstance(v, tuple):
        return {'tuple': [_enc(x, tensors) for x in v]}
    if isinstance(v, dict):
        return {'dict': [[_enc(k, tensors), _enc(x, tensors)] for k, x in v.items()]}
    raise SerializeError(f'ember.export.save: cannot serialize the value {v!r} of type '
                         f'{type(v).__name__}')


def _dec(v, nodes, tensors, depth=0):
    import ember
    if depth > _MAX_DEPTH:
        raise SerializeError('value nested too deeply')
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, list):
        return [_dec(x, nodes, tensors, depth + 1) for x in v]
    if not isinstance(v, dict) or len(v) != 1:
        raise SerializeError(f'invalid value {v!r}')
    (k, x), = v.items()
    if k == 'node':
        if x not in nodes:
            raise SerializeError(f'reference to an unknown node {x!r}')
        return nodes[x]
    if k == 'float':
        if x not in ('inf', '-inf', 'nan'):
            raise SerializeError(f'invalid float {x!r}')
        return float(x)
    if k == 'complex':
        re_, im = (_dec(y, nodes, tensors, depth + 1) for y in _list(x, 2))
        return complex(re_, im)
    if k in ('dtype', 'memory_format', 'layout'):
        kind = {'dtype': ember.dtype, 'memory_format': ember.memory_format,
                'layout': ember.layout}[k]
        obj = getattr(ember, x, None) if isinstance(x, str) and x.isidentifier() else None
        if not isinstance(obj, kind):
            raise SerializeError(f'invalid {k} {x!r}')
        return obj
    if k == 'device':
        if not isinstance(x, str):
            raise SerializeError(f'invalid device {x!r}')
        return ember.device(x)
    if k == 'ellipsis':
        return Ellipsis
    if k == 'slice':
        return slice(*(_dec(y, nodes, tensors, depth + 1) for y in _list(x, 3)))
    if k == 'tensor':
        return tensors(x)
    if k == 'tuple':
        return tuple(_dec(y, nodes, tensors, depth + 1) for y in _list(x))
    if k == 'dict':
        out = {}
        for pair in _list(x):
            a, b = _list(pair, 2)
            key = _dec(a, nodes, tensors, depth + 1)
            if isinstance(key, (list, dict)):
                raise SerializeError('invalid dict key')
            out[key] = _dec(b, nodes, tensors, depth + 1)
        return out
    raise SerializeError(f'invalid value kind {k!r}')


def _list(x, n=None):
    if not isinstance(x, list) or (n is not None and len(x) != n):
        raise SerializeError(f'invalid archive entry {x!r}')
    return x


def _str(x, what):
    if not isinstance(x, str):
        raise SerializeError(f'invalid {what} {x!r}')
    return x


# -- tensors --------------------------------------------------------------------------------
class _TensorTable:
    """Tensors by object identity, each written once."""

    def __init__(self):
        self.entries = []
        self.ids = {}

    def __call__(self, t):
        key = id(t)
        if key not in self.ids:
            self.ids[key] = len(self.entries)
            self.entries.append(t)
        return self.ids[key]


def _tensor_meta(t):
    import ember
    return {'dtype': str(t.dtype).replace('torch.', ''), 'shape': list(t.shape),
            'device': t.device.type, 'requires_grad': bool(t.requires_grad),
            'parameter': isinstance(t, ember.nn.Parameter)}


def _tensor_bytes(t):
    a = t.detach().cpu()._data
    if a.dtype.byteorder == '>':
        a = a.byteswap().view(a.dtype.newbyteorder('<'))
    return a.tobytes()          # C order, whatever the strides


def _np_dtype(name):
    import ember
    import numpy as np
    from .._dtype import _NP2DT
    dt = getattr(ember, name, None) if isinstance(name, str) and name.isidentifier() else None
    if not isinstance(dt, ember.dtype):
        raise SerializeError(f'invalid tensor dtype {name!r}')
    for npdt, d in _NP2DT.items():
        if d is dt:
            return dt, np.dtype(npdt)
    raise SerializeError(f'unsupported tensor dtype {name!r}')


# -- save -----------------------------------------------------------------------------------
def _arg_json(arg, tensors):
    from .graph_signature import ConstantArgument
    a = {'type': type(arg).__name__, 'name': getattr(arg, 'name', '')}
    if isinstance(arg, ConstantArgument):
        a['value'] = _enc(arg.value, tensors)
    return a


def _arg_from(a, tensor):
    from . import graph_signature as gsig
    if not isinstance(a, dict):
        raise SerializeError('invalid signature argument')
    types = {c.__name__: c for c in (gsig.TensorArgument, gsig.SymIntArgument,
                                     gsig.SymFloatArgument, gsig.SymBoolArgument,
                                     gsig.TokenArgument)}
    if a.get('type') == 'ConstantArgument':
        return gsig.ConstantArgument(_str(a.get('name'), 'name'),
                                     _dec(a.get('value'), {}, tensor))
    if a.get('type') in types:
        return types[a['type']](_str(a.get('name'), 'name'))
    raise SerializeError(f'invalid argument type {a.get("type")!r}')


def _spec_json(spec, tensors):
    d = {'kind': spec.kind.name, 'arg': _arg_json(spec.arg, tensors), 'target': spec.target}
    if hasattr(spec, 'persistent'):
        d['persistent'] = spec.persistent
    return d


def _linear(fn):
    b = fn(0)
    return [fn(1) - b, b]


def save(ep, f, *, extra_files=None, opset_version=None, pickle_protocol=2):
    """Write ``ep`` to ``f`` (a path or a binary file object) as a zip archive: the graph,
    signature, dynamic-size ranges and module call specs as JSON, each tensor (state, constants,
    example inputs) as its raw bytes.

    NOTE: unlike PyTorch, the archive is ember's own format: PyTorch's ``torch.export.load``
    cannot read it, nor can :func:`load` read PyTorch's ``.pt2`` archives (whose graphs are
    ATen ops). Tensors that shared storage are written (and loaded) as separate tensors;
    CUDA tensors load back on CUDA when it is available, else on the CPU.

    Args:
        ep (ExportedProgram): the program.
        f (str, os.PathLike or file): where to write.
        extra_files (dict, optional): ``name -> str or bytes`` stored alongside.
        opset_version (dict, optional): accepted for compatibility.
        pickle_protocol (int): accepted for compatibility (nothing is pickled).

    Example::

        >>> ember.export.save(ep, 'model.pt2')
        >>> ep2 = ember.export.load('model.pt2')
    """
    from .exported_program import ExportedProgram
    from ..utils import _pytree as pytree
    if not isinstance(ep, ExportedProgram):
        raise TypeError(f'The \'ep\' parameter must be an instance of \'ExportedProgram\', '
                        f'got \'{type(ep).__name__}\' instead.')
    tensors = _TensorTable()
    nodes = []
    for n in ep.graph.nodes:
        d = {'name': n.name, 'op': n.op}
        if n.op == 'call_function':
            d['target'] = _target_key(n.target)
        elif n.op in ('placeholder', 'output'):
            d['target'] = n.target
        else:
            raise SerializeError(f'ember.export.save: cannot serialize a {n.op} node')
        d['args'] = _enc(n.args, tensors)
        d['kwargs'] = _enc(n.kwargs, tensors)
        v = n.meta.get('val')
        if hasattr(v, 'shape') and hasattr(v, 'dtype'):
            d['val'] = {'dtype': str(v.dtype).replace('torch.', ''), 'shape': list(v.shape)}
        elif isinstance(v, (int, float)) and not isinstance(v, bool):
            d['val'] = {'number': _enc(v, tensors)}
        if isinstance(n.meta.get('stack_trace'), str):
            d['stack_trace'] = n.meta['stack_trace']
        nodes.append(d)
    sig = ep.graph_signature
    symbols = []
    for s, r in ep.range_constraints.items():
        symbols.append({'name': s.name, 'root': s.root.name if s.root is not None and
                        s.fn is not None else None,
                        'fn': _linear(s.fn) if s.fn is not None else None,
                        'lower': r.lower, 'upper': None if str(r.upper) == 'int_oo'
                        else r.upper})
    guards = []
    for kind, i, where, rule in ep._guards:
        if kind == 'const':
            guards.append(['const', i, where, _enc(rule, tensors)])
        elif rule[0] == 'static':
            guards.append([kind, i, where, ['static', rule[1]]])
        else:
            guards.append([kind, i, where, ['dynamic', rule[1].name]])
    calls = []
    for e in ep.module_call_graph:
        s = e.signature
        calls.append({'fqn': e.fqn, 'signature': None if s is None else {
            'in_spec': None if s.in_spec is None else pytree.treespec_dumps(s.in_spec),
            'out_spec': None if s.out_spec is None else pytree.treespec_dumps(s.out_spec),
            'forward_arg_names': s.forward_arg_names,
            'inputs': [_arg_json(a, tensors) for a in s.inputs],
            'outputs': [_arg_json(a, tensors) for a in s.outputs]}})
    ex = None
    if ep.example_inputs is not None:
        leaves, spec = pytree.tree_flatten(ep.example_inputs)
        ex = {'spec': pytree.treespec_dumps(spec), 'leaves': _enc(leaves, tensors)}
    program = {
        'nodes': nodes,
        'input_specs': [_spec_json(s, tensors) for s in sig.input_specs],
        'output_specs': [_spec_json(s, tensors) for s in sig.output_specs],
        'state_dict': {k: tensors(v) for k, v in ep.state_dict.items()},
        'constants': {k: tensors(v) for k, v in ep.constants.items()},
        'symbols': symbols,
        'symbolic': {k: {str(d): str(s) for d, s in v.items()}
                     for k, v in ep._symbolic.items()},
        'guards': guards,
        'module_call_graph': calls,
        'example_inputs': ex,
        'training': bool(getattr(ep, '_training', True)),
    }
    program['tensors'] = [_tensor_meta(t) for t in tensors.entries]
    blob = json.dumps(program).encode('utf-8')

    def write(fobj):
        with zipfile.ZipFile(fobj, 'w', zipfile.ZIP_STORED) as z:
            z.writestr(_ROOT + 'archive_format', _FORMAT)
            z.writestr(_ROOT + 'version', _VERSION)
            z.writestr(_ROOT + 'program.json', blob)
            for k, t in enumerate(tensors.entries):
                z.writestr(f'{_ROOT}data/{k}', _tensor_bytes(t))
            for name, content in (extra_files or {}).items():
                if isinstance(content, str):
                    content = content.encode('utf-8')
                z.writestr(f'{_ROOT}extra/{name}', content)

    if isinstance(f, (str, os.PathLike)):
        path = os.fspath(f)
        tmp = path + '.tmp'
        with open(tmp, 'wb') as fobj:
            write(fobj)
        os.replace(tmp, path)          # a crash leaves the previous file intact
    else:
        write(f)


# -- load -----------------------------------------------------------------------------------
def load(f, *, extra_files=None, expected_opset_version=None):
    """Read an :class:`ExportedProgram` written by :func:`save`.

    The file is treated as untrusted: it is parsed as JSON and raw tensor bytes only (no
    pickle, no code), node targets must be ember ops or ``Tensor`` methods, and each tensor's
    stored byte count must match its dtype and shape. A file that is not such an archive
    raises ``zipfile.BadZipFile`` (not a zip, as in PyTorch) or ``SerializeError``.

    NOTE: unlike PyTorch, PyTorch's own ``.pt2`` archives are not readable (their graphs are
    ATen ops); see :func:`save`. Running the loaded program (``ep.module()(...)``) runs its
    ops, as running any model does.

    Args:
        f (str, os.PathLike or file): the archive.
        extra_files (dict, optional): names to read back; filled in place with their
            contents (``str``).
        expected_opset_version (dict, optional): accepted for compatibility.

    Returns:
        ExportedProgram

    Example::

        >>> ep = ember.export.load('model.pt2')
        >>> ep.module()(x)
    """
    if isinstance(f, (str, os.PathLike)):
        with open(os.fspath(f), 'rb') as fobj:
            data = fobj.read()
    else:
        data = f.read()
    z = zipfile.ZipFile(io.BytesIO(data))          # BadZipFile when not a zip
    try:
        return _load(z, len(data), extra_files)
    except SerializeError:
        raise
    except (KeyError, ValueError, TypeError, AttributeError, IndexError, RecursionError,
            NotImplementedError, zipfile.BadZipFile) as e:
        raise SerializeError(f'ember.export.load: corrupt archive ({type(e).__name__}: '
                             f'{e})') from None


def _read(z, name, size_limit, stored_only=True):
    try:
        info = z.getinfo(name)
    except KeyError:
        raise SerializeError(f"ember.export.load: the archive has no '{name}' (not an "
                             'ember.export archive: PyTorch .pt2 archives cannot be read)'
                             ) from None
    if info.file_size > size_limit or (stored_only and info.compress_type != zipfile.ZIP_STORED):
        raise SerializeError(f"ember.export.load: entry '{name}' is larger than the file "
                             'or compressed')
    return z.read(info)


def _load(z, file_size, extra_files):
    import ember
    import numpy as np
    from ..fx.graph import Graph
    from ..utils import _pytree as pytree
    from .._ops._util import wrap
    from .._backend import module_for_device
    from . import graph_signature as gsig
    from .dynamic_shapes import Symbol, ValueRanges, int_oo
    from .exported_program import ExportedProgram, ModuleCallEntry, ModuleCallSignature
    from ._trace import PROPERTIES

    fmt = _read(z, _ROOT + 'archive_format', 64)
    if fmt != _FORMAT.encode():
        raise SerializeError('ember.export.load: not an ember.export archive')
    version = _read(z, _ROOT + 'version', 16)
    if version != _VERSION.encode():
        raise SerializeError(f'ember.export.load: unsupported archive version {version!r}')
    try:
        prog = json.loads(_read(z, _ROOT + 'program.json', file_size).decode('utf-8'))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as e:
        raise SerializeError(f'ember.export.load: invalid program.json ({e})') from None
    if not isinstance(prog, dict):
        raise SerializeError('ember.export.load: invalid program.json')

    metas = _list(prog.get('tensors'))
    cache = {}

    def tensor(k):
        if not isinstance(k, int) or isinstance(k, bool) or not 0 <= k < len(metas):
            raise SerializeError(f'invalid tensor reference {k!r}')
        if k in cache:
            return cache[k]
        m = metas[k]
        if not isinstance(m, dict):
            raise SerializeError('invalid tensor entry')
        dt, npdt = _np_dtype(m.get('dtype'))
        shape = _list(m.get('shape'))
        if not all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in shape):
            raise SerializeError(f'invalid tensor shape {shape!r}')
        need = npdt.itemsize
        for s in shape:
            need *= s
            if need > file_size:
                raise SerializeError(f'tensor {k} needs more bytes than the file holds')
        raw = _read(z, f'{_ROOT}data/{k}', file_size)
        if len(raw) != need:
            raise SerializeError(f'tensor {k}: {len(raw)} bytes stored, {need} expected for '
                                 f'{m.get("dtype")}{shape}')
        arr = np.frombuffer(raw, dtype=npdt.newbyteorder('<')).astype(npdt).reshape(shape)
        t = wrap(module_for_device(ember.device('cpu')).asarray(arr.copy()))
        if m.get('device') == 'cuda' and ember.cuda.is_available():
            t = t.to('cuda')
        if m.get('parameter'):
            t = ember.nn.Parameter(t, requires_grad=bool(m.get('requires_grad')))
        elif m.get('requires_grad'):
            t.requires_grad_(True)
        cache[k] = t
        return t

    g = Graph()
    nodes = {}
    out_seen = False
    for d in _list(prog.get('nodes')):
        if not isinstance(d, dict) or out_seen:
            raise SerializeError('invalid node entry')
        name, op = _str(d.get('name'), 'node name'), d.get('op')
        args = _dec(d.get('args'), nodes, tensor)
        kwargs = _dec(d.get('kwargs'), nodes, tensor)
        if not isinstance(args, tuple) or not isinstance(kwargs, dict) or \
                not all(isinstance(k, str) for k in kwargs):
            raise SerializeError(f'invalid arguments of node {name!r}')
        if op == 'placeholder':
            target = _str(d.get('target'), 'placeholder name')
            if not target.isidentifier() or keyword.iskeyword(target):
                raise SerializeError(f'invalid placeholder name {target!r}')
            n = g.placeholder(target)
        elif op == 'call_function':
            fn = _resolve(d.get('target'))
            if fn is getattr and not (len(args) == 2 and not kwargs and
                                      hasattr(args[0], 'op') and args[1] in PROPERTIES):
                raise SerializeError(f'node {name!r}: getattr is only allowed for the '
                                     f'tensor properties {PROPERTIES}')
            n = g.create_node('call_function', fn, args, kwargs, name=name)
        elif op == 'output':
            n = g.output(args[0] if args else ())
            out_seen = True
        else:
            raise SerializeError(f'invalid node op {op!r}')
        if n.name != name and op != 'output':
            raise SerializeError(f'duplicate or invalid node name {name!r}')
        v = d.get('val')
        if isinstance(v, dict) and 'dtype' in v:
            dt, _ = _np_dtype(v['dtype'])
            shape = _list(v.get('shape'))
            if not all(isinstance(s, int) and s >= 0 for s in shape):
                raise SerializeError('invalid node shape')
            n.meta['val'] = ember.empty((), dtype=dt, device='meta').expand(tuple(shape))
        elif isinstance(v, dict) and 'number' in v:
            n.meta['val'] = _dec(v['number'], nodes, tensor)
        if d.get('stack_trace') is not None:
            n.meta['stack_trace'] = _str(d['stack_trace'], 'stack trace')
        nodes[name] = n
    if not out_seen:
        raise SerializeError('the graph has no output node')

    def spec(d, cls, kinds):
        if not isinstance(d, dict):
            raise SerializeError('invalid signature entry')
        arg = _arg_from(d.get('arg'), tensor)
        kind = getattr(kinds, _str(d.get('kind'), 'kind'), None)
        if not isinstance(kind, kinds):
            raise SerializeError(f'invalid kind {d.get("kind")!r}')
        target = d.get('target')
        if target is not None:
            _str(target, 'target')
        if cls is gsig.InputSpec:
            p = d.get('persistent')
            if p is not None and not isinstance(p, bool):
                raise SerializeError('invalid persistent flag')
            return cls(kind, arg, target, p)
        return cls(kind, arg, target)

    sig = gsig.ExportGraphSignature(
        [spec(s, gsig.InputSpec, gsig.InputKind) for s in _list(prog.get('input_specs'))],
        [spec(s, gsig.OutputSpec, gsig.OutputKind) for s in _list(prog.get('output_specs'))])
    state = {_str(k, 'name'): tensor(v) for k, v in dict(prog.get('state_dict')).items()}
    consts = {_str(k, 'name'): tensor(v) for k, v in dict(prog.get('constants')).items()}

    syms, ranges = {}, {}
    for s in _list(prog.get('symbols')):
        name = _str(s.get('name'), 'symbol')
        lo, hi = s.get('lower'), s.get('upper')
        if not isinstance(lo, int) or not (hi is None or isinstance(hi, int)):
            raise SerializeError('invalid range')
        fn = None
        root = None
        if s.get('fn') is not None:
            a, b = _list(s['fn'], 2)
            if not isinstance(a, int) or not isinstance(b, int):
                raise SerializeError('invalid derived dimension')
            root = syms.get(s.get('root'))
            if root is None:
                raise SerializeError('derived dimension of an unknown symbol')
            fn = (lambda a, b: lambda v: a * v + b)(a, b)
        sym = Symbol(name, root, fn)
        syms[name] = sym
        ranges[sym] = ValueRanges(lo, int_oo if hi is None else hi)
    guards = []
    for gd in _list(prog.get('guards')):
        kind, i, where, rule = _list(gd, 4)
        if not isinstance(i, int) or not isinstance(where, str):
            raise SerializeError('invalid guard')
        if kind == 'const':
            guards.append(('const', i, where, _dec(rule, {}, tensor)))
            continue
        if not isinstance(kind, int):
            raise SerializeError('invalid guard')
        rule = _list(rule, 2)
        if rule[0] == 'static' and isinstance(rule[1], int):
            guards.append((kind, i, where, ('static', rule[1])))
        elif rule[0] == 'dynamic' and rule[1] in syms:
            s = syms[rule[1]]
            r = ranges[s] if s.fn is None else ranges[s.root]
            guards.append((kind, i, where, ('dynamic', s, r.lower, r.upper, s.fn)))
        else:
            raise SerializeError('invalid guard')
    symbolic = {}
    for k, v in dict(prog.get('symbolic') or {}).items():
        symbolic[_str(k, 'name')] = {int(d): syms.get(_str(s, 'size'), s)
                                     for d, s in dict(v).items()}
    calls = []
    for e in _list(prog.get('module_call_graph')):
        s = e.get('signature')
        sig_ = None
        if s is not None:
            sig_ = ModuleCallSignature(
                [_arg_from(a, tensor) for a in _list(s.get('inputs', []))],
                [_arg_from(a, tensor) for a in _list(s.get('outputs', []))],
                None if s.get('in_spec') is None else
                pytree.treespec_loads(_str(s['in_spec'], 'spec')),
                None if s.get('out_spec') is None else
                pytree.treespec_loads(_str(s['out_spec'], 'spec')),
                s.get('forward_arg_names'))
        calls.append(ModuleCallEntry(_str(e.get('fqn'), 'fqn'), sig_))
    if not calls or calls[0].signature is None or calls[0].signature.in_spec is None:
        raise SerializeError('the archive has no root module signature')
    ex = prog.get('example_inputs')
    example = None
    if ex is not None:
        spec_ = pytree.treespec_loads(_str(ex.get('spec'), 'spec'))
        leaves = _dec(ex.get('leaves'), {}, tensor)
        example = pytree.tree_unflatten(_list(leaves, spec_.num_leaves), spec_)
    ep = ExportedProgram({}, g, sig, state, ranges, calls, example, consts,
                         _symbolic=symbolic, _guards=guards)
    ep._training = bool(prog.get('training', True))
    ep.validate()
    if extra_files is not None:
        for name in list(extra_files):
            extra_files[name] = _read(z, f'{_ROOT}extra/{name}', file_size).decode('utf-8')
    return ep
