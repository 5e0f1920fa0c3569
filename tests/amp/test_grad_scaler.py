"""GradScaler vs torch 2.13 on CPU: scale, unscale_, step with inf checks, update's
growth/backoff, state_dict, errors, and CUDA scalers disabling themselves without CUDA."""
import warnings

import pytest
import torch

import ember


def _setup(m, **kw):
    w = m.nn.Parameter(m.ones(3))
    opt = m.optim.SGD([w], lr=0.1)
    return w, opt, m.amp.GradScaler('cpu', **kw)


def _trace(m, grads, **kw):
    w, opt, s = _setup(m, **kw)
    out = []
    for g in grads:
        loss = (w * 2).sum()
        sl = s.scale(loss)
        out.append(float(sl))
        sl.backward()
        if g is not None:
            w.grad = m.tensor(g)
        s.step(opt)
        s.update()
        opt.zero_grad()
        out.append((w.detach().tolist(), s.get_scale(), s._get_growth_tracker()))
    out.append(s.state_dict())
    return out


def test_training_trace_like_torch():
    grads = [None, [float('inf'), 1.0, 1.0], None, None, [1.0, float('nan'), 0.0], None]
    assert _trace(ember, grads, growth_interval=2) == _trace(torch, grads, growth_interval=2)


def test_unscale_then_clip_like_torch():
    res = []
    for m in (torch, ember):
        w, opt, s = _setup(m)
        s.scale((w * 3).sum()).backward()
        s.unscale_(opt)
        res.append(w.grad.tolist())
        with pytest.raises(RuntimeError, match="unscale_\\(\\) has already been called"):
            s.unscale_(opt)
        s.step(opt)
        with pytest.raises(RuntimeError, match="step\\(\\) has already been called"):
            s.step(opt)
        with pytest.raises(RuntimeError, match="unscale_\\(\\) is being called after step"):
            s.unscale_(opt)
        s.update()
        with pytest.raises(AssertionError, match="No inf checks were recorded prior to update"):
            s.update()
    assert res[0] == res[1]


def test_scale_containers_and_dtype():
    for m in (torch, ember):
        s = m.amp.GradScaler('cpu', init_scale=4.0)
        a, b = s.scale([m.ones(2), m.ones(2)])
        assert a.tolist() == [4.0, 4.0]
        t = s.scale((m.ones(1, dtype=m.bfloat16),))
        assert isinstance(t, tuple) and t[0].dtype == m.bfloat16


def test_update_new_scale_and_state_dict_roundtrip():
    sds = []
    for m in (torch, ember):
        w, opt, s = _setup(m)
        s.scale(w.sum()).backward()
        s.step(opt)
        s.update(8.0)
        assert s.get_scale() == 8.0
        sd = s.state_dict()
        s2 = m.amp.GradScaler('cpu')
        s2.load_state_dict(sd)
        assert s2.state_dict() == sd
        sds.append(sd)
        with pytest.raises(RuntimeError, match="state dict is empty"):
            s2.load_state_dict({})
    assert sds[0] == sds[1]


def test_closure_rejected():
    for m in (torch, ember):
        w, opt, s = _setup(m)
        s.scale(w.sum()).backward()
        with pytest.raises(RuntimeError, match="Closure use is not currently supported"):
            s.step(opt, closure=lambda: None)


def test_disabled_is_pass_through():
    for m in (torch, ember):
        w, opt, s = _setup(m, enabled=False)
        loss = w.sum()
        assert s.scale(loss) is loss
        assert s.get_scale() == 1.0 and s.state_dict() == {} and not s.is_enabled()


def test_cuda_scaler_disables_without_cuda_like_torch():
    for m in (torch, ember):
        with pytest.warns(UserWarning, match="CUDA is not available.  Disabling"):
            s = m.amp.GradScaler()
        assert not s.is_enabled()
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            with pytest.warns(FutureWarning, match="torch.cuda.amp.GradScaler"):
                m.cuda.amp.GradScaler()


def test_fp16_grads_rejected():
    for m in (torch, ember):
        w = m.nn.Parameter(m.ones(2, dtype=m.float16))
        opt = m.optim.SGD([w], lr=0.1)
        s = m.amp.GradScaler('cpu')
        s.scale(w.float().sum()).backward()
        with pytest.raises(ValueError, match="Attempting to unscale FP16 gradients"):
            s.unscale_(opt)


def test_growth_factor_accessors():
    for m in (torch, ember):
        s = m.amp.GradScaler('cpu', growth_factor=3.0, backoff_factor=0.25, growth_interval=7)
        assert (s.get_growth_factor(), s.get_backoff_factor(), s.get_growth_interval()) == (3.0, 0.25, 7)
        s.set_growth_factor(4.0)
        assert s.get_growth_factor() == 4.0
