"""tf.summary.trace_on(profiler=True) runs the profiler as TensorFlow 2.21 does (behaviour recorded from TF)."""
import logging
import os

import pytest

import tensorflux as tf


def _files(root):
    return sorted(os.path.relpath(os.path.join(d, f), root) for d, _, fs in os.walk(root) for f in fs)


def test_trace_export_writes_a_profile(tmp_path, caplog):
    writer = tf.summary.create_file_writer(str(tmp_path / "logs"))

    @tf.function
    def f(x):
        return x * 2

    tf.summary.trace_on(graph=True, profiler=True, profiler_outdir=str(tmp_path / "prof"))
    f(tf.constant(1.0))
    with writer.as_default(), caplog.at_level(logging.WARNING):
        tf.summary.trace_export("t", step=0)
    profile = _files(tmp_path / "prof")
    assert len(profile) == 1 and profile[0].startswith("plugins/profile/") and profile[0].endswith(".xplane.pb")
    # TensorFlow's trace_export stops the profiler, then trace_off tries again and warns.
    assert "Error while stopping profiler: Cannot export profiling results. No profiler is running." in caplog.text


def test_trace_off_saves_and_no_outdir_means_no_profiler(tmp_path, caplog):
    tf.summary.trace_on(graph=True, profiler=True, profiler_outdir=str(tmp_path / "prof2"))
    tf.summary.trace_off()
    assert len(_files(tmp_path / "prof2")) == 1
    with caplog.at_level(logging.WARNING):
        tf.summary.trace_on(graph=True, profiler=True)
    assert "No `profiler_outdir` passed to trace_on(). Profiler won't be enabled." in caplog.text
    writer = tf.summary.create_file_writer(str(tmp_path / "logs"))
    with writer.as_default(), pytest.raises(tf.errors.UnavailableError, match="No profiler is running"):
        tf.summary.trace_export("t", step=0)
    tf.summary.trace_off()
