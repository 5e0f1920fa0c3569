"""Imported by the programs before their libraries. PyTorch's CPU wheel cannot load
torchvision's compiled operators, and torchvision (which transformers, timm, lightning and
torchmetrics import when it is installed) then fails at import (it registers fake kernels
for them); on the oracle this defines their schemas so that the libraries import. Nothing
calls them. Under ember (``+ember`` in the version) it does nothing: ember registers
torchvision's operators."""
import torch

if '+ember' not in str(torch.__version__):
    try:
        torch.ops.torchvision.nms
    except (AttributeError, RuntimeError):
        _lib = torch.library.Library("torchvision", "DEF")
        for _op in ("nms", "qnms"):
            _lib.define(f"{_op}(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
