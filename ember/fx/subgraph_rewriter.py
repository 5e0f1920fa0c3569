"""``replace_pattern``: find every match of a pattern graph and replace it."""
import copy
from typing import NamedTuple

from .graph import Graph
from .graph_module import GraphModule
from .node import Node, map_arg

__all__ = ['Match', 'replace_pattern', 'replace_pattern_with_filters', 'ReplacedPatterns']


class Match(NamedTuple):
    """A match: the anchor node (the pattern's output in the graph) and the map from pattern
    nodes to graph nodes. :func:`replace_pattern` returns a list of them.

    Example::

        >>> from ember.fx.subgraph_rewriter import replace_pattern
        >>> class M(ember.nn.Module):
        ...     def forward(self, x):
        ...         return x.relu() * 2
        >>> gm = ember.fx.symbolic_trace(M())
        >>> matches = replace_pattern(gm, lambda x: x.relu(), lambda x: x.sigmoid())
        >>> matches[0].anchor.name
        'relu'
    """
    anchor: Node
    nodes_map: dict


class ReplacedPatterns:
    """A match and the nodes that replaced it: ``anchor``, ``nodes_map`` and
    ``replacements`` (the nodes inserted). :func:`replace_pattern_with_filters` returns a
    list of them.

    Example::

        >>> from ember.fx.subgraph_rewriter import replace_pattern_with_filters
        >>> class M(ember.nn.Module):
        ...     def forward(self, x):
        ...         return x.relu() * 2
        >>> gm = ember.fx.symbolic_trace(M())
        >>> done = replace_pattern_with_filters(gm, lambda x: x.relu(), lambda x: x.sigmoid())
        >>> [n.name for n in done[0].replacements]
        ['sigmoid']
    """

    def __init__(self, anchor, nodes_map, replacements):
        self.anchor = anchor
        self.nodes_map = nodes_map
        self.replacements = replacements

    def __repr__(self):
        return (f'ReplacedPatterns(anchor={self.anchor}, nodes_map={self.nodes_map}, '
                f'replacements={self.replacements})')


def _as_graph(x):
    from ._symbolic_trace import symbolic_trace
    if isinstance(x, GraphModule):
        return x.graph
    if isinstance(x, Graph):
        return x
    return symbolic_trace(x).graph


def _match(pn, gn, m, pattern_nodes):
    if pn in m:
        return m[pn] is gn
    if pn.op == 'placeholder':
        m[pn] = gn
        return True
    if not isinstance(gn, Node) or pn.op != gn.op or pn.target != gn.target:
        return False
    if len(pn.args) != len(gn.args) or set(pn.kwargs) != set(gn.kwargs):
        return False
    m[pn] = gn

    def match_arg(pa, ga):
        if isinstance(pa, Node):
            return isinstance(ga, Node) and _match(pa, ga, m, pattern_nodes)
        if isinstance(pa, (list, tuple)):
            return isinstance(ga, (list, tuple)) and len(pa) == len(ga) and \
                all(match_arg(a, b) for a, b in zip(pa, ga))
        return not isinstance(ga, Node) and pa == ga
    ok = all(match_arg(a, b) for a, b in zip(pn.args, gn.args)) and \
        all(match_arg(pn.kwargs[k], gn.kwargs[k]) for k in pn.kwargs)
    if not ok:
        del m[pn]
    return ok


def _find_matches(graph, pattern):
    outs = [n for n in pattern.nodes if n.op == 'output'][0]
    anchors = [a for a in outs.all_input_nodes]
    if len(anchors) != 1:
        raise NotImplementedError('replace_pattern: only patterns with one output are '
                                  'supported')
    anchor = anchors[0]
    pattern_nodes = [n for n in pattern.nodes if n.op not in ('placeholder', 'output')]
    matches = []
    used = set()
    for gn in graph.nodes:
        m = {}
        if gn in used or not _match(anchor, gn, m, pattern_nodes):
            continue
        inner = [m[p] for p in pattern_nodes]
        if any(g in used for g in inner):
            continue
        inner_set = set(inner)
        # values produced inside the match may only be used inside it (but the anchor)
        if any(u not in inner_set for g in inner if g is not gn for u in g.users):
            continue
        used.update(inner)
        matches.append(Match(anchor=anchor, nodes_map=m))
    return matches, pattern_nodes


def replace_pattern_with_filters(gm, pattern, replacement=None, match_filters=None,
                                 ignore_literals=False, replacement_callback=None):
    """As :func:`replace_pattern`, keeping only the matches for which every
    ``match_filters`` function ``(match, original_graph, pattern_graph)`` is True.
    Returns a list of :class:`ReplacedPatterns`.

    Args:
        gm (GraphModule): the module to rewrite (in place).
        pattern (callable, Graph or GraphModule): the subgraph to find.
        replacement (callable, Graph or GraphModule, optional): what to put instead.
        match_filters (list of callable, optional): the filters; the match they receive has
            ``anchors``, ``nodes_map``, ``placeholder_nodes`` and ``returning_nodes``.
        ignore_literals (bool, optional): accepted for compatibility.
        replacement_callback (callable, optional): builds the replacement graph per match.

    Example::

        >>> from ember.fx.subgraph_rewriter import replace_pattern_with_filters
        >>> class M(ember.nn.Module):
        ...     def forward(self, x):
        ...         return x.relu() * 2
        >>> gm = ember.fx.symbolic_trace(M())
        >>> done = replace_pattern_with_filters(gm, lambda x: x.relu(), lambda x: x.sigmoid(),
        ...                                     match_filters=[lambda m, g, p: True])
        >>> len(done)
        1
    """
    graph = gm.graph
    pgraph = _as_graph(pattern)
    matches, pattern_nodes = _find_matches(graph, pgraph)
    if match_filters:
        from types import SimpleNamespace
        ph = [n for n in pgraph.nodes if n.op == 'placeholder']

        def internal(m):
            # the object filters receive (PyTorch's InternalMatch fields)
            return SimpleNamespace(anchors=[m.anchor], nodes_map=m.nodes_map,
                                   placeholder_nodes=[m.nodes_map[p] for p in ph],
                                   returning_nodes=[m.anchor], name_node_map={})
        matches = [m for m in matches
                   if all(f(internal(m), graph, pgraph) for f in match_filters)]
    rgraph = _as_graph(replacement) if replacement is not None else None
    pattern_ph = [n for n in pgraph.nodes if n.op == 'placeholder']
    if isinstance(replacement, GraphModule) or (replacement is not None and
                                                 not isinstance(replacement, Graph)):
        rmod = replacement if isinstance(replacement, GraphModule) else None
    else:
        rmod = None
    results = []
    for match in matches:
        rg = replacement_callback(match, graph, pgraph) if replacement_callback else rgraph
        r_ph = [n for n in rg.nodes if n.op == 'placeholder']
        val_map = {rp: match.nodes_map[pp] for rp, pp in zip(r_ph, pattern_ph)}
        anchor = match.nodes_map[match.anchor]
        before = set(graph.nodes)
        order = {n: i for i, n in enumerate(graph.nodes)}
        first_user = min(anchor.users, key=lambda u: order[u]) if anchor.users else anchor.next
        with graph.inserting_before(first_user):
            out = graph.graph_copy(rg, val_map)
        replacements = [n for n in graph.nodes if n not in before]
        if isinstance(out, Node) or out is None:
            anchor.replace_all_uses_with(out)
        for p in reversed(pattern_nodes):
            g = match.nodes_map[p]
            if g.graph is graph and not g.users:
                graph.erase_node(g)
        if rmod is not None:
            for n in replacements:
                if n.op in ('get_attr', 'call_module'):
                    from .graph_module import _copy_attr
                    _copy_attr(rmod, gm, n.target)
        results.append(ReplacedPatterns(anchor=match.anchor, nodes_map=match.nodes_map,
                                        replacements=replacements))
    gm.recompile()
    return results


def replace_pattern(gm, pattern, replacement):
    """Replace every match of ``pattern`` (a function or GraphModule) in ``gm``'s graph
    by ``replacement`` (same inputs); returns the list of :class:`Match` es.

    Example::

        >>> def pattern(w1, w2): return ember.cat([w1, w2]).sum()
        >>> def replacement(w1, w2): return ember.stack([w1, w2])
        >>> replace_pattern(traced_module, pattern, replacement)
    """
    res = replace_pattern_with_filters(gm, pattern, replacement)
    return [Match(anchor=r.anchor, nodes_map=r.nodes_map) for r in res]


for _c in (Match, ReplacedPatterns, replace_pattern, replace_pattern_with_filters):
    _c.__module__ = 'ember.fx.subgraph_rewriter'
