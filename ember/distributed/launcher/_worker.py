"""Worker bootstrap of the launcher: run a script (or ``-m module``) with ``torch`` resolving
to ember, as ``python -m ember run`` does (children of the worker inherit the mapping)."""
import os
import runpy
import sys
import tempfile


def main(argv):
    from ember import __main__ as em
    if argv[0] != '-m':
        em._run(argv[0], argv[1:])
        return
    shim = tempfile.mkdtemp(prefix='ember_torch_shim_')
    import atexit
    import shutil
    atexit.register(shutil.rmtree, shim, True)
    os.makedirs(os.path.join(shim, 'torch'))
    with open(os.path.join(shim, 'torch', '__init__.py'), 'w') as f:
        f.write(em._SHIM)
    pp = os.environ.get('PYTHONPATH')
    os.environ['PYTHONPATH'] = shim + (os.pathsep + pp if pp else '')
    sys.path.insert(0, shim)
    em.install_hook()
    sys.argv = [argv[1], *argv[2:]]
    sys.path.insert(0, os.getcwd())
    runpy.run_module(argv[1], run_name='__main__', alter_sys=True)


if __name__ == '__main__':
    main(sys.argv[1:])
