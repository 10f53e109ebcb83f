"""Runs one function on several threads that start together, and re-raises the first failure."""
import sys
import threading

THREADS = 8


def run_together(target, n=THREADS, switch_interval=None):
    """Calls `target(i)` on `n` threads released by one barrier; returns their results in order.

    `switch_interval` (seconds) makes the interpreter switch threads more often while they run, so that
    races between a read and a write of shared state are actually exercised on a small machine.
    """
    barrier = threading.Barrier(n)
    results, failures = [None] * n, []

    def body(i):
        try:
            barrier.wait()
            results[i] = target(i)
        except BaseException as e:  # noqa: BLE001 - reported to the test's thread below
            failures.append(e)

    previous = sys.getswitchinterval()
    if switch_interval is not None:
        sys.setswitchinterval(switch_interval)
    try:
        threads = [threading.Thread(target=body, args=(i,)) for i in range(n)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(previous)
    if failures:
        raise failures[0]
    return results
