"""``ember.distributed.elastic.multiprocessing``: ``errors`` (``record``,
``ChildFailedError``)."""
