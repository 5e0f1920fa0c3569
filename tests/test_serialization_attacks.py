"""An adversarial corpus for ``ember.load`` with the default ``weights_only=True``.

Every file here is assembled by hand (pickle opcodes, zip / legacy / tar containers) and
must be refused with a clear ``pickle.UnpicklingError``, run no code (each gadget would
create a marker file), leave the process state as it was, and stay under a memory cap.
"""
import builtins
import collections
import io
import os
import pickle
import struct
import subprocess
import sys
import tarfile
import tempfile
import textwrap
import tracemalloc
import zipfile
import warnings
import zlib

import numpy as np
import pytest

import ember
from ember import serialization as S

MARK_DIR = tempfile.mkdtemp(prefix='ember-attack-')
MARKER = os.path.join(MARK_DIR, 'pwned')
CMD = f'touch {MARKER}'


# ------------------------------------------------------------------ a tiny pickle assembler
def u(s):
    """BINUNICODE."""
    b = s.encode('utf-8')
    return b'X' + struct.pack('<I', len(b)) + b


def su(s):
    """SHORT_BINUNICODE (protocol 4)."""
    b = s.encode('utf-8')
    return b'\x8c' + bytes([len(b)]) + b


def i(n):
    if 0 <= n < 256:
        return b'K' + bytes([n])
    if -2 ** 31 <= n < 2 ** 31:
        return b'J' + struct.pack('<i', n)
    b = n.to_bytes((n.bit_length() + 8) // 8, 'little', signed=True)
    return b'\x8a' + bytes([len(b)]) + b


def g(mod, name):
    return b'c' + mod.encode() + b'\n' + name.encode() + b'\n'


def f(x):
    return b'G' + struct.pack('>d', x)


PROTO2, PROTO4 = b'\x80\x02', b'\x80\x04'
MARK, STOP, REDUCE, BUILD, TUPLE, TUPLE1, TUPLE2, TUPLE3 = b'(', b'.', b'R', b'b', b't', b'\x85', b'\x86', b'\x87'
EMPTY_TUPLE, EMPTY_LIST, EMPTY_DICT, NONE, TRUE, FALSE = b')', b']', b'}', b'N', b'\x88', b'\x89'
NEWOBJ, SETITEM, SETITEMS, APPEND, APPENDS, BINPERSID = b'\x81', b's', b'u', b'a', b'e', b'Q'
STACK_GLOBAL, MEMOIZE, EMPTY_SET = b'\x93', b'\x94', b'\x8f'


def put(n):
    return b'q' + bytes([n])


def get(n):
    return b'h' + bytes([n])


def call(fn, *args):
    """fn(*args) as GLOBAL-args-REDUCE (args are already-assembled bytes)."""
    return fn + MARK + b''.join(args) + TUPLE + REDUCE


def pkl(body, proto=PROTO2):
    return proto + body + STOP


def dict_of(**kv):
    return EMPTY_DICT + MARK + b''.join(u(k) + v for k, v in kv.items()) + SETITEMS


def tup(*items):
    return MARK + b''.join(items) + TUPLE


def lst(*items):
    return EMPTY_LIST + MARK + b''.join(items) + APPENDS


def hooks():
    return call(g('collections', 'OrderedDict'))


def storage(key='0', numel=4, sty='FloatStorage', loc='cpu', mod='torch'):
    return tup(u('storage'), g(mod, sty), u(key), u(loc), i(numel)) + BINPERSID


def tensor(st=None, offset=i(0), size=None, stride=None, rg=FALSE, hk=None, extra=b''):
    st = storage() if st is None else st
    size = tup(i(4)) if size is None else size
    stride = tup(i(1)) if stride is None else stride
    hk = hooks() if hk is None else hk
    return call(g('torch._utils', '_rebuild_tensor_v2'), st, offset, size, stride, rg, hk, extra)


FLOATS4 = np.arange(4, dtype=np.float32).tobytes()


# ------------------------------------------------------------------ containers
def zip_ckpt(data_pkl, records=None, prefix='archive', compress=None, raw_names=None):
    """A torch-style zip checkpoint holding ``data_pkl`` and ``records`` ({'data/0': bytes})."""
    records = {'data/0': FLOATS4} if records is None else records
    buf = io.BytesIO()
    with warnings.catch_warnings(), zipfile.ZipFile(buf, 'w', zipfile.ZIP_STORED) as z:
        warnings.simplefilter('ignore')     # duplicate names are one of the attacks
        names = raw_names or [f'{prefix}/data.pkl']
        for n in names:
            z.writestr(zipfile.ZipInfo(n), data_pkl,
                       compress_type=compress.get('data.pkl', zipfile.ZIP_STORED) if compress else zipfile.ZIP_STORED)
        z.writestr(f'{prefix}/byteorder', b'little')
        for k, v in records.items():
            ct = compress.get(k, zipfile.ZIP_STORED) if compress else zipfile.ZIP_STORED
            z.writestr(zipfile.ZipInfo(f'{prefix}/{k}'), v, compress_type=ct)
        z.writestr(f'{prefix}/version', b'3\n')
    return buf.getvalue()


def patch_cd_size(raw, name, size):
    """Rewrite the uncompressed size the central directory claims for record ``name``."""
    n = name.encode()
    pos = raw.rfind(b'PK\x01\x02' + b'', 0)
    pos = 0
    while True:
        pos = raw.index(b'PK\x01\x02', pos)
        nl = struct.unpack('<H', raw[pos + 28:pos + 30])[0]
        if raw[pos + 46:pos + 46 + nl] == n:
            return raw[:pos + 24] + struct.pack('<I', size) + raw[pos + 28:]
        pos += 4


MAGIC = 0x1950a86a20f9469cfc6c
SYSINFO = dict(protocol_version=1001, little_endian=True, type_sizes=dict(short=2, int=4, long=4))


def legacy(main, keys=('0',), storages=((4, FLOATS4),), magic=None, proto=None, sysinfo=None,
           keys_pkl=None):
    out = magic if magic is not None else pickle.dumps(MAGIC, 2)
    out += proto if proto is not None else pickle.dumps(1001, 2)
    out += sysinfo if sysinfo is not None else pickle.dumps(SYSINFO, 2)
    out += main
    out += keys_pkl if keys_pkl is not None else pickle.dumps(list(keys), 2)
    for numel, data in storages:
        out += struct.pack('<q', numel) + data
    return out


def legacy_storage(key='0', numel=4, view=NONE, sty='FloatStorage'):
    return tup(u('storage'), g('torch', sty), u(key), u('cpu'), i(numel), view) + BINPERSID


def legacy_tensor(st=None, size=None, stride=None):
    st = legacy_storage() if st is None else st
    return call(g('torch._utils', '_rebuild_tensor_v2'), st, i(0), size or tup(i(4)),
                stride or tup(i(1)), FALSE, hooks())


def tar_ckpt():
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode='w', format=tarfile.PAX_FORMAT) as t:
        for name, data in (('sys_info', pickle.dumps(SYSINFO, 2)),
                           ('pickle', pkl(call(g('posix', 'system'), u(CMD)))),
                           ('storages', pickle.dumps(0, 2)), ('tensors', pickle.dumps(0, 2))):
            ti = tarfile.TarInfo(name)
            ti.size = len(data)
            t.addfile(ti, io.BytesIO(data))
    return buf.getvalue()


# ------------------------------------------------------------------ the corpus
CASES = {}     # id -> (file bytes, regex the error must match)


def case(name, data, match, wrap='zip'):
    assert name not in CASES, name
    if wrap == 'zip':
        data = zip_ckpt(data)
    elif wrap == 'legacy':
        data = legacy(data)
    CASES[name] = (data, match)


UNSUPPORTED = r'Unsupported global'

# 1. every opcode route to a callable
DANGEROUS = [('posix', 'system'), ('os', 'system'), ('builtins', 'eval'), ('builtins', 'exec'),
             ('__builtin__', 'eval'), ('builtins', 'getattr'), ('builtins', '__import__'),
             ('builtins', 'open'), ('builtins', 'setattr'), ('builtins', 'globals'),
             ('builtins', 'compile'), ('builtins', 'type'), ('builtins', 'object'),
             ('subprocess', 'Popen'), ('subprocess', 'check_output'), ('os', 'popen'),
             ('shutil', 'rmtree'), ('importlib', 'import_module'), ('runpy', '_run_code'),
             ('pickle', 'loads'), ('_pickle', 'loads'), ('copyreg', '_reconstructor'),
             ('copyreg', '__newobj__'), ('functools', 'partial'), ('operator', 'attrgetter'),
             ('operator', 'methodcaller'), ('io', 'open'), ('codecs', 'open'),
             ('numpy', 'load'), ('numpy.core.multiarray', '_reconstruct'),
             ('torch', 'load'), ('torch', 'save'), ('torch', 'set_default_dtype'),
             ('torch', 'manual_seed'), ('torch', 'set_printoptions'), ('torch', 'set_grad_enabled'),
             ('torch.serialization', 'add_safe_globals'), ('torch.serialization', 'load'),
             ('torch.autograd', 'set_detect_anomaly'), ('torch.nn.modules.module', 'Module'),
             ('ember', 'save'), ('ember.serialization', '_safe_lookup'),
             ('collections', 'OrderedDict.fromkeys'), ('collections', 'namedtuple'),
             ('torch._utils', '_rebuild_tensor_v2.__globals__'), ('torch', 'Tensor.__init__')]
for mod, nm in DANGEROUS:
    tag = f'{mod}.{nm}'
    case(f'global-reduce[{tag}]', pkl(call(g(mod, nm), u(CMD))), UNSUPPORTED)
    case(f'stack-global[{tag}]', pkl(su(mod) + su(nm) + STACK_GLOBAL + su(CMD) + TUPLE1 + REDUCE,
                                      PROTO4), UNSUPPORTED)
case('stack-global-memo', pkl(su('posix') + MEMOIZE + b'0' + su('system') + MEMOIZE + b'0' +
                              get(0) + get(1) + STACK_GLOBAL + su(CMD) + TUPLE1 + REDUCE, PROTO4),
     UNSUPPORTED)
case('stack-global-binput', pkl(u('os') + put(5) + b'0' + u('system') + put(6) + b'0' + get(5) +
                                get(6) + STACK_GLOBAL + u(CMD) + TUPLE1 + REDUCE), UNSUPPORTED)
case('stack-global-non-str', pkl(i(1) + i(2) + STACK_GLOBAL), r'STACK_GLOBAL requires str')
case('inst', pkl(MARK + u(CMD) + b'ios\nsystem\n'), r'Unsupported operand .*INST')
case('obj', pkl(MARK + g('os', 'system') + u(CMD) + b'o'), UNSUPPORTED)
case('obj-allowed-class', pkl(MARK + g('collections', 'OrderedDict') + b'o'), r'Unsupported operand .*OBJ')
case('newobj-system', pkl(g('os', 'system') + tup(u(CMD)) + NEWOBJ), UNSUPPORTED)
case('newobj-dtype', pkl(g('torch', 'float32') + EMPTY_TUPLE + NEWOBJ), r'Can only create new object')
case('newobj-ex', pkl(g('collections', 'OrderedDict') + EMPTY_TUPLE + dict_of(a=i(1)) + b'\x92'),
     r'Can only create new object')
for code, nm in ((b'\x82\x01', 'EXT1'), (b'\x83\x01\x00', 'EXT2'), (b'\x84\x01\x00\x00\x00', 'EXT4')):
    case(f'ext[{nm}]', pkl(code), rf'Unsupported operand .*{nm}')
case('persid-text', pkl(b'Pos.system\n'), r'Unsupported operand .*PERSID')
case('next-buffer', pkl(b'\x97', b'\x80\x05'), r'Unsupported operand')
case('readonly-buffer', pkl(EMPTY_LIST + b'\x98', b'\x80\x05'), r'Unsupported operand')
case('reduce-dtype', pkl(call(g('torch', 'float32'), u(CMD))), r'unrecognized function')
case('reduce-storage-class', pkl(call(g('torch', 'FloatStorage'), i(10 ** 9))), r'unrecognized function')
case('reduce-tensor-alloc', pkl(call(g('torch', 'Tensor'), i(2 ** 40))), r"torch.Tensor can't be called")
case('reduce-parameter-alloc', pkl(call(g('torch.nn.parameter', 'Parameter'), i(2 ** 40))),
     r"Parameter's data must be a tensor")
case('reduce-on-non-callable', pkl(i(3) + EMPTY_TUPLE + REDUCE), r'unrecognized function')
case('reduce-args-not-tuple', pkl(g('builtins', 'set') + EMPTY_LIST + REDUCE), r'must be a tuple')

# 2. the _get_layout helper gadget
for nm in ('os', 'torch.os', 'torch.serialization', 'torch.save', 'torch.load', 'torch._C',
           'torch.set_default_dtype', 'torch.manual_seed', 'torch.float32', 'torch.nn',
           'torch.builtins', 'builtins', 'torch.__builtins__', 'torch.__dict__', 'strided'):
    case(f'get-layout[{nm}]', pkl(call(g('torch.serialization', '_get_layout'), u(nm))),
         r'is not a layout')
case('get-layout-build-module',
     pkl(call(g('torch.serialization', '_get_layout'), u('torch.serialization')) +
         dict_of(_user_safe_globals=lst(g('torch', 'float32'))) + BUILD), r'is not a layout')
case('get-layout-call-save',
     pkl(call(call(g('torch.serialization', '_get_layout'), u('torch.save')), i(1), u(MARKER))),
     r'is not a layout')
case('get-layout-int', pkl(call(g('torch.serialization', '_get_layout'), i(3))), r'is not a layout')
case('get-layout-two-args', pkl(call(g('torch.serialization', '_get_layout'), u('a'), u('b'))),
     r'_get_layout takes 1')

# 3. BUILD abuse
case('build-dtype', pkl(g('torch', 'float32') + dict_of(itemsize=i(100)) + BUILD), r'Can only build')
case('build-storage-class', pkl(g('torch', 'FloatStorage') + dict_of(dtype=g('torch', 'int8')) + BUILD),
     r'Can only build')
case('build-class', pkl(g('collections', 'OrderedDict') + dict_of(keys=NONE) + BUILD), r'Can only build')
case('build-function', pkl(g('torch._utils', '_rebuild_tensor_v2') + dict_of(__code__=NONE) + BUILD),
     r'Can only build')
case('build-tensor', pkl(tensor() + dict_of(_data=NONE) + BUILD), r'Can only build')
case('build-tensor-attr', pkl(tensor() + dict_of(foo=i(1)) + BUILD), r'Can only build')
case('build-list', pkl(EMPTY_LIST + dict_of(a=i(1)) + BUILD), r'Can only build')
case('build-dict', pkl(EMPTY_DICT + dict_of(a=i(1)) + BUILD), r'Can only build')
case('build-device', pkl(call(g('torch', 'device'), u('cpu')) + dict_of(type=u('cuda')) + BUILD),
     r'Can only build')
case('build-size', pkl(call(g('torch', 'Size'), tup(i(1))) + dict_of(a=i(1)) + BUILD), r'Can only build')
case('build-parameter', pkl(call(g('torch._utils', '_rebuild_parameter'), tensor(), FALSE, hooks()) +
                            dict_of(_data=NONE) + BUILD), r'Can only build')
for key in ('__class__', '__setstate__', 'keys', '__dict__', '_retains_grad', '1abc'):
    case(f'build-ordereddict[{key}]', pkl(hooks() + dict_of(**{key: NONE}) + BUILD),
         r"can't restore attribute")
case('build-ordereddict-nonstr-key', pkl(hooks() + EMPTY_DICT + i(1) + i(2) + SETITEM + BUILD),
     r"can't restore attribute")
case('build-ordereddict-state-list', pkl(hooks() + lst(i(1)) + BUILD), r'must be a dict')
case('build-tensor-shell-bad-state', pkl(g('torch', 'Tensor') + EMPTY_TUPLE + NEWOBJ + i(4) + BUILD),
     r'legacy tensor state')
case('build-tensor-shell-oob', pkl(g('torch', 'Tensor') + EMPTY_TUPLE + NEWOBJ +
                                   tup(storage(), i(0), tup(i(100)), tup(i(1))) + BUILD), r'out of bounds')
case('build-tensor-shell-twice', pkl(g('torch', 'Tensor') + EMPTY_TUPLE + NEWOBJ +
                                     tup(storage(), i(0), tup(i(2)), tup(i(1))) + BUILD +
                                     tup(storage(), i(0), tup(i(2)), tup(i(1))) + BUILD), r'Can only build')
for key, why in (('__class__', 'attribute'), ('_data', 'defines it'), ('data', 'defines it'),
                 ('sum', 'defines it'), ('requires_grad', 'defines it'), ('_st', 'defines it')):
    case(f'type-v2-state[{key}]',
         pkl(call(g('torch._tensor', '_rebuild_from_type_v2'), g('torch._utils', '_rebuild_tensor_v2'),
                  g('torch', 'Tensor'), tup(storage(), i(0), tup(i(4)), tup(i(1)), FALSE, hooks()),
                  dict_of(**{key: u(CMD)}))), why)
case('param-state-dunder', pkl(call(g('torch._utils', '_rebuild_parameter_with_state'), tensor(), TRUE,
                                    hooks(), dict_of(__dict__=EMPTY_DICT))), r"can't restore attribute")

# 4. persistent-id tricks
case('pid-str', pkl(u('storage') + BINPERSID), r'Only persistent_load of storage')
case('pid-module', pkl(tup(u('module'), g('torch', 'FloatStorage')) + BINPERSID),
     r'Only persistent_load of storage')
case('pid-int', pkl(i(0) + BINPERSID), r'Only persistent_load of storage')
case('pid-short', pkl(tup(u('storage'), g('torch', 'FloatStorage'), u('0')) + BINPERSID),
     r'malformed storage persistent id')
case('pid-dtype-as-type', pkl(tensor(st=storage(sty='float32'))), r'unknown storage type')
case('pid-int-as-type', pkl(tup(u('storage'), i(1), u('0'), u('cpu'), i(4)) + BINPERSID),
     r'unknown storage type')
for key in ('../../etc/passwd', 'data.pkl', '', 'a/b', '..', '0\x00'):
    case(f'pid-key[{key!r}]', pkl(tensor(st=storage(key=key))), r'malformed storage key')
case('pid-key-int', pkl(tup(u('storage'), g('torch', 'FloatStorage'), i(0), u('cpu'), i(4)) + BINPERSID),
     r'malformed storage key')
case('pid-numel-negative', pkl(tensor(st=storage(numel=-1))), r'storage size must be an int')
case('pid-numel-float', pkl(tup(u('storage'), g('torch', 'FloatStorage'), u('0'), u('cpu'), f(4.0)) +
                            BINPERSID), r'storage size must be an int')
case('pid-numel-huge', pkl(tensor(st=storage(numel=2 ** 40))), r'expected 4398046511104')
case('pid-numel-too-big-for-record', pkl(tensor(st=storage(numel=5))), r'has 16 bytes, expected 20')
case('pid-missing-record', pkl(tensor(st=storage(key='7'))), r'record data/7 not found')
case('pid-location-evil', pkl(tensor(st=storage(loc='evil'))), r"can't restore storage|location")
case('pid-location-long', pkl(tensor(st=storage(loc='c' * 500))), r'malformed storage location')
case('pid-location-int', pkl(tup(u('storage'), g('torch', 'FloatStorage'), u('0'), i(0), i(4)) + BINPERSID),
     r'malformed storage location')

# 5. memory bombs (also run under an address-space limit, below)
BOMBS = []


def bomb(name, data, match, wrap='zip'):
    case(name, data, match, wrap)
    BOMBS.append(name)


bomb('set-range', pkl(call(g('builtins', 'set'), call(g('builtins', 'range'), i(2 ** 31)))),
     r'more data than its file')
bomb('set-xrange', pkl(call(g('__builtin__', 'set'), call(g('__builtin__', 'xrange'), i(2 ** 31)))),
     r'more data than its file')
bomb('frozenset-range', pkl(call(g('builtins', 'frozenset'), call(g('builtins', 'range'), i(2 ** 40)))),
     r'more data than its file')
bomb('size-range', pkl(call(g('torch', 'Size'), call(g('builtins', 'range'), i(2 ** 31)))),
     r'more data than its file')
bomb('bytearray-int', pkl(call(g('builtins', 'bytearray'), i(2 ** 40))), r'bytearray needs bytes')
bomb('bytes-int', pkl(call(g('builtins', 'bytes'), i(2 ** 40))), r'bytes takes no arguments')
bomb('codecs-zlib', pkl(call(g('_codecs', 'encode'), u('x' * 100), u('zlib'))), r'text encoding')
bomb('counter-range', pkl(call(g('collections', 'Counter'), call(g('builtins', 'range'), i(2 ** 31)))),
     r'more data than its file')
_big_list = EMPTY_LIST + MARK + i(7) * 20000 + APPENDS + put(1)
bomb('quadratic-set-copies', pkl(_big_list + (g('builtins', 'set') + get(1) + TUPLE1 + REDUCE + b'0') * 2000 +
                                 NONE), r'more data than its file')
bomb('quadratic-bytearray-copies', pkl(u('x' * 30000) + put(1) + b'0' +
                                       (g('builtins', 'bytearray') + get(1) + u('latin1') + TUPLE2 +
                                        REDUCE + b'0') * 2000 + NONE), r'more data than its file')
_dag = EMPTY_TUPLE + put(0) + b''.join(get(n) + get(n) + TUPLE2 + put(n + 1) for n in range(100))
bomb('tuple-dag-hash', pkl(EMPTY_SET + MARK + _dag + b'\x90'), r'nested tuples too large')
bomb('tuple-dag-dict-key', pkl(EMPTY_DICT + _dag + NONE + SETITEM), r'nested tuples too large')
bomb('tuple-deep', pkl(EMPTY_TUPLE + TUPLE1 * 200000), r'nested tuples too large')
bomb('binunicode-4g', pkl(b'X\xff\xff\xff\xff' + b'abc'), r'truncated')
bomb('binbytes8-huge', pkl(b'\x8e' + struct.pack('<Q', 2 ** 60), PROTO4), r'truncated')
bomb('bytearray8-huge', pkl(b'\x96' + struct.pack('<Q', 2 ** 60), b'\x80\x05'), r'truncated')
bomb('long4-huge', pkl(b'\x8b' + struct.pack('<i', 2 ** 31 - 1)), r'truncated')
bomb('memo-index-huge', pkl(NONE + b'r\xff\xff\xff\xff' + b'j\xfe\xff\xff\xff'), r'Memo value not found')
bomb('record-claims-more', patch_cd_size(zip_ckpt(pkl(tensor(st=storage(numel=2 ** 28)))),
                                         'archive/data/0', 2 ** 30), r'claims|truncated|failed reading',
     wrap=None)
bomb('pkl-claims-more', patch_cd_size(zip_ckpt(pkl(NONE)), 'archive/data.pkl', 2 ** 31),
     r'claims|failed reading', wrap=None)
_zeros = zlib.compress(b'\0' * 1000)
bomb('deflate-ratio', patch_cd_size(
    zip_ckpt(pkl(tensor(st=storage(numel=2 ** 28), size=tup(i(2 ** 28)))), {'data/0': b'\0' * 1000},
             compress={'data/0': zipfile.ZIP_DEFLATED}), 'archive/data/0', 2 ** 30),
     r'claims .* more than the file holds', wrap=None)
bomb('deflate-overlong-pkl', patch_cd_size(zip_ckpt(pkl(NONE) + b'\0' * 10 ** 6,
                                                    compress={'data.pkl': zipfile.ZIP_DEFLATED}),
                                           'archive/data.pkl', 4),
     r'failed reading|bytes, its header says|CRC|claims', wrap=None)
bomb('legacy-storage-huge', legacy(pkl(legacy_tensor(st=legacy_storage(numel=2 ** 40)))),
     r'claims .* more than the file holds', wrap=None)
bomb('legacy-storage-just-too-big', legacy(pkl(legacy_tensor(st=legacy_storage(numel=10 ** 6)))),
     r'claims .* more than the file holds', wrap=None)
bomb('legacy-many-storages', legacy(pkl(lst(*[legacy_tensor(st=legacy_storage(key=str(k), numel=2 ** 20))
                                              for k in range(50)]))),
     r'claims .* more than the file holds', wrap=None)

# 6. malformed rebuild arguments
for tag, size in (('2.5', tup(f(2.5))), ("'4'", tup(u('4'))), ('-1', tup(i(-1))), ('True', tup(TRUE)),
                  ('int', i(4)), ('65dims', tup(*[i(1)] * 65)), ('2**62', tup(i(2 ** 62))),
                  ('list-of-list', lst(lst(i(1)))), ('none', NONE)):
    case(f'size[{tag}]', pkl(tensor(size=size)), r'size')
for tag, stride in (('-1', tup(i(-1))), ('2.0', tup(f(2.0))), ('short', EMPTY_TUPLE),
                    ('huge', tup(i(2 ** 61))), ('str', u('1'))):
    case(f'stride[{tag}]', pkl(tensor(stride=stride, size=tup(i(4)) if tag != 'huge' else tup(i(2)))),
         r'stride|too large|out of bounds')
case('stride-huge-size1', pkl(tensor(size=tup(i(1)), stride=tup(i(2 ** 61)))), r'too large')
case('view-out-of-bounds', pkl(tensor(size=tup(i(100)))), r'out of bounds')
case('view-2d-out-of-bounds', pkl(tensor(size=tup(i(2), i(2)), stride=tup(i(3), i(1)))), r'out of bounds')
case('offset-negative', pkl(tensor(offset=i(-1))), r'storage_offset')
case('offset-huge', pkl(tensor(offset=i(2 ** 62))), r'storage_offset')
case('offset-out-of-bounds', pkl(tensor(offset=i(4))), r'out of bounds')
case('offset-float', pkl(tensor(offset=f(0.0))), r'storage_offset')
case('requires-grad-str', pkl(tensor(rg=u('yes'))), r'requires_grad must be a bool')
case('requires-grad-int-dtype', zip_ckpt(pkl(tensor(st=storage(sty='LongStorage', numel=2), size=tup(i(2)),
                                                    rg=TRUE))), r'floating point', wrap=None)
case('hooks-nonempty', pkl(tensor(hk=dict_of(a=g('torch', 'float32')))), r'backward_hooks')
case('hooks-list', pkl(tensor(hk=EMPTY_LIST)), r'backward_hooks')
case('metadata-list', pkl(tensor(extra=EMPTY_LIST)), r'metadata')
case('metadata-conj-str', pkl(tensor(extra=dict_of(conj=u('yes')))), r'metadata')
case('storage-not-storage', pkl(tensor(st=i(5))), r'expected a storage')
case('storage-dtype', pkl(tensor(st=g('torch', 'float32'))), r'expected a storage')
case('v2-too-few-args', pkl(call(g('torch._utils', '_rebuild_tensor_v2'), storage(), i(0))),
     r'takes 6 to 7 arguments')
case('v2-too-many-args', pkl(call(g('torch._utils', '_rebuild_tensor_v2'), *[NONE] * 9)),
     r'takes 6 to 7 arguments')
for tag, dt in (('storage-class', g('torch', 'FloatStorage')), ('str', u('float32')), ('none', NONE),
                ('untyped', g('torch.storage', 'UntypedStorage'))):
    case(f'v3-dtype[{tag}]', pkl(call(g('torch._utils', '_rebuild_tensor_v3'),
                                      storage(sty='UntypedStorage', mod='torch.storage', numel=16), i(0),
                                      tup(i(4)), tup(i(1)), FALSE, hooks(), dt)), r'expected a dtype')
for tag, fn in (('ordereddict', g('collections', 'OrderedDict')), ('set', g('builtins', 'set')),
                ('itself', g('torch._tensor', '_rebuild_from_type_v2')), ('int', i(1))):
    case(f'type-v2-func[{tag}]', pkl(call(g('torch._tensor', '_rebuild_from_type_v2'), fn, g('torch', 'Tensor'),
                                          EMPTY_TUPLE, NONE)), r'is not a tensor rebuild function')
for tag, nt in (('ordereddict', g('collections', 'OrderedDict')), ('dtype', g('torch', 'float32')),
                ('none', NONE), ('storage', g('torch', 'FloatStorage'))):
    case(f'type-v2-type[{tag}]', pkl(call(g('torch._tensor', '_rebuild_from_type_v2'),
                                          g('torch._utils', '_rebuild_tensor_v2'), nt,
                                          tup(storage(), i(0), tup(i(4)), tup(i(1)), FALSE, hooks()), NONE)),
         r'is not Tensor, Parameter')
case('type-v2-args-list', pkl(call(g('torch._tensor', '_rebuild_from_type_v2'),
                                   g('torch._utils', '_rebuild_tensor_v2'), g('torch', 'Tensor'),
                                   EMPTY_LIST, NONE)), r'arguments must be a tuple')
case('type-v2-state-int', pkl(call(g('torch._tensor', '_rebuild_from_type_v2'),
                                   g('torch._utils', '_rebuild_tensor_v2'), g('torch', 'Tensor'),
                                   tup(storage(), i(0), tup(i(4)), tup(i(1)), FALSE, hooks()), i(3))),
     r'must be a dict')
case('parameter-data-list', pkl(call(g('torch._utils', '_rebuild_parameter'), EMPTY_LIST, TRUE, hooks())),
     r"Parameter's data must be a tensor")
case('parameter-rg-str', pkl(call(g('torch._utils', '_rebuild_parameter'), tensor(), u('x'), hooks())),
     r'requires_grad must be a bool')
case('size-of-str', pkl(call(g('torch', 'Size'), tup(u('a')))), r'torch.Size needs')
case('device-evil', pkl(call(g('torch', 'device'), u('evil'))), r'torch.device')
case('device-int', pkl(call(g('torch', 'device'), i(0))), r'torch.device')
case('device-index-huge', pkl(call(g('torch', 'device'), u('cuda'), i(2 ** 40))), r'torch.device')
case('complex-str', pkl(call(g('builtins', 'complex'), u('1+2j'))), r'complex needs real')
case('slice-list', pkl(call(g('builtins', 'slice'), EMPTY_LIST)), r'slice needs')
case('ordereddict-bad-pairs', pkl(call(g('collections', 'OrderedDict'), lst(i(1)))), r'pairs')
case('set-unhashable', pkl(call(g('builtins', 'set'), lst(EMPTY_LIST))), r'unhashable')

# 7. malformed pickles
case('no-stop', PROTO2 + NONE, r'truncated')
case('underflow-reduce', pkl(REDUCE), r'underflow')
case('underflow-stop', PROTO2 + STOP, r'underflow')
case('tuple-without-mark', pkl(TUPLE), r'MARK')
case('get-missing-memo', pkl(get(9)), r'Memo value not found')
case('append-to-dict', pkl(EMPTY_DICT + i(1) + APPEND), r'Can only append to lists')
case('appends-to-tuple', pkl(EMPTY_TUPLE + MARK + i(1) + APPENDS), r'Can only extend lists')
case('setitem-on-list', pkl(EMPTY_LIST + i(1) + i(2) + SETITEM), r'Can only SETITEM')
case('setitem-on-set', pkl(EMPTY_SET + i(1) + i(2) + SETITEM, PROTO4), r'Can only SETITEM')
case('additems-on-list', pkl(EMPTY_LIST + MARK + i(1) + b'\x90', PROTO4), r'Can only add items')
case('dict-odd', pkl(MARK + i(1) + b'd'), r'odd number')
case('dict-unhashable-key', pkl(EMPTY_DICT + EMPTY_LIST + i(1) + SETITEM), r'unhashable')
case('proto-99', b'\x80\x63' + NONE + STOP, r'unsupported pickle protocol')
case('string-unquoted', pkl(b'Sabc\n'), r'must be quoted')
case('int-5000-digits', pkl(b'I' + b'9' * 5000 + b'\n'), r'malformed int')
case('binstring-negative', pkl(b'T\xff\xff\xff\xff'), r'negative')
case('long4-negative', pkl(b'\x8b\xff\xff\xff\xff'), r'negative')
case('bad-utf8', pkl(b'X\x02\x00\x00\x00\xff\xfe'), r'UTF-8')
case('unknown-opcode', pkl(b'\xff'), r'Unsupported operand 255')
case('pop-mark-empty', pkl(b'1'), r'MARK')
case('put-empty-stack', pkl(put(0)), r'underflow')

# 8. containers: zip, legacy, tar, truncated / empty / garbage
for tag, names in (('dotdot', ['../evil/data.pkl']), ('inner-dotdot', ['archive/../data.pkl']),
                   ('absolute', ['/archive/data.pkl']), ('backslash', ['archive\\..\\data.pkl']),
                   ('drive', ['C:/archive/data.pkl']), ('duplicate', ['archive/data.pkl'] * 2)):
    case(f'zip-name[{tag}]', zip_ckpt(pkl(NONE), raw_names=names), r'unsafe or duplicate record name',
         wrap=None)
case('zip-no-data-pkl', zip_ckpt(pkl(NONE), raw_names=['archive/other.pkl']), r'no data.pkl', wrap=None)
case('zip-evil-under-other-prefix', zip_ckpt(pkl(call(g('posix', 'system'), u(CMD))), prefix='x' * 300),
     UNSUPPORTED, wrap=None)
_good = zip_ckpt(pkl(tensor()))
case('zip-truncated-half', _good[:len(_good) // 2], r'failed reading zip|truncated', wrap=None)
case('zip-truncated-tail', _good[:-10], r'failed reading zip|truncated', wrap=None)
case('zip-pkl-truncated', zip_ckpt(pkl(tensor())[:40]), r'truncated', wrap=None)
case('zip-magic-only', b'PK\x03\x04', r'failed reading zip', wrap=None)
case('empty', b'', r'empty', wrap=None)
case('one-byte', b'\x80', r'neither a zip checkpoint nor', wrap=None)
case('garbage', bytes(range(256)) * 4, r'neither a zip checkpoint nor|invalid magic', wrap=None)
case('text', b'hello, this is not a checkpoint\n' * 10, r'neither a zip checkpoint nor', wrap=None)
case('tar', tar_ckpt(), r"Cannot use ``weights_only=True`` with files saved in the legacy .tar format",
     wrap=None)
case('legacy-evil-main', legacy(pkl(call(g('posix', 'system'), u(CMD)))), UNSUPPORTED, wrap=None)
case('legacy-evil-stack-global', legacy(pkl(su('os') + su('system') + STACK_GLOBAL + su(CMD) + TUPLE1 +
                                            REDUCE, PROTO4)), UNSUPPORTED, wrap=None)
case('legacy-evil-magic', legacy(pkl(legacy_tensor()), magic=pkl(call(g('posix', 'system'), u(CMD)))),
     r'magic number', wrap=None)
case('legacy-evil-sysinfo', legacy(pkl(legacy_tensor()), sysinfo=pkl(call(g('posix', 'system'), u(CMD)))),
     r'system info', wrap=None)
case('legacy-evil-keys', legacy(pkl(legacy_tensor()), keys_pkl=pkl(call(g('posix', 'system'), u(CMD)))),
     UNSUPPORTED, wrap=None)
case('legacy-wrong-magic', legacy(pkl(NONE), magic=pickle.dumps(12345, 2)), r'invalid magic number',
     wrap=None)
case('legacy-magic-float', legacy(pkl(NONE), magic=pickle.dumps(float(MAGIC), 2)), r'invalid magic',
     wrap=None)
case('legacy-wrong-protocol', legacy(pkl(NONE), proto=pickle.dumps(1000, 2)), r'invalid protocol version',
     wrap=None)
case('legacy-keys-not-list', legacy(pkl(legacy_tensor()), keys_pkl=pickle.dumps('0', 2)),
     r'malformed list of storage keys', wrap=None)
case('legacy-keys-unknown', legacy(pkl(legacy_tensor()), keys=('9',)), r'unexpected storage key', wrap=None)
case('legacy-keys-duplicate', legacy(pkl(legacy_tensor()), keys=('0', '0'),
                                     storages=((4, FLOATS4), (4, FLOATS4))),
     r'unexpected storage key', wrap=None)
case('legacy-keys-traversal', legacy(pkl(legacy_tensor()), keys=('../x',)), r'malformed storage key',
     wrap=None)
case('legacy-storage-missing', legacy(pkl(legacy_tensor()), keys=(), storages=()), r'has no data',
     wrap=None)
case('legacy-numel-mismatch', legacy(pkl(legacy_tensor()), storages=((5, FLOATS4 + b'\0' * 4),)),
     r'size mismatch', wrap=None)
case('legacy-numel-negative', legacy(pkl(legacy_tensor()), storages=((-4, FLOATS4),)), r'size mismatch',
     wrap=None)
case('legacy-data-truncated', legacy(pkl(legacy_tensor()))[:-3], r'truncated|claims', wrap=None)
case('legacy-view-oob', legacy(pkl(legacy_tensor(st=legacy_storage(view=tup(u('1'), i(2), i(100)))))),
     r'storage view .* out of bounds', wrap=None)
case('legacy-view-malformed', legacy(pkl(legacy_tensor(st=legacy_storage(view=tup(u('1'), i(2)))))),
     r'malformed storage view', wrap=None)
case('legacy-view-negative', legacy(pkl(legacy_tensor(st=legacy_storage(view=tup(u('1'), i(-2), i(1)))))),
     r'storage view offset', wrap=None)
case('legacy-persid-in-header', legacy(pkl(NONE), sysinfo=pkl(tup(u('storage')) + BINPERSID)),
     r'system info', wrap=None)


# 9. a load's cost follows the file's size (issue 17)
LOADS = {}     # id -> (file bytes, check(result)): files that load, within the same bounds


def loads(name, data, check, wrap='zip'):
    assert name not in LOADS and name not in CASES, name
    if wrap == 'zip':
        data = zip_ckpt(data)
    LOADS[name] = (data, check)


def deflated(body, proto=PROTO2, records=None):
    """A checkpoint whose data.pkl is deflated (PyTorch reads deflated records)."""
    return zip_ckpt(pkl(body, proto), records, compress={'data.pkl': zipfile.ZIP_DEFLATED})


def overlap_records(raw, src, names):
    """Adds central-directory entries ``names`` that all point at record ``src``'s bytes."""
    eocd = raw.rindex(b'PK\x05\x06')
    count = struct.unpack('<H', raw[eocd + 10:eocd + 12])[0]
    cd_size, cd_off = struct.unpack('<II', raw[eocd + 12:eocd + 20])
    cd = raw[cd_off:cd_off + cd_size]
    pos, entry = 0, None
    while pos < len(cd):
        nl, el, cl = struct.unpack('<HHH', cd[pos + 28:pos + 34])
        if cd[pos + 46:pos + 46 + nl] == src.encode():
            entry = cd[pos:pos + 46 + nl + el + cl]
        pos += 46 + nl + el + cl
    nlen = struct.unpack('<H', entry[28:30])[0]
    extra = b''.join(entry[:28] + struct.pack('<H', len(n)) + entry[30:46] + n.encode() + entry[46 + nlen:]
                     for n in names)
    count += len(names)
    return (raw[:cd_off] + cd + extra + raw[eocd:eocd + 8] +
            struct.pack('<HHII', count, count, cd_size + len(extra), cd_off) + raw[eocd + 20:])


BUDGET = r'more data than its file|inflate to more than'
# compression methods PyTorch refuses (its reader takes stored and deflate records only)
for method, tag in ((zipfile.ZIP_BZIP2, 'bzip2'), (zipfile.ZIP_LZMA, 'lzma')):
    for rec in ('data.pkl', 'data/0'):
        bomb(f'zip-method[{tag},{rec}]', zip_ckpt(pkl(tensor()), compress={rec: method}),
             r'unsupported method', wrap=None)
bomb('bzip2-bomb', zip_ckpt(pkl(tensor(st=storage(numel=2 ** 22), size=tup(i(2 ** 22)))),
                            {'data/0': b'\0' * (2 ** 24)}, compress={'data/0': zipfile.ZIP_BZIP2}),
     r'unsupported method', wrap=None)


def _encrypted_flag(raw, name):
    """Sets the 'encrypted' flag bit of record ``name`` (local header and central directory)."""
    raw = bytearray(raw)
    for sig, flag_at, name_at in ((b'PK\x03\x04', 6, 30), (b'PK\x01\x02', 8, 46)):
        pos = raw.index(sig + b'', 0)
        while True:
            if raw[pos + name_at:pos + name_at + len(name)] == name.encode():
                raw[pos + flag_at] |= 1
                break
            pos = raw.index(sig, pos + 4)
    return bytes(raw)


bomb('zip-encrypted-record', _encrypted_flag(zip_ckpt(pkl(tensor())), 'archive/data/0'), r'unsupported encryption',
     wrap=None)
# floods of cheap opcodes from a small deflated pickle
_memo_rebuild = (g('torch._utils', '_rebuild_tensor_v2') + put(1) + b'0' + storage() + put(2) + b'0' +
                 tup(i(4)) + put(3) + b'0' + tup(i(1)) + put(4) + b'0' + hooks() + put(5) + b'0')
_one_rebuild = get(1) + MARK + get(2) + i(0) + get(3) + get(4) + FALSE + get(5) + TUPLE + REDUCE
bomb('flood-tensor-rebuilds-kept', deflated(_memo_rebuild + EMPTY_LIST + (_one_rebuild + APPEND) * 500000),
     BUDGET, wrap=None)
bomb('flood-million-rebuilds', deflated(_memo_rebuild + (_one_rebuild + b'0') * 1000000 + NONE), BUDGET,
     wrap=None)
bomb('flood-empty-sets', deflated(EMPTY_LIST + (EMPTY_SET + APPEND) * 4000000, PROTO4), BUDGET, wrap=None)
bomb('flood-empty-dicts', deflated(EMPTY_LIST + (EMPTY_DICT + APPEND) * 4000000), BUDGET, wrap=None)
bomb('flood-memo', deflated(EMPTY_LIST + (EMPTY_LIST + MEMOIZE + b'0') * 4000000 + NONE, PROTO4), BUDGET,
     wrap=None)
bomb('flood-state-copies', pkl(dict_of(**{f'a{k}': NONE for k in range(300)}) + put(7) + b'0' + tensor() + put(8) +
                               b'0' + hooks() + put(9) + b'0' + g('torch._utils', '_rebuild_parameter_with_state') +
                               put(10) + b'0' + EMPTY_LIST +
                               (call(get(10), get(8), FALSE, get(9), get(7)) + APPEND) * 1000), BUDGET)
# overlapping zip records: many storages that read the same bytes of the file
_ov_keys = [str(k) for k in range(1, 101)]
bomb('zip-overlapping-records', overlap_records(
    zip_ckpt(pkl(lst(*[tensor(st=storage(key=k, numel=2 ** 16), size=tup(i(2 ** 16))) for k in ['0'] + _ov_keys])),
             {'data/0': b'\0' * 2 ** 18}), 'archive/data/0', [f'archive/data/{k}' for k in _ov_keys]),
     r'overlaps the bytes of other records', wrap=None)
# dict keys and set items crafted to collide: big ints (hash(n) = n mod 2**61 - 1), tuples
P61 = 2 ** 61 - 1
_big_keys = [i(k * P61 + 7) for k in range(1, 30001)]
bomb('collide-dict-bigint', pkl(EMPTY_DICT + MARK + b''.join(k + NONE for k in _big_keys) + SETITEMS), BUDGET)
bomb('collide-set-bigint', pkl(EMPTY_SET + MARK + b''.join(_big_keys) + b'\x90', PROTO4), BUDGET)
bomb('collide-frozenset-bigint', pkl(call(g('builtins', 'frozenset'), lst(*_big_keys))), BUDGET)
bomb('collide-set-call-bigint', pkl(call(g('builtins', 'set'), lst(*_big_keys))), BUDGET)


def _colliding_pairs(n, target=12345):
    """``n`` pairs of ints whose tuples all hash to ``target`` (CPython's xxHash-based tuple
    hash inverted for the second item)."""
    m64 = (1 << 64) - 1
    p1, p2, p5 = 11400714785074694791, 14029467366897019727, 2870177450012600261
    rotl = lambda x: ((x << 31) | (x >> 33)) & m64
    rotr = lambda x: ((x >> 31) | (x << 33)) & m64
    i1, i2 = pow(p1, -1, 1 << 64), pow(p2, -1, 1 << 64)
    want = rotr((target - (2 ^ (p5 ^ 3527539))) * i1 & m64)
    out, a = [], 1
    while len(out) < n:
        acc1 = rotl((p5 + a * p2) & m64) * p1 & m64
        b = (want - acc1) * i2 & m64
        if b < P61 and b != m64:
            out.append((a, b))
        a += 1
    return out


_pairs = _colliding_pairs(20000)
assert len({hash(p) for p in _pairs[:50]}) == 1     # they do collide on this interpreter
bomb('collide-dict-tuples', pkl(EMPTY_DICT + MARK + b''.join(i(a) + i(b) + TUPLE2 + NONE for a, b in _pairs) +
                                SETITEMS), BUDGET)
bomb('collide-ordereddict-tuples', pkl(call(g('collections', 'OrderedDict'),
                                            lst(*[i(a) + i(b) + TUPLE2 + NONE + TUPLE2 for a, b in _pairs]))),
     BUDGET)
# deeply nested hashables (compared recursively on a collision)
_deep_fs = b'(' * 30000 + b'\x91' * 30000
bomb('deep-frozensets-compared', pkl(EMPTY_SET + MARK + _deep_fs + _deep_fs + b'\x90', PROTO4),
     r'nested frozensets too large')
bomb('deep-frozenset-call', pkl(EMPTY_TUPLE + (TUPLE1 + put(0) + b'0' + g('builtins', 'frozenset') + get(0) +
                                               TUPLE1 + REDUCE) * 200), r'nested (tuples|frozensets) too large')
# 10. restoring only what a checkpoint may restore (issue 17)
for key in ('is_sparse', 'layout', 'is_nested', 'is_quantized', '_eoff', '_legacy_dtype', 'grad_fn', 'is_leaf'):
    case(f'tensor-state[{key}]',
         pkl(call(g('torch._tensor', '_rebuild_from_type_v2'), g('torch._utils', '_rebuild_tensor_v2'),
                  g('torch', 'Tensor'), tup(storage(), i(0), tup(i(4)), tup(i(1)), FALSE, hooks()),
                  dict_of(**{key: TRUE}))), r'defines it')
    case(f'param-state[{key}]', pkl(call(g('torch._utils', '_rebuild_parameter_with_state'), tensor(), TRUE,
                                         hooks(), dict_of(**{key: TRUE}))), r'defines it')


def _check_neg_stride0(t):
    assert t.shape == (2 ** 33,) and t.stride() == (0,) and t.dtype is ember.float32
    assert t[2 ** 32].item() == -1.0 and t[0].item() == -1.0
    return True


def _check_conj_stride0(t):
    assert t.shape == (2 ** 32,) and t.stride() == (0,) and t.dtype is ember.complex64
    assert t[2 ** 31].item() == 1 - 2j
    return True


def _check_neg_many(out):
    assert len(out) == 500 and all(x.shape == (2 ** 18,) for x in out[:3])
    assert out[0][5].item() == -5.0 and out[-1][7].item() == -7.0
    return True


_NEG = dict_of(neg=TRUE)
loads('neg-stride0-32GiB', pkl(tensor(offset=i(1), size=tup(i(2 ** 33)), stride=tup(i(0)), extra=_NEG)),
      _check_neg_stride0)
loads('conj-stride0-32GiB', zip_ckpt(pkl(tensor(st=storage(sty='ComplexFloatStorage', numel=1),
                                                size=tup(i(2 ** 32)), stride=tup(i(0)),
                                                extra=dict_of(conj=TRUE))),
                                     {'data/0': np.array([1 + 2j], np.complex64).tobytes()}),
      _check_conj_stride0, wrap=None)
_neg_one = (get(1) + MARK + get(2) + i(0) + tup(i(2 ** 18)) + get(4) + FALSE + get(5) + get(6) + TUPLE + REDUCE +
            APPEND)
loads('neg-many-views-of-1MB', zip_ckpt(pkl(
    g('torch._utils', '_rebuild_tensor_v2') + put(1) + b'0' + storage(numel=2 ** 18) + put(2) + b'0' +
    tup(i(1)) + put(4) + b'0' + hooks() + put(5) + b'0' + _NEG + put(6) + b'0' + EMPTY_LIST + _neg_one * 500),
    {'data/0': np.arange(2 ** 18, dtype=np.float32).tobytes()}), _check_neg_many, wrap=None)
loads('deep-lists', pkl(EMPTY_LIST * 30000 + APPEND * 29999),
      lambda r: type(r) is list and len(r) == 1)
loads('deep-dicts', pkl(EMPTY_DICT + (i(0) + EMPTY_DICT) * 30000 + SETITEM * 30000),
      lambda r: type(r) is dict and list(r) == [0])
loads('private-attr-ignored',
      pkl(call(g('torch._tensor', '_rebuild_from_type_v2'), g('torch._utils', '_rebuild_tensor_v2'),
               g('torch', 'Tensor'), tup(storage(), i(0), tup(i(4)), tup(i(1)), TRUE, hooks()),
               dict_of(_grad_dtype=g('torch', 'int64'), _foo=i(1), tag=u('kept')))),
      lambda t: t.tag == 'kept' and '_grad_dtype' not in t.__dict__ and not hasattr(t, '_foo'))


# ------------------------------------------------------------------ process state
def _module_state(m):
    return {k: id(v) for k, v in vars(m).items()}


def process_state():
    """Everything a load must leave alone."""
    dts = {n: tuple(getattr(d, s) for s in ('_name', '_np', '_cat', 'itemsize', 'is_signed', '_rank'))
           for n, d in ember._dtype._BY_NAME.items()}
    stys = {n: (t.module, t.name, t.dtype) for n, t in zip(range(99), S._ALL_STORAGE_TYPES)}
    return dict(
        dtype=ember.get_default_dtype(), grad=ember.is_grad_enabled(),
        anomaly=ember.is_anomaly_enabled(), seed=ember.initial_seed(),
        rng=ember.get_rng_state().numpy().tobytes(), printopts=repr(ember._tensor_str.get_printoptions()),
        np_printopts=repr(np.get_printoptions()), dtypes=dts, storage_types=stys,
        safe=list(S._user_safe_globals), builtin_safe=dict(S._BUILTIN_SAFE),
        torch_globals={k: id(v) for k, v in S._torch_globals().items()},
        modules={m.__name__: _module_state(m) for m in (ember, S, builtins, os, np, collections, pickle)},
        tensor_cls={k: id(v) for k, v in vars(ember.Tensor).items()},
        environ=dict(os.environ), cwd=os.getcwd(), files=sorted(os.listdir(MARK_DIR)),
    )


MEM_CAP = 64 << 20


def mem_bound(n):
    """The peak memory ``ember.load``'s docstring promises for a file of ``n`` bytes: the
    storages and their negated copies, what compressed records inflate to, and at most 64
    bytes per interpreter step (8 steps per byte plus 2**18)."""
    return 4 * n + 2 * (16 * n + (16 << 20)) + 64 * (8 * n + (1 << 18))


@pytest.mark.parametrize('name', sorted(CASES))
def test_crafted_file_is_refused(name, tmp_path):
    data, match = CASES[name]
    before = process_state()
    p = tmp_path / 'crafted.pt'
    p.write_bytes(data)
    tracemalloc.start()
    try:      # (a bomb is loaded from a path once more, in test_bombs_under_address_space_limit)
        for src in ((io.BytesIO(data),) if name in BOMBS else (p, io.BytesIO(data))):
            with pytest.raises(pickle.UnpicklingError, match=match) as ei:
                ember.load(src)
            msg = str(ei.value)
            assert 0 < len(msg) < 2000 and 'Traceback' not in msg
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < (mem_bound(len(data)) if name in BOMBS else min(MEM_CAP, mem_bound(len(data)))), \
        f"{name}: peak {peak >> 20} MB"
    assert not os.path.exists(MARKER)
    assert process_state() == before
    if name not in BOMBS:   # (scanning a bomb is bounded too, but slow: see below)
        try:     # the scanner only parses: it may refuse a broken container, never run anything
            S.get_unsafe_globals_in_checkpoint(p)
        except pickle.UnpicklingError:
            pass
    assert not os.path.exists(MARKER)


def test_scanner_is_bounded_too(tmp_path):
    p = tmp_path / 'flood.pt'
    p.write_bytes(CASES['flood-memo'][0])
    with pytest.raises(pickle.UnpicklingError, match="more opcodes than its file's size allows"):
        S.get_unsafe_globals_in_checkpoint(p)
    p.write_bytes(CASES['collide-dict-bigint'][0])
    assert S.get_unsafe_globals_in_checkpoint(p) == []


@pytest.mark.parametrize('name', sorted(LOADS))
def test_crafted_file_loads_within_bounds(name, tmp_path):
    """Files that are valid but costly if handled naively (a 32 GiB stride-0 view with a neg
    bit, deep containers, ...) load, under the same memory bound, running nothing."""
    data, check = LOADS[name]
    before = process_state()
    p = tmp_path / 'crafted.pt'
    p.write_bytes(data)
    tracemalloc.start()
    try:
        for src in (p, io.BytesIO(data)):
            out = ember.load(src)
            assert check(out), name
            del out
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < min(mem_bound(len(data)), max(MEM_CAP, 4 * len(data))), f"{name}: peak {peak >> 20} MB"
    assert not os.path.exists(MARKER)
    assert process_state() == before


def test_neg_stride0_matches_torch(tmp_path):
    """torch keeps the neg / conj bit lazy on these views: the values agree."""
    import torch
    for name, idx in (('neg-stride0-32GiB', 2 ** 32), ('conj-stride0-32GiB', 2 ** 31)):
        p = tmp_path / 'x.pt'
        p.write_bytes(LOADS[name][0])
        t, e = torch.load(p), ember.load(p)
        assert t.shape == e.shape and t.stride() == e.stride()
        assert t[idx].item() == e[idx].item() and t[0].item() == e[0].item()


def test_corpus_size():
    assert len(CASES) >= 100, len(CASES)
    assert len(BOMBS) >= 20
    assert len(LOADS) >= 5


def test_mmap_load_refuses_too():
    with tempfile.TemporaryDirectory() as d:
        for name in ('global-reduce[posix.system]', 'pid-numel-huge', 'view-out-of-bounds', 'get-layout[os]'):
            p = os.path.join(d, 'x.pt')
            with open(p, 'wb') as fobj:
                fobj.write(CASES[name][0])
            with pytest.raises(pickle.UnpicklingError, match=CASES[name][1]):
                ember.load(p, mmap=True)
    assert not os.path.exists(MARKER)


_BOMB_RUNNER = textwrap.dedent(r'''
    import os, pickle, resource, sys
    import ember
    def vm():
        for line in open('/proc/self/status'):
            if line.startswith('VmSize:'):
                return int(line.split()[1]) * 1024
    cap = vm() + (256 << 20)
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    cpu = int(resource.getrusage(resource.RUSAGE_SELF).ru_utime) + 240    # generous: kills a hang
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))
    bad = []
    for arg in sys.argv[1:]:
        must_load, path = arg.startswith('L:'), arg[2:]
        try:
            ember.load(path)
            if not must_load:
                bad.append(path + ': loaded')
        except pickle.UnpicklingError as e:
            if must_load:
                bad.append(path + ': ' + str(e)[-200:])
        except MemoryError:
            bad.append(path + ': MemoryError')
    print('BAD' if bad else 'OK', bad)
''')


def test_bombs_under_address_space_limit(tmp_path):
    paths = []
    for k, name in enumerate(BOMBS):
        p = tmp_path / f'bomb{k}.pt'
        p.write_bytes(CASES[name][0])
        paths.append('R:' + str(p))
    for k, name in enumerate(LOADS):
        p = tmp_path / f'load{k}.pt'
        p.write_bytes(LOADS[name][0])
        paths.append('L:' + str(p))
    env = dict(os.environ, OMP_NUM_THREADS='1', OPENBLAS_NUM_THREADS='1', MKL_NUM_THREADS='1')
    r = subprocess.run([sys.executable, '-c', _BOMB_RUNNER, *paths], capture_output=True, text=True,
                       timeout=120, env=env, cwd=os.path.dirname(os.path.dirname(__file__)))
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.startswith('OK'), r.stdout
    assert not os.path.exists(MARKER)


# ------------------------------------------------------------------ what must still load
def test_weights_only_still_loads_everything_torch_writes(tmp_path):
    import torch
    lin = torch.nn.Linear(3, 2)
    sd = lin.state_dict()
    obj = {'sd': sd, 's': {1, 2}, 'fs': frozenset([3]), 'c': 1 + 2j, 'b': b'xy', 'e': b'', 'ba': bytearray(b'q'),
           'dev': torch.device('cpu'), 'size': torch.Size([2, 3]), 'dt': torch.float64, 'n': None,
           'cnt': collections.Counter('aab'), 'p': torch.nn.Parameter(torch.ones(2)), 'big': 2 ** 100,
           'nested': [(1, [2.5, 'x']), {'k': (torch.arange(3),)}], 'slice': slice(1, 2),
           'range': range(5)}
    for legacy_fmt in (False, True):
        p = tmp_path / f'all{legacy_fmt}.pt'
        torch.save(obj, p, _use_new_zipfile_serialization=not legacy_fmt)
        out = ember.load(p)
        assert list(out['sd']) == ['weight', 'bias'] and out['sd']._metadata[''] == {'version': 1}
        assert out['s'] == {1, 2} and out['fs'] == frozenset([3]) and out['c'] == 1 + 2j
        assert out['b'] == b'xy' and out['e'] == b'' and out['ba'] == bytearray(b'q')
        assert str(out['dev']) == 'cpu' and out['size'] == (2, 3) and out['dt'] is ember.float64
        assert out['cnt'] == collections.Counter('aab') and out['big'] == 2 ** 100
        assert type(out['p']) is ember.nn.Parameter and out['p'].requires_grad
        assert out['nested'][1]['k'][0].tolist() == [0, 1, 2]
        assert out['slice'] == slice(1, 2) and out['range'] == range(5)
        assert S.get_unsafe_globals_in_checkpoint(p) == []


@pytest.mark.parametrize('proto', [1, 2, 3, 4, 5])
def test_every_pickle_protocol_loads(proto):
    x = ember.arange(6.).reshape(2, 3)
    obj = {'x': x, 't': x.t(), 'l': [1, 2.5, 'a', b'b', None, True, (1, 2)], 'd': ember.float16,
           'od': collections.OrderedDict(a=1), 's': {3}, 'fs': frozenset([1, (2, 3), frozenset([4])])}
    buf = io.BytesIO()
    ember.save(obj, buf, pickle_protocol=proto)
    buf.seek(0)
    out = ember.load(buf)
    assert out['x'].tolist() == x.tolist() and out['t'].stride() == (1, 3)
    assert out['l'] == obj['l'] and out['d'] is ember.float16 and out['od'] == obj['od']
    assert out['s'] == {3} and out['fs'] == obj['fs']


def test_tensor_attributes_and_legacy_set_state():
    import torch
    t = torch.arange(4.)
    t.tag = 'hello'
    buf = io.BytesIO()
    torch.save(t, buf)
    buf.seek(0)
    e = ember.load(buf)
    assert e.tag == 'hello' and e.tolist() == [0, 1, 2, 3]
    # the legacy Tensor() + BUILD(set_) route works when valid
    data = zip_ckpt(pkl(g('torch', 'Tensor') + EMPTY_TUPLE + NEWOBJ +
                        tup(storage(), i(1), tup(i(2)), tup(i(1))) + BUILD))
    out = ember.load(io.BytesIO(data))
    assert out.tolist() == [1.0, 2.0] and out.dtype is ember.float32


def test_user_allowlisted_class_still_works(tmp_path):
    p = tmp_path / 'c.pt'
    S.clear_safe_globals()
    data = zip_ckpt(pkl(g('test_serialization_attacks', 'Cfg') + EMPTY_TUPLE + NEWOBJ +
                        dict_of(n=i(3)) + BUILD))
    p.write_bytes(data)
    assert S.get_unsafe_globals_in_checkpoint(p) == ['test_serialization_attacks.Cfg']
    with pytest.raises(pickle.UnpicklingError, match='add_safe_globals'):
        ember.load(p)
    with S.safe_globals([Cfg]):
        assert ember.load(p).n == 3
        assert S.get_unsafe_globals_in_checkpoint(p) == []
    assert S.get_safe_globals() == []


class Cfg:
    pass


# ------------------------------------------------------------------ get_unsafe_globals_in_checkpoint
def test_unsafe_globals_lists_every_route(tmp_path):
    p = tmp_path / 'x.pt'
    cases = {
        'global-reduce[posix.system]': ['posix.system'],
        'stack-global[builtins.exec]': ['builtins.exec'],
        'stack-global-memo': ['posix.system'],
        'stack-global-binput': ['os.system'],
        'inst': ['os.system'],
        'obj': ['os.system'],
        'legacy-evil-main': ['posix.system'],
        'legacy-evil-stack-global': ['os.system'],
        'legacy-evil-sysinfo': ['posix.system'],
        'global-reduce[__builtin__.eval]': ['builtins.eval'],
    }
    for name, want in cases.items():
        p.write_bytes(CASES[name][0])
        assert S.get_unsafe_globals_in_checkpoint(p) == want, name
    computed = zip_ckpt(pkl(call(g('torch.serialization', '_get_layout'), u('torch.strided')) + su('x') +
                            STACK_GLOBAL, PROTO4))
    p.write_bytes(computed)
    assert S.get_unsafe_globals_in_checkpoint(p) == ['?.x']
    assert not os.path.exists(MARKER)


# ------------------------------------------------------------------ save
def test_save_keeps_mode_and_refuses_unwritable(tmp_path):
    p = tmp_path / 'm.pt'
    ember.save(ember.ones(2), p)
    os.chmod(p, 0o640)
    ember.save(ember.zeros(2), p)
    assert os.stat(p).st_mode & 0o7777 == 0o640
    assert ember.load(p).tolist() == [0.0, 0.0]


@pytest.mark.skipif(not hasattr(os, 'geteuid') or os.geteuid() != 0, reason='needs root to switch users')
def test_save_owner_and_read_only_as_other_user(tmp_path):
    import pwd
    import pathlib
    import shutil
    nobody = pwd.getpwnam('nobody')
    d = pathlib.Path(tempfile.mkdtemp(prefix='ember-owner-'))
    os.chmod(d, 0o777)
    try:
        _owner_checks(d, nobody)
    finally:
        shutil.rmtree(d)


def _owner_checks(d, nobody):
    # a file owned by someone else keeps its owner when root saves over it
    p = d / 'owned.pt'
    ember.save(ember.ones(2), p)
    os.chown(p, nobody.pw_uid, nobody.pw_gid)
    ember.save(ember.zeros(3), p)
    st = os.stat(p)
    assert (st.st_uid, st.st_gid) == (nobody.pw_uid, nobody.pw_gid)
    assert ember.load(p).tolist() == [0.0] * 3
    # a read-only file is refused for a user who can't write it, and stays as it was
    ro = d / 'ro.pt'
    ember.save(ember.ones(2), ro)
    os.chmod(ro, 0o444)
    before = ro.read_bytes()
    script = textwrap.dedent(f'''
        import os, sys
        import ember
        os.setgid({nobody.pw_gid}); os.setuid({nobody.pw_uid})
        try:
            ember.save(ember.zeros(5), {str(ro)!r})
        except PermissionError:
            print('refused')
        else:
            print('saved')
    ''')
    r = subprocess.run([sys.executable, '-c', script], capture_output=True, text=True, timeout=60,
                       cwd=os.path.dirname(os.path.dirname(__file__)),
                       env=dict(os.environ, OMP_NUM_THREADS='1'))
    assert r.stdout.strip() == 'refused', r.stderr[-2000:]
    assert ro.read_bytes() == before
    assert sorted(os.listdir(d)) == ['owned.pt', 'ro.pt']


def test_save_to_hard_link_and_device(tmp_path):
    p = tmp_path / 'a.pt'
    ember.save(ember.ones(2), p)
    os.link(p, tmp_path / 'b.pt')
    ember.save(ember.zeros(2), p)
    assert ember.load(tmp_path / 'b.pt').tolist() == [0.0, 0.0]    # the link sees the new data
    ember.save(ember.ones(2), os.devnull)
    assert not os.path.isfile(os.devnull)


def test_recursion_error_becomes_unpickling_error():
    """Two equal frozensets nested 90 deep (under the nesting bound): adding the second to a
    set compares them level by level. Where that passes Python's recursion limit, load
    raises an UnpicklingError, never a RecursionError."""
    import inspect
    deep = b'(' * 90 + b'\x91' * 90
    data = zip_ckpt(pkl(EMPTY_SET + MARK + deep + deep + b'\x90', PROTO4))
    assert len(ember.load(io.BytesIO(data))) == 1
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(len(inspect.stack(0)) + 60)
    try:
        with pytest.raises(pickle.UnpicklingError, match='nests objects too deeply'):
            ember.load(io.BytesIO(data))
    finally:
        sys.setrecursionlimit(old)
