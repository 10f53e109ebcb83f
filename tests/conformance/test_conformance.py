"""The conformance ratchet: every snippet listed in conformance_passing.txt must print what TensorFlow printed.

The snippets (`cases/`), what TensorFlow 2.21 printed for each (`golden/`) and the runner (`run.py`) live
beside this file; `README.md` says how they were recorded. A listed snippet that stops passing fails the
suite; snippets are only ever added to the list.
"""
import os
import re
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
RUNNER = os.path.join(HERE, "run.py")
LIST = os.path.join(HERE, "passing.txt")


def _listed():
    with open(LIST) as f:
        return [line.split("#")[0].strip() for line in f if line.split("#")[0].strip()]


CASES = _listed()


def test_runner_is_present():
    assert os.path.exists(RUNNER), f"conformance runner not found at {RUNNER}"


@pytest.mark.parametrize("case", CASES)
def test_conformance_case(case):
    proc = subprocess.run([sys.executable, RUNNER, "--impl", "tensorflux", "--python", sys.executable,
                           "-k", case, "-v", "--timeout", "120"],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT)
    summary = re.findall(r"(\d+) passed, (\d+) failed", proc.stdout)
    assert summary, proc.stdout[-3000:]
    passed, failed = map(int, summary[-1])
    assert passed >= 1 and failed == 0, proc.stdout[-6000:]
