"""The MPI engine under multi-worker strategies: who we are in the job, and checked collectives on arrays.

A process is a worker of a multi-worker job when it was launched by `mpiexec` (MPICH's and Open MPI's
launchers set `PMI_SIZE` / `OMPI_COMM_WORLD_SIZE`); otherwise it is a job of one and mpi4py is never
imported, so a plain `python train.py` pays nothing. mpi4py and the `mpich` wheel come with the extra
`[distributed]`.

Every collective is *checked*: before the payload moves, the workers exchange a small header (what
collective, how many elements, a signature of dtypes and shapes, the step number) with one `Allgather`.
Workers that disagree — a different variable shape, one worker a step ahead, one that has already
finished — raise `InvalidArgumentError` naming the ranks and what each one was doing, instead of
deadlocking inside MPI or reducing garbage. A worker that finishes says goodbye through the same header, so
a peer still waiting for a step learns that it will never come.

An uncaught exception in any worker aborts the whole job (`MPI_Abort`) after printing which rank failed,
so `mpiexec` ends with a non-zero status instead of the other ranks waiting forever.
"""
import atexit
import os
import sys
import threading
import zlib

import numpy as np

from ..framework import errors

__all__ = ["World", "world", "LAUNCH_HINT"]

LAUNCH_HINT = ("tensorflux workers are launched with MPI: `mpiexec -n 4 python train.py` "
               "(install the launcher with `pip install \"tensorflux[distributed]\"`).")

# Header kinds: what a worker is about to do.
_ALL_REDUCE, _BROADCAST, _ALL_GATHER, _BARRIER, _GOODBYE = 1, 2, 3, 4, 5
_KIND_NAMES = {_ALL_REDUCE: "all-reduce", _BROADCAST: "broadcast", _ALL_GATHER: "all-gather",
               _BARRIER: "barrier", _GOODBYE: "finished (left the job)"}
_BUCKET_BYTES = 64 << 20   # a fused all-reduce moves at most this much per MPI call


def _launched_size():
    for key in ("PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "MPI_LOCALNRANKS"):
        value = os.environ.get(key)
        if value and value.isdigit():
            return int(value)
    return 1


def _import_mpi():
    try:
        from mpi4py import MPI
    except ImportError:
        raise ImportError("This process was launched by mpiexec as one worker of several, but mpi4py is not "
                          "installed: pip install \"tensorflux[distributed]\"") from None
    return MPI


class World:
    """This process's place in the job: `rank`, `size`, and checked collectives over NumPy arrays."""

    def __init__(self, comm=None, mpi=None):
        self._comm = comm
        self._mpi = mpi
        self.rank = comm.Get_rank() if comm is not None else 0
        self.size = comm.Get_size() if comm is not None else 1
        self._step = 0          # collectives issued so far (the header's sequence number)
        self._lock = threading.Lock()   # collectives from several threads must not interleave
        self._closed = False
        self.bucket_bytes = _BUCKET_BYTES

    @property
    def is_multi_worker(self):
        return self.size > 1

    # -- the header exchange ---------------------------------------------------------------------
    def _agree(self, kind, count, signature):
        """Exchanges (kind, count, signature, step) with every worker; raises if any differs."""
        mine = np.array([kind, count, signature, self._step], dtype=np.int64)
        everyone = np.empty((self.size, 4), dtype=np.int64)
        self._comm.Allgather(mine, everyone)
        self._step += 1
        if (everyone == mine).all():
            return
        lines = []
        for rank, (k, n, s, step) in enumerate(everyone.tolist()):
            what = _KIND_NAMES.get(k, f"unknown collective {k}")
            lines.append(f"  rank {rank}: {what} of {n} elements (signature {s:#x}) at collective #{step}")
        raise errors.InvalidArgumentError(
            None, None, "Workers disagree on the next collective operation (a different model, different "
            "numbers of steps or a different data pipeline on some worker):\n" + "\n".join(lines))

    # -- collectives ---------------------------------------------------------------------------------
    def all_reduce(self, arrays, op="SUM"):
        """Sums (or averages, `op="MEAN"`) each array across workers: one fused call over a flat buffer.

        Arrays are grouped by dtype; each group is packed into one buffer (split into buckets of at most
        64 MB), reduced with `MPI_Allreduce` in place, and unpacked. Returns new arrays in input order.
        """
        arrays = [np.asarray(a) for a in arrays]
        if self.size == 1 or not arrays:
            return [a.copy() for a in arrays]       # the sum (and the mean) over one worker
        with self._lock:
            self._agree(_ALL_REDUCE, sum(a.size for a in arrays), _signature(arrays))
            results = [None] * len(arrays)
            for dtype, indices in _by_dtype(arrays).items():
                flat = np.concatenate([arrays[i].ravel() for i in indices]) if len(indices) > 1 \
                    else arrays[indices[0]].ravel().copy()
                per_bucket = max(1, self.bucket_bytes // max(flat.itemsize, 1))
                for start in range(0, flat.size, per_bucket):
                    part = flat[start:start + per_bucket]
                    self._comm.Allreduce(self._mpi.IN_PLACE, part, op=self._mpi.SUM)
                offset = 0
                for i in indices:
                    n = arrays[i].size
                    results[i] = flat[offset:offset + n].reshape(arrays[i].shape)
                    offset += n
        if op == "MEAN":
            results = [_divide(r, self.size) for r in results]
        return results

    def broadcast(self, arrays, root=0):
        """Every worker receives `root`'s arrays (same shapes and dtypes on every worker, checked)."""
        arrays = [np.array(a, order="C") for a in arrays]     # copies; 0-d arrays stay 0-d
        if self.size == 1 or not arrays:
            return arrays
        with self._lock:
            self._agree(_BROADCAST, sum(a.size for a in arrays), _signature(arrays))
            out = []
            for buffer in arrays:
                if buffer.dtype == object:
                    buffer = np.array(self._comm.bcast(buffer.tolist(), root=root), dtype=object)
                else:
                    self._comm.Bcast(buffer, root=root)
                out.append(buffer)
        return out

    def all_gather(self, array):
        """Stacks every worker's `array` (same shape on every worker) along a new axis 0."""
        array = np.array(array, order="C")
        if self.size == 1:
            return array[None]
        with self._lock:
            self._agree(_ALL_GATHER, array.size, _signature([array]))
            out = np.empty((self.size,) + array.shape, dtype=array.dtype)
            self._comm.Allgather(array, out)
        return out

    def barrier(self):
        if self.size > 1:
            with self._lock:
                self._agree(_BARRIER, 0, 0)

    def goodbye(self):
        """The last collective of a worker: peers still expecting a step learn that this one has left."""
        if self.size > 1 and not self._closed:
            self._closed = True
            with self._lock:
                self._agree(_GOODBYE, 0, 0)

    def abort(self, code=1):
        if self._comm is not None:
            self._comm.Abort(code)


def _by_dtype(arrays):
    groups = {}
    for i, a in enumerate(arrays):
        groups.setdefault(a.dtype, []).append(i)
    return groups


def _signature(arrays):
    """A 63-bit digest of the arrays' dtypes and shapes: equal on every worker running the same model."""
    text = ";".join(f"{a.dtype.str}{a.shape}" for a in arrays).encode()
    return (zlib.crc32(text) << 31) ^ zlib.adler32(text)


def _divide(array, n):
    if np.issubdtype(array.dtype, np.integer):
        return array // n
    return (array / n).astype(array.dtype, copy=False)


_WORLD = [None]
_WORLD_LOCK = threading.Lock()


def world():
    """The job this process belongs to (made once; a job of one when not launched by mpiexec)."""
    if _WORLD[0] is None:
        with _WORLD_LOCK:
            if _WORLD[0] is None:
                _WORLD[0] = _make_world()
    return _WORLD[0]


def _make_world():
    if _launched_size() <= 1:
        return World()
    mpi = _import_mpi()
    made = World(mpi.COMM_WORLD.Dup(), mpi)
    if made.size > 1:
        _abort_on_uncaught_exceptions(made)
        atexit.register(_say_goodbye, made)
    return made


def _say_goodbye(made):
    try:
        made.goodbye()
    except errors.InvalidArgumentError as e:
        # A peer is still inside a step this worker will never take: the job cannot succeed.
        sys.stderr.write(f"tensorflux: rank {made.rank} of {made.size}: {e.message}\n")
        sys.stderr.flush()
        made.abort(1)


def _abort_on_uncaught_exceptions(made):
    """An exception that ends a worker ends the job: the other ranks would otherwise wait forever."""
    previous = sys.excepthook

    def hook(kind, value, tb):
        previous(kind, value, tb)
        sys.stderr.write(f"tensorflux: rank {made.rank} of {made.size} failed with {kind.__name__}; "
                         f"aborting the job.\n")
        sys.stderr.flush()
        made.abort(1)

    sys.excepthook = hook
