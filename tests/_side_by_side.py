"""Run independent child processes side by side.

A test that compares the same program under torch and under ember (or runs several
independent one-thread children) waits for each child in turn; the suite itself runs in one
process, so on a machine with two cores the second core sits idle meanwhile. Starting the
children together and then waiting for all of them gives the same results in about the
time of the slowest one.
"""
import subprocess


def run_side_by_side(cmds, timeout=None, **popen_kwargs):
    """Start every command of ``cmds`` (argument lists) at once, with stdout and stderr
    captured as text and ``popen_kwargs`` (``env``, ``cwd``...) given to each, and wait for
    all of them. Returns one ``subprocess.CompletedProcess`` per command, in order.

    ``timeout`` bounds each wait, as ``subprocess.run``'s does: when one child overruns,
    every child still running is killed and ``subprocess.TimeoutExpired`` is raised."""
    procs, outs = [], []
    try:
        for cmd in cmds:
            procs.append(subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                          text=True, **popen_kwargs))
        for p in procs:
            outs.append(p.communicate(timeout=timeout))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.communicate()
    return [subprocess.CompletedProcess(p.args, p.returncode, out, err)
            for p, (out, err) in zip(procs, outs)]
