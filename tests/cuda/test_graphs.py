"""``ember.cuda.graphs`` against ``torch.cuda.graphs`` on a machine without CUDA: the names
exist (annotations, isinstance) and using them raises ``RuntimeError``."""
import pytest
import torch

import ember


def test_graph_names_raise_without_cuda():
    for m in (ember, torch):
        assert m.cuda.graphs.CUDAGraph is m.cuda.CUDAGraph
        for call in (lambda: m.cuda.CUDAGraph(), lambda: m.cuda.graph_pool_handle(),
                     lambda: m.cuda.make_graphed_callables(m.nn.Linear(1, 1), (m.ones(1),))):
            with pytest.raises(RuntimeError):
                call()
    assert isinstance(ember.cuda.graph, type) and isinstance(torch.cuda.graph, type)
    with pytest.raises(RuntimeError, match='CUDA'):    # ember cannot capture graphs
        ember.cuda.graph(None)
