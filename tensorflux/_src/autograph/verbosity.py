"""AutoGraph's diagnostic log: `tf.autograph.set_verbosity` and the AUTOGRAPH_VERBOSITY variable.

At verbosity >= 1 each converted call is logged (its arguments, whether the conversion was cached);
>= 2 adds the transformed code and the call's bound arguments; >= 3 the original source and cache hits.
Records go to the "tensorflow" logger at INFO level, and to stdout too when `alsologtostdout` is set.
The level set by `set_verbosity` wins over the environment variable, which is read on each check.

    tf.autograph.set_verbosity(3, alsologtostdout=True)
"""
import logging
import os

__all__ = ["set_verbosity", "get_verbosity", "has_verbosity", "log", "echo_to_stdout"]

_LOGGER = logging.getLogger("tensorflow")
_LEVEL = [None]        # set_verbosity's level; None: read AUTOGRAPH_VERBOSITY
_ECHO = [False]        # set_verbosity's alsologtostdout


def set_verbosity(level, alsologtostdout=False):
    """`tf.autograph.set_verbosity`: how much of its work AutoGraph logs (0: nothing)."""
    _LEVEL[0] = int(level)
    _ECHO[0] = bool(alsologtostdout)


def get_verbosity():
    if _LEVEL[0] is not None:
        return _LEVEL[0]
    try:
        return int(os.environ.get("AUTOGRAPH_VERBOSITY", "0"))
    except ValueError:
        return 0


def has_verbosity(level):
    return get_verbosity() >= level


def echo_to_stdout():
    return _ECHO[0]


def log(level, message, *args):
    """Logs `message % args` at INFO when the verbosity is at least `level` (and echoes it to stdout)."""
    if has_verbosity(level):
        _LOGGER.info(message, *args)
        if _ECHO[0]:
            print(message % args)


API = {
    "autograph": ["set_verbosity"],
}
