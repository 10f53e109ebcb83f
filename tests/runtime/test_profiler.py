"""tf.profiler.experimental: sessions, their errors (TensorFlow 2.21's classes and texts), and the XSpace
profile they write (`plugins/profile/<run>/<host>.xplane.pb`), read back with the same schema."""
import os
import socket
import sys
import threading

import pytest

import tensorflux as tf
from tensorflux._src.runtime import xplane

profiler = tf.profiler.experimental


def _profile_files(logdir):
    found = []
    for root, _, files in os.walk(logdir):
        found += [os.path.relpath(os.path.join(root, f), logdir) for f in files]
    return found


def _read_space(logdir):
    (relative,) = _profile_files(logdir)
    space = xplane.xspace_class()()
    with open(os.path.join(logdir, relative), "rb") as f:
        space.ParseFromString(f.read())
    return relative, space


def _events(plane):
    return [(plane.event_metadata[e.metadata_id].name, e, line) for line in plane.lines for e in line.events]


def test_session_errors_are_tensorflows():
    with pytest.raises(tf.errors.UnavailableError, match=r"^Cannot export profiling results\. No profiler is "
                                                         r"running\.$"):
        profiler.stop()


def test_second_start_is_refused(tmp_path):
    profiler.start(str(tmp_path))
    try:
        with pytest.raises(tf.errors.AlreadyExistsError, match=r"^Another profiler is running\.$"):
            profiler.start(str(tmp_path))
    finally:
        profiler.stop(save=False)
    assert _profile_files(tmp_path) == []          # save=False writes nothing
    assert sys.getprofile() is None and threading.getprofile() is None


def test_profile_records_traces_and_ops(tmp_path):
    logdir = str(tmp_path)
    with profiler.Profile(logdir):
        with profiler.Trace("train", step_num=3, _r=1):
            tf.matmul(tf.ones([2, 2]), tf.ones([2, 2]))
        tf.constant(1.0) + 2.0
    relative, space = _read_space(logdir)
    parts = relative.split(os.sep)
    assert parts[:2] == ["plugins", "profile"] and parts[3] == f"{socket.gethostname()}.xplane.pb"
    assert len(parts[2].split("_")) == 6                    # YYYY_MM_DD_HH_MM_SS
    assert list(space.hostnames) == [socket.gethostname()]
    host, environment = space.planes
    assert (host.name, environment.name) == ("/host:CPU", "Task Environment")
    events = _events(host)
    names = [name for name, _, _ in events]
    assert "MatMul" in names and "AddV2" in names
    (train,) = [e for name, e, _ in events if name == "train"]
    stats = {host.stat_metadata[s.metadata_id].name: s.int64_value for s in train.stats}
    assert stats == {"step_num": 3, "_r": 1}
    (matmul,) = [e for name, e, _ in events if name == "MatMul"]
    assert train.offset_ps <= matmul.offset_ps and matmul.offset_ps + matmul.duration_ps <= \
        train.offset_ps + train.duration_ps                 # the op ran inside the span
    times = {environment.stat_metadata[s.metadata_id].name: s.uint64_value for s in environment.stats}
    assert times["profile_start_time"] < times["profile_stop_time"]


def test_python_tracer_level_records_python_calls(tmp_path):
    def user_function():
        return 1

    profiler.start(str(tmp_path), profiler.ProfilerOptions(host_tracer_level=0, python_tracer_level=1))
    user_function()
    profiler.stop()
    _, space = _read_space(str(tmp_path))
    names = [name for name, _, _ in _events(space.planes[0])]
    assert any(n.startswith("$") and n.endswith(" user_function") for n in names)
    assert "MatMul" not in names


def test_trace_without_a_session_records_nothing():
    with profiler.Trace("idle", step_num=1) as trace:
        pass
    assert isinstance(trace, profiler.Trace)
    assert profiler.ProfilerOptions() == (2, 0, 1, None)
