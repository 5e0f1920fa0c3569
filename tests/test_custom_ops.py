"""``ember._custom_ops`` against ``torch._custom_ops``: an operator defined from a schema,
its kernel and fake kernel registered by name, ``get_ctx`` outside a fake kernel."""
import uuid

import torch
import torch._custom_ops as TC

import ember
import ember._custom_ops as EC


def test_schema_op_kernel_and_fake_like_torch():
    ns = f"h3_{uuid.uuid4().hex[:8]}"
    results = []
    for m, C in ((ember, EC), (torch, TC)):
        C.custom_op(f"{ns}::twice", "(Tensor x) -> Tensor")

        @C.impl(f"{ns}::twice")
        def _(x):
            return x * 2

        @C.impl_abstract(f"{ns}::twice")
        def _(x):
            return m.empty_like(x)

        results.append(getattr(getattr(m.ops, ns), 'twice')(m.tensor([1., 2.])).tolist())
    assert results[0] == results[1] == [2., 4.]
    assert EC.get_ctx() is None and TC.get_ctx() is None
