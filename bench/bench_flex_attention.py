"""FlexAttention speed, ember vs torch's uncompiled path: run
`env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OMP_NUM_THREADS=1 \
    python bench/bench_flex_attention.py`.

Workload: B=2, H=4, L=S=256, E=64, causal BlockMask (BLOCK_SIZE=128), float32.
- forward: ember's flex_attention vs torch's public flex_attention (on the CPU torch runs
  its reference computation through dynamo's eager backend; no gradients there);
- forward + backward of out.sum(): torch's public function refuses backward on the CPU, so
  torch's side is its reference computation (``math_attention``, what flex_attention runs
  uncompiled) differentiated by torch's autograd;
- the same with a relative-position score_mod, and with a learnable (H, L, S) bias.
"""
import os
import sys
import warnings

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..'))
os.environ.setdefault('OMP_NUM_THREADS', '1')

import torch  # noqa: E402
import torch.nn.attention.flex_attention as TF  # noqa: E402
from torch._higher_order_ops.flex_attention import math_attention  # noqa: E402

import ember  # noqa: E402
import ember.nn.attention.flex_attention as EF  # noqa: E402
from _runner import compare  # noqa: E402

torch.set_num_threads(1)
warnings.simplefilter('ignore')

B, H, L, E = 2, 4, 256, 64


def causal(b, h, q, kv):
    return q >= kv


def rel(s, b, h, q, kv):
    return s + (q - kv) * 0.01


def main():
    torch.manual_seed(0)
    qt, kt, vt = (torch.randn(B, H, L, E) for _ in range(3))
    qe, ke, ve = (ember.from_numpy(t.numpy().copy()) for t in (qt, kt, vt))
    bt = TF.create_block_mask(causal, B, H, L, L, device='cpu')
    be = EF.create_block_mask(causal, B, H, L, L, device='cpu')
    scale = E ** -0.5

    compare('forward, causal', {
        'ember': lambda: EF.flex_attention(qe, ke, ve, block_mask=be),
        'torch': lambda: TF.flex_attention(qt, kt, vt, block_mask=bt)}, number=5)

    bias_t = torch.zeros(H, L, L, requires_grad=True)
    bias_e = ember.zeros(H, L, L, requires_grad=True)
    for name, sm_t, sm_e, extra_t, extra_e in [
            ('causal', None, None, [], []),
            ('causal + rel. score_mod', rel, rel, [], []),
            ('causal + learnable bias', lambda s, b, h, q, kv: s + bias_t[h, q, kv],
             lambda s, b, h, q, kv: s + bias_e[h, q, kv], [bias_t], [bias_e])]:
        ins_t = [t.clone().requires_grad_() for t in (qt, kt, vt)] + extra_t
        ins_e = [t.clone().requires_grad_() for t in (qe, ke, ve)] + extra_e

        def run_t():
            out = math_attention(*ins_t[:3], sm_t or (lambda s, b, h, q, kv: s),
                                 bt.as_tuple(), scale, {})[0]
            torch.autograd.grad(out.sum(), ins_t)

        def run_e():
            out = EF.flex_attention(*ins_e[:3], score_mod=sm_e, block_mask=be)
            ember.autograd.grad(out.sum(), ins_e)

        compare(f'forward + backward, {name}', {'ember': run_e, 'torch': run_t}, number=3)


if __name__ == '__main__':
    main()
