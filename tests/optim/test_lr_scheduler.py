"""Learning-rate schedulers vs torch: the sequences of rates (and momenta) over 100 steps
are equal for every scheduler and several option sets; state_dict round trips; the
deprecated step(epoch) path; warnings; errors."""
import copy
import math
import warnings

import pytest
import torch

import ember
from oracle import check_error


def _opt(m, kind='SGD', lr_tensor=False):
    ps = [m.nn.Parameter(m.ones(2)), m.nn.Parameter(m.ones(3))]
    lr0, lr1 = (m.tensor(0.1), m.tensor(0.05)) if lr_tensor else (0.1, 0.05)
    if kind == 'SGD':
        return m.optim.SGD([{'params': ps[:1], 'lr': lr0}, {'params': ps[1:], 'lr': lr1}],
                           lr=0.1, momentum=0.9)
    return m.optim.Adam([{'params': ps[:1], 'lr': lr0}, {'params': ps[1:], 'lr': lr1}], lr=0.1)


def _num(v):
    return v.item() if isinstance(v, (torch.Tensor, ember.Tensor)) else v


def _sequence(m, make, n=100, kind='SGD', metrics=None, epochs=None, lr_tensor=False):
    opt = _opt(m, kind, lr_tensor)
    sched = make(m, opt)
    out = [[_num(v) for v in sched.get_last_lr()]]
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        for i in range(n):
            opt.step()
            if metrics is not None:
                sched.step(metrics[i])
            elif epochs is not None:
                sched.step(epochs[i])
            else:
                sched.step()
            row = [_num(v) for v in sched.get_last_lr()]
            row += [_num(g['lr']) for g in opt.param_groups]
            row += [g.get('momentum', g.get('betas', (None,))[0]) for g in opt.param_groups]
            out.append(row)
    return out, sched, opt


def _same(make, **kw):
    e, se, _ = _sequence(ember, make, **kw)
    t, st, _ = _sequence(torch, make, **kw)
    assert e == t
    return se, st


L = ember.optim.lr_scheduler  # noqa: E731 (names are looked up on m below)

SCHEDULERS = {
    'lambda': lambda m, o: m.optim.lr_scheduler.LambdaLR(o, lambda e: 0.95 ** e),
    'lambda_list': lambda m, o: m.optim.lr_scheduler.LambdaLR(
        o, [lambda e: 0.9 ** e, lambda e: 1.0 / (e + 1)]),
    'multiplicative': lambda m, o: m.optim.lr_scheduler.MultiplicativeLR(o, lambda e: 0.97),
    'step': lambda m, o: m.optim.lr_scheduler.StepLR(o, step_size=7, gamma=0.5),
    'step_default': lambda m, o: m.optim.lr_scheduler.StepLR(o, 30),
    'multistep': lambda m, o: m.optim.lr_scheduler.MultiStepLR(o, [10, 30, 30, 60], gamma=0.5),
    'constant': lambda m, o: m.optim.lr_scheduler.ConstantLR(o, factor=0.5, total_iters=10),
    'constant_default': lambda m, o: m.optim.lr_scheduler.ConstantLR(o),
    'linear': lambda m, o: m.optim.lr_scheduler.LinearLR(o, start_factor=0.2, end_factor=0.9,
                                                         total_iters=30),
    'linear_default': lambda m, o: m.optim.lr_scheduler.LinearLR(o),
    'exponential': lambda m, o: m.optim.lr_scheduler.ExponentialLR(o, gamma=0.97),
    'polynomial': lambda m, o: m.optim.lr_scheduler.PolynomialLR(o, total_iters=40, power=2.0),
    'polynomial_default': lambda m, o: m.optim.lr_scheduler.PolynomialLR(o),
    'cosine': lambda m, o: m.optim.lr_scheduler.CosineAnnealingLR(o, T_max=20, eta_min=0.001),
    'cosine_long': lambda m, o: m.optim.lr_scheduler.CosineAnnealingLR(o, T_max=100),
    'chained': lambda m, o: m.optim.lr_scheduler.ChainedScheduler([
        m.optim.lr_scheduler.ConstantLR(o, factor=0.1, total_iters=5),
        m.optim.lr_scheduler.ExponentialLR(o, gamma=0.95)]),
    'sequential': lambda m, o: m.optim.lr_scheduler.SequentialLR(o, [
        m.optim.lr_scheduler.LinearLR(o, start_factor=0.1, total_iters=10),
        m.optim.lr_scheduler.CosineAnnealingLR(o, T_max=30)], milestones=[10]),
    'sequential3': lambda m, o: m.optim.lr_scheduler.SequentialLR(o, [
        m.optim.lr_scheduler.ConstantLR(o, factor=0.5, total_iters=4),
        m.optim.lr_scheduler.ExponentialLR(o, gamma=0.9),
        m.optim.lr_scheduler.StepLR(o, step_size=5)], milestones=[5, 40]),
    'cyclic_triangular': lambda m, o: m.optim.lr_scheduler.CyclicLR(
        o, base_lr=0.01, max_lr=0.1, step_size_up=7),
    'cyclic_triangular2': lambda m, o: m.optim.lr_scheduler.CyclicLR(
        o, base_lr=[0.01, 0.02], max_lr=[0.1, 0.3], step_size_up=5, step_size_down=9,
        mode='triangular2', base_momentum=0.7, max_momentum=0.95),
    'cyclic_exp_range': lambda m, o: m.optim.lr_scheduler.CyclicLR(
        o, base_lr=0.01, max_lr=0.1, step_size_up=6, mode='exp_range', gamma=0.98),
    'cyclic_scale_fn': lambda m, o: m.optim.lr_scheduler.CyclicLR(
        o, base_lr=0.01, max_lr=0.1, step_size_up=4, scale_fn=lambda x: 1 / (x + 1),
        scale_mode='iterations', cycle_momentum=False),
    'onecycle_cos': lambda m, o: m.optim.lr_scheduler.OneCycleLR(o, max_lr=0.5, total_steps=100),
    'onecycle_linear': lambda m, o: m.optim.lr_scheduler.OneCycleLR(
        o, max_lr=[0.5, 0.2], epochs=10, steps_per_epoch=10, pct_start=0.25,
        anneal_strategy='linear', div_factor=10.0, final_div_factor=100.0),
    'onecycle_three_phase': lambda m, o: m.optim.lr_scheduler.OneCycleLR(
        o, max_lr=0.5, total_steps=100, three_phase=True, base_momentum=0.8, max_momentum=0.9),
    'onecycle_no_momentum': lambda m, o: m.optim.lr_scheduler.OneCycleLR(
        o, max_lr=0.5, total_steps=120, cycle_momentum=False),
    'warm_restarts': lambda m, o: m.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=10),
    'warm_restarts_mult': lambda m, o: m.optim.lr_scheduler.CosineAnnealingWarmRestarts(
        o, T_0=5, T_mult=2, eta_min=0.001),
}


@pytest.mark.parametrize('name', list(SCHEDULERS))
def test_sequence_matches_torch(name):
    _same(SCHEDULERS[name])


@pytest.mark.parametrize('name', ['cyclic_triangular', 'cyclic_exp_range', 'onecycle_cos',
                                  'onecycle_three_phase'])
def test_adam_betas_cycled(name):
    _same(SCHEDULERS[name], kind='Adam')


@pytest.mark.parametrize('name', ['step', 'exponential', 'cosine', 'multistep'])
def test_tensor_lr_filled_in_place(name):
    _same(SCHEDULERS[name], lr_tensor=True)
    opt = _opt(ember, lr_tensor=True)
    lr_t = opt.param_groups[0]['lr']
    s = SCHEDULERS[name](ember, opt)
    opt.step()
    s.step()
    assert opt.param_groups[0]['lr'] is lr_t
    assert s.get_last_lr()[0] is not lr_t


@pytest.mark.parametrize('kw', [
    dict(), dict(mode='max'), dict(threshold_mode='abs', threshold=0.05),
    dict(mode='max', threshold_mode='abs', patience=2, cooldown=3, factor=0.5),
    dict(patience=1, min_lr=[0.02, 0.001], factor=0.5), dict(patience=0, min_lr=0.04, eps=1e-3),
])
def test_reduce_on_plateau(kw):
    metrics = [1.0 / (1 + i) if i < 20 else 0.05 + 0.001 * math.sin(i) for i in range(100)]
    metrics = [v if i % 7 else v * 1.5 for i, v in enumerate(metrics)]
    _same(lambda m, o: m.optim.lr_scheduler.ReduceLROnPlateau(o, **kw), metrics=metrics)


def test_warm_restarts_fractional_epochs():
    epochs = [i / 7 for i in range(100)]
    _same(SCHEDULERS['warm_restarts_mult'], epochs=epochs)
    _same(SCHEDULERS['warm_restarts'], epochs=[3.5, 12.25, 0.5, 40.0] * 25)


@pytest.mark.parametrize('name', ['step', 'multistep', 'constant', 'linear', 'exponential',
                                  'polynomial', 'cosine', 'lambda'])
def test_deprecated_epoch_uses_closed_form(name):
    epochs = [(i * 7) % 45 for i in range(100)]
    _same(SCHEDULERS[name], epochs=epochs)
    opt = _opt(ember)
    s = SCHEDULERS[name](ember, opt)
    opt.step()
    with pytest.warns(UserWarning, match='The epoch parameter in `scheduler.step\\(\\)` was not '
                      'necessary and is being deprecated'):
        s.step(3)


@pytest.mark.parametrize('name', ['step', 'cosine', 'cyclic_triangular2', 'onecycle_cos',
                                  'sequential', 'chained', 'warm_restarts_mult', 'lambda'])
def test_state_dict_resume(name):
    make = SCHEDULERS[name]
    full, _, _ = _sequence(ember, make, n=60)
    _, s1, o1 = _sequence(ember, make, n=30)
    sd = copy.deepcopy(s1.state_dict())
    assert 'optimizer' not in sd
    o2 = _opt(ember)
    o2.load_state_dict(o1.state_dict())
    s2 = make(ember, o2)
    s2.load_state_dict(sd)
    for g2, g1 in zip(o2.param_groups, o1.param_groups):
        g2['lr'] = g1['lr']
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        for _ in range(30):
            o2.step()
            s2.step()
            rows.append([_num(v) for v in s2.get_last_lr()])
    assert rows == [r[:2] for r in full[31:]]


def test_state_dict_keys_match_torch():
    for name in ['step', 'cosine', 'onecycle_cos', 'cyclic_triangular', 'lambda', 'sequential',
                 'warm_restarts_mult']:
        se = _sequence(ember, SCHEDULERS[name], n=3)[1].state_dict()
        st = _sequence(torch, SCHEDULERS[name], n=3)[1].state_dict()
        assert sorted(se) == sorted(st), name
        if name in ('step', 'cosine', 'warm_restarts_mult'):
            assert se == st


def test_initial_lr_and_base_lrs():
    for m in (ember, torch):
        opt = _opt(m)
        s = m.optim.lr_scheduler.StepLR(opt, 3)
        assert [g['initial_lr'] for g in opt.param_groups] == [0.1, 0.05]
        assert s.base_lrs == [0.1, 0.05] and s.last_epoch == 0 and s._step_count == 1
    check_error(lambda m: m.optim.lr_scheduler.StepLR(_opt(m), 3, last_epoch=5),
                match="param 'initial_lr' is not specified in param_groups[0]")


def test_order_warning():
    opt = _opt(ember)
    s = ember.optim.lr_scheduler.StepLR(opt, 3)
    with pytest.warns(UserWarning, match='Detected call of `lr_scheduler.step\\(\\)` before '
                      '`optimizer.step\\(\\)`'):
        s.step()
    opt = _opt(ember)
    s = ember.optim.lr_scheduler.StepLR(opt, 3)
    opt.step()
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        s.step()
    opt = _opt(ember)
    s = ember.optim.lr_scheduler.StepLR(opt, 3)
    opt.step = lambda *a, **k: None
    with pytest.warns(UserWarning, match='Seems like `optimizer.step\\(\\)` has been overridden'):
        s.step()


def test_get_lr_outside_step_warns():
    s = ember.optim.lr_scheduler.StepLR(_opt(ember), 3)
    with pytest.warns(UserWarning, match='please use `get_last_lr\\(\\)`'):
        s.get_lr()


def test_lr_scheduler_alias_and_custom_subclass():
    assert issubclass(ember.optim.lr_scheduler._LRScheduler, ember.optim.lr_scheduler.LRScheduler)

    def make(m, o):
        class Halve(m.optim.lr_scheduler.LRScheduler):
            def get_lr(self):
                return [b * 0.5 ** self.last_epoch for b in self.base_lrs]
        return Halve(o)
    _same(make, n=10)


def test_errors():
    S = lambda m: m.optim.lr_scheduler  # noqa: E731
    check_error(lambda m: S(m).StepLR(object(), 3), match='object is not an Optimizer')
    check_error(lambda m: S(m).ConstantLR(_opt(m), factor=1.5),
                match='Constant multiplicative factor expected to be between 0 and 1.')
    check_error(lambda m: S(m).LinearLR(_opt(m), start_factor=0),
                match='Starting multiplicative factor expected to be greater than 0')
    check_error(lambda m: S(m).LinearLR(_opt(m), end_factor=2),
                match='Ending multiplicative factor expected to be between 0 and 1.')
    check_error(lambda m: S(m).LambdaLR(_opt(m), [lambda e: 1]),
                match='Expected 2 lr_lambdas, but got 1')
    check_error(lambda m: S(m).MultiplicativeLR(_opt(m), 0.5),
                match='lr_lambda should be a function, but got float')
    check_error(lambda m: S(m).ReduceLROnPlateau(_opt(m), factor=1.0), match='Factor should be < 1.0.')
    check_error(lambda m: S(m).ReduceLROnPlateau(_opt(m), mode='avg'), match='mode avg is unknown!')
    check_error(lambda m: S(m).ReduceLROnPlateau(_opt(m), threshold_mode='x'),
                match='threshold mode x is unknown!')
    check_error(lambda m: S(m).ReduceLROnPlateau(_opt(m), min_lr=[0.1]),
                match='expected 2 min_lrs, got 1')
    check_error(lambda m: S(m).CyclicLR(_opt(m), 0.1, 1.0, mode='zigzag'),
                match='mode is invalid and scale_fn is None')
    check_error(lambda m: S(m).CyclicLR(_opt(m), [0.1], 1.0),
                match='base_lr must have the same length as optimizer.param_groups')
    check_error(lambda m: S(m).CyclicLR(m.optim.Adagrad([m.nn.Parameter(m.ones(1))]), 0.1, 1.0),
                match='optimizer must support momentum or beta1 with `cycle_momentum` option enabled')
    check_error(lambda m: S(m).OneCycleLR(_opt(m), 0.1), match='You must define either total_steps')
    check_error(lambda m: S(m).OneCycleLR(_opt(m), 0.1, total_steps=0),
                match='Expected positive integer total_steps, but got 0')
    check_error(lambda m: S(m).OneCycleLR(_opt(m), 0.1, total_steps=10, pct_start=1),
                match='Expected float between 0 and 1 pct_start, but got 1')
    check_error(lambda m: S(m).OneCycleLR(_opt(m), 0.1, total_steps=10, anneal_strategy='exp'),
                match="anneal_strategy must be one of 'cos' or 'linear', instead got exp")
    check_error(lambda m: S(m).CosineAnnealingWarmRestarts(_opt(m), T_0=0),
                match='Expected positive integer T_0, but got 0')
    check_error(lambda m: S(m).CosineAnnealingWarmRestarts(_opt(m), T_0=2, T_mult=0),
                match='Expected integer T_mult >= 1, but got 0')
    check_error(lambda m: S(m).SequentialLR(_opt(m), [], []),
                match='SequentialLR expects at least one scheduler')

    def too_many(m):
        o = _opt(m)
        s = S(m).StepLR(o, 2)
        S(m).SequentialLR(o, [s, S(m).StepLR(o, 3)], milestones=[1, 2])
    check_error(too_many, match='Sequential Schedulers expects number of schedulers provided')

    def plateau_in_chain(m):
        o = _opt(m)
        S(m).ChainedScheduler([S(m).ReduceLROnPlateau(o)])
    check_error(plateau_in_chain, match='ChainedScheduler does not support `ReduceLROnPlateau`')

    def onecycle_overrun(m):
        o = _opt(m)
        s = S(m).OneCycleLR(o, 0.1, total_steps=2)
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            for _ in range(3):
                o.step()
                s.step()
    check_error(onecycle_overrun, match='Tried to step 3 times. The specified number of total steps is 2')
