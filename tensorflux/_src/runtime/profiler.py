"""`tf.profiler.experimental`: a profiling session that records what the host ran and saves it as a
TensorBoard profile (runtime/xplane.py).

What is recorded, per thread, between `start` and `stop`:
- every `Trace(name, **stats)` span (TensorFlow's TraceMe), with its keyword arguments as event stats;
- with `host_tracer_level >= 1` (the default 2), every eager op run, named by its op type (`MatMul`);
- with `python_tracer_level >= 1`, every Python function call, named `$<file>:<line> <function>`.
Op and Python events come from a `sys.setprofile` hook that exists only while a session runs, so op
dispatch carries no profiling cost otherwise; `Trace` costs one attribute test when no session runs.
"""
import collections
import sys
import threading
import time

from ..framework import errors
from ..ops import registry as _registry

__all__ = ["ProfilerOptions", "start", "stop", "Trace", "Profile"]

ProfilerOptions = collections.namedtuple(
    "ProfilerOptions", ["host_tracer_level", "python_tracer_level", "device_tracer_level", "delay_ms"],
    defaults=(2, 0, 1, None))
ProfilerOptions.__doc__ = "`tf.profiler.experimental.ProfilerOptions`: what a profiling session records."

_lock = threading.Lock()
_session = [None]
_APPLY_CODE = _registry.apply.__code__


class _Session:
    def __init__(self, logdir, options):
        self.logdir, self.options = logdir, options
        self.start_ns = time.time_ns()
        self.events = collections.defaultdict(list)   # thread id -> [(name, start ns, end ns, stats)]
        self.stacks = collections.defaultdict(list)   # thread id -> [(frame, name, start ns)]
        self.hooked = options.host_tracer_level >= 1 or options.python_tracer_level >= 1

    def profile_hook(self, frame, event, arg):
        """`sys.setprofile` callback: opens a span on a recorded call, closes it on that frame's return."""
        if event == "call":
            code = frame.f_code
            if code is _APPLY_CODE:
                op = frame.f_locals.get("op")
                name = getattr(op, "name", None)
                if name is None:
                    return
            elif self.options.python_tracer_level >= 1:
                name = f"${code.co_filename}:{code.co_firstlineno} {code.co_name}"
            else:
                return
            self.stacks[threading.get_ident()].append((frame, name, time.time_ns()))
        elif event == "return":
            stack = self.stacks.get(threading.get_ident())
            if stack and stack[-1][0] is frame:
                _, name, begin = stack.pop()
                self.record(name, begin, time.time_ns(), None)

    def record(self, name, begin, end, stats):
        self.events[threading.get_ident()].append((name, begin, end, stats))


def start(logdir, options=None):
    """Starts profiling; `stop()` saves the profile under `logdir` (TensorBoard's profile plugin reads it)."""
    options = options if options is not None else ProfilerOptions()
    with _lock:
        if _session[0] is not None:
            raise errors.AlreadyExistsError(None, None, "Another profiler is running.")
        session = _Session(logdir, options)
        _session[0] = session
    if session.hooked:
        threading.setprofile(session.profile_hook)
        sys.setprofile(session.profile_hook)


def stop(save=True):
    """Stops the session `start` began and, with `save`, writes its profile:
    `<logdir>/plugins/profile/<YYYY_MM_DD_HH_MM_SS>/<host>.xplane.pb`."""
    with _lock:
        session, _session[0] = _session[0], None
    if session is None:
        raise errors.UnavailableError(None, None, "Cannot export profiling results. No profiler is running.")
    if session.hooked:
        sys.setprofile(None)
        threading.setprofile(None)
    stop_ns = time.time_ns()
    if not save:
        return None
    import socket  # on the save path only: `import tensorflux` stays free of it

    from . import xplane
    names = {t.ident: t.name for t in threading.enumerate()}
    threads = [(ident, names.get(ident, str(ident)), events) for ident, events in session.events.items()]
    host = socket.gethostname()
    space = xplane.build_xspace(host, session.start_ns, stop_ns, threads)
    run = time.strftime("%Y_%m_%d_%H_%M_%S", time.localtime(stop_ns / 1e9))
    xplane.write_profile(session.logdir, run, host, space)
    return None


class Trace:
    """`tf.profiler.experimental.Trace(name, **kwargs)`: a span named `name` in the profile (TensorFlow's
    TraceMe), its keyword arguments (such as `step_num`) kept as the event's stats. Free when no session runs."""

    __slots__ = ("_name", "_stats", "_begin")

    def __init__(self, name, **kwargs):
        self._name, self._stats, self._begin = name, kwargs, None

    def __enter__(self):
        if _session[0] is not None:
            self._begin = time.time_ns()
        return self

    def __exit__(self, *exc):
        session = _session[0]
        if session is not None and self._begin is not None:
            session.record(self._name, self._begin, time.time_ns(), dict(self._stats))
        self._begin = None
        return False


class Profile:
    """`tf.profiler.experimental.Profile(logdir, options=None)`: profiles the `with` block."""

    def __init__(self, logdir, options=None):
        self._logdir, self._options = logdir, options

    def __enter__(self):
        start(self._logdir, self._options)
        return self

    def __exit__(self, *exc):
        stop()
        return False


API = {"profiler.experimental": __all__}
