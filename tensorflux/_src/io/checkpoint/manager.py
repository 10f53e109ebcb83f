"""`tf.train.CheckpointManager` (numbered saves in one directory, the newest `max_to_keep` kept) and
`tf.train.checkpoints_iterator`.

The manager writes the checkpoint, then the `checkpoint` state file naming the ones it keeps, and only
then deletes those it dropped (index first, so a half-deleted checkpoint is never listed or loadable):
a process killed at any point leaves every checkpoint the state file names whole.
"""
import os
import re
import time

import numpy as np

from ...framework.context import init_scope
from ...state.checkpoint import variable_value
from ..atomic import remove_stale_temporaries
from ...state import worker_paths as chief
from .state_file import CheckpointState, absolute, checkpoint_exists, latest_checkpoint, read_state, write_state

__all__ = ["CheckpointManager", "checkpoints_iterator"]

_DATA_FILE = re.compile(r"\.data-\d{5}-of-\d{5}\Z")


def _delete_checkpoint(prefix):
    directory, name = os.path.split(prefix)
    try:
        os.remove(prefix + ".index")
    except OSError:
        pass
    try:
        entries = os.listdir(directory or ".")
    except OSError:
        return
    for entry in entries:
        if entry.startswith(name) and _DATA_FILE.fullmatch(entry[len(name):]):
            try:
                os.remove(os.path.join(directory, entry))
            except OSError:
                pass


class CheckpointManager:
    """`tf.train.CheckpointManager`: numbered saves in one directory, keeping the newest `max_to_keep`."""

    def __init__(self, checkpoint, directory, max_to_keep, keep_checkpoint_every_n_hours=None,
                 checkpoint_name="ckpt", step_counter=None, checkpoint_interval=None, init_fn=None):
        if max_to_keep is not None and (not isinstance(max_to_keep, int) or max_to_keep <= 0):
            raise ValueError(f"Expected a positive integer or `None` for `max_to_keep`, got {max_to_keep}.")
        if checkpoint_interval is not None and step_counter is None:
            raise ValueError("`step_counter` should be passed if `checkpoint_interval` is not None.")
        self._checkpoint = checkpoint
        self._directory = os.fspath(directory)
        self._max_to_keep = max_to_keep
        self._keep_hours = keep_checkpoint_every_n_hours
        self._prefix = os.path.join(self._directory, checkpoint_name)
        self._step_counter = step_counter
        self._interval = checkpoint_interval
        self._last_step = None
        self._init_fn = init_fn
        self._kept = []   # [(prefix, timestamp)], oldest first
        self._last_preserved = time.time()
        state = read_state(self._directory)
        if state is not None:
            stamps = state.all_model_checkpoint_timestamps
            paths = [absolute(self._directory, p) for p in state.all_model_checkpoint_paths]
            if len(stamps) != len(paths):
                stamps = [time.time()] * len(paths)
            self._kept = [(p, t) for p, t in zip(paths, stamps) if checkpoint_exists(p)]
            if state.last_preserved_timestamp:
                self._last_preserved = state.last_preserved_timestamp
        self._latest = self._kept[-1][0] if self._kept else None

    @property
    def directory(self):
        return self._directory

    @property
    def checkpoint(self):
        return self._checkpoint

    @property
    def checkpoint_interval(self):
        return self._interval

    @property
    def checkpoints(self):
        """The prefixes of the kept checkpoints, oldest first."""
        return [p for p, _ in self._kept]

    @property
    def latest_checkpoint(self):
        return self._latest

    def _interval_allows(self):
        step = int(np.asarray(self._step_counter))
        if self._last_step is not None and step < self._last_step + self._interval:
            return False
        self._last_step = step
        return True

    def save(self, checkpoint_number=None, check_interval=True, options=None):
        """Saves `<directory>/<name>-<number>`; returns its prefix (None when the interval skips it)."""
        if self._interval is not None and check_interval and not self._interval_allows():
            return None
        counter = self._checkpoint.save_counter
        with init_scope():
            counter.assign_add(np.int64(1), read_value=False)
        number = int(variable_value(counter)) if checkpoint_number is None else int(np.asarray(checkpoint_number))
        if not chief.is_chief():
            return self._save_as_other_worker(number)
        os.makedirs(self._directory, exist_ok=True)
        remove_stale_temporaries(os.path.join(self._directory, "checkpoint"))
        prefix = self._checkpoint.write(f"{self._prefix}-{number}")
        now = time.time()
        self._kept = [(p, t) for p, t in self._kept if p != prefix] + [(prefix, now)]
        self._latest = prefix
        swept = self._sweep()
        self._record_state()
        for old in swept:  # only now that the state file no longer lists them
            _delete_checkpoint(old)
        return prefix

    def _save_as_other_worker(self, number):
        """A worker other than the chief of a multi-worker job: writes this save in its temporary directory,
        deletes it, and keeps the chief's list (the chief writes the real files and the state file)."""
        written_in = chief.write_dirpath(self._directory)
        self._checkpoint.write(os.path.join(written_in, os.path.basename(self._prefix)) + f"-{number}")
        chief.remove_temp_dirpath(self._directory)
        prefix = f"{self._prefix}-{number}"
        self._kept = [(p, t) for p, t in self._kept if p != prefix] + [(prefix, time.time())]
        self._latest = prefix
        self._sweep()
        return prefix

    def _relative(self, path):
        return os.path.relpath(path, self._directory) if os.path.dirname(path) == self._directory else path

    def _record_state(self):
        write_state(self._directory, CheckpointState(
            self._relative(self._latest), [self._relative(p) for p, _ in self._kept],
            [t for _, t in self._kept], self._last_preserved))

    def _sweep(self):
        """Drops the oldest checkpoints beyond `max_to_keep` from the kept list (keeping one every n hours
        if asked); returns the prefixes to delete once the state file is written."""
        swept = []
        if self._max_to_keep is None:
            return swept
        while len(self._kept) > self._max_to_keep:
            prefix, stamp = self._kept.pop(0)
            if self._keep_hours is not None and stamp - self._last_preserved >= self._keep_hours * 3600:
                self._last_preserved = stamp
                continue
            swept.append(prefix)
        return swept

    def sync(self):
        """Waits for pending asynchronous saves (tensorflux saves synchronously: nothing to wait for)."""

    def restore_or_initialize(self):
        """Restores the latest checkpoint (returning its prefix), else runs `init_fn` (returning None)."""
        latest = self.latest_checkpoint
        if latest is not None:
            self._checkpoint.restore(latest)
            return latest
        if self._init_fn is not None:
            self._init_fn()
        return None


def _wait_for_new_checkpoint(checkpoint_dir, last_checkpoint, seconds_to_sleep, timeout):
    stop = None if timeout is None else time.time() + timeout
    while True:
        path = latest_checkpoint(checkpoint_dir)
        if path is not None and path != last_checkpoint:
            return path
        if stop is not None and time.time() + seconds_to_sleep > stop:
            return None
        time.sleep(seconds_to_sleep)


def checkpoints_iterator(checkpoint_dir, min_interval_secs=0, timeout=None, timeout_fn=None):
    """`tf.train.checkpoints_iterator`: yields each new latest checkpoint of `checkpoint_dir` as it appears;
    stops after `timeout` seconds without one (unless `timeout_fn` returns False, which keeps waiting)."""
    checkpoint_path = None
    while True:
        new = _wait_for_new_checkpoint(checkpoint_dir, checkpoint_path, 1, timeout)
        if new is None:
            if timeout_fn is None or timeout_fn():
                return
            continue
        start = time.time()
        checkpoint_path = new
        yield checkpoint_path
        remaining = start + min_interval_secs - time.time()
        if remaining > 0:
            time.sleep(remaining)


API = {"train": ["CheckpointManager", "checkpoints_iterator"]}
