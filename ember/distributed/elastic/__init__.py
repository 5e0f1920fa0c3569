"""``ember.distributed.elastic``: the names training scripts import from PyTorch's elastic
package (``multiprocessing.errors.record``, ``ChildFailedError``)."""
