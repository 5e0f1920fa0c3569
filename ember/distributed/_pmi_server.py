"""A PMI-1 rendezvous server (stdlib only), the building block for ranks that are started
independently (MASTER_ADDR/MASTER_PORT) to form one MPI ``COMM_WORLD`` with the ``mpich``
wheel: each rank connects a socket to this server, sets ``PMI_FD`` (the socket's fd, detached
so Python never closes it before ``MPI_Finalize``), ``PMI_RANK`` and ``PMI_SIZE``, then
imports ``mpi4py.MPI``; MPICH speaks the PMI-1 wire protocol over that fd.

Run it in a separate process (mpi4py holds the GIL during init/finalize, which wait on PMI
answers): ``python ember/distributed/_pmi_server.py PORT SIZE [HOST [JOIN_TIMEOUT_S]]``. It exits once ``SIZE``
ranks have connected and every connection is closed.

``init_process_group`` starts it (rank 0); with PORT 0 it picks a free port and prints it.
"""
import socket
import sys
import threading


class PMIServer:
    """Serves the PMI-1 commands MPICH 5 issues (init, get_maxes, get_appnum,
    get_my_kvsname, get_universe_size, put, get, barrier_in, finalize, abort).

    ember's ranks also open a second, *monitor* connection first: ``cmd=ember_join rank=R
    timeout_ms=T`` is answered once every rank has joined (``rc=0``) or after ``T`` ms
    (``rc=-1 joined=K``), so a missing rank is reported before MPI starts; the connection then
    stays open, and ``cmd=ember_dead`` is sent on it when a rank's PMI connection closes
    before ``finalize`` (its process died), so the others fail instead of waiting forever.
    """

    def __init__(self, size, kvsname=None):
        self.size = size
        # unique per job: MPICH names its shared-memory segments after the kvsname, so two
        # jobs on one machine with the same name would attach to each other's segments
        import os
        self.kvsname = kvsname or f'kvs_ember_{os.getpid()}_{id(self):x}'
        self.kvs = {}
        self.cv = threading.Condition()
        self.arrived = 0
        self.generation = 0
        self.broken = False
        self.connected = 0
        self.closed = 0
        self.pmi_seen = 0          # connections identified as MPICH PMI clients
        self.joined = set()        # ranks whose monitor connection joined
        self.monitors = []
        self.pmi_threads = []
        self.gave_up = False

    def _reply(self, conn, text):
        conn.sendall((text + '\n').encode())

    def _monitor(self, conn, f, d):
        import time
        rank = d.get('rank')
        tmo = int(d.get('timeout_ms', '1800000')) / 1000
        end = time.monotonic() + tmo
        with self.cv:
            self.joined.add(rank)
            self.cv.notify_all()
            while len(self.joined) < self.size and not self.gave_up:
                left = end - time.monotonic()
                if left <= 0:
                    break
                self.cv.wait(left)
            ok = len(self.joined) >= self.size
            n = len(self.joined)
            if ok:
                self.monitors.append(conn)
        self._reply(conn, f'cmd=ember_join_result rc={0 if ok else -1} joined={n}')
        if not ok:
            return
        while f.readline():      # stays open until the rank (or this server) goes
            pass

    def _peer_died(self):
        with self.cv:
            self.broken = True       # PMI barriers (MPI_Finalize has one) no longer wait
            self.cv.notify_all()
            mons = list(self.monitors)
        for m in mons:
            try:
                self._reply(m, 'cmd=ember_dead')
            except OSError:
                pass

    def handle(self, conn):
        f = conn.makefile('rb')
        finalized = False
        first = True
        try:
            while True:
                line = f.readline()
                if not line:
                    if not first and not finalized:
                        self._peer_died()
                    return
                words = line.decode(errors='replace').split()
                d = dict(w.split('=', 1) for w in words if '=' in w)
                cmd = d.get('cmd')
                if first:
                    first = False
                    if cmd == 'ember_join':
                        return self._monitor(conn, f, d)
                    with self.cv:
                        self.pmi_seen += 1
                        self.cv.notify_all()
                if cmd == 'init':
                    self._reply(conn, 'cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0')
                elif cmd == 'get_maxes':
                    self._reply(conn, 'cmd=maxes kvsname_max=256 keylen_max=256 '
                                      'vallen_max=4096 rc=0')
                elif cmd == 'get_appnum':
                    self._reply(conn, 'cmd=appnum appnum=0 rc=0')
                elif cmd == 'get_my_kvsname':
                    self._reply(conn, f'cmd=my_kvsname kvsname={self.kvsname} rc=0')
                elif cmd == 'get_universe_size':
                    self._reply(conn, f'cmd=universe_size size={self.size} rc=0')
                elif cmd == 'put':
                    with self.cv:
                        self.kvs[d.get('key')] = d.get('value', '')
                    self._reply(conn, 'cmd=put_result rc=0')
                elif cmd == 'get':
                    key = d.get('key')
                    with self.cv:
                        val = self.kvs.get(key)
                    if key == 'PMI_process_mapping':
                        val = f'(vector,(0,1,{self.size}))'   # all ranks on one node
                    if val is None:
                        self._reply(conn, 'cmd=get_result rc=-1 msg=key_not_found')
                    else:
                        self._reply(conn, f'cmd=get_result rc=0 value={val}')
                elif cmd == 'barrier_in':
                    with self.cv:
                        gen = self.generation
                        self.arrived += 1
                        if self.arrived >= self.size:
                            self.arrived = 0
                            self.generation += 1
                            self.cv.notify_all()
                        else:
                            while self.generation == gen and not self.broken:
                                self.cv.wait()
                    self._reply(conn, 'cmd=barrier_out rc=0')
                elif cmd == 'finalize':
                    finalized = True
                    self._reply(conn, 'cmd=finalize_ack rc=0')
                elif cmd == 'abort':
                    with self.cv:
                        self.broken = True
                        self.cv.notify_all()
                else:
                    self._reply(conn, f'cmd={cmd} rc=-1')
        except OSError:
            if not finalized:
                self._peer_died()
            return
        finally:
            with self.cv:
                self.closed += 1
                self.cv.notify_all()
            conn.close()

    def serve(self, listener, join_timeout=None, parent=None):
        """Accept ranks on ``listener`` until ``size`` MPICH (PMI) connections have come
        (and the monitor connections of ember's ranks), then serve them until every PMI
        connection is closed.

        Raises ``socket.timeout`` when not every rank has connected within
        ``join_timeout`` seconds, or as soon as the process ``parent`` (rank 0, which started
        this server) has gone while ranks are still missing: nobody is left to wait for.
        """
        import os
        import time
        end = None if join_timeout is None else time.monotonic() + join_timeout
        listener.settimeout(0.2)
        threads = []
        while True:
            with self.cv:
                if self.pmi_seen >= self.size:
                    break
            try:
                conn, _ = listener.accept()
            except socket.timeout:
                if (end is not None and time.monotonic() > end) or \
                        (parent is not None and os.getppid() != parent):
                    with self.cv:          # the waiting ranks hear it (rc=-1) before we go
                        self.gave_up = True
                        self.cv.notify_all()
                    for t in threads:
                        t.join(0.5)
                    raise
                continue
            conn.settimeout(None)
            t = threading.Thread(target=self.handle, args=(conn,), daemon=True)
            t.start()
            threads.append(t)
        listener.close()
        for t in threads:
            t.join()


def main(argv):
    import os
    port, size = int(argv[0]), int(argv[1])
    host = argv[2] if len(argv) > 2 else '127.0.0.1'
    join_timeout = float(argv[3]) if len(argv) > 3 else 1800.0
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((host, port))
    ls.listen(64)
    # port 0: a free port, announced on the ready line ('ready PORT')
    print('ready' if port else f'ready {ls.getsockname()[1]}', flush=True)
    try:
        # a rank that never arrives, or a starter that died: the server gives up and exits
        PMIServer(size).serve(ls, join_timeout, os.getppid())
    except socket.timeout:
        sys.exit(f"PMI server: not every rank connected within {join_timeout} s")


if __name__ == '__main__':
    main(sys.argv[1:])
