"""The `checkpoint` file of a checkpoint directory: a `CheckpointState` in protobuf's text format, naming the
newest checkpoint and the ones a manager keeps (`tf.train.latest_checkpoint`, `get_checkpoint_state`).

Only the four fields of `CheckpointState` are read, each a line `name: value` as protobuf's text format
writes them (strings in double quotes with C escapes, numbers plain); the file is untrusted, so anything
else is skipped, never evaluated.
"""
import os
import re

from ..atomic import atomic_write

__all__ = ["CheckpointState", "write_state", "read_state", "get_checkpoint_state", "latest_checkpoint",
           "checkpoint_exists", "absolute"]

_LINE = re.compile(r'^\s*(\w+)\s*:\s*(?:"((?:[^"\\]|\\.)*)"|([-+0-9.eEinfa]+))\s*$')
_SIMPLE_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", '"': '"', "'": "'", "\\": "\\"}
_MAX_BYTES = 1 << 24


class CheckpointState:
    """The fields of TensorFlow's `CheckpointState` message."""

    def __init__(self, model_checkpoint_path="", all_model_checkpoint_paths=(), all_model_checkpoint_timestamps=(),
                 last_preserved_timestamp=0.0):
        self.model_checkpoint_path = model_checkpoint_path
        self.all_model_checkpoint_paths = list(all_model_checkpoint_paths)
        self.all_model_checkpoint_timestamps = list(all_model_checkpoint_timestamps)
        self.last_preserved_timestamp = last_preserved_timestamp

    def __str__(self):
        return _text(self)

    __repr__ = __str__


def _quote(text):
    out = []
    for byte in text.encode("utf-8"):
        char = chr(byte)
        if char in '"\\\'':
            out.append("\\" + char)
        elif char == "\n":
            out.append("\\n")
        elif char == "\r":
            out.append("\\r")
        elif char == "\t":
            out.append("\\t")
        elif 0x20 <= byte < 0x7F:
            out.append(char)
        else:
            out.append(f"\\{byte:03o}")
    return '"' + "".join(out) + '"'


def _unquote(text):
    out = bytearray()
    i = 0
    while i < len(text):
        char = text[i]
        if char == "\\" and i + 1 < len(text):
            following = text[i + 1]
            octal = re.match(r"[0-7]{1,3}", text[i + 1:i + 4])
            if octal:
                out.append(int(octal.group(0), 8) & 0xFF)
                i += 1 + len(octal.group(0))
                continue
            out += _SIMPLE_ESCAPES.get(following, following).encode("utf-8")
            i += 2
            continue
        out += char.encode("utf-8")
        i += 1
    return out.decode("utf-8", "replace")


def _number(value):
    return repr(float(value))


def _text(state):
    lines = [f"model_checkpoint_path: {_quote(state.model_checkpoint_path)}"]
    lines += [f"all_model_checkpoint_paths: {_quote(p)}" for p in state.all_model_checkpoint_paths]
    lines += [f"all_model_checkpoint_timestamps: {_number(t)}" for t in state.all_model_checkpoint_timestamps]
    if state.last_preserved_timestamp:
        lines.append(f"last_preserved_timestamp: {_number(state.last_preserved_timestamp)}")
    return "\n".join(lines) + "\n"


def write_state(directory, state, filename="checkpoint"):
    """Writes `state` as `directory/filename` (atomically)."""
    os.makedirs(directory or ".", exist_ok=True)
    with atomic_write(os.path.join(directory, filename)) as f:
        f.write(_text(state).encode("utf-8"))


def read_state(directory, filename="checkpoint"):
    """The CheckpointState in `directory/filename` as written (paths as stored), or None without one."""
    try:
        with open(os.path.join(directory, filename), "rb") as f:
            data = f.read(_MAX_BYTES)
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None
    state = CheckpointState()
    for line in data.decode("utf-8", "replace").splitlines():
        match = _LINE.match(line)
        if match is None:
            continue
        key, quoted, number = match.groups()
        try:
            if key == "model_checkpoint_path" and quoted is not None:
                state.model_checkpoint_path = _unquote(quoted)
            elif key == "all_model_checkpoint_paths" and quoted is not None:
                state.all_model_checkpoint_paths.append(_unquote(quoted))
            elif key == "all_model_checkpoint_timestamps" and number is not None:
                state.all_model_checkpoint_timestamps.append(float(number))
            elif key == "last_preserved_timestamp" and number is not None:
                state.last_preserved_timestamp = float(number)
        except ValueError:
            continue
    return state


def absolute(directory, path):
    return path if os.path.isabs(path) else os.path.join(directory, path)


def get_checkpoint_state(checkpoint_dir, latest_filename=None):
    """`tf.train.get_checkpoint_state`: the directory's CheckpointState with absolute paths, or None."""
    checkpoint_dir = os.fspath(checkpoint_dir)
    state = read_state(checkpoint_dir, latest_filename or "checkpoint")
    if state is None or not state.model_checkpoint_path:
        return None
    state.model_checkpoint_path = absolute(checkpoint_dir, state.model_checkpoint_path)
    state.all_model_checkpoint_paths = [absolute(checkpoint_dir, p) for p in state.all_model_checkpoint_paths]
    return state


def checkpoint_exists(prefix):
    return os.path.isfile(f"{prefix}.index")


def latest_checkpoint(checkpoint_dir, latest_filename=None):
    """`tf.train.latest_checkpoint`: the prefix of the newest checkpoint the directory's state names, or None."""
    state = get_checkpoint_state(checkpoint_dir, latest_filename)
    if state is None:
        return None
    return state.model_checkpoint_path if checkpoint_exists(state.model_checkpoint_path) else None


API = {"train": ["get_checkpoint_state", "latest_checkpoint"]}
