"""Op-database entries of the normalization family (ember/_ops/normalization.py): layer,
group, instance, RMS and local response normalization, in their ``F.*`` and ``torch.*``
forms, with the ``native_*`` ops returning their statistics."""
from _ops.opdb import OpInfo, S, FLOAT


def _F(name):
    return lambda m, *a, **kw: getattr(m.nn.functional, name)(*a, **kw)


def _t(name):
    return lambda m, *a, **kw: getattr(m, name)(*a, **kw)


# ----------------------------------------------------------------------------- layer norm

def _layer_norm(mk):
    yield S(mk((2, 3, 4)), [4])
    yield S(mk((2, 3, 4)), [4], mk((4,)), mk((4,)))
    yield S(mk((2, 3, 4)), (3, 4), mk((3, 4)), mk((3, 4)), eps=1e-3)
    yield S(mk((2, 3, 4)), [2, 3, 4], mk((2, 3, 4)), None)
    yield S(mk((5,)), [5], None, mk((5,)))
    yield S(mk((3, 1)), [1], mk((1,)), mk((1,)), desc='one element per row: output = bias',
            atol=1e-4, note="the exact input gradient is 0; torch's float32 formula leaves "
                            "rounding noise of ~3e-5 (rstd = 1/sqrt(eps) ~ 316)")
    yield S(mk((4, 3), dom='shift') + 100, [3], mk((3,)), mk((3,)), desc='large mean')
    yield S(mk((4, 3)), [4], mk((4,)), mk((4,)), pre='t')
    yield S(mk((2, 3, 5)), [3], mk((3,)), mk((3,)), pre='t')
    yield S(mk((0, 4)), [4], mk((4,)), mk((4,)))
    yield S(mk((2, 0)), [0], mk((0,)), mk((0,)))
    yield S(mk((0, 2, 3)), [2, 3])
    # errors
    yield S(mk((2, 3)), [])
    yield S(mk((2, 3)), [4])
    yield S(mk((2, 3)), [2, 3, 1])
    yield S(mk((2, 3)), [3], mk((4,)))
    yield S(mk((2, 3)), [3], None, mk((2,)))
    yield S(mk((2, 3)), 3, desc='int normalized_shape: TypeError')
    yield S(mk(()), [1])
    yield S(mk((2, 3)), [3], mk((3,), dtype='float64' if mk.dtype == 'float32' else 'float32'),
            desc='mixed dtype weight')


def _native_layer_norm(mk):
    yield S(mk((2, 3, 4)), [4], mk((4,)), mk((4,)), 1e-5)
    yield S(mk((2, 3, 4)), [3, 4], None, None, 1e-5)
    yield S(mk((6,)), [6], mk((6,)), None, 0.1)
    yield S(mk((0, 3)), [3], None, None, 1e-5)
    yield S(mk((2, 0)), [0], None, None, 1e-5, grad=False,
            desc='no normalized elements: mean 0, rstd nan')
    yield S(mk((2, 3)), [2], None, None, 1e-5)


# ----------------------------------------------------------------------------- group norm

def _group_norm(mk):
    yield S(mk((2, 4, 3)), 2, mk((4,)), mk((4,)))
    yield S(mk((2, 6, 2, 3)), 3, mk((6,)), mk((6,)), eps=1e-3)
    yield S(mk((2, 6, 2, 3)), 6)
    yield S(mk((3, 6)), 2, mk((6,)), None)
    yield S(mk((2, 4)), 1, None, mk((4,)), grad=False,
            note="torch's backward raises 'tensor does not have a device' for a bias without "
                 "weight (a torch bug); ember's gradient is checked against the exact formula "
                 "in tests/nn/test_normalization.py")
    yield S(mk((1, 4, 2, 2, 2)), 2, mk((4,)), mk((4,)))
    yield S(mk((2, 4, 3), dom='shift') + 50, 2, mk((4,)), mk((4,)), desc='large mean',
            atol=1e-4, note="float32 round-off of x - mean at |x| ~ 50 (ulp 4e-6) reaches the "
                            "weight gradient as ~3e-5; its size depends on NumPy's summation")
    yield S(mk((2, 4, 3, 2)), 2, mk((4,)), mk((4,)), pre='t')
    yield S(mk((0, 4, 2)), 2, mk((4,)), mk((4,)))
    yield S(mk((2, 4, 0)), 2, mk((4,)), mk((4,)))
    # errors
    yield S(mk((2, 3, 4)), 2)
    yield S(mk((2, 4, 3)), 2, mk((3,)))
    yield S(mk((2, 4, 3)), 2, None, mk((2,)))
    yield S(mk((3,)), 1)
    yield S(mk((1, 4, 1)), 4, desc='one value per group')
    yield S(mk((1, 4)), 4)
    yield S(mk((2, 4, 3)), 0)


def _torch_group_norm(mk):
    yield S(mk((2, 4, 3)), 2, mk((4,)), mk((4,)), 1e-5)
    yield S(mk((2, 4)), 4, atol=1e-4, note="one value per group: the exact input gradient is 0, "
                                         "torch's float32 formula leaves ~3e-5 of rounding")
    yield S(mk((1, 4, 1)), 4, desc='torch.group_norm has no one-value check')
    yield S(mk((3,)), 1)
    yield S(mk((2, 4, 3)), -1)


def _native_group_norm(mk):
    yield S(mk((2, 4, 3)), mk((4,)), mk((4,)), 2, 4, 3, 2, 1e-5,
            desc='mean/rstd are outputs with grad_fn whose gradients are not propagated '
                 '(as in torch)')
    yield S(mk((3, 6, 2, 2)), None, None, 3, 6, 4, 3, 1e-5)
    yield S(mk((2, 4, 0)), None, None, 2, 4, 0, 2, 1e-5, grad=False,
            desc='no elements per group: mean 0, rstd nan')


# ----------------------------------------------------------------------------- instance norm

def _instance_norm(m, x, rm=None, rv=None, *a, **kw):
    out = m.nn.functional.instance_norm(x, rm, rv, *a, **kw)
    stats = tuple(t.detach().clone() for t in (rm, rv) if t is not None)
    return (out,) + stats if stats else out


def _instance_norm_samples(mk):
    yield S(mk((2, 3, 4)))
    yield S(mk((2, 3, 4)), None, None, mk((3,)), mk((3,)))
    yield S(mk((2, 3, 2, 3)), mk((3,)), mk((3,), 'pos'), mk((3,)), mk((3,)), True, 0.3)
    yield S(mk((2, 3, 2, 2, 2)), mk((3,)), mk((3,), 'pos'), momentum=0.5, eps=1e-3)
    yield S(mk((2, 3, 4)), mk((3,)), mk((3,), 'pos'), mk((3,)), mk((3,)), False,
            desc='eval: running statistics used')
    yield S(mk((1, 5, 2)), None, None, None, mk((2,)), pre='t')
    yield S(mk((0, 3, 4)))
    # errors
    yield S(mk((2, 3)))
    yield S(mk((2, 3, 1)))
    yield S(mk((2, 3, 4)), None, None, use_input_stats=False)
    yield S(mk((2, 3, 4)), mk((2,)), mk((2,), 'pos'))
    yield S(mk((2, 3, 4)), None, None, mk((2,)))


def _torch_instance_norm(mk):
    yield S(mk((2, 3, 4)), mk((3,)), mk((3,)), None, None, True, 0.1, 1e-5, False)
    yield S(mk((2, 3, 1)), None, None, None, None, True, 0.1, 1e-5, False,
            desc='torch.instance_norm has no spatial-size check: output 0')


# ----------------------------------------------------------------------------- RMS norm

def _rms_norm(mk):
    yield S(mk((2, 3, 4)), [4])
    yield S(mk((2, 3, 4)), [4], mk((4,)))
    yield S(mk((2, 3, 4)), (3, 4), mk((3, 4)), eps=1e-3)
    yield S(mk((5,)), [5], mk((5,)), 0.5)
    yield S(mk((4, 3)), [4], mk((4,)), pre='t')
    yield S(mk((3, 1)), [1], mk((1,)))
    yield S(mk((0, 4)), [4], mk((4,)))
    yield S(mk((2, 0)), [0])
    yield S(mk((2, 3)), [3], mk((3,), dtype='float64' if mk.dtype == 'float32' else 'float32'),
            desc='mixed dtype weight: result in the input dtype / promoted')
    # errors
    yield S(mk((2, 3)), [])
    yield S(mk((2, 3)), [2])
    yield S(mk((2, 3)), [3], mk((2,)))
    yield S(mk((2, 3)), 3)


# ----------------------------------------------------------------------------- local response norm

def _lrn(mk):
    yield S(mk((2, 5, 3)), 2)
    yield S(mk((2, 5, 3)), 3, alpha=0.5, beta=0.6, k=2.)
    yield S(mk((2, 4, 3, 3)), 5, 1e-2, 0.75, 1.)
    yield S(mk((1, 3, 2, 2, 2)), 4, alpha=1., beta=1.5)
    yield S(mk((2, 3, 4)), 7, alpha=0.3, desc='window wider than the channels')
    yield S(mk((2, 3, 2)), 1, alpha=1.)
    yield S(mk((3, 4, 2)), 3, alpha=0.2, pre='t')
    yield S(mk((2, 0, 3)), 2, desc='empty: the input itself is returned')
    # errors
    yield S(mk((2, 3)), 2)
    yield S(mk((2, 3, 4)), 0)
    yield S(mk((2, 3, 4, 2)), 0)


def _cross_map(mk):
    yield S(mk((2, 5, 3, 2)), 3, alpha=0.5, beta=0.6, k=2.)
    yield S(mk((1, 6, 2, 2)), 4, alpha=0.7)
    yield S(mk((2, 2, 2, 3)), 5, alpha=0.3, pre='t')
    yield S(mk((2, 3, 2, 2)), 1, alpha=0.3, desc="size 1: torch's backward raises")
    yield S(mk((2, 3, 4)), 3, desc='3-d input')


OPS = [
    OpInfo('layer_norm', _F('layer_norm'), _layer_norm, dtypes=FLOAT, gc_max=4, atol=2e-5),
    OpInfo('torch.layer_norm', _t('layer_norm'), _layer_norm, dtypes=FLOAT, gradcheck=False,
           atol=2e-5),
    OpInfo('native_layer_norm', _t('native_layer_norm'), _native_layer_norm, dtypes=FLOAT,
           gradcheck=False, atol=2e-5,
           note='mean and rstd are not differentiable outputs (as in torch), which gradcheck '
                'rejects; layer_norm runs the gradcheck'),
    OpInfo('group_norm', _F('group_norm'), _group_norm, dtypes=FLOAT, gc_max=4, atol=2e-5),
    OpInfo('torch.group_norm', _t('group_norm'), _torch_group_norm, dtypes=FLOAT,
           gradcheck=False, atol=2e-5),
    OpInfo('native_group_norm', _t('native_group_norm'), _native_group_norm, dtypes=FLOAT,
           gradcheck=False, atol=2e-5,
           note='torch drops the gradients reaching mean/rstd (first order), so a gradcheck '
                'of all three outputs would fail for torch too'),
    OpInfo('instance_norm', _instance_norm, _instance_norm_samples, dtypes=FLOAT, gc_max=3,
           atol=2e-5),
    OpInfo('torch.instance_norm', _t('instance_norm'), _torch_instance_norm, dtypes=FLOAT,
           gradcheck=False, atol=2e-5),
    OpInfo('rms_norm', _F('rms_norm'), _rms_norm, dtypes=FLOAT, gc_max=3),
    OpInfo('torch.rms_norm', _t('rms_norm'), _rms_norm, dtypes=FLOAT, gradcheck=False),
    OpInfo('local_response_norm', _F('local_response_norm'), _lrn, dtypes=FLOAT, gc_max=3),
    OpInfo('nn.CrossMapLRN2d', lambda m, x, size, **kw: m.nn.CrossMapLRN2d(size, **kw)(x),
           _cross_map, dtypes=FLOAT, gradcheck=False,
           note="torch's legacy backward formula is not the derivative of its forward; "
                "ember reproduces it, so a finite-difference gradcheck fails for both"),
]
