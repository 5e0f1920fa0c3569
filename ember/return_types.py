"""Named tuple result types of ops that return several tensors, like ``torch.return_types``.

``values, indices = x.max(0)`` unpacks like a tuple; ``r.values`` / ``r.indices`` name the
fields. The repr matches PyTorch's::

    >>> ember.tensor([1., 3., 2.]).max(0)
    torch.return_types.max(
    values=tensor(3.),
    indices=tensor(1))
"""

__all__ = ['max', 'min', 'aminmax', 'median', 'nanmedian', 'mode', 'kthvalue', 'sort', 'topk',
           'cummax', 'cummin']


# Each type's docstring example: (call on ember.tensor([1., 3., 2.]), its fields' reprs).
_EXAMPLES = {
    'max': ('max(0)', ('tensor(3.)', 'tensor(1)')),
    'min': ('min(0)', ('tensor(1.)', 'tensor(0)')),
    'aminmax': ('aminmax()', ('tensor(1.)', 'tensor(3.)')),
    'median': ('median(0)', ('tensor(2.)', 'tensor(2)')),
    'nanmedian': ('nanmedian(0)', ('tensor(2.)', 'tensor(2)')),
    'mode': ('mode(0)', ('tensor(1.)', 'tensor(0)')),
    'kthvalue': ('kthvalue(2)', ('tensor(2.)', 'tensor(2)')),
    'sort': ('sort()', ('tensor([1., 2., 3.])', 'tensor([0, 2, 1])')),
    'topk': ('topk(2)', ('tensor([3., 2.])', 'tensor([1, 2])')),
    'cummax': ('cummax(0)', ('tensor([1., 3., 3.])', 'tensor([0, 1, 1])')),
    'cummin': ('cummin(0)', ('tensor([1., 1., 1.])', 'tensor([0, 0, 0])')),
}


def _doc(name, fields):
    head = (f"Result of ``{name}``: a tuple ({', '.join(fields)}) whose items are also "
            f"attributes of those names.")
    if name not in _EXAMPLES:   # result types made elsewhere document their op's example
        return head
    call, shown = _EXAMPLES[name]
    return (f"{head}\n\nExample::\n\n"
            f"    >>> r = ember.tensor([1., 3., 2.]).{call}\n"
            f"    >>> {', '.join('r.' + f for f in fields)}\n"
            f"    ({', '.join(shown)})\n")


def _structseq(name, fields):
    """A tuple subclass named ``name`` whose items are also the attributes ``fields``."""
    def __new__(cls, seq=None, **kw):
        if seq is None:
            seq = tuple(kw[f] for f in fields)
        seq = tuple(seq)
        if len(seq) != len(fields):
            raise TypeError(f"torch.return_types.{name} takes a {len(fields)}-sequence "
                            f"({len(seq)}-sequence given)")
        return tuple.__new__(cls, seq)

    def __repr__(self):
        body = ',\n'.join(f"{f}={v!r}" for f, v in zip(fields, self))
        return f"torch.return_types.{name}(\n{body})"

    def __reduce__(self):
        return (type(self), (tuple(self),))

    ns = {'__new__': __new__, '__repr__': __repr__, '__reduce__': __reduce__,
          '__slots__': (), '_fields': fields, 'n_fields': len(fields),
          'n_sequence_fields': len(fields), 'n_unnamed_fields': 0,
          '__module__': __name__,
          '__doc__': _doc(name, fields)}
    for i, f in enumerate(fields):
        ns[f] = property(lambda self, i=i: tuple.__getitem__(self, i))
    return type(name, (tuple,), ns)


_VI = ('values', 'indices')
max = _structseq('max', _VI)
min = _structseq('min', _VI)
aminmax = _structseq('aminmax', ('min', 'max'))
median = _structseq('median', _VI)
nanmedian = _structseq('nanmedian', _VI)
mode = _structseq('mode', _VI)
kthvalue = _structseq('kthvalue', _VI)
sort = _structseq('sort', _VI)
topk = _structseq('topk', _VI)
cummax = _structseq('cummax', _VI)
cummin = _structseq('cummin', _VI)


def _out_type(cls):
    """The result type of ``cls``'s op called with ``out=``: PyTorch names it
    ``<name>_out`` (``torch.return_types.max_out``), with the same fields."""
    name = cls.__name__ + '_out'
    t = globals().get(name)
    if t is None or t._fields != cls._fields:
        t = globals()[name] = _structseq(name, cls._fields)
    return t


def __getattr__(name):
    # ``max_out`` & co. exist once their op's result type does
    base = globals().get(name[:-4]) if name.endswith('_out') else None
    if isinstance(base, type) and hasattr(base, 'n_fields'):
        return _out_type(base)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
