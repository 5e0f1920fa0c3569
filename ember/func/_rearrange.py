"""``ember.func.rearrange``: einops-style reshaping of a tensor by a pattern."""
import re

__all__ = ['rearrange']


class DimensionBindError(Exception):
    """A pattern whose dimension sizes cannot be determined (two unknown sizes in one
    group, or a group whose sizes do not divide the tensor's)."""


_TOKEN = re.compile(r'\.\.\.|\(|\)|[A-Za-z_][A-Za-z0-9_]*|\d+|\S')


def _parse(side):
    """``side`` (one side of a pattern) as a list of groups: each a list of axis names,
    ``'...'`` or ``'1'`` (an anonymous unit axis)."""
    groups, cur = [], None
    for tok in _TOKEN.findall(side):
        if tok == '(':
            if cur is not None:
                raise ValueError(f"Nested parentheses are not allowed in pattern: {side}")
            cur = []
        elif tok == ')':
            if cur is None:
                raise ValueError(f"Unmatched ')' in pattern: {side}")
            groups.append(cur)
            cur = None
        elif tok == '...' or tok[0].isalpha() or tok[0] == '_' or tok.isdigit():
            if tok.isdigit() and tok != '1':
                raise ValueError(f"Only 1 is allowed as an anonymous dimension, got {tok}")
            if cur is None:
                groups.append((tok,))   # a bare axis (a tuple; parenthesised: a list)
            else:
                cur.append(tok)
        else:
            raise ValueError(f"Invalid character {tok!r} in pattern: {side}")
    if cur is not None:
        raise ValueError(f"Unmatched '(' in pattern: {side}")
    return groups


def _names(groups):
    return [a for g in groups for a in g if a != '1']


def rearrange(tensor, pattern, **axes_lengths):
    """Reorder, merge and split dimensions of ``tensor`` as ``pattern`` says (einops
    notation): ``'b c h w -> b (c h w)'`` flattens, ``'(h w) c -> h w c'`` splits (one
    unknown size per group, others from ``axes_lengths``), ``...`` stands for the
    dimensions not named, ``()`` or ``1`` is a unit dimension.

    Args:
        tensor (Tensor or sequence of Tensors): the input; a sequence is stacked first
            (its length becomes the leading dimension).
        pattern (str): ``'<input axes> -> <output axes>'``.
        **axes_lengths (int): sizes of axes that are split.

    Returns:
        Tensor: a view when the rearrangement allows one, else a copy (as ``reshape``).

    Example::

        >>> x = ember.arange(24.).reshape(2, 3, 4)
        >>> ember.func.rearrange(x, 'a b c -> c (a b)').shape
        torch.Size([4, 6])
        >>> ember.func.rearrange(x, 'a (b1 b2) c -> a b1 b2 c', b1=3).shape
        torch.Size([2, 3, 1, 4])
    """
    from .._tensor import Tensor
    from .._ops.shape import stack
    if not isinstance(tensor, Tensor):
        tensor = stack(list(tensor))
    if '->' not in pattern:
        raise ValueError(f"Pattern must contain '->': {pattern}")
    left, right = pattern.split('->', 1)
    lg, rg = _parse(left), _parse(right)
    for side, groups in ((left, lg), (right, rg)):
        seen = set()
        for a in _names(groups):
            if a in seen:
                raise ValueError(f"Indexing expression contains duplicate dimension '{a}'")
            seen.add(a)
        if sum(g.count('...') for g in groups) > 1:
            raise ValueError(f"Pattern may contain at most one ellipsis: {side.strip()}")
    ln, rn = set(_names(lg)), set(_names(rg))
    if ln != rn:
        raise ValueError("Identifiers only on one side of rearrange expression (should be on "
                         f"both): {ln ^ rn}")
    for k in axes_lengths:
        if k not in ln:
            raise ValueError(f"Axis {k} is not used in the pattern")
    shape = tuple(tensor.shape)
    has_ell = any('...' in g for g in lg)
    n_fixed = len(lg) - (1 if has_ell else 0)
    if (has_ell and len(shape) < n_fixed) or (not has_ell and len(shape) != len(lg)):
        raise ValueError(f"Number of dimensions in pattern ({len(lg) - has_ell}) must be equal "
                         f"to the number of dimensions in the tensor ({len(shape)})")
    sizes = dict(axes_lengths)
    elem = []           # elementary input axes, in order
    dims = iter(shape)
    ell = []
    for g in lg:
        if g == ('...',):
            k = len(shape) - n_fixed
            ell = [f'...{i}' for i in range(k)]
            for name in ell:
                sizes[name] = next(dims)
            elem.extend(ell)
            continue
        if '...' in g:
            raise ValueError("Ellipsis inside parentheses is not supported on the input side")
        n = next(dims)
        unknown = [a for a in g if a != '1' and a not in sizes]
        known = 1
        for a in g:
            if a != '1' and a in sizes:
                known *= sizes[a]
        if len(unknown) > 1:
            raise DimensionBindError(f"cannot infer the sizes of two dimensions at once "
                                     f"{unknown[0]} and {unknown[1]}")
        if unknown:
            if known == 0 or n % known:
                raise DimensionBindError(f"inferred size of {unknown[0]} does not divide "
                                         f"{n} evenly by {known}")
            sizes[unknown[0]] = n // known
        elif known != n:
            raise DimensionBindError(f"dimension sizes of group {'(' + ' '.join(g) + ')'} "
                                     f"multiply to {known}, but the tensor's is {n}")
        elem.extend(a for a in g if a != '1')
    x = tensor.reshape(tuple(sizes[a] for a in elem))
    order = []
    out_shape = []
    for g in rg:
        size = 1
        for a in g:
            if a == '...':
                order.extend(elem.index(e) for e in ell)
                for e in ell:
                    size *= sizes[e]
                if isinstance(g, tuple):   # a bare ...: its dimensions stay separate
                    out_shape.extend(sizes[e] for e in ell)
                    size = None
                continue
            if a == '1':
                continue
            order.append(elem.index(a))
            size *= sizes[a]
        if size is not None:
            out_shape.append(size)
    if order != list(range(len(order))):
        x = x.permute(order)
    return x.reshape(tuple(out_shape))
