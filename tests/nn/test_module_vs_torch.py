"""nn.Module, containers, hooks, Parameter/Buffer/Uninitialized* and lazy modules: the same
code runs on ember and on torch 2.13 and must give the same result or raise the same error
(type and message). Each case is a function ``case(m)`` where ``m`` is ember or torch."""
import copy
import importlib
import io
import pickle
import re

import pytest
import torch

import ember


def outcome(fn, m):
    m.manual_seed(0)   # both libraries draw the same initial weights (torch's own seed varies)
    try:
        return ('ok', fn(m))
    except Exception as e:   # noqa: BLE001
        msg = str(e)
        # spellings that name the library's own classes or C++ method objects
        msg = re.sub(r"<method '[^']*' of '[^']*' objects>", '<method>', msg)
        msg = msg.replace("<class 'ember.", "<class 'torch.")
        return (type(e).__name__, msg)


def same(fn):
    e, t = outcome(fn, ember), outcome(fn, torch)
    assert e == t, f"\nember: {e}\ntorch: {t}"



# ---------------------------------------------------------------- registration, to(), state_dict
def lin(m): return m.nn.Linear(2,2)
def register_buffer_nonstr_name(m):
    l = lin(m); l.register_buffer(1, None)
def register_buffer_dotted_name(m):
    l = lin(m); l.register_buffer('a.b', None)
def register_buffer_existing_attr(m):
    l = lin(m); l.register_buffer('weight', m.zeros(1))
def register_buffer_non_tensor(m):
    l = lin(m); l.register_buffer('x', 5)
def register_parameter_plain_tensor(m):
    l = lin(m); l.register_parameter('x', m.zeros(1))
def register_parameter_non_leaf(m):
    l = lin(m); l.register_parameter('x', m.nn.Parameter(m.zeros(1)) * 2)
def add_module_non_module(m):
    l = lin(m); l.add_module('x', 5)
def add_module_dotted_name(m):
    l = lin(m); l.add_module('a.b', m.nn.ReLU())
def add_module_empty_name(m):
    l = lin(m); l.add_module('', m.nn.ReLU())
def add_module_existing_attr(m):
    l = lin(m); l.add_module('weight', m.nn.ReLU())
def setattr_tensor_to_parameter_name(m):
    l = lin(m); l.weight = m.zeros(2,2)
def setattr_str_to_buffer_name(m):
    l = lin(m); l.register_buffer('b', m.zeros(1)); l.b = 'x'
def setattr_int_to_child_name(m):
    s = m.nn.Sequential(m.nn.ReLU()); setattr(s, '0', 5)
def none_buffer_reserves_name(m):
    l = lin(m); l.register_buffer('b', m.zeros(1)); l.b = None; return list(l.state_dict()), 'b' in l._buffers, l.b
def none_parameter_reserves_name(m):
    l = lin(m); l.weight = None; return list(l.state_dict()), list(dict(l.named_parameters()))
def setattr_module_to_parameter_name(m):
    l = lin(m); l.weight = m.nn.ReLU(); return list(l.state_dict()), list(l._parameters)
def delattr_parameter(m):
    l = lin(m); del l.weight; return list(l.state_dict()), hasattr(l, 'weight')
def delattr_missing(m):
    l = lin(m); del l.nope
def getattr_missing(m):
    l = lin(m); l.nope
def tensor_attr_before_init(m):
    class M(m.nn.Module):
        def __init__(s):
            s.x = m.zeros(1)
    M()
def module_attr_before_init(m):
    class M(m.nn.Module):
        def __init__(s):
            s.x = m.nn.ReLU()
    M()
def register_buffer_before_init(m):
    class M(m.nn.Module):
        def __init__(s):
            s.register_buffer('x', m.zeros(1))
    M()
def plain_attr_before_init(m):
    class M(m.nn.Module):
        def __init__(s):
            s.x = 1
    return M().x
def set_submodule_replace(m):
    n = m.nn.Sequential(m.nn.Linear(1,1)); n.set_submodule('0', m.nn.ReLU()); return repr(n)
def set_submodule_add(m):
    n = m.nn.Sequential(m.nn.Linear(1,1)); n.set_submodule('1', m.nn.ReLU()); return repr(n)
def set_submodule_strict_missing(m):
    n = m.nn.Sequential(m.nn.Linear(1,1)); n.set_submodule('1', m.nn.ReLU(), strict=True); return repr(n)
def set_submodule_through_parameter(m):
    n = m.nn.Sequential(m.nn.Linear(1,1)); n.set_submodule('0.weight', m.nn.ReLU()); return repr(n)
def set_submodule_non_module(m):
    n = m.nn.Sequential(m.nn.Linear(1,1)); n.set_submodule('0', 5)
def set_submodule_empty_target(m):
    n = m.nn.Sequential(m.nn.Linear(1,1)); n.set_submodule('', m.nn.ReLU())
def set_submodule_missing_parent(m):
    n = m.nn.Sequential(m.nn.Linear(1,1)); n.set_submodule('x.y', m.nn.ReLU())
def get_submodule_of_parameter(m):
    n = m.nn.Sequential(m.nn.Linear(1,1)); n.get_submodule('0.weight')
def get_parameter_missing(m):
    n = m.nn.Sequential(m.nn.Linear(1,1)); n.get_parameter('0.nope')
def get_buffer_of_parameter(m):
    n = m.nn.Sequential(m.nn.Linear(1,1)); n.get_buffer('0.weight')
def get_parameter_missing_module(m):
    n = m.nn.Sequential(m.nn.Linear(1,1)); n.get_parameter('nope.x')
def get_submodule_non_str(m):
    n = m.nn.Sequential(m.nn.Linear(1,1)); n.get_submodule(5)
def to_tensor(m):
    l = lin(m); x = m.zeros(1, dtype=m.float64); l.to(x); return str(l.weight.dtype)
def to_device_dtype_non_blocking(m):
    l = lin(m); l.to('cpu', m.float16, non_blocking=True); return str(l.weight.dtype)
def to_int_dtype(m):
    l = lin(m); l.to(m.int32)
def to_bad_arguments(m):
    l = lin(m); l.to('cpu', 5)
def to_meta(m):
    l = lin(m); l.to(device='meta'); return l.weight.device.type, l.weight.is_meta
def to_empty_to_meta(m):
    l = lin(m); w = l.weight; l.to_empty(device='meta'); return str(l.weight.device), l.weight is w, type(l.weight).__name__
def to_empty_from_meta(m):
    l = lin(m).to('meta'); l.to_empty(device='cpu'); return str(l.weight.device), tuple(l.weight.shape)
def share_memory(m):
    l = lin(m); r = l.share_memory(); return r is l
def dir_lists_members(m):
    names = ['weight', 'bias', 'in_features', 'forward', 'training', '_parameters', 'call_super_init']
    d = dir(lin(m))
    return [x for x in names if x in d], d == sorted(d), len(d) == len(set(d))
def dir_hides_numeric_children(m):
    s = m.nn.Sequential(m.nn.ReLU()); return '0' in dir(s)
def type_method(m):
    l = lin(m); l.type(m.float64); return str(l.weight.dtype)
def train_non_bool(m):
    l = lin(m); l.train('x')
def half_casts_grad(m):
    l = lin(m); l.weight.grad = m.ones(2,2); l.half(); return str(l.weight.grad.dtype)
def int_buffer_keeps_dtype(m):
    l = lin(m); l.register_buffer('i', m.zeros(2, dtype=m.int64)); l.double(); l.half(); l.bfloat16(); return str(l.i.dtype), str(l.weight.dtype)
def double_keeps_complex(m):
    l = lin(m); l.register_buffer('c', m.zeros(2, dtype=m.complex64)); l.double(); return str(l.c.dtype)
def to_float_from_complex_buffer(m):
    l = lin(m); l.register_buffer('c', m.zeros(2, dtype=m.complex64)); l.to(m.float64); return str(l.c.dtype)
def to_complex(m):
    l = lin(m); l.register_buffer('c', m.zeros(2, dtype=m.float32)); l.to(m.complex64); return str(l.c.dtype), str(l.weight.dtype)
def cuda_without_gpu(m):
    l = lin(m); l.cuda()
def requires_grad_false(m):
    l = lin(m); return l.requires_grad_(False) is l, l.weight.requires_grad
def repr_empty_module(m):
    return repr(m.nn.Module())
def none_entries_everywhere(m):
    l = m.nn.Module(); l.register_buffer('b', None); l.register_parameter('p', None); l.add_module('c', None); return repr(l), list(l.state_dict()), list(l.named_modules()).__len__(), list(l.named_children()), list(l.named_buffers())
def pickle_module(m):
    l = lin(m); return pickle.loads(pickle.dumps(l)).weight.tolist() == l.weight.tolist()
def deepcopy_module_with_hook(m):
    l = lin(m); l.register_forward_hook(lambda *a: None); c = copy.deepcopy(l); return len(c._forward_hooks), type(c.weight).__name__
def state_dict_prefix(m):
    l = lin(m); return l.state_dict(prefix='abc.').keys().__repr__()
def state_dict_metadata(m):
    l = lin(m); return list(l.state_dict()._metadata.items())
def state_dict_metadata_nested(m):
    s = m.nn.Sequential(lin(m)); return list(s.state_dict()._metadata.items())
def load_state_dict_non_mapping(m):
    l = lin(m); l.load_state_dict([1])
def load_state_dict_non_tensor_value(m):
    l = lin(m); l.load_state_dict({'weight': 5, 'bias': m.zeros(2)})
def incompatible_keys_repr(m):
    l = lin(m); return repr(l.load_state_dict({'weight': m.zeros(2,2)}, strict=False))
def incompatible_keys_str(m):
    l = lin(m); return str(l.load_state_dict({'weight': m.zeros(2,2)}, strict=False))
def load_state_dict_assign_keeps_checkpoint_dtype(m):
    l = lin(m); l.load_state_dict({'weight': m.zeros(2,2, dtype=m.float64), 'bias': m.zeros(2)}, assign=True); return str(l.weight.dtype)
def load_state_dict_copy_keeps_module_dtype(m):
    l = lin(m); l.load_state_dict({'weight': m.zeros(2,2, dtype=m.float64), 'bias': m.zeros(2)}); return str(l.weight.dtype)
def load_state_dict_non_strict_size_mismatch(m):
    l = lin(m); l.load_state_dict({'weight': m.zeros(1,2), 'bias': m.zeros(2), 'x':m.zeros(1)}, strict=False)
def state_dict_positional_args(m):
    l = lin(m); return l.state_dict(None, 'p.').keys().__repr__()
def zero_grad_without_grads(m):
    l = lin(m); l.zero_grad(set_to_none=False); return l.weight.grad

# ---------------------------------------------------------------- containers
def S(m, n=4): return m.nn.Sequential(*[m.nn.Linear(i+1, i+1) for i in range(n)])
def names(mod): return [k for k,_ in mod.named_children()]
def seq_1(m): s=S(m); del s[-1]; return names(s), repr(s)
def seq_2(m): s=S(m); del s[1:3]; return names(s), repr(s)
def seq_3(m): s=S(m); return repr(s[::-1]), names(s[::2])
def seq_4(m): s=S(m); s[5]
def seq_5(m): s=S(m); s[-5]
def seq_6(m): s=S(m); s['a']
def seq_7(m): s=S(m); return repr(s.pop(-1)), names(s)
def seq_8(m): s=S(m); s.insert(-1, m.nn.ReLU()); return repr(s)
def seq_9(m): s=S(m); s.insert(10, m.nn.ReLU())
def seq_10(m): s=S(m); s.insert(0, 5)
def seq_11(m): s=S(m); return repr(s + S(m, 2))
def seq_12(m): s=S(m); s + [1]
def seq_13(m): s=S(m, 2); s += S(m, 1); return repr(s)
def seq_14(m): s=S(m, 2); return repr(s * 2)
def seq_15(m): s=S(m,2); return repr(2 * s) 
def seq_16(m): s=S(m,2); s *= 2; return repr(s)
def seq_17(m): s=m.nn.Sequential(OrderedDict([('a', m.nn.ReLU()), ('b', m.nn.Tanh() if hasattr(m.nn,'Tanh') else m.nn.Identity())])); del s[0]; return names(s)
def seq_18(m): s=m.nn.Sequential(OrderedDict([('a', m.nn.ReLU()), ('b', m.nn.Identity())])); s.append(m.nn.ReLU()); return names(s)
def seq_19(m): s=m.nn.Sequential(OrderedDict([('a', m.nn.ReLU()), ('b', m.nn.Identity())])); return names(s[1:])
def seq_20(m): s=S(m); s[1] = m.nn.ReLU(); return repr(s)
def seq_21(m): s=S(m); s[-1] = m.nn.ReLU(); return repr(s)
def seq_22(m): s=S(m); s[1] = 5
def seq_23(m): s=S(m); return [n for n in dir(s) if n.isdigit()]
def seq_24(m): s=S(m,2); return len(s), [type(x).__name__ for x in iter(s)], repr(s.extend(S(m,1)))
def seq_25(m): s=S(m,2); s.append(5)
def seq_26(m): s=S(m,1); s.pop(5)
def seq_27(m): s=S(m); del s[7]
def seq_28(m): s=S(m,3); s.insert(-3, m.nn.ReLU()); return names(s), repr(s)
def seq_29(m): s=S(m,3); s.insert(-4, m.nn.ReLU())
# ModuleList
def L(m, n=4): return m.nn.ModuleList([m.nn.Linear(i+1, i+1) for i in range(n)])
def mlist_1(m): l=L(m); del l[-1]; return names(l)
def mlist_2(m): l=L(m); del l[::2]; return names(l), repr(l)
def mlist_3(m): l=L(m); return repr(l[1:3]), type(l[1:3]).__name__
def mlist_4(m): l=L(m); l[-1] = m.nn.ReLU(); return repr(l)
def mlist_5(m): l=L(m); l.insert(-1, m.nn.ReLU()); return repr(l)
def mlist_6(m): l=L(m); l.insert(10, m.nn.ReLU()); return repr(l)
def mlist_7(m): l=L(m); return repr(l.pop(-1)), repr(l)
def mlist_8(m): l=L(m); return repr(l + L(m,1))
def mlist_9(m): l=L(m); l += [m.nn.ReLU()]; return repr(l)
def mlist_10(m): l=L(m); l.extend(5)
def mlist_11(m): l=L(m); l[4]
def mlist_12(m): l=L(m); l.append(5)
def mlist_13(m): l=m.nn.ModuleList([m.nn.ReLU(), m.nn.ReLU(), m.nn.Identity(), m.nn.ReLU()]); return repr(l)
def mlist_14(m): l=L(m); l.insert(-10, m.nn.ReLU()); return repr(l)
def mlist_15(m): l=L(m); l + [m.nn.ReLU()]
def mlist_16(m): l=L(m); return [type(x).__name__ for x in reversed(l)] if hasattr(l,'__reversed__') else 'noreversed'
def mlist_17(m): l=L(m, 2); l(m.ones(1))
def mlist_18(m): l=L(m); l['0']
def mlist_19(m): return repr(m.nn.ModuleList())
# ModuleDict
def D(m): return m.nn.ModuleDict({'b': m.nn.ReLU(), 'a': m.nn.Identity()})
def mdict_1(m): d=D(m); return list(d), list(d.keys()), [type(v).__name__ for v in d.values()], [k for k,_ in d.items()]
def mdict_2(m): d=D(m); d.update([('c', m.nn.ReLU())]); d.update(OrderedDict(z=m.nn.ReLU())); return list(d)
def mdict_3(m): d=D(m); d.update(5)
def mdict_4(m): d=D(m); d.update([('c',)])
def mdict_5(m): d=D(m); d.update([5])
def mdict_6(m): d=D(m); del d['b']; return list(d), repr(d)
def mdict_7(m): d=D(m); d['x']
def mdict_8(m): d=D(m); d.clear(); return len(d), repr(d)
def mdict_9(m): d=D(m); d[5] = m.nn.ReLU()
def mdict_10(m): d=D(m); d['y'] = 5
def mdict_11(m): d=D(m); return repr(d)
def mdict_12(m): d=D(m); d.update(D(m)); return list(d)
def mdict_13(m): d=D(m); del d['zz']
def mdict_14(m): d=D(m); d(1)
def mdict_15(m): d=m.nn.ModuleDict([('z', m.nn.ReLU()), ('a', m.nn.ReLU())]); return list(d)
# ParameterList
def P(m): return m.nn.ParameterList([m.nn.Parameter(m.zeros(2)), m.zeros(3, dtype=m.float64)])
def plist_1(m): p=P(m); return repr(p), [type(x).__name__ for x in p], len(p)
def plist_2(m): p=P(m); p.append(5); p.append('s'); return repr(p), list(p.state_dict())
def plist_3(m): p=P(m); return repr(p[-1]), repr(p[0:1])
def plist_4(m): p=P(m); p[5]
def plist_5(m): p=P(m); p[0] = m.ones(4); return repr(p)
def plist_6(m): p=P(m); p.extend(m.ones(2))
def plist_7(m): p=P(m); p(1)
def plist_8(m): p=P(m); return [n for n,_ in p.named_parameters()]
def plist_9(m): p=P(m); p.extend(P(m)); return repr(p)
def plist_10(m): p=m.nn.ParameterList(); return repr(p)
def plist_11(m): p=P(m); p += [m.zeros(1)]; return len(p), dir(p).count('0')
def plist_12(m): p=P(m); p.append(m.zeros(2, dtype=m.int64)); return repr(p)
def plist_13(m): p=m.nn.ParameterList([m.nn.Parameter(m.zeros(2), requires_grad=False)]); return p[0].requires_grad
def plist_14(m): p=P(m); del p[0]
# ParameterDict
def Q(m): return m.nn.ParameterDict({'foo': m.nn.Parameter(m.zeros(3)), 'bar': m.zeros(1)})
def pdict_1(m): q=Q(m); return repr(q), list(q), list(q.keys())
def pdict_2(m): q=Q(m); q['x'] = 5; return repr(q), list(q.state_dict())
def pdict_3(m): q=Q(m); q[5] = m.zeros(1)
def pdict_4(m): q=Q(m); q['nope']
def pdict_5(m): q=Q(m); return q.pop('foo').shape, list(q)
def pdict_6(m): q=Q(m); return q.popitem()[0], list(q)
def pdict_7(m): q=Q(m); return q.get('zz', 3), q.setdefault('zz', m.zeros(2)).shape, list(q)
def pdict_8(m): q=Q(m); c=q.copy(); return list(c), c['foo'] is q['foo']
def pdict_9(m): q=Q(m); return list(q.fromkeys(['a','b'], m.zeros(1)))
def pdict_10(m): q=Q(m); return list(reversed(q))
def pdict_11(m): q=Q(m); return list((q | Q(m)))
def pdict_12(m): q=Q(m); q |= m.nn.ParameterDict({'z': m.zeros(1)}); return list(q)
def pdict_13(m): q=Q(m); q.update(5)
def pdict_14(m): q=Q(m); q.update([('a',)])
def pdict_15(m): q=Q(m); del q['nope']
def pdict_16(m): q=Q(m); q.clear(); return len(q), repr(q)
def pdict_17(m): q=Q(m); return 'foo' in q, [n for n,_ in q.named_parameters()]
def pdict_18(m): q=Q(m); return [type(v).__name__ for v in q.values()], [k for k,v in q.items()]
def pdict_19(m): q=Q(m); q.update(OrderedDict(z=m.zeros(1), a=m.zeros(1))); q.update({'y': m.zeros(1), 'b': m.zeros(1)}); return list(q)
def pdict_20(m): q=Q(m); q['foo.bar'] = m.zeros(1)
def pdict_21(m): q=Q(m); q.foo2 = m.nn.Parameter(m.zeros(1)); return list(q)

# ---------------------------------------------------------------- hooks
def mm(m):
    import importlib
    return importlib.import_module(m.__name__ + '.nn.modules.module')
def global_forward_hook_with_kwargs(m):
    log=[]
    G = mm(m)
    hs=[G.register_module_forward_hook(lambda mod, a, k, o: log.append(('g', sorted(k))), with_kwargs=True)]
    class M(m.nn.Module):
        def forward(self, x, y=1): return x
    try: M()(m.ones(1), y=2)
    finally:
        for h in hs: h.remove()
    return log
def global_forward_hook_always_call(m):
    log=[]
    G = mm(m)
    hs=[G.register_module_forward_hook(lambda mod, a, o: log.append('g'), always_call=True)]
    class M(m.nn.Module):
        def forward(self, x): raise ValueError('x')
    try: M()(m.ones(1))
    finally:
        for h in hs: h.remove()
def always_call_hook_error_warns(m):
    log=[]
    class M(m.nn.Module):
        def forward(self, x): raise ValueError('x')
    mod = M()
    def bad(*a): raise KeyError('inner')
    mod.register_forward_hook(bad, always_call=True)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        try: mod(m.ones(1))
        except ValueError: pass
    return [str(x.message) for x in w]
def pre_hook_with_kwargs_bad_return(m):
    lin = m.nn.Linear(2,2)
    lin.register_forward_pre_hook(lambda mod, a, k: 5, with_kwargs=True)
    lin(m.ones(2))
def pre_hook_single_value_return(m):
    lin = m.nn.Linear(2,2)
    lin.register_forward_pre_hook(lambda mod, a: m.zeros(2))
    return lin(m.ones(2)).tolist() == lin(m.zeros(2)).tolist()
def full_then_legacy_backward_hook(m):
    lin = m.nn.Linear(2,2)
    lin.register_full_backward_hook(lambda *a: None)
    lin.register_backward_hook(lambda *a: None)
def legacy_then_full_backward_hook(m):
    lin = m.nn.Linear(2,2)
    lin.register_backward_hook(lambda *a: None)
    lin.register_full_backward_hook(lambda *a: None)
def legacy_backward_hook_grads(m):
    # legacy backward hook semantics
    lin = m.nn.Linear(2,3)
    seen = []
    lin.register_backward_hook(lambda mod, gi, go: seen.append((len(gi), [None if g is None else tuple(g.shape) for g in gi], [tuple(g.shape) for g in go])))
    x = m.ones(4,2, requires_grad=True)
    lin(x).sum().backward()
    return seen
def backward_hooks_prepend_order(m):
    log = []
    lin = m.nn.Linear(2,2)
    lin.register_full_backward_pre_hook(lambda mod, go: log.append('p1'))
    lin.register_full_backward_pre_hook(lambda mod, go: log.append('p0'), prepend=True)
    lin.register_full_backward_hook(lambda mod, gi, go: log.append('f1'))
    lin.register_full_backward_hook(lambda mod, gi, go: log.append('f0'), prepend=True)
    lin(m.ones(1,2, requires_grad=True)).sum().backward()
    return log
def backward_pre_hook_replaces_grad_output(m):
    lin = m.nn.Linear(2,2)
    lin.register_full_backward_pre_hook(lambda mod, go: (go[0]*3,))
    x = m.ones(1,2, requires_grad=True)
    lin(x).sum().backward()
    return [round(v,4) for v in (x.grad / (lin.weight.sum(0))).tolist()[0]]
def full_backward_hook_multi_io(m):
    # multiple inputs/outputs with some non-tensors
    class M(m.nn.Module):
        def forward(self, a, k, b):
            return a * 2, b * 3, 'x'
    mod = M()
    seen = []
    mod.register_full_backward_hook(lambda mod, gi, go: seen.append(([None if g is None else g.tolist() for g in gi], [None if g is None else g.tolist() for g in go])))
    a = m.ones(2, requires_grad=True); b = m.ones(2)
    out = mod(a, 5, b)
    (out[0].sum() + out[1].sum()).backward()
    return seen
def backward_hook_dict_output_warns(m):
    class M(m.nn.Module):
        def forward(self, a):
            return {'x': a * 2}
    mod = M()
    mod.register_full_backward_hook(lambda *a: None)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        out = mod(m.ones(1, requires_grad=True))
    return [str(x.message)[:60] for x in w]
def global_backward_hooks(m):
    # global backward hooks
    G = mm(m); log=[]
    hs = [G.register_module_full_backward_pre_hook(lambda mod, go: log.append(('pre', type(mod).__name__))),
          G.register_module_full_backward_hook(lambda mod, gi, go: log.append(('full', type(mod).__name__)))]
    try:
        s = m.nn.Sequential(m.nn.Linear(2,2), m.nn.ReLU())
        s(m.ones(1,2, requires_grad=True)).sum().backward()
    finally:
        for h in hs: h.remove()
    return log
def handle_type(m):
    lin = m.nn.Linear(2,2); h = lin.register_forward_hook(lambda *a: None); return type(h).__name__, type(h).__module__.replace('ember','torch'), h.id >= 0
def handle_context_manager(m):
    lin = m.nn.Linear(2,2)
    h = lin.register_forward_hook(lambda *a: None)
    with h: pass
    return len(lin._forward_hooks)
def backward_hook_output_grad_fn(m):
    # hooks in-place on input
    lin = m.nn.Linear(2,2)
    lin.register_full_backward_hook(lambda mod, gi, go: None)
    x = m.ones(1,2, requires_grad=True) * 1
    y = lin(x)
    return y.grad_fn.name() if hasattr(y.grad_fn,'name') else type(y.grad_fn).__name__
def full_backward_hook_wrong_length(m):
    lin = m.nn.Linear(2,2)
    lin.register_full_backward_hook(lambda mod, gi, go: (gi[0], gi[0]))
    lin(m.ones(1,2, requires_grad=True)).sum().backward()
def state_dict_post_hook_must_return_none(m):
    sd = []
    lin = m.nn.Linear(2,2)
    lin.register_state_dict_post_hook(lambda mod, s, p, md: {})
    lin.state_dict()
def private_state_dict_hook_replaces(m):
    lin = m.nn.Linear(2,2)
    lin._register_state_dict_hook(lambda mod, s, p, md: {'x': 1})
    return lin.state_dict()
def load_post_hook_return_value(m):
    lin = m.nn.Linear(2,2)
    lin.register_load_state_dict_post_hook(lambda mod, k: 5)
    lin.load_state_dict(lin.state_dict())
def load_post_hook_clears_missing(m):
    lin = m.nn.Linear(2,2)
    def hk(mod, keys): keys.missing_keys.clear()
    lin.register_load_state_dict_post_hook(hk)
    return repr(lin.load_state_dict({'weight': m.ones(2,2)}))
def load_post_hook_order(m):
    s = m.nn.Sequential(m.nn.Linear(2,2)); log=[]
    s.register_load_state_dict_post_hook(lambda mod, k: log.append('parent'))
    s[0].register_load_state_dict_post_hook(lambda mod, k: log.append(('child', mod.weight.sum().item())))
    s.load_state_dict({'0.weight': m.ones(2,2), '0.bias': m.ones(2)})
    return log
def load_pre_hook_renames_key(m):
    lin = m.nn.Linear(2,2)
    log = []
    def pre(mod, sd, prefix, *a): sd[prefix+'weight'] = sd.pop(prefix+'W')
    lin.register_load_state_dict_pre_hook(pre)
    lin.load_state_dict({'W': m.ones(2,2), 'bias': m.ones(2)})
    return lin.weight.sum().item()
def load_0dim_from_1elem(m):
    class Z(m.nn.Module):
        def __init__(s):
            super().__init__(); s.register_buffer('z', m.tensor(2.))
    z = Z(); z.load_state_dict({'z': m.tensor([5.])}); return z.z.item(), tuple(z.z.shape)
def forward_hook_prepend(m):
    lin = m.nn.Linear(2,2)
    hook_h = lin.register_forward_hook(lambda mod, a, o: o + 1, prepend=True)
    lin.register_forward_hook(lambda mod, a, o: o * 0)
    return lin(m.ones(2)).tolist()
def pickle_module_with_partial_hook(m):
    lin = m.nn.Linear(2,2)
    from functools import partial
    lin.register_forward_hook(partial(lambda tag, mod, a, o: None, 'x'))
    import pickle
    return len(pickle.loads(pickle.dumps(lin))._forward_hooks)
def global_legacy_then_full_backward_hook(m):
    G = mm(m)
    G.register_module_backward_hook(lambda *a: None).remove()
    G.register_module_full_backward_hook(lambda *a: None).remove()

# ---------------------------------------------------------------- Parameter, Buffer, lazy, skip_init
def buffer_1(m): b = m.nn.Buffer(m.ones(2)); return type(b).__name__, isinstance(b, m.nn.Buffer), isinstance(b, m.Tensor), repr(b)
def buffer_2(m): b = m.nn.Buffer(m.ones(2), persistent=False); mod = m.nn.Module(); mod.b = b; return list(mod.state_dict()), [n for n,_ in mod.named_buffers()], type(mod.b).__name__
def buffer_3(m): mod = m.nn.Module(); mod.register_buffer('b', m.nn.Buffer(m.ones(2), persistent=False)); return list(mod.state_dict())
def buffer_4(m): mod = m.nn.Module(); mod.register_buffer('b', m.nn.Buffer(m.ones(2), persistent=False), persistent=True); return list(mod.state_dict())
def buffer_5(m): mod = m.nn.Module(); mod.b = m.nn.Buffer(m.ones(2, requires_grad=True)); return mod.b.requires_grad
def buffer_6(m): mod = m.nn.Module(); mod.register_buffer('b', m.ones(2)); mod.b = m.nn.Buffer(m.zeros(2), persistent=False); return list(mod.state_dict())
def buffer_7(m): return m.nn.Buffer(5)
def buffer_8(m): mod = m.nn.Module(); mod.p = m.nn.Parameter(m.ones(1)); mod.p = m.nn.Buffer(m.ones(2)); return list(mod._parameters), list(mod._buffers)
def buffer_9(m): b = m.nn.Buffer(m.ones(2)); b2 = b + 1; return type(b2).__name__, isinstance(b2, m.nn.Buffer)
def uninit_1(m): p = m.nn.UninitializedParameter(); return repr(p), type(p).__name__, p.requires_grad, isinstance(p, m.nn.Parameter)
def uninit_2(m): p = m.nn.UninitializedParameter(); p.shape
def uninit_3(m): p = m.nn.UninitializedParameter(); p + 1
def uninit_4(m): p = m.nn.UninitializedParameter(dtype=m.float64); p.materialize((2,3)); return type(p).__name__, tuple(p.shape), str(p.dtype), p.requires_grad
def uninit_5(m): b = m.nn.UninitializedBuffer(); b.materialize(4); return type(b).__name__, tuple(b.shape), b.requires_grad
def uninit_6(m): b = m.nn.UninitializedBuffer(); return repr(b), isinstance(b, m.Tensor)
def uninit_7(m): p = m.nn.UninitializedParameter(); return copy.deepcopy(p).__class__.__name__
def uninit_8(m): p = m.nn.UninitializedParameter(); return pickle.loads(pickle.dumps(p)).__class__.__name__
def uninit_9(m): p = m.nn.UninitializedParameter(); p.numel()
def uninit_10(m): p = m.nn.UninitializedParameter(); p.size()
def uninit_11(m): p = m.nn.UninitializedParameter(); return str(p.dtype), str(p.device)
def uninit_12(m): p = m.nn.UninitializedParameter(); p.materialize((2,)); p.materialize((3,))
def uninit_13(m): p = m.nn.UninitializedParameter(); p.data
def uninit_14(m): p = m.nn.UninitializedParameter(); m.nn.init.ones_(p)
def uninit_15(m): p = m.nn.UninitializedParameter(); p.dim()
def param_1(m): return repr(m.nn.Parameter())
def param_2(m): return m.nn.Parameter(m.ones(2, dtype=m.int64))
def param_3(m): p = m.nn.Parameter(m.ones(2, dtype=m.int64), requires_grad=False); return repr(p)
def param_4(m): x = m.ones(2); p = m.nn.Parameter(x); return p.data_ptr() == x.data_ptr()
def param_5(m): p = m.nn.Parameter(m.ones(2)); q = copy.deepcopy(p); return type(q).__name__, q.requires_grad, q.data_ptr()!=p.data_ptr()
def param_6(m): p = m.nn.Parameter(m.ones(2)); return type(p * 2).__name__, type(p.detach()).__name__, type(p.data).__name__, type(p[0]).__name__, type(p.clone()).__name__
def param_7(m): return m.nn.Parameter([1.])
def param_8(m): p = m.nn.Parameter(m.ones(2)); return isinstance(p, m.Tensor), m.is_tensor(p)
def lazy_1(m): l = m.nn.LazyLinear(3); return repr(l), l.weight.__class__.__name__, repr(l.weight)
def lazy_2(m): l = m.nn.LazyLinear(3); l(m.ones(2,5)); return type(l).__name__, repr(l), tuple(l.weight.shape), type(l.weight).__name__
def lazy_3(m): l = m.nn.LazyConv2d(4, 3); l(m.ones(1,2,5,5)); return type(l).__name__, repr(l), tuple(l.weight.shape)
def lazy_4(m): l = m.nn.LazyLinear(3); return list(l.state_dict()), [type(v).__name__ for v in l.state_dict().values()]
def lazy_5(m): l = m.nn.LazyLinear(3); l.load_state_dict(m.nn.Linear(5,3).state_dict()); return type(l).__name__, tuple(l.weight.shape)
def lazy_6(m): l = m.nn.LazyLinear(3, dtype=m.float64); l(m.ones(2,5, dtype=m.float64)); return str(l.weight.dtype)
def lazy_7(m): l = m.nn.LazyLinear(3); return l.has_uninitialized_params()
def lazy_8(m): l = m.nn.LazyLinear(3); p = list(l.parameters()); return len(p)
def lazy_9(m): l = m.nn.LazyLinear(3); copy.deepcopy(l)(m.ones(1,2)); return 'ok'
def lazy_10(m): l = m.nn.LazyLinear(3); l.to(m.float64); return 'ok'
def lazy_11(m): l = m.nn.LazyBatchNorm1d(); l(m.ones(3,4)); return type(l).__name__, repr(l), [tuple(v.shape) for v in l.state_dict().values()]
def lazy_12(m): l = m.nn.LazyLinear(3); l(m.ones(2,5)); return l._lazy_hook if hasattr(l,'_lazy_hook') else None
def lazy_13(m): l = m.nn.LazyLinear(3); l.load_state_dict({'weight': m.ones(3,5)}, strict=False); return type(l).__name__
def lazy_14(m): l = m.nn.LazyConv2d(4, 3); return repr(l)
def skip_init_1(m): l = m.nn.utils.skip_init(m.nn.Linear, 5, 2, dtype=m.float64); return str(l.weight.dtype), tuple(l.weight.shape), str(l.weight.device)
def skip_init_2(m): m.nn.utils.skip_init(m.nn.Sequential)
def skip_init_3(m): m.nn.utils.skip_init(int)
def skip_init_4(m): l = m.nn.utils.skip_init(m.nn.Conv2d, 2, 3, 3); return tuple(l.weight.shape)


# ---------------------------------------------------------------- more module semantics
def _tree(m):
    shared = m.nn.Linear(2, 2)
    root = m.nn.Module()
    root.a = m.nn.Sequential(shared, m.nn.ReLU())
    root.b = shared
    root.c = m.nn.ModuleList([m.nn.Sequential(m.nn.Identity()), None if False else m.nn.ReLU()])
    return root


def named_modules_prefix_and_duplicates(m):
    r = _tree(m)
    return ([n for n, _ in r.named_modules(prefix='model')],
            [n for n, _ in r.named_modules(prefix='model', remove_duplicate=False)],
            [n for n, _ in r.named_parameters(prefix='p', remove_duplicate=False)],
            [n for n, _ in r.named_parameters(prefix='p')],
            [n for n, _ in r.a.named_parameters(prefix='a', recurse=False)],
            [n for n, _ in r.named_children()], len(list(r.modules())), len(list(r.children())))


def named_modules_memo(m):
    r = _tree(m)
    memo = {r.b}
    return [n for n, _ in r.named_modules(memo=memo)], len(memo)


def named_buffers_recurse(m):
    bn = m.nn.BatchNorm1d(3)
    s = m.nn.Sequential(bn, bn)
    s.register_buffer('top', m.zeros(1), persistent=False)
    return ([n for n, _ in s.named_buffers()], [n for n, _ in s.named_buffers(recurse=False)],
            [n for n, _ in s.named_buffers(remove_duplicate=False)], list(s.state_dict()))


def extra_state_round_trip(m):
    class E(m.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = m.nn.Linear(1, 1)
            self.cfg = {'k': 1}

        def get_extra_state(self):
            return dict(self.cfg)

        def set_extra_state(self, state):
            self.cfg = state
    a, b = E(), E()
    a.cfg = {'k': 5}
    sd = a.state_dict()
    r = repr(b.load_state_dict(sd))
    del sd['_extra_state']
    try:
        b.load_state_dict(sd)
    except RuntimeError as e:
        err = str(e)
    return list(a.state_dict()), b.cfg, r, err, repr(b.load_state_dict(sd, strict=False))


def extra_state_unexpected(m):
    lin = m.nn.Linear(1, 1)
    sd = lin.state_dict()
    sd['_extra_state'] = 1
    lin.load_state_dict(sd)


def custom_load_from_state_dict(m):
    class Legacy(m.nn.Module):
        _version = 2

        def __init__(self):
            super().__init__()
            self.w = m.nn.Parameter(m.zeros(2))

        def _load_from_state_dict(self, sd, prefix, meta, strict, missing, unexpected, errors):
            if meta.get('version', 1) < 2 and prefix + 'old_w' in sd:
                sd[prefix + 'w'] = sd.pop(prefix + 'old_w')
            super()._load_from_state_dict(sd, prefix, meta, strict, missing, unexpected, errors)
    net = m.nn.Sequential(Legacy())
    sd = net.state_dict()
    meta = sd._metadata
    sd = OrderedDict([('0.old_w', m.ones(2))])
    sd._metadata = OrderedDict((k, dict(v, version=1)) for k, v in meta.items())
    r = repr(net.load_state_dict(sd))
    return r, net[0].w.tolist(), dict(net.state_dict()._metadata)


def load_errors_all_kinds(m):
    net = m.nn.Sequential(m.nn.Linear(2, 3), m.nn.BatchNorm1d(3))
    sd = net.state_dict()
    sd['0.weight'] = m.zeros(4, 2)
    sd['1.extra'] = m.zeros(1)
    sd['2.weight'] = m.zeros(1)
    sd['1.weight'] = 'x'
    del sd['1.running_mean']
    net.load_state_dict(sd)


def load_none_param_in_state_dict(m):
    mod = m.nn.Module()
    mod.register_parameter('p', None)
    mod.load_state_dict({'p': m.zeros(1)})


def load_non_persistent_buffer_key(m):
    mod = m.nn.Module()
    mod.register_buffer('b', m.zeros(1), persistent=False)
    return repr(mod.load_state_dict({'b': m.ones(1)}, strict=False)), mod.b.tolist()


def load_into_shared_parameter(m):
    lin = m.nn.Linear(2, 2)
    s = m.nn.Sequential(lin, lin)
    return list(s.state_dict()), repr(s.load_state_dict(s.state_dict()))


def registration_hooks_replace(m):
    G = importlib.import_module(m.__name__ + '.nn.modules.module')
    hs = [G.register_module_buffer_registration_hook(lambda mod, n, b: b * 2 if b is not None else None),
          G.register_module_parameter_registration_hook(
              lambda mod, n, p: m.nn.Parameter(p.detach() + 1) if p is not None else None),
          G.register_module_module_registration_hook(
              lambda mod, n, sub: m.nn.Identity() if isinstance(sub, m.nn.ReLU) else None)]
    try:
        mod = m.nn.Module()
        mod.register_buffer('b', m.ones(1))
        mod.x = m.nn.Buffer(m.ones(1))
        mod.p = m.nn.Parameter(m.zeros(1))
        mod.register_parameter('q', m.nn.Parameter(m.zeros(1)))
        mod.r = m.nn.ReLU()
        mod.add_module('s', m.nn.ReLU())
    finally:
        for h in hs:
            h.remove()
    return mod.b.tolist(), mod.x.tolist(), mod.p.tolist(), mod.q.tolist(), repr(mod)


def forward_hooks_multi_io(m):
    class Multi(m.nn.Module):
        def forward(self, a, b, *, scale=1.0):
            return {'sum': (a + b) * scale, 'diff': a - b}, (a * 2,)
    mod = Multi()
    log = []
    mod.register_forward_pre_hook(lambda md, args, kw: (args[::-1], {'scale': 3.0}), with_kwargs=True)
    mod.register_forward_hook(lambda md, args, kw, out: log.append((len(args), sorted(kw))), with_kwargs=True)
    out = mod(m.tensor([1.]), m.tensor([2.]), scale=2.0)
    return out[0]['sum'].tolist(), out[0]['diff'].tolist(), out[1][0].tolist(), log


def parameters_survive_to_and_optimizer(m):
    lin = m.nn.Linear(2, 1)
    opt = m.optim.SGD(lin.parameters(), lr=0.5)
    with m.no_grad():
        lin.weight.fill_(1.0)
        lin.bias.fill_(0.0)
    lin.double()
    lin(m.ones(1, 2, dtype=m.float64)).sum().backward()
    opt.step()
    return str(lin.weight.dtype), lin.weight.tolist(), lin.bias.tolist(), lin.weight.grad.dtype == m.float64


def zero_grad_set_to_none_false(m):
    lin = m.nn.Linear(2, 1)
    lin(m.ones(1, 2)).sum().backward()
    lin.zero_grad(set_to_none=False)
    g = lin.weight.grad
    lin.zero_grad()
    return g.tolist(), lin.weight.grad


def train_eval_flags(m):
    s = m.nn.Sequential(m.nn.Linear(1, 1), m.nn.Sequential(m.nn.ReLU()))
    a = s.eval() is s
    flags = [x.training for x in s.modules()]
    s[1].train()
    return a, flags, [x.training for x in s.modules()]


def apply_order(m):
    log = []
    _tree(m).apply(lambda x: log.append(type(x).__name__))
    return log


def module_repr_nested(m):
    r = _tree(m)
    r.extra = m.nn.ModuleDict({'x': m.nn.LeakyReLU(0.1), 'y': m.nn.Conv2d(1, 2, 3, stride=2, bias=False)})
    r.pl = m.nn.ParameterList([m.nn.Parameter(m.zeros(2, 3))])
    return repr(r)


def deepcopy_shares_and_is_independent(m):
    r = _tree(m)
    c = copy.deepcopy(r)
    with m.no_grad():
        c.b.weight.add_(1)
    return (c.a[0] is c.b, c.b.weight is not r.b.weight, type(c.b.weight).__name__,
            (c.b.weight - r.b.weight).tolist())


def pickle_whole_module(m):
    r = _tree(m)
    c = pickle.loads(pickle.dumps(r))
    return c.a[0] is c.b, repr(c) == repr(r), c.b.weight.tolist() == r.b.weight.tolist()


def save_whole_module(m):
    r = _tree(m)
    buf = io.BytesIO()
    m.save(r, buf)
    buf.seek(0)
    c = m.load(buf, weights_only=False)
    return repr(c) == repr(r), c.a[0] is c.b, type(c.b.weight).__name__


def save_whole_module_weights_only_refused(m):
    buf = io.BytesIO()
    m.save(m.nn.Linear(1, 1), buf)
    buf.seek(0)
    try:
        m.load(buf)
    except pickle.UnpicklingError as e:
        return 'Weights only load failed' in str(e), 'Linear' in str(e)


def user_module_signatures(m):
    class Any(m.nn.Module):
        def forward(self, *args, **kwargs):
            return len(args), sorted(kwargs)
    class NoForward(m.nn.Module):
        pass
    a = Any()(1, 2, 3, k=1)
    try:
        NoForward()(1)
    except NotImplementedError as e:
        return a, str(e)


def hook_removal_during_call(m):
    lin = m.nn.Linear(1, 1)
    log = []
    handles = []

    def h(mod, args, out):
        log.append('h')
        handles[0].remove()
    handles.append(lin.register_forward_hook(h))
    lin(m.ones(1))
    lin(m.ones(1))
    return log


CASES = [
    named_modules_prefix_and_duplicates, named_modules_memo, named_buffers_recurse,
    extra_state_round_trip, extra_state_unexpected, custom_load_from_state_dict,
    load_errors_all_kinds, load_none_param_in_state_dict, load_non_persistent_buffer_key,
    load_into_shared_parameter, registration_hooks_replace, forward_hooks_multi_io,
    parameters_survive_to_and_optimizer, zero_grad_set_to_none_false, train_eval_flags,
    apply_order, module_repr_nested, deepcopy_shares_and_is_independent, pickle_whole_module,
    save_whole_module, save_whole_module_weights_only_refused, user_module_signatures,
    hook_removal_during_call,
    register_buffer_nonstr_name, register_buffer_dotted_name, register_buffer_existing_attr,
    register_buffer_non_tensor, register_parameter_plain_tensor, register_parameter_non_leaf,
    add_module_non_module, add_module_dotted_name, add_module_empty_name,
    add_module_existing_attr, setattr_tensor_to_parameter_name, setattr_str_to_buffer_name,
    setattr_int_to_child_name, none_buffer_reserves_name, none_parameter_reserves_name,
    setattr_module_to_parameter_name, delattr_parameter, delattr_missing, getattr_missing,
    tensor_attr_before_init, module_attr_before_init, register_buffer_before_init,
    plain_attr_before_init, set_submodule_replace, set_submodule_add,
    set_submodule_strict_missing, set_submodule_through_parameter, set_submodule_non_module,
    set_submodule_empty_target, set_submodule_missing_parent, get_submodule_of_parameter,
    get_parameter_missing, get_buffer_of_parameter, get_parameter_missing_module,
    get_submodule_non_str, to_tensor, to_device_dtype_non_blocking, to_int_dtype,
    to_bad_arguments, to_meta, to_empty_from_meta, share_memory, dir_lists_members,
    dir_hides_numeric_children, type_method, train_non_bool, half_casts_grad,
    int_buffer_keeps_dtype, double_keeps_complex, to_float_from_complex_buffer, to_complex,
    cuda_without_gpu, requires_grad_false, repr_empty_module, none_entries_everywhere,
    pickle_module, deepcopy_module_with_hook, state_dict_prefix, state_dict_metadata,
    state_dict_metadata_nested, load_state_dict_non_mapping, load_state_dict_non_tensor_value,
    incompatible_keys_repr, incompatible_keys_str,
    load_state_dict_assign_keeps_checkpoint_dtype, load_state_dict_copy_keeps_module_dtype,
    load_state_dict_non_strict_size_mismatch, state_dict_positional_args,
    zero_grad_without_grads, seq_1, seq_2, seq_3, seq_4, seq_5, seq_6, seq_7, seq_8, seq_9,
    seq_10, seq_11, seq_12, seq_13, seq_14, seq_15, seq_16, seq_17, seq_18, seq_19, seq_20,
    seq_21, seq_22, seq_23, seq_24, seq_25, seq_26, seq_27, seq_28, seq_29, mlist_1, mlist_2,
    mlist_3, mlist_4, mlist_5, mlist_6, mlist_7, mlist_8, mlist_9, mlist_10, mlist_11, mlist_12,
    mlist_13, mlist_14, mlist_15, mlist_16, mlist_17, mlist_18, mlist_19, mdict_1, mdict_2,
    mdict_3, mdict_4, mdict_5, mdict_6, mdict_7, mdict_8, mdict_9, mdict_10, mdict_11, mdict_12,
    mdict_13, mdict_14, mdict_15, plist_1, plist_2, plist_3, plist_4, plist_5, plist_6, plist_7,
    plist_8, plist_9, plist_10, plist_11, plist_12, plist_13, plist_14, pdict_1, pdict_2,
    pdict_3, pdict_4, pdict_5, pdict_6, pdict_7, pdict_8, pdict_9, pdict_10, pdict_11, pdict_12,
    pdict_13, pdict_14, pdict_15, pdict_16, pdict_17, pdict_18, pdict_19, pdict_20, pdict_21,
    global_forward_hook_with_kwargs, global_forward_hook_always_call,
    always_call_hook_error_warns, pre_hook_with_kwargs_bad_return, pre_hook_single_value_return,
    full_then_legacy_backward_hook, legacy_then_full_backward_hook, legacy_backward_hook_grads,
    backward_hooks_prepend_order, backward_pre_hook_replaces_grad_output,
    full_backward_hook_multi_io, backward_hook_dict_output_warns, global_backward_hooks,
    handle_context_manager, backward_hook_output_grad_fn, full_backward_hook_wrong_length,
    state_dict_post_hook_must_return_none, private_state_dict_hook_replaces,
    load_post_hook_return_value, load_post_hook_clears_missing, load_post_hook_order,
    load_pre_hook_renames_key, load_0dim_from_1elem, forward_hook_prepend,
    pickle_module_with_partial_hook, global_legacy_then_full_backward_hook, buffer_1, buffer_2,
    buffer_3, buffer_4, buffer_5, buffer_6, buffer_7, buffer_8, buffer_9, uninit_1, uninit_2,
    uninit_3, uninit_4, uninit_5, uninit_6, uninit_7, uninit_8, uninit_9, uninit_10, uninit_11,
    uninit_12, uninit_13, uninit_14, uninit_15, param_1, param_2, param_3, param_4, param_5,
    param_6, param_7, param_8, lazy_1, lazy_2, lazy_3, lazy_4, lazy_5, lazy_6, lazy_7, lazy_8,
    lazy_9, lazy_10, lazy_11, lazy_12, lazy_13, lazy_14, skip_init_1, skip_init_2, skip_init_3,
    skip_init_4
]


@pytest.mark.parametrize('case', CASES, ids=[c.__name__ for c in CASES])
def test_same_as_torch(case):
    same(case)
