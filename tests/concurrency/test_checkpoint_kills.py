"""A process killed (SIGKILL) at a random moment while it saves checkpoints again and again always leaves
the last completed save whole: restorable, unmixed, and never older than what the process had finished.
Both ways of saving are exercised: rewriting one prefix (`Checkpoint.write`) and a CheckpointManager
keeping a single checkpoint (which deletes the previous one on every save)."""
import os
import random
import signal
import time

import pytest

import tensorflux as tf

from ._checkpoint_versions import Versioned, restored_version

KILLS = 30

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")


def _save_forever(directory, how, start, report):
    """The child: saves versions start+1, start+2, … and writes each finished version to `report`."""
    versioned = Versioned()
    manager = tf.train.CheckpointManager(versioned.checkpoint, directory, max_to_keep=1)
    k = start
    while True:
        k += 1
        versioned.set(k)
        if how == "write":
            versioned.checkpoint.write(os.path.join(directory, "same"))
        else:
            manager.save(checkpoint_number=k)
        os.write(report, f"{k}\n".encode())


def _killed_while_saving(directory, how, start, delay):
    """Forks a saving child, kills it after `delay` seconds; returns the last version it reported."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child never returns into pytest
        code = 1
        try:
            os.close(read)
            _save_forever(directory, how, start, write)
        finally:
            os._exit(code)
    os.close(write)
    time.sleep(delay)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    with os.fdopen(read, "rb") as f:
        finished = [int(line) for line in f.read().split()]
    return finished[-1] if finished else start


def _path(directory, how):
    return os.path.join(directory, "same") if how == "write" else tf.train.latest_checkpoint(directory)


def test_the_previous_save_survives_kills_at_random_points(tmp_path):
    rng = random.Random(12)
    versions = {}
    for how in ("write", "manager"):
        directory = str(tmp_path / how)
        Versioned().set(0).write(os.path.join(directory, "same"))
        tf.train.CheckpointManager(Versioned().set(0), directory, max_to_keep=1).save(checkpoint_number=0)
        versions[how] = 0
    for kill in range(KILLS):
        how = ("write", "manager")[kill % 2]
        directory = str(tmp_path / how)
        reported = _killed_while_saving(directory, how, versions[how], rng.uniform(0.05, 0.4))
        path = _path(directory, how)
        assert path is not None, f"kill {kill}: the {how} checkpoint is gone"
        restored = restored_version(path)
        # The save being written when the kill came may have completed without being reported.
        assert restored in (reported, reported + 1), (kill, how, reported, restored)
        versions[how] = restored
    assert min(versions.values()) > 0  # the children did save between the kills
