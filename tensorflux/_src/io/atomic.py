"""Atomic file writes: the data goes to a temporary sibling, which is renamed over the target only once it is
complete, so a reader (or a process killed mid-save) sees the old file or the new one, never a mix.

A temporary sibling of `dir/name` is `dir/.name.saving-<pid>-<random>` (a file, or a directory for a
SavedModel). A process killed mid-save leaves it behind; the next save of the same target removes the
siblings of that target whose writing process no longer exists (`remove_stale_temporaries`), and nothing
else: not another target's, not a live writer's, not a file that only looks similar.

Durability is a separate, opt-in promise. By default a save is atomic but not synced, as TensorFlow's and
Keras's saves are: after a power cut or an operating-system crash (not a killed process, which atomicity
already covers) the file system may hold the previous file or a new one whose data never reached the disk.
With the environment variable TENSORFLUX_DURABLE_SAVES=1 every save also fsyncs each file before its rename
(`sync_file`) and the directory after it (`sync_directory`), so once a save returns it survives a crash. The
variable is read at each save; syncing adds about 0.25 s to a 100 MB save here (checkpoint write 0.16 s ->
0.40 s, bench/save_load.py --durable), which is why it is not the default.
"""
import contextlib
import os
import re
import threading

__all__ = ["atomic_write", "atomic_path", "temporary_sibling", "temporary_directory", "remove_stale_temporaries",
           "temporary_prefix", "durable_saves", "sync_file", "sync_directory", "DURABLE_SAVES_VARIABLE"]

DURABLE_SAVES_VARIABLE = "TENSORFLUX_DURABLE_SAVES"
_OFF = ("", "0", "false", "no", "off")


def durable_saves():
    """Whether saves fsync their files and directories (TENSORFLUX_DURABLE_SAVES set to anything but
    0/false/no/off: a value we do not recognise asks for the safer behaviour)."""
    return os.environ.get(DURABLE_SAVES_VARIABLE, "").strip().lower() not in _OFF


def sync_file(f):
    """Flushes `f` (a binary file object) and, for durable saves, fsyncs it: its data is on disk before a
    name points at it."""
    f.flush()
    if durable_saves():
        os.fsync(f.fileno())


def sync_directory(path):
    """For durable saves, fsyncs the directory `path`, so the renames made in it survive a crash. (Windows
    cannot open a directory for syncing; there the rename itself is the commit.)"""
    if not durable_saves() or os.name == "nt":
        return
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def temporary_prefix(path):
    """The name prefix of `path`'s temporary siblings (this process's pid included)."""
    return f".{os.path.basename(os.path.abspath(os.fspath(path)))}.saving-{os.getpid()}-"


def _pattern(name):
    return re.compile(rf"\.{re.escape(name)}\.saving-(\d+)-[A-Za-z0-9_]+\Z")


def _alive(pid):
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True   # someone else's live process (or not a pid we can ask about): not ours to remove
    return True


def remove_stale_temporaries(path):
    """Removes temporary siblings of `path` left by writers that died (returns their paths)."""
    directory, name = os.path.split(os.path.abspath(os.fspath(path)))
    pattern = _pattern(name)
    removed = []
    try:
        entries = os.listdir(directory)
    except OSError:
        return removed
    for entry in entries:
        match = pattern.match(entry)
        if match is None or _alive(int(match.group(1))):
            continue
        stale = os.path.join(directory, entry)
        try:
            if os.path.isdir(stale) and not os.path.islink(stale):
                import shutil   # here, not at import: shutil and tempfile cost ~10 ms, and a save is rare
                shutil.rmtree(stale)
            else:
                os.remove(stale)
        except FileNotFoundError:
            continue
        removed.append(stale)
    return removed


def temporary_sibling(path):
    """`(binary file object, temporary path)` next to `path`, after removing `path`'s stale temporaries."""
    remove_stale_temporaries(path)
    directory = os.path.dirname(os.path.abspath(os.fspath(path)))
    import tempfile
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=temporary_prefix(path))
    # mkstemp makes the file private (0600); a saved model gets the mode `open()` would give it (0666 less
    # the umask), as TensorFlow's and Keras' files do, so other users and servers can read it.
    os.fchmod(fd, 0o666 & ~_umask())
    return os.fdopen(fd, "wb"), tmp


def temporary_directory(path):
    """A new empty directory next to `path` (for a save that is swapped in whole), stale ones removed."""
    remove_stale_temporaries(path)
    directory = os.path.dirname(os.path.abspath(os.fspath(path)))
    import tempfile
    made = tempfile.mkdtemp(dir=directory, prefix=temporary_prefix(path))
    os.chmod(made, 0o777 & ~_umask())     # as os.mkdir would make it (mkdtemp's is private, 0700)
    return made


_UMASK_LOCK = threading.Lock()


def _umask():
    """The process umask: from /proc where it can be read; otherwise set and restored under a lock (os.umask
    has no getter, and another thread could create a file with the wrong mode in between)."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    with _UMASK_LOCK:
        current = os.umask(0o022)
        os.umask(current)
    return current


@contextlib.contextmanager
def atomic_write(path):
    """A binary file object for `path`'s new contents; `path` is replaced when the block ends without error.

        with atomic_write("model.keras") as f:
            f.write(data)
    """
    f, tmp = temporary_sibling(path)
    try:
        with f:
            yield f
            sync_file(f)
        _replace_into_place(tmp, path)
    except BaseException:
        _discard(tmp)
        raise


@contextlib.contextmanager
def atomic_path(path):
    """The path of an empty temporary sibling for a writer that opens files by name (h5py's own file driver
    writes faster than through a Python file object); it replaces `path` when the block ends without error.

        with atomic_path("model.weights.h5") as tmp:
            h5py.File(tmp, "w")...
    """
    f, tmp = temporary_sibling(path)
    f.close()
    try:
        yield tmp
        if durable_saves():
            with open(tmp, "rb+") as written:
                os.fsync(written.fileno())
        _replace_into_place(tmp, path)
    except BaseException:
        _discard(tmp)
        raise


def _replace_into_place(tmp, path):
    """The commit of both writers: the finished sibling takes `path`'s name (then, for durable saves, the
    rename itself is synced)."""
    os.replace(tmp, path)
    sync_directory(os.path.dirname(os.path.abspath(os.fspath(path))))


def _discard(tmp):
    if os.path.exists(tmp):
        os.remove(tmp)
