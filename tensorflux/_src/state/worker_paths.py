"""Where the workers of a multi-worker job write checkpoints: the chief the real files, the others temporary
ones.

TensorFlow's multi-worker convention: every worker calls `save` (in TensorFlow saving may need collectives),
but only the chief (task 0) writes to the real path; every other worker writes the same files under
`<directory>/workertemp_<task_id>` and deletes that directory once written, so one copy of each checkpoint
exists whatever the number of workers. TensorFlow leaves this to the user's training script (its
multi-worker guide computes the temporary path) and to Keras 2's callbacks; tensorflux applies it inside
`tf.train.Checkpoint.save`, `tf.train.CheckpointManager.save`, and Keras's `ModelCheckpoint` and
`BackupAndRestore`.

A process learns that it is a worker when a multi-worker strategy is made (`tf.distribute` calls
`set_worker`). A directory that already ends in this worker's `workertemp_<task_id>` (a script that follows
TensorFlow's guide and computes the path itself) is used as given and left for the script to delete.
"""
import os

__all__ = ["set_worker", "is_chief", "write_dirpath", "remove_temp_dirpath", "write_filepath",
           "remove_temp_dir_with_filepath"]

_WORKER = [None]     # this process's task id in a multi-worker job (None: not one, or the only worker)


def set_worker(task_id):
    """Records this process's task id in a job of several workers (task 0 is the chief); None: one worker."""
    _WORKER[0] = None if task_id is None else int(task_id)


def is_chief():
    return not _WORKER[0]


def _temp_name():
    return f"workertemp_{_WORKER[0]}"


def write_dirpath(dirpath):
    """The directory this worker writes `dirpath`'s files to (made if it does not exist)."""
    dirpath = os.fspath(dirpath)
    if is_chief():
        return dirpath
    temp = dirpath if os.path.basename(os.path.normpath(dirpath)) == _temp_name() else \
        os.path.join(dirpath, _temp_name())
    os.makedirs(temp, exist_ok=True)
    return temp


def remove_temp_dirpath(dirpath):
    """Deletes the temporary directory `write_dirpath(dirpath)` gave a worker other than the chief (not a
    directory the caller named itself)."""
    dirpath = os.fspath(dirpath)
    if is_chief() or os.path.basename(os.path.normpath(dirpath)) == _temp_name():
        return
    import shutil   # here, not at import: shutil pulls in the compressors (~5 ms)
    shutil.rmtree(os.path.join(dirpath, _temp_name()), ignore_errors=True)


def write_filepath(filepath):
    """The path this worker writes `filepath` to."""
    filepath = os.fspath(filepath)
    if is_chief():
        return filepath
    return os.path.join(write_dirpath(os.path.dirname(filepath) or "."), os.path.basename(filepath))


def remove_temp_dir_with_filepath(filepath):
    remove_temp_dirpath(os.path.dirname(os.fspath(filepath)) or ".")
