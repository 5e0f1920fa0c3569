"""transformers GPT-2 (random init, tiny): forward, loss, backward, an AdamW step, greedy and
sampled generate, save_pretrained/from_pretrained through safetensors."""
import tempfile

import torch

import _torchvision_schemas  # noqa: E402,F401  (the oracle's torchvision schemas)

from transformers import GPT2Config, GPT2LMHeadModel  # noqa: E402

torch.manual_seed(0)
cfg = GPT2Config(n_layer=2, n_head=2, n_embd=32, vocab_size=100, n_positions=64,
                 bos_token_id=0, eos_token_id=1, pad_token_id=1)
m = GPT2LMHeadModel(cfg)
ids = torch.randint(2, 100, (2, 10))
mask = torch.ones_like(ids)
mask[1, :3] = 0
out = m(ids, attention_mask=mask, labels=ids)
print('@loss', f"{out.loss.item():.6f}")
out.loss.backward()
print('@grad', f"{m.transformer.wte.weight.grad.abs().sum().item():.5f}")
opt = torch.optim.AdamW(m.parameters(), lr=1e-3)
opt.step()
print('@after_step', f"{m(ids, labels=ids).loss.item():.6f}")
m.eval()
g = m.generate(ids[:1, :5], max_new_tokens=8, do_sample=False)
print('@greedy', *g[0].tolist())
b = m.generate(ids[:1, :5], max_new_tokens=6, num_beams=3, do_sample=False)   # axis=/keepdims=
print('@beam', *b[0].tolist())
torch.manual_seed(1)
s = m.generate(ids[:1, :5], max_new_tokens=8, do_sample=True, top_k=10)
print('@sample', *s[0].tolist())
d = tempfile.mkdtemp()
m.save_pretrained(d)
m2 = GPT2LMHeadModel.from_pretrained(d)
print('@roundtrip', int(torch.equal(m2(ids).logits, m(ids).logits)))
