"""ember.utils.benchmark's Fuzzer against torch's: the same seed gives the same parameters,
tensor values, strides and properties."""
import numpy as np
import pytest
import torch
import torch.utils.benchmark as TB

import ember
import ember.utils.benchmark as EB


def _fuzzer(B, lib, seed=123, **kw):
    return B.Fuzzer(
        parameters=[B.FuzzedParameter('n', 4, 64, distribution='loguniform'),
                    [B.FuzzedParameter('m', 1, 9, distribution='uniform'),
                     B.FuzzedParameter('f', 0.0, 1.0, distribution='uniform')],
                    B.FuzzedParameter('d', 1, 3, distribution='uniform', strict=True)],
        tensors=[B.FuzzedTensor('x', size=('n', 'm', 3), steps=(1, 2, 'm'), dim_parameter='d',
                                max_elements=300, **kw),
                 B.FuzzedTensor('y', size=('m', 'n'), dtype=lib.int32, probability_contiguous=0.3),
                 B.FuzzedTensor('z', size=(2, 'm'), dtype=lib.float64, min_elements=4,
                                max_allocation_bytes=10 ** 4)],
        constraints=[lambda params: params['n'] % 2 == 0], seed=seed)


@pytest.mark.parametrize('seed', [0, 123, 2 ** 31])
def test_fuzzer_matches_torch(seed):
    ft, fe = _fuzzer(TB, torch, seed), _fuzzer(EB, ember, seed)
    n = 0
    for (tt, tp, tpar), (et, ep, epar) in zip(ft.take(15), fe.take(15)):
        n += 1
        assert epar == tpar
        assert set(et) == set(tt) == {'x', 'y', 'z'}
        for k in tt:
            assert str(et[k].dtype) == str(tt[k].dtype)
            assert np.array_equal(et[k].numpy(), tt[k].numpy())
            assert et[k].shape == tt[k].shape and et[k].stride() == tt[k].stride()
            a, b = tp[k], ep[k]
            assert (b['numel'], list(b['order']), b['steps'], b['is_contiguous'], b['dtype']) == \
                (a['numel'], list(a['order']), a['steps'], a['is_contiguous'], a['dtype'])
    assert n == 15
    assert fe.rejection_rate == ft.rejection_rate > 0
    # take() starts from the seed again
    first_e = next(fe.take(1))[2]
    assert first_e == next(ft.take(1))[2]


def test_custom_constructor_and_aliases():
    def ctor(size, dtype, **params):
        return ember.full(size, float(params['n']), dtype=dtype)
    f = EB.Fuzzer(parameters=[EB.FuzzedParameter('n', 2, 5, distribution='uniform'),
                              EB.FuzzedParameter('k', distribution={3: 0.5, EB.ParameterAlias('n'): 0.5})],
                  tensors=[EB.FuzzedTensor('x', size=('n', 'k'), tensor_constructor=ctor,
                                           probability_contiguous=1.0)], seed=1)
    seen_alias = seen_3 = False
    for tensors, props, params in f.take(20):
        assert params['k'] in (3, params['n'])
        seen_alias |= params['k'] == params['n'] != 3
        seen_3 |= params['k'] == 3
        x = tensors['x']
        assert tuple(x.shape) == (params['n'], params['k']) and props['x']['is_contiguous']
        assert (x == params['n']).all()
    assert seen_alias and seen_3
    assert repr(EB.ParameterAlias('n')) == repr(TB.ParameterAlias('n'))


def test_errors():
    for B in (TB, EB):
        with pytest.raises(AssertionError, match='Unknown distribution: gauss'):
            B.FuzzedParameter('x', 1, 2, distribution='gauss')
        with pytest.raises(AssertionError, match='Probabilities cannot be negative'):
            B.FuzzedParameter('x', distribution={1: -0.5, 2: 1.5})
        with pytest.raises(ValueError, match='Duplicate names in parameters and tensors'):
            B.Fuzzer([B.FuzzedParameter('x', 1, 2, distribution='uniform')],
                     [B.FuzzedTensor('x', size=(2,))])
        with pytest.raises(ValueError, match='Failed to generate a set of valid parameters.'):
            next(B.Fuzzer([B.FuzzedParameter('n', 1, 2, distribution='uniform')],
                          [B.FuzzedTensor('x', size=('n',))], constraints=[lambda p: False],
                          seed=0).take(1))
        with pytest.raises(ValueError, match='ParameterAlias cycle detected'):
            B.Fuzzer._resolve_aliases({'a': B.ParameterAlias('b'), 'b': B.ParameterAlias('a')})
    # PyTorch 2.13 rejects normalized dicts (inverted check); ember rejects unnormalized ones
    with pytest.raises(AssertionError, match='Distribution is not normalized'):
        EB.FuzzedParameter('x', distribution={1: 0.5, 2: 0.7})
    with pytest.raises(AssertionError, match="'minval' must be None"):
        EB.FuzzedParameter('x', 1, distribution={1: 0.5, 2: 0.5})


def test_helpers():
    from ember.utils.benchmark.utils import fuzzer as EF
    from torch.utils.benchmark.utils import fuzzer as TF
    for et, tt in ((ember.bool, torch.bool), (ember.float16, torch.float16),
                   (ember.complex64, torch.complex64), (ember.int64, torch.int64),
                   (ember.uint8, torch.uint8)):
        assert EF.dtype_size(et) == TF.dtype_size(tt)
    assert EF.prod([2 ** 40, 2 ** 40]) == TF.prod([2 ** 40, 2 ** 40])
    for seed in range(5):
        for args in ((1, 1000, 'loguniform'), (3, 9, 'uniform'), (0.5, 2.0, 'uniform')):
            a = TB.FuzzedParameter('p', *args).sample(np.random.RandomState(seed))
            b = EB.FuzzedParameter('p', *args).sample(np.random.RandomState(seed))
            assert a == b and type(a) is type(b)
