"""``ember.onnx.symbolic_helper.parse_args`` and ``symbolic_opset11``'s helpers, driven by
a graph context that records the ``g.op`` calls (as torchvision's symbolic functions use
them)."""
import pytest

import ember
from ember.onnx import symbolic_helper, symbolic_opset11 as opset11


class G:
    def __init__(self):
        self.calls = []

    def op(self, kind, *inputs, **attrs):
        self.calls.append((kind, inputs, attrs))
        return f"%{len(self.calls)}"


def test_parse_args_reads_descriptors():
    @symbolic_helper.parse_args("v", "i", "f", "b", "is", "none")
    def sym(g, v, i, f, b, is_, n):
        return v, i, f, b, is_, n

    t = ember.tensor([1, 2])
    out = sym(None, "%x", ember.tensor(3), ember.tensor(0.5), 1, t, t)
    assert out[:5] == ("%x", 3, 0.5, True, [1, 2]) and out[5] is t
    assert type(out[1]) is int and type(out[2]) is float
    assert sym.__name__ == 'sym'
    with pytest.raises(TypeError):
        sym(None, 1, 2, 3, 4, 5, 6, 7)


def test_opset11_nodes():
    g = G()
    u = opset11.unsqueeze(g, "%b", 0)
    s = opset11.squeeze(g, u, 1)
    sel = opset11.select(g, s, 1, [1, 2, 3, 4])
    kinds = [c[0] for c in g.calls]
    assert kinds == ["Unsqueeze", "Squeeze", "Constant", "Gather"]
    assert g.calls[0][2] == {"axes_i": [0]} and g.calls[1][2] == {"axes_i": [1]}
    assert g.calls[2][2]["value_t"].tolist() == [1, 2, 3, 4]
    assert g.calls[3][1] == (s, "%3") and g.calls[3][2] == {"axis_i": 1} and sel == "%4"
    assert opset11.squeeze(g, "%z") == "%5" and g.calls[-1] == ("Squeeze", ("%z",), {})
