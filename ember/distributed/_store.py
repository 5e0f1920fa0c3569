"""``TCPStore`` (a key-value server on a real socket, with clients in every rank) and
``FileStore`` (a real append-only file shared by processes, guarded by ``flock``): the stores
rendezvous uses, with the semantics of PyTorch's.

The TCPStore wire protocol is ember's own (a request is a command byte and length-prefixed
byte strings); the FileStore file has the layout PyTorch's FileStore writes (records of
length-prefixed key and value, ``/`` before user keys, ``-`` before deleted ones), so an
ember and a PyTorch process can share one.
"""
import datetime as _dt
import errno
import os
import socket
import struct
import threading
import time

from . import (DistNetworkError, DistStoreError, HashStore, QueueEmptyError, Store, _secs,
               _to_bytes)

__all__ = ['TCPStore', 'FileStore']

_U32 = struct.Struct('<I')
_Q = struct.Struct('<q')

# commands
(_SET, _GET, _ADD, _CAS, _DEL, _NUM, _CHECK, _WAIT, _APPEND, _MGET, _MSET, _QPUSH, _QPOP, _QLEN,
 _LIST, _PING) = range(16)
# response status
_OK, _TIMEOUT, _ERR, _EMPTY = range(4)


def _pack(code, args):
    parts = [bytes([code]), _U32.pack(len(args))]
    for a in args:
        parts.append(_U32.pack(len(a)))
        parts.append(a)
    return b''.join(parts)


def _recv_exact(sock, n):
    buf = bytearray()
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise ConnectionError("closed")
        buf += chunk
    return bytes(buf)


def _recv_msg(sock):
    head = _recv_exact(sock, 5)
    code, n = head[0], _U32.unpack(head[1:])[0]
    args = []
    for _ in range(n):
        ln = _U32.unpack(_recv_exact(sock, 4))[0]
        args.append(_recv_exact(sock, ln))
    return code, args


def _ms(secs):
    return int(round(secs * 1000))


class _Server:
    """The TCPStore server: a listening socket and one thread per client connection, over
    a :class:`HashStore` (whose condition variable wakes waiting clients)."""

    def __init__(self, host, port):
        ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            ls.bind((host, port))
        except OSError as e:
            ls.close()
            name = errno.errorcode.get(e.errno, 'UNKNOWN')
            raise DistNetworkError(
                "The server socket has failed to listen on any local network address. "
                f"port: {port}, useIpv6: false, code: {-(e.errno or 0)}, name: {name}, "
                f"message: {os.strerror(e.errno or 0).lower()}") from None
        ls.listen(128)
        self.sock = ls
        self.port = ls.getsockname()[1]
        self.kv = HashStore()
        self.queues = {}
        self.closed = False
        threading.Thread(target=self._accept, daemon=True, name='ember-tcpstore').start()

    def _accept(self):
        while not self.closed:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def close(self):
        self.closed = True
        try:
            self.sock.close()
        except OSError:
            pass

    def _serve(self, conn):
        try:
            while True:
                code, args = _recv_msg(conn)
                try:
                    st, out = self._do(code, args)
                except ValueError:     # e.g. add on a value that is not an integer: as
                    return             # PyTorch's server, drop the client's connection
                conn.sendall(_pack(st, out))
        except (ConnectionError, OSError):
            pass
        finally:
            conn.close()

    def _wait(self, keys, tmo_ms):
        kv = self.kv
        end = time.monotonic() + tmo_ms / 1000
        with kv._cv:
            while not all(k in kv._d for k in keys):
                left = end - time.monotonic()
                if left <= 0:
                    return False
                kv._cv.wait(left)
        return True

    def _do(self, code, a):
        kv = self.kv
        d = kv._d
        if code == _SET:
            kv.set(a[0].decode(), a[1])
            return _OK, []
        if code == _GET:
            k = a[0].decode()
            if not self._wait([k], _Q.unpack(a[1])[0]):
                return _TIMEOUT, []
            with kv._cv:
                return _OK, [d[k]]
        if code == _ADD:
            return _OK, [_Q.pack(kv.add(a[0].decode(), _Q.unpack(a[1])[0]))]
        if code == _CAS:
            return _OK, [kv.compare_set(a[0].decode(), a[1], a[2])]
        if code == _DEL:
            return _OK, [b'1' if kv.delete_key(a[0].decode()) else b'0']
        if code == _NUM:
            return _OK, [_Q.pack(kv.num_keys())]
        if code == _CHECK:
            return _OK, [b'1' if kv.check([k.decode() for k in a]) else b'0']
        if code == _WAIT:
            keys = [k.decode() for k in a[1:]]
            return (_OK if self._wait(keys, _Q.unpack(a[0])[0]) else _TIMEOUT), []
        if code == _APPEND:
            kv.append(a[0].decode(), a[1])
            return _OK, []
        if code == _MGET:
            keys = [k.decode() for k in a[1:]]
            if not self._wait(keys, _Q.unpack(a[0])[0]):
                return _TIMEOUT, []
            with kv._cv:
                return _OK, [d[k] for k in keys]
        if code == _MSET:
            half = len(a) // 2
            with kv._cv:
                for k, v in zip(a[:half], a[half:]):
                    d[k.decode()] = v
                kv._cv.notify_all()
            return _OK, []
        if code == _QPUSH:
            with kv._cv:
                self.queues.setdefault(a[0].decode(), []).append(a[1])
                kv._cv.notify_all()
            return _OK, []
        if code == _QPOP:
            k, tmo = a[0].decode(), _Q.unpack(a[1])[0]
            end = time.monotonic() + tmo / 1000
            with kv._cv:
                while not self.queues.get(k):
                    left = end - time.monotonic()
                    if tmo < 0 or left <= 0:
                        return (_EMPTY if tmo < 0 else _TIMEOUT), []
                    kv._cv.wait(left)
                return _OK, [self.queues[k].pop(0)]
        if code == _QLEN:
            with kv._cv:
                return _OK, [_Q.pack(len(self.queues.get(a[0].decode(), [])))]
        if code == _LIST:
            with kv._cv:
                return _OK, [k.encode() for k in d]
        if code == _PING:
            return _OK, []
        return _ERR, [b'unknown command']


class TCPStore(Store):
    """A key-value store served over TCP: the master (``is_master=True``) runs the server
    (in a thread) and every store object, the master's included, is a client.

    Args:
        host_name (str): the server's address.
        port (int): its port (0 on the master: a free port, read back from ``.port``).
        world_size (int, optional): the number of store users; with ``wait_for_workers``
            the master's constructor waits until that many have connected.
        is_master (bool): run the server here.
        timeout (timedelta): default timeout of connecting and of blocking calls.
        wait_for_workers (bool): see ``world_size``.
        multi_tenant, master_listen_fd, use_libuv: accepted for compatibility.

    Example::

        >>> server = TCPStore('127.0.0.1', 0, 2, True)
        >>> client = TCPStore('127.0.0.1', server.port, 2, False)
        >>> client.set('k', 'v'); server.get('k')
        b'v'

    NOTE: unlike PyTorch, the wire protocol is ember's own (ember's and PyTorch's stores
    do not talk to each other).
    """

    _servers = {}

    def __init__(self, host_name, port, world_size=None, is_master=False,
                 timeout=_dt.timedelta(seconds=300), wait_for_workers=True, multi_tenant=False,
                 master_listen_fd=None, use_libuv=True):
        super().__init__()
        self._timeout = timeout
        self.host = host_name
        self._server = None
        if is_master:
            key = (host_name, port)
            if multi_tenant and key in TCPStore._servers:
                self._server = TCPStore._servers[key]
            else:
                self._server = _Server(host_name, port)
                if multi_tenant:
                    TCPStore._servers[(host_name, self._server.port)] = self._server
            port = self._server.port
        self.port = port
        self.libuvBackend = bool(use_libuv)
        self._world_size = world_size
        self._lock = threading.Lock()
        self._sock = self._connect()
        if world_size is not None and world_size > 0 and wait_for_workers:
            self.add('init/', 1)
            if is_master:
                end = time.monotonic() + _secs(timeout)
                while self.add('init/', 0) < world_size:
                    if time.monotonic() > end:
                        raise DistStoreError(
                            f"Timed out after {int(_secs(timeout))} seconds waiting for clients. "
                            f"{self.add('init/', 0)}/{world_size} clients joined.")
                    time.sleep(0.01)

    def _connect(self):
        secs = _secs(self._timeout)
        end = time.monotonic() + secs
        while True:
            try:
                s = socket.create_connection((self.host, self.port),
                                             timeout=max(0.05, end - time.monotonic()))
                s.settimeout(None)
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                return s
            except OSError:
                if time.monotonic() >= end:
                    raise DistNetworkError(
                        f"The client socket has timed out after {_ms(secs)}ms while trying to "
                        f"connect to ({self.host}, {self.port}).") from None
                time.sleep(0.02)

    def _call(self, code, args):
        msg = _pack(code, [_to_bytes(a) if not isinstance(a, bytes) else a for a in args])
        with self._lock:
            try:
                self._sock.sendall(msg)
                st, out = _recv_msg(self._sock)
            except (ConnectionError, OSError):
                raise DistNetworkError("Failed to recv, got 0 bytes. Connection was likely "
                                       "closed. Did the remote server shutdown or crash?") from None
        if st == _ERR:
            raise DistNetworkError(out[0].decode() if out else 'store error')
        return st, out

    def _tmo_ms(self, timeout=None):
        return _ms(_secs(self._timeout if timeout is None else timeout))

    def _timed_out(self, keys, ms):
        return DistStoreError(f"wait timeout after {ms}ms, keys: " +
                              ", ".join('/' + k for k in keys))

    def set(self, key, value):
        """Set ``key`` to ``value`` (str or bytes)."""
        self._call(_SET, [key.encode(), _to_bytes(value)])

    def get(self, key):
        """The value of ``key``, waiting up to the store timeout for it to be set."""
        ms = self._tmo_ms()
        st, out = self._call(_GET, [key.encode(), _Q.pack(ms)])
        if st == _TIMEOUT:
            raise self._timed_out([key], ms)
        return out[0]

    def add(self, key, amount):
        """Add ``amount`` to the integer at ``key`` (0 if absent); returns the new value."""
        st, out = self._call(_ADD, [key.encode(), _Q.pack(int(amount))])
        return _Q.unpack(out[0])[0]

    def append(self, key, value):
        """Append ``value`` to the bytes at ``key`` (set it if absent)."""
        self._call(_APPEND, [key.encode(), _to_bytes(value)])

    def compare_set(self, key, expected_value, desired_value):
        """Set ``key`` to ``desired_value`` if it holds ``expected_value`` (or is absent and
        ``expected_value`` is empty); returns the value now stored (``expected_value`` if
        the key is absent and was not set)."""
        st, out = self._call(_CAS, [key.encode(), _to_bytes(expected_value),
                                    _to_bytes(desired_value)])
        return out[0]

    def delete_key(self, key):
        """Delete ``key``; returns whether it existed."""
        return self._call(_DEL, [key.encode()])[1][0] == b'1'

    def num_keys(self):
        """The number of keys set (the ``init/`` counter of ``world_size`` included)."""
        return _Q.unpack(self._call(_NUM, [])[1][0])[0]

    def check(self, keys):
        """Whether every key of ``keys`` is set (does not wait)."""
        return self._call(_CHECK, [k.encode() for k in keys])[1][0] == b'1'

    def wait(self, keys, timeout=None):
        """Wait until every key of ``keys`` is set; ``DistStoreError`` after ``timeout``
        (the store timeout if None)."""
        ms = self._tmo_ms(timeout)
        st, _ = self._call(_WAIT, [_Q.pack(ms)] + [k.encode() for k in keys])
        if st == _TIMEOUT:
            raise self._timed_out(list(keys), ms)

    def multi_get(self, keys):
        """The values of ``keys`` (waiting for each)."""
        ms = self._tmo_ms()
        st, out = self._call(_MGET, [_Q.pack(ms)] + [k.encode() for k in keys])
        if st == _TIMEOUT:
            raise self._timed_out(list(keys), ms)
        return out

    def multi_set(self, keys, values):
        """Set each key of ``keys`` to its value, at once."""
        self._call(_MSET, [k.encode() for k in keys] + [_to_bytes(v) for v in values])

    def queue_push(self, key, value):
        """Push ``value`` at the back of the queue ``key``."""
        self._call(_QPUSH, [key.encode(), _to_bytes(value)])

    def queue_pop(self, key, block=True):
        """Pop the front of the queue ``key`` (waiting up to the store timeout if ``block``,
        else ``QueueEmptyError`` when it is empty)."""
        ms = self._tmo_ms() if block else -1
        st, out = self._call(_QPOP, [key.encode(), _Q.pack(ms)])
        if st == _EMPTY:
            raise QueueEmptyError("queue is empty")
        if st == _TIMEOUT:
            raise self._timed_out([key], ms)
        return out[0]

    def queue_len(self, key):
        """The length of the queue ``key``."""
        return _Q.unpack(self._call(_QLEN, [key.encode()])[1][0])[0]

    def list_keys(self):
        """Every key set (but the ``init/`` counter of ``world_size``)."""
        return [k.decode() for k in self._call(_LIST, [])[1] if k != b'init/']

    def clone(self):
        """A new client of the same server."""
        return TCPStore(self.host, self.port, None, False, self._timeout)

    def __del__(self):
        try:
            self._sock.close()
            srv = self._server
            if srv is not None and srv not in TCPStore._servers.values():
                srv.close()     # the master's store owns the server
        except Exception:
            pass


# ----------------------------------------------------------------------------- FileStore
_REFCOUNT, _CLEANUP, _USER, _DELETED = 'refcount/', 'cleanup/', '/', '-'


class _FileLock:
    """Holds the store's thread lock and an exclusive ``flock`` on its file, and reads the
    records other processes appended since the last look."""
    __slots__ = ('store',)

    def __init__(self, store):
        self.store = store

    def __enter__(self):
        import fcntl
        st = self.store
        st._lock.acquire()
        try:
            fcntl.flock(st._fd, fcntl.LOCK_EX)
            st._refresh()
        except BaseException:
            st._lock.release()
            raise

    def __exit__(self, *exc):
        import fcntl
        fcntl.flock(self.store._fd, fcntl.LOCK_UN)
        self.store._lock.release()


class FileStore(Store):
    """A key-value store kept in a file every process can open (a shared file system for
    several machines): each change is a record appended under an exclusive ``flock``.

    Args:
        file_name (str): the file (created if absent).
        world_size (int): the number of store users; the last one to be destroyed removes
            the file (-1: never removed).

    Example::

        >>> s = FileStore('/tmp/store', 2)
        >>> s.set('k', 'v'); s.get('k')
        b'v'
    """

    def __init__(self, file_name, world_size=-1):
        super().__init__()
        self.path = file_name
        self._n = world_size
        self._cache = {}
        self._pos = 0
        self._lock = threading.Lock()
        self._fd = os.open(file_name, os.O_RDWR | os.O_CREAT, 0o644)
        self._closed = False
        with self._locked():
            self._add_locked(_REFCOUNT, 1)

    # -- file access
    def _locked(self):
        return _FileLock(self)

    def _refresh(self):
        size = os.fstat(self._fd).st_size
        if size <= self._pos:
            return
        data = os.pread(self._fd, size - self._pos, self._pos)
        i = 0
        while i + 4 <= len(data):
            kl = _U32.unpack_from(data, i)[0]
            if i + 4 + kl + 4 > len(data):
                break
            k = data[i + 4:i + 4 + kl].decode('utf-8', 'replace')
            j = i + 4 + kl
            vl = _U32.unpack_from(data, j)[0]
            if j + 4 + vl > len(data):
                break
            v = data[j + 4:j + 4 + vl]
            i = j + 4 + vl
            if k.startswith(_DELETED):
                self._cache.pop(k[1:], None)
            else:
                self._cache[k] = v
        self._pos += i

    def _write(self, key, value):
        kb = key.encode()
        rec = _U32.pack(len(kb)) + kb + _U32.pack(len(value)) + value
        end = os.lseek(self._fd, 0, os.SEEK_END)
        os.pwrite(self._fd, rec, end)
        self._refresh()

    def _add_locked(self, key, amount):
        cur = self._cache.get(key, b'0')
        try:
            n = int(cur)
        except ValueError:
            raise ValueError("stoll") from None
        n += int(amount)
        self._write(key, str(n).encode())
        return n

    def _poll(self, keys, timeout, on_timeout):
        end = time.monotonic() + _secs(self._timeout if timeout is None else timeout)
        ks = [_USER + k for k in keys]
        while True:
            with self._locked():
                if all(k in self._cache for k in ks):
                    return
            if time.monotonic() >= end:
                raise on_timeout()
            time.sleep(0.002)

    # -- the Store API
    def set(self, key, value):
        """Set ``key`` to ``value`` (str or bytes)."""
        with self._locked():
            self._write(_USER + key, _to_bytes(value))

    def get(self, key):
        """The value of ``key``, waiting up to the store timeout for it to be set."""
        ms = _ms(_secs(self._timeout))
        self._poll([key], None, lambda: RuntimeError(
            f"Timeout waiting for key: {key} after {ms} ms"))
        with self._locked():
            return self._cache[_USER + key]

    def add(self, key, amount):
        """Add ``amount`` to the integer at ``key`` (0 if absent); returns the new value."""
        with self._locked():
            return self._add_locked(_USER + key, amount)

    def append(self, key, value):
        """Append ``value`` to the bytes at ``key`` (set it if absent)."""
        with self._locked():
            self._write(_USER + key, self._cache.get(_USER + key, b'') + _to_bytes(value))

    def compare_set(self, key, expected_value, desired_value):
        """Set ``key`` to ``desired_value`` if it holds ``expected_value`` (or is absent and
        ``expected_value`` is empty); returns the value now stored."""
        e, d = _to_bytes(expected_value), _to_bytes(desired_value)
        k = _USER + key
        with self._locked():
            if k not in self._cache:
                if e == b'':
                    self._write(k, d)
                    return d
                return e
            if self._cache[k] == e:
                self._write(k, d)
            return self._cache[k]

    def delete_key(self, key):
        """Delete ``key``; returns ``True`` (whether or not it existed, as PyTorch's)."""
        k = _USER + key
        with self._locked():
            if k in self._cache:
                self._write(_DELETED + k, b'')
            return True

    def num_keys(self):
        """The number of keys in the file (its reference counter included, as PyTorch's)."""
        with self._locked():
            return len(self._cache)

    def check(self, keys):
        """Whether every key of ``keys`` is set (does not wait)."""
        with self._locked():
            return all(_USER + k in self._cache for k in keys)

    def wait(self, keys, timeout=None):
        """Wait until every key of ``keys`` is set; ``RuntimeError('Wait timeout')`` after
        ``timeout`` (the store timeout if None)."""
        self._poll(list(keys), timeout, lambda: RuntimeError("Wait timeout"))

    def list_keys(self):
        """Every user key set.

        NOTE: unlike PyTorch 2.13 (which cuts the first character off every key, internal
        ones included), the user keys as they were set.
        """
        with self._locked():
            return [k[1:] for k in self._cache if k.startswith(_USER)]

    def queue_push(self, key, value):
        """Not supported by FileStore (``NotImplementedError``, as PyTorch)."""
        raise NotImplementedError("queue support is not implemented.")

    def queue_pop(self, key, block=True):
        """Not supported by FileStore (``NotImplementedError``, as PyTorch)."""
        raise NotImplementedError("queue support is not implemented.")

    def queue_len(self, key):
        """Not supported by FileStore (``NotImplementedError``, as PyTorch)."""
        raise NotImplementedError("queue support is not implemented.")

    def __del__(self):
        if getattr(self, '_closed', True):
            return
        self._closed = True
        try:
            with self._locked():
                n = self._add_locked(_CLEANUP, 1)
                ref = self._add_locked(_REFCOUNT, -1)
                if ref == 0 and (self._n < 0 or n >= self._n):
                    try:
                        os.unlink(self.path)
                    except OSError:
                        pass
            os.close(self._fd)
        except Exception:
            pass
