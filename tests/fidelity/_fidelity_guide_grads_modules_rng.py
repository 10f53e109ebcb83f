"""Shared checks of the fidelity tests adapted from the TensorFlow guides on gradients, modules, training
loops and random numbers (`test_fidelity_guide_{autodiff,advanced_autodiff,intro_to_modules,
basic_training_loops,random_numbers}.py`).

Every test runs an adapted guide example under tensorflux, then calls `expect(capsys, TEXT)` where TEXT is
what TensorFlow 2.21 printed for the very same code. Only what legitimately differs between two runs is
normalised: memory addresses, timings, temporary paths, and (with `mask_numbers=True`, for outputs that
are non-deterministic in TensorFlow itself) the digits of the printed numbers. With `terminal=True` (Keras
progress bars) the text is compared as a terminal shows it: each line's carriage-return/backspace
redraws are resolved to the final redraw and ANSI colour codes are dropped.
"""
import re

_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")
_NUMBER = re.compile(r"-?\d+\.\d*(?:e[-+]?\d+)?|-?\d+e[-+]?\d+")
_TIMING = re.compile(r"\b\d+(?:\.\d+)?(?:s|ms|us|µs)(?:/step)?\b")
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def as_terminal_shows(text):
    """`text` as a terminal displays it: the last carriage-return redraw of each line, no colour codes."""
    lines = []
    for line in text.split("\n"):
        lines.append(_ANSI.sub("", line.rsplit("\r", 1)[-1].replace("\b", "")))
    return "\n".join(lines)


def normalize(text, mask_numbers=False, tmp_path=None, terminal=False):
    """Text with addresses, timings, the temporary directory (and optionally float values) neutralised."""
    if terminal:
        text = as_terminal_shows(text)
    if tmp_path is not None:
        text = text.replace(str(tmp_path), "<tmp>")
    text = _ADDRESS.sub("0x?", text)
    text = _TIMING.sub("<time>", text)
    if mask_numbers:  # the numbers and the padding NumPy chose for their widths
        text = _NUMBER.sub("<num>", text)
        text = re.sub(r"(?<=\S) +", " ", text)
        text = text.replace("[ ", "[").replace(" ]", "]")
    lines = [line.rstrip() for line in text.strip("\n").split("\n")]
    return "\n".join(lines)


def expect(capsys, expected, mask_numbers=False, tmp_path=None, terminal=False):
    """What the example printed on stdout since the last check equals `expected` (TensorFlow's text)."""
    got = capsys.readouterr().out
    want = normalize(expected, mask_numbers, terminal=terminal)
    have = normalize(got, mask_numbers, tmp_path, terminal)
    assert have == want, f"\n--- TensorFlow printed:\n{want}\n--- tensorflux printed:\n{have}"
