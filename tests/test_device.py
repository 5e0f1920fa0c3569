import pytest
import torch

import ember


@pytest.mark.parametrize('spec', ['cpu', 'cuda', 'cuda:1', 'meta'])
def test_device_parsing(spec):
    e, t = ember.device(spec), torch.device(spec)
    assert (e.type, e.index) == (t.type, t.index)
    assert repr(e) == repr(t) and str(e) == str(t)


def test_device_with_index_and_equality():
    assert ember.device('cuda', 0) == ember.device('cuda:0')
    assert ember.device('cpu') != 'cpu'     # as torch: a device never equals a string
    assert ember.device('cpu') != ember.device('cuda')
    assert hash(ember.device('cuda:0')) == hash(ember.device('cuda', 0))
    assert repr(ember.device('cuda', 2)) == repr(torch.device('cuda', 2))


def test_bad_device_strings():
    for bad in ['gpu', 'cuda:x', 'cpu:0:1']:
        with pytest.raises(RuntimeError):
            torch.device(bad)
        with pytest.raises(RuntimeError):
            ember.device(bad)


def test_factories_accept_device():
    for f in (ember.zeros, ember.ones, ember.empty):
        assert f(2, device='cpu').device == ember.device('cpu')
        assert f(2, device=ember.device('cpu')).device.type == 'cpu'
    assert ember.tensor([1], device='cpu').device.type == 'cpu'
    assert ember.arange(3, device='cpu').is_cpu
    assert ember.zeros(1).get_device() == -1


def test_cuda_without_gpu_raises_like_torch():
    try:
        import cupy  # noqa: F401
        pytest.skip('a CUDA stack is installed; this test checks the CPU-only error')
    except ImportError:
        pass
    with pytest.raises((AssertionError, RuntimeError), match='CUDA'):
        ember.zeros(2, device='cuda')
    with pytest.raises((AssertionError, RuntimeError), match='CUDA'):
        ember.ones(2).cuda()
    with pytest.raises((AssertionError, RuntimeError), match='CUDA'):
        ember.ones(2).to('cuda:0')


def _meta_cases(m):
    a = m.zeros(2, 3, device='meta')
    return [
        a, m.ones(2, dtype=m.int32, device='meta'),
        m.zeros(2, 3, device='meta', requires_grad=True) * 2,
        a + 1, m.zeros(2).to('meta'), m.zeros(0, device='meta'),
        m.nn.Linear(3, 4, device='meta').weight,
        m.empty(2, 2, device='meta'), m.arange(3, device='meta'), m.full((2,), 3., device='meta'),
    ]


def test_meta_tensors_match_torch():
    for e, t in zip(_meta_cases(ember), _meta_cases(torch)):
        assert repr(e) == repr(t)
        assert e.is_meta and str(e.device) == 'meta'
        assert tuple(e.shape) == tuple(t.shape) and repr(e.dtype) == repr(t.dtype)


def test_meta_tensors_have_no_data():
    for m in (ember, torch):
        a = m.zeros(2, 3, device='meta')
        with pytest.raises(NotImplementedError, match='no data'):
            a.cpu()
        with pytest.raises(NotImplementedError, match='no data'):
            a.tolist()
        with pytest.raises(TypeError):
            a.numpy()
        with pytest.raises(RuntimeError, match='meta tensors'):
            m.zeros(1, device='meta').item()
        lin = m.nn.Linear(3, 4, device='meta')
        lin.to_empty(device='cpu')
        assert lin.weight.device.type == 'cpu' and tuple(lin.weight.shape) == (4, 3)


@pytest.mark.parametrize('other', ['cpu', 'cuda', 1, None, ('cpu', None),
                                   lambda m: m.device('cpu'), lambda m: m.device('cpu', 0),
                                   lambda m: m.device('cuda'), lambda m: m.device('cuda:0')])
def test_device_comparisons_as_torch(other):
    def res(m):
        o = other(m) if callable(other) else other
        d = m.device('cpu')
        return (d == o, d != o, o == d, o != d, d in [o], {d: 1}.get(o))
    assert res(ember) == res(torch)
    e, t = (m.device('cuda:0') == m.device('cuda') for m in (ember, torch))
    assert e == t


def test_device_ordering_raises_as_torch():
    for m in (ember, torch):
        with pytest.raises(TypeError, match='comparison not implemented'):
            m.device('cpu') < m.device('cpu')


@pytest.mark.parametrize('spec', ['hpu', 'hpu:1', 'xpu', 'mtia', 'privateuseone:0', 'ipu', 'xla',
                                  'lazy', 'maia', 've', 'fpga', 'mps', 'hip', 'vulkan'])
def test_every_torch_device_type_is_a_name(spec):
    """Libraries name devices of every type torch knows (accelerate checks ``hpu``/``npu``);
    the names parse as torch's, and unknown types raise torch's error."""
    e, t = ember.device(spec), torch.device(spec)
    assert (e.type, e.index, repr(e), str(e)) == (t.type, t.index, repr(t), str(t))
    assert (ember.device('cpu') == spec) is (torch.device('cpu') == spec) is False


@pytest.mark.parametrize('bad', ['npu', 'npu:0', 'bogus', 'CPU'])
def test_unknown_device_types_raise_torch_message(bad):
    msgs = []
    for m in (ember, torch):
        with pytest.raises(RuntimeError) as info:
            m.device(bad)
        msgs.append(str(info.value))
    assert msgs[0] == msgs[1]
