"""A helper thread for mid-size products that waits for work in native code, outside the GIL (`[jit]`).

`blas_threads.two_row_blocks` cuts a mid-size product ([60, 784] @ [784, 128], 100-200 µs) in two
blocks of rows and hands the second to a helper. A helper that sleeps on a lock between products takes
20-40 µs to wake on this machine (the wake-up of an idle virtual CPU), which costs a third of what the
split gains. This helper, once numba has compiled its loop, waits by polling a control array: the loop
runs without the GIL and calls `sched_yield` between polls, so a runnable thread of any process gets
the core at once. It polls for about a millisecond after its last block, so that products which follow
each other (the layers and gradients of a training step) are handed over in about a microsecond, and
then sleeps on a lock until the next product wakes it.

Both blocks are computed by the function NumPy's matmul calls (OpenBLAS's cblas_sgemm/dgemm, ILP64),
with the arguments NumPy passes for the same operand layouts, so a split gives np.matmul's bits
whenever blas_threads' cut does (a multiple of the kernel's row period).

The hand-over relies on x86-64's store order (a store is seen by other cores after the stores before
it): the job is written before its sequence number, the result before the done number. blas_threads
only splits on x86-64 (the row periods it knows are Haswell's), and `build` refuses other machines.
"""
import ctypes
import platform
import threading

import numpy as np

__all__ = ["Spinner", "build", "SPIN_POLLS"]

# Polls (one sched_yield each, ~0.6 µs on this machine when nothing else is runnable) after the last
# block before the helper sleeps: about 1.2 ms, longer than the gaps between a training step's products.
SPIN_POLLS = 2000
# Polls the caller makes for the helper's block before it checks, from Python, that the helper is awake.
WAIT_POLLS = 200_000


def _address(function):
    return ctypes.cast(function, ctypes.c_void_p).value


def build(numba, find_blas_function):
    """(the compiled loops, the C functions' addresses), or None on a machine other than x86-64 or when
    NumPy's BLAS has no ILP64 CBLAS gemm. `find_blas_function(symbols, argtypes, restype)` is blas_threads'
    lookup in the library NumPy loaded; `numba` is there (jit.build_now passes it)."""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return None
    addresses = []
    for names in (("scipy_cblas_sgemm64_", "cblas_sgemm64_"), ("scipy_cblas_dgemm64_", "cblas_dgemm64_")):
        function = find_blas_function(names, None, None)
        if function is None:
            return None
        addresses.append(_address(function))
    try:
        addresses.append(_address(ctypes.CDLL(None).sched_yield))
    except (OSError, AttributeError):
        return None
    from . import gemm_spinner_loops as loops
    return loops, loops.build(numba), tuple(addresses)


class Spinner:
    """The helper thread and its control array; one caller at a time (`busy`), as `_MidHelper`."""

    def __init__(self, built):
        loops, (self.serve, self.split, self.wait), (sgemm, dgemm, sched_yield) = built
        self.ctl = np.zeros(loops.CONTROL_SIZE, np.int64)
        self.ctl[loops.SGEMM], self.ctl[loops.DGEMM], self.ctl[loops.YIELD] = sgemm, dgemm, sched_yield
        self.spinning, self.done = loops.SPINNING, loops.DONE
        self.wake = threading.Lock()
        self.wake.acquire()
        self.busy = threading.Lock()
        self.posted = 0
        self.operands = None     # the arrays of the job in progress, alive until it is done
        threading.Thread(target=self._loop, name="tensorflux-gemm-spinner", daemon=True).start()

    def _loop(self):
        wake, serve, ctl = self.wake, self.serve, self.ctl
        while True:
            wake.acquire()
            while serve(ctl, SPIN_POLLS):
                pass

    def rouse(self):
        """Wakes the helper (when asleep) so that it polls for the next product."""
        try:
            self.wake.release()
        except RuntimeError:    # already released: one wake-up is pending
            pass

    def polling(self):
        """Whether the helper is polling for work now (else it sleeps, or is about to)."""
        return bool(self.ctl[self.spinning])

    def two_blocks(self, a, b, out, cut):
        """out[:cut] = a[:cut] @ b on the calling thread, out[cut:] = a[cut:] @ b on the helper, as NumPy
        computes them (False, nothing done, for operands NumPy would not hand to BLAS as they are). The
        caller holds `busy`; it returns once both blocks are written."""
        if self.ctl[self.done] != self.posted:
            # A caller interrupted while waiting (KeyboardInterrupt) left its block running on the helper,
            # over arrays `operands` still holds: it ends before anything else is posted.
            self._wait(self.posted)
        self.operands = (a, b, out)
        self.posted += 1
        posted = self.posted
        if self.ctl[self.spinning] == 0:
            self.rouse()
        done = self.split(self.ctl, posted, a, b, out, cut, WAIT_POLLS)
        if done < 0:
            self.posted -= 1
            self.operands = None
            return False
        if not done:
            self._wait(posted)
        self.operands = None
        return True

    def _wait(self, posted):
        # The helper was asleep, or stopped polling as the job came: wake it and wait.
        while True:
            self.rouse()
            if self.wait(self.ctl, posted, WAIT_POLLS):
                return
