"""Worker bootstrap of the launcher: run a script (or ``-m module``) with ``torch`` resolving
to ember, as ``python -m ember run`` does (children of the worker inherit the mapping)."""
import os
import runpy
import sys


def main(argv):
    from ember import __main__ as em
    if argv[0] != '-m':
        em._run(argv[0], argv[1:])
        return
    em._make_shim()
    sys.argv = [argv[1], *argv[2:]]
    sys.path.insert(0, os.getcwd())
    runpy.run_module(argv[1], run_name='__main__', alter_sys=True)


if __name__ == '__main__':
    main(sys.argv[1:])
