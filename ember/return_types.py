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
          '__doc__': f"Result of ``{name}``: a tuple ({', '.join(fields)})."}
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
