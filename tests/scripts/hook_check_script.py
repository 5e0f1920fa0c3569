import sys, torch, torch.nn as nn
import torch.nn.functional as F
print(torch.__name__, torch.nn is sys.modules["ember"].nn, sys.argv, __name__)
try:
    import torch._inductor
except ModuleNotFoundError as e: print(e)
