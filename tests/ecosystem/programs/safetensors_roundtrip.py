"""safetensors: save_file, load_file, safe_open (keys, get_tensor, get_slice)."""
import os
import tempfile

import torch
from safetensors.torch import load_file, safe_open, save_file

torch.manual_seed(0)
tensors = {'w': torch.randn(3, 4), 'b': torch.arange(5, dtype=torch.int16),
           'h': torch.randn(2, 2).to(torch.bfloat16)}
path = os.path.join(tempfile.mkdtemp(), 'a.safetensors')
save_file(tensors, path)
back = load_file(path)
for k in sorted(back):
    print('@' + k, str(back[k].dtype), *back[k].float().flatten().tolist())
with safe_open(path, framework='pt') as f:
    print('@keys', len(list(f.keys())))
    print('@slice', *f.get_slice('w')[1:3, :2].flatten().tolist())
