"""Every registry op, called with malformed inputs eagerly and inside tf.function, fails as TensorFlow does.

The cases come from the tables (table_math.py, table_array.py, table_rest.py, table_special.py, table_extra.py; see sweep.py for how one
entry becomes its malformed calls). TensorFlow 2.21's outcome of each call is recorded in
tensorflow_outcomes.json by tools/record_op_errors.py. For each call tensorflux must
- never raise anything but a TensorFlow-class error (tf.errors.*, TypeError, ValueError, ...): a NumPy or
  internal exception (IndexError, KeyError, AttributeError, ZeroDivisionError, AxisError, LinAlgError,
  AssertionError...) fails the test unless TensorFlow raises that very class for the call;
- never hang (sweep.TIMEOUT_SECONDS per call);
- give TensorFlow's outcome: the same exception class, or a result of the same dtypes and shapes;
  a different outcome is allowed only when known_differences.json lists it (with tensorflux's outcome
  and a reason), and a listed case that now matches TensorFlow must leave the list. Its "bugs" table
  lists internal exceptions found in modules this task does not own (new op families written at the
  same time by other engineers), each with the owner's module: reported, to be fixed there.

`python tests/errors/test_op_errors.py --summary` prints the figures (calls, classes, matches);
`--update-known` adds new TF-class differences to known_differences.json under a reason to fill in.
"""
import collections
import fnmatch
import json
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
# As under pytest (tests/conftest.py), also when run as a script: every eager kernel's result is checked
# against its op's infer, so outcomes are the same both ways.
os.environ.setdefault("TENSORFLUX_CHECK_KERNELS", "1")

import sweep  # noqa: E402
import table_array  # noqa: E402
import table_math  # noqa: E402
import table_rest  # noqa: E402
import table_special  # noqa: E402
import table_extra  # noqa: E402
import table_composite  # noqa: E402

import tensorflux as tf  # noqa: E402
from tensorflux._src.ops.registry import OPS  # noqa: E402


@pytest.fixture(autouse=True, scope="module")
def _in_probe_directory():
    """File ops get relative junk names ("junk"): they resolve in the sweep's temporary directory, never in
    the checkout the tests run from."""
    previous = os.getcwd()
    os.chdir(table_rest.PROBE_DIR)
    try:
        yield
    finally:
        os.chdir(previous)

CASES = table_math.CASES + table_array.CASES + table_rest.CASES + table_special.CASES + table_extra.CASES + table_composite.CASES
KNOWN_PATH = os.path.join(HERE, "known_differences.json")


def _load(name):
    with open(os.path.join(HERE, name)) as f:
        return json.load(f)


TENSORFLOW = _load("tensorflow_outcomes.json")["outcomes"]
KNOWN = _load("known_differences.json")

# Builtin exception classes TensorFlow itself raises for malformed input; tf.errors.* come on top.
_TENSORFLOW_BUILTINS = {"TypeError", "ValueError", "NotImplementedError", "StopIteration"}


def _is_tensorflow_class(exc):
    if isinstance(exc, tf.errors.OpError):
        return True
    cls = type(exc)
    if cls.__module__ == "builtins":
        return cls.__name__ in _TENSORFLOW_BUILTINS
    # tensorflux's own TypeError/ValueError subclasses (StagingError, InaccessibleTensorError...) carry the
    # module names TensorFlow gives them; NumPy's subclasses (AxisError, UFuncTypeError) are internal.
    return cls.__module__.startswith(("tensorflux", "tensorflow")) and isinstance(exc, (TypeError, ValueError))


def judge(case_id, outcome, exc):
    """None when the outcome is acceptable, else the reason it is not."""
    expected = TENSORFLOW.get(case_id)
    if expected is None:
        return "not recorded under TensorFlow: rerun tools/record_op_errors.py"
    if outcome == "timeout":
        return f"hangs (> {sweep.TIMEOUT_SECONDS} s); TensorFlow: {expected}"
    bug = KNOWN["bugs"].get(case_id)
    if exc is not None and outcome != expected and not _is_tensorflow_class(exc):
        if bug is not None and bug[0] == outcome:
            return None  # an open bug in a module this sweep does not own, listed with its owner
        return f"internal exception {type(exc).__module__}.{outcome[6:]}: {str(exc)[:300]}; TensorFlow: {expected}"
    if bug is not None:
        return f"listed in known_differences.json 'bugs' as {bug[0]} but now {outcome}: remove it"
    known = KNOWN["cases"].get(case_id)
    if outcome == expected:
        return f"listed in known_differences.json but now matches TensorFlow: remove it" if known else None
    if known is None:
        return f"TensorFlow: {expected}; tensorflux: {outcome} ({str(exc)[:300] if exc else ''})"
    if known[0] != outcome:
        return f"known difference changed: listed {known[0]}, now {outcome}; TensorFlow: {expected}"
    return None


def run_all(case):
    for variant, replaced in sweep.expand(case):
        for mode in case.modes:
            outcome, exc = sweep.run_case(tf, case, replaced, mode)
            yield f"{case.op}|{variant}|{mode}", outcome, exc


def test_every_registry_op_is_in_the_table():
    tabled = {c.op for c in CASES}
    missing = sorted(OPS.all_types() - tabled - set(table_rest.UNREACHABLE))
    assert not missing, f"op types with no sweep entry (add one, or list it in UNREACHABLE with why): {missing}"
    both = sorted(tabled & set(table_rest.UNREACHABLE))
    assert not both, f"op types both swept and listed as unreachable: {both}"


def test_open_bugs_are_few():
    # Internal exceptions are never an accepted outcome for the ops this task owns; the list only holds
    # bugs of modules written concurrently by others, and must shrink, not grow.
    assert len(KNOWN["bugs"]) <= 14, f"{len(KNOWN['bugs'])} open bugs listed"


def test_every_reason_is_given():
    reasons = KNOWN["reasons"]
    for case_id, (_, reason) in KNOWN["cases"].items():
        assert reason in reasons and reasons[reason].strip(), f"{case_id}: no reason text for {reason!r}"
        assert not reasons[reason].startswith("TODO"), f"{case_id}: reason {reason!r} still to be written"


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.op)
def test_malformed_inputs(case):
    if case.op not in OPS:
        pytest.skip(f"op type {case.op} is not registered in this build")
    problems = [f"{cid}: {why}" for cid, outcome, exc in run_all(case)
                if (why := judge(cid, outcome, exc)) is not None]
    assert not problems, f"{len(problems)} calls differ:\n" + "\n".join(problems)


def _summary():
    counts, matched, total, differences = collections.Counter(), 0, 0, []
    for case in CASES:
        for cid, outcome, _ in run_all(case):
            total += 1
            counts[outcome.split(":")[0] if outcome.startswith("ok") else outcome[6:]] += 1
            if outcome == TENSORFLOW.get(cid):
                matched += 1
            else:
                differences.append(cid)
    print(f"calls: {total} ({sum(1 for c in CASES)} op types swept, {len(table_rest.UNREACHABLE)} unreachable)")
    print(f"same outcome as TensorFlow: {matched}; known differences: {len(differences)}")
    for name, n in counts.most_common():
        print(f"  {name:28} {n}")
    reasons = collections.Counter(KNOWN["cases"][c][1] for c in differences if c in KNOWN["cases"])
    for reason, n in reasons.most_common():
        print(f"  {n:5}  {reason}")


def _update_known():
    cases = KNOWN["cases"]
    for case in CASES:
        for cid, outcome, exc in run_all(case):
            if cid in cases and outcome == TENSORFLOW.get(cid):
                del cases[cid]
            elif cid in cases:
                cases[cid][0] = outcome
            elif outcome != TENSORFLOW.get(cid) and outcome != "timeout" and (exc is None or _is_tensorflow_class(exc)):
                cases[cid] = [outcome, _reason_key(cid, outcome)]
    for key in set(r for _, r in cases.values()) - set(KNOWN["reasons"]):
        KNOWN["reasons"][key] = "TODO"
    with open(KNOWN_PATH + ".tmp", "w") as f:
        json.dump(KNOWN, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(KNOWN_PATH + ".tmp", KNOWN_PATH)


_TENSORFLOW_INTERNAL = {"raise:AttributeError", "raise:AssertionError", "raise:IndexError", "raise:KeyError",
                        "raise:UFuncTypeError"}


def _reason_key(cid, outcome):
    """The reason a new difference is filed under: its owner's pattern first, then what kind it is."""
    expected = TENSORFLOW[cid]
    if expected in _TENSORFLOW_INTERNAL:
        return "tensorflow-internal"
    for pattern, key in KNOWN["patterns"]:
        if fnmatch.fnmatchcase(cid, pattern):
            return key
    if expected.startswith("ok"):
        return "rejected" if outcome.startswith("raise") else "result"
    if outcome.startswith("ok"):
        return "accepted"
    return "class-" + cid.rsplit("|", 1)[1]


if __name__ == "__main__":
    os.chdir(table_rest.PROBE_DIR)     # as the test runs (relative junk file names resolve there)
    if "--update-known" in sys.argv:
        _update_known()
    _summary()
