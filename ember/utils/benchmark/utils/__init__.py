"""The modules of ``ember.utils.benchmark`` (``common``, ``timer``, ``compare``,
``fuzzer``, ``valgrind_wrapper``)."""
