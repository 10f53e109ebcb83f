"""`tf.train.Coordinator`: lets a group of threads stop together. A thread that fails reports its exception
(`request_stop(ex)` or `with coord.stop_on_exception():`), every thread polls `should_stop()`, and `join`
waits for them and re-raises the first reported exception in the joining thread."""
import contextlib
import sys
import threading
import time

from . import errors

__all__ = ["Coordinator"]


class Coordinator:
    """Stop coordination for a set of threads."""

    def __init__(self, clean_stop_exception_types=None):
        if clean_stop_exception_types is None:
            clean_stop_exception_types = (errors.OutOfRangeError,)
        self._clean_stop_exception_types = tuple(clean_stop_exception_types)
        self._lock = threading.Lock()
        self._stop_event = threading.Event()
        self._exc_info_to_raise = None
        self._joined = False
        self._registered_threads = set()

    def _filter_exception(self, exc_info):
        return None if issubclass(exc_info[0], self._clean_stop_exception_types) else exc_info

    def request_stop(self, ex=None):
        """Asks the threads to stop; `ex` (an exception, or a `sys.exc_info()` tuple) is re-raised by `join`
        unless it is one of the clean-stop types (by default OutOfRangeError: an input ran out)."""
        with self._lock:
            ex = self._filter_exception(self._exc_info(ex)) if ex is not None else None
            if self._joined:
                if isinstance(ex, tuple) and ex is not None:
                    raise ex[1].with_traceback(ex[2])
                return
            if ex is not None and self._exc_info_to_raise is None:
                self._exc_info_to_raise = ex
            self._stop_event.set()

    @staticmethod
    def _exc_info(ex):
        if isinstance(ex, tuple):
            return ex
        return (type(ex), ex, ex.__traceback__)

    def clear_stop(self):
        """Clears the stop request and any reported exception, so the coordinator can be used again."""
        with self._lock:
            self._joined = False
            self._exc_info_to_raise = None
            self._stop_event.clear()

    def should_stop(self):
        """True once a stop was requested."""
        return self._stop_event.is_set()

    @contextlib.contextmanager
    def stop_on_exception(self):
        """An exception raised in the block requests a stop with it (and is not propagated)."""
        try:
            yield
        except:  # noqa: E722  (every exception, SystemExit included, stops the group, as in TensorFlow)
            self.request_stop(ex=sys.exc_info())

    def wait_for_stop(self, timeout=None):
        """Waits up to `timeout` seconds (forever with None) for a stop request; True if one came."""
        return self._stop_event.wait(timeout)

    def register_thread(self, thread):
        """Adds `thread` to the threads `join` waits for."""
        with self._lock:
            self._registered_threads.add(thread)

    def join(self, threads=None, stop_grace_period_secs=120, ignore_live_threads=False):
        """Waits for a stop request, then up to `stop_grace_period_secs` for the threads (and the registered
        ones) to end; re-raises a reported exception, else raises RuntimeError naming threads still running
        (unless `ignore_live_threads`)."""
        threads = set(threads or ()) | self._registered_threads
        while not self.wait_for_stop(1.0) and any(t.is_alive() for t in threads):
            pass
        deadline = time.monotonic() + stop_grace_period_secs
        while any(t.is_alive() for t in threads) and time.monotonic() < deadline:
            time.sleep(min(0.001 if stop_grace_period_secs < 1 else 0.01, stop_grace_period_secs))
        stragglers = [t.name for t in threads if t.is_alive()]
        with self._lock:
            self._joined = True
            self._registered_threads = set()
            if self._exc_info_to_raise:
                _, exc, traceback = self._exc_info_to_raise
                raise exc.with_traceback(traceback)
        if stragglers and not ignore_live_threads:
            raise RuntimeError(f"Coordinator stopped with threads still running: {' '.join(stragglers)}")

    @property
    def joined(self):
        return self._joined

    def raise_requested_exception(self):
        """Re-raises the exception reported with `request_stop`, if any."""
        with self._lock:
            if self._exc_info_to_raise:
                _, exc, traceback = self._exc_info_to_raise
                raise exc.with_traceback(traceback)


API = {"train": __all__}
