"""Quantized int8 kernels (ember/_quantized/kernels) vs torch's fbgemm kernels, side by side.

Issue 22 targets: a dynamically quantized Linear 1024x1024 on a batch of 64 <= 2x torch's
quantized time and <= 1.3x ember's own float32 path on the same layer; a statically quantized
LeNet5 inference <= 2x torch's.

    OMP_NUM_THREADS=1 python bench/bench_quantized.py

Every ember result is checked equal to torch's before it is timed.
"""
import os
import sys
import warnings

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..'))
from _runner import compare  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402

import ember  # noqa: E402
from ember._quantized import kernels as K  # noqa: E402

torch.set_num_threads(1)
torch.backends.quantized.engine = 'fbgemm'
warnings.filterwarnings('ignore')       # torch 2.13's quantized-dtype deprecation warnings


def _qt(q, scale, zp):
    return torch._make_per_tensor_quantized_tensor(torch.from_numpy(q), float(scale), int(zp))


def _qweight(rng, shape):
    w = rng.standard_normal(shape).astype(np.float32) * 0.05
    scales = np.abs(w.reshape(shape[0], -1)).max(axis=1) / 127.0
    wq = np.clip(np.rint(w / scales.reshape((-1,) + (1,) * (len(shape) - 1))), -128, 127)
    return w, wq.astype(np.int8), scales.astype(np.float64)


def dynamic_linear():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 1024)).astype(np.float32)
    w, wq, ws = _qweight(rng, (1024, 1024))
    b = rng.standard_normal(1024).astype(np.float32) * 0.1
    tw = torch._make_per_channel_quantized_tensor(torch.from_numpy(wq), torch.tensor(ws),
                                                  torch.zeros(1024, dtype=torch.long), 0)
    packed_t = torch.ops.quantized.linear_prepack(tw, torch.from_numpy(b))
    packed_e = K.PackedLinearWeight(wq, ws, 0, b)
    xt = torch.from_numpy(x)
    want = torch.ops.quantized.linear_dynamic(xt, packed_t, True).numpy()
    assert np.array_equal(K.linear_dynamic(x, packed_e), want), 'dynamic linear differs'
    xe, we, be = ember.from_numpy(x), ember.from_numpy(w), ember.from_numpy(b)
    fns = {'ember': lambda: K.linear_dynamic(x, packed_e),
           'torch': lambda: torch.ops.quantized.linear_dynamic(xt, packed_t, True),
           'float32': lambda: x @ w.T + b,
           'ember_F': lambda: ember.nn.functional.linear(xe, we, be)}
    # best of 15 rounds each: the machine may be shared
    for ref, target in (('torch', 2), ('float32', 1.3), ('ember_F', 1.3)):
        compare(f'dynamic Linear 1024x1024, batch 64 (vs {ref})', fns, ref=ref, number=20,
                rounds=15, target=target)


def lenet_static(batch=64):
    """LeNet5 (conv 1->6 5x5, relu, maxpool, conv 6->16 5x5, relu, maxpool, fc 400->120->84
    ->10), statically quantized, per-channel weights, from a quantized input."""
    rng = np.random.default_rng(1)
    xq = rng.integers(0, 256, (batch, 1, 32, 32)).astype(np.uint8)
    xs, xz = 1.0 / 255, 0
    layers = []
    specs = [('conv', (6, 1, 5, 5)), ('conv', (16, 6, 5, 5)), ('fc', (120, 400)),
             ('fc', (84, 120)), ('fc', (10, 84))]
    for kind, shape in specs:
        _, wq, ws = _qweight(rng, shape)
        b = rng.standard_normal(shape[0]).astype(np.float32) * 0.1
        tw = torch._make_per_channel_quantized_tensor(
            torch.from_numpy(wq), torch.tensor(ws), torch.zeros(shape[0], dtype=torch.long), 0)
        if kind == 'conv':
            tp = torch.ops.quantized.conv2d_prepack(tw, torch.from_numpy(b), [1, 1], [0, 0],
                                                    [1, 1], 1)
            ep = K.PackedConvWeight(wq, ws, 0, b, (1, 1), (0, 0), (1, 1), 1)
        else:
            tp = torch.ops.quantized.linear_prepack(tw, torch.from_numpy(b))
            ep = K.PackedLinearWeight(wq, ws, 0, b)
        layers.append((kind, tp, ep, 0.05, 10))

    def run_torch():
        x = _qt(xq, xs, xz)
        for i, (kind, tp, _, os_, oz) in enumerate(layers):
            last = i == len(layers) - 1
            if kind == 'conv':
                x = torch.ops.quantized.conv2d_relu(x, tp, os_, oz)
                x = torch.nn.functional.max_pool2d(x, 2)
            else:
                if x.dim() == 4:
                    x = x.reshape(x.shape[0], -1)
                op = torch.ops.quantized.linear if last else torch.ops.quantized.linear_relu
                x = op(x, tp, os_, oz)
        return x.int_repr().numpy()

    def run_ember():
        x, s, z = xq, xs, xz
        for i, (kind, _, ep, os_, oz) in enumerate(layers):
            last = i == len(layers) - 1
            if kind == 'conv':
                x = K.conv_static(x, s, z, ep, os_, oz, relu=True)
                x = K.max_pool(x, (2, 2))
            else:
                x = x.reshape(x.shape[0], -1)
                x = K.linear_static(x, s, z, ep, out_scale=os_, out_zero_point=oz,
                                    relu=not last)
            s, z = os_, oz
        return x

    assert np.array_equal(run_ember(), run_torch()), 'LeNet5 differs'
    compare(f'static LeNet5, batch {batch}', {'ember': run_ember, 'torch': run_torch},
            number=10, rounds=5, target=2)
    # the first conv alone
    kind, tp, ep, os_, oz = layers[0]
    xt = _qt(xq, xs, xz)
    compare(f'static conv2d 1->6 5x5 on 32x32, batch {batch}', {
        'ember': lambda: K.conv_static(xq, xs, xz, ep, os_, oz, relu=True),
        'torch': lambda: torch.ops.quantized.conv2d_relu(xt, tp, os_, oz)}, number=10, rounds=5)


def main():
    dynamic_linear()
    lenet_static(64)
    lenet_static(1)


if __name__ == '__main__':
    main()
