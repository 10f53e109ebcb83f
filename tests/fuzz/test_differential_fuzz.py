"""Differential fuzzing: 200 random programs (fixed seed) give the same results eagerly and under
tf.function, with fully known shapes and with None dims -- values, dtypes, shapes and exception classes.

Replay or extend with `python tools/fuzz_programs.py --count N [--seed S]`; program i of seed S is
`fuzz_generator.generate(numpy.random.default_rng([S, i]))`.
"""
import os
import re
import sys
import warnings

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import fuzz_compare  # noqa: E402
import fuzz_generator  # noqa: E402
from fuzz_generator import Program, Statement  # noqa: E402

SEED = 12
COUNT = 200

# Mismatches of the fixed-seed run that are real tensorflux bugs outside the fuzzer, kept until fixed:
# (program index, kind, mode) -> one-line reason. Every entry must still mismatch (the test fails when one
# stops, so that it is removed with the fix). Reproduce: tools/fuzz_programs.py --seed 12 --first I --count 1
KNOWN_MISMATCHES = {
}

# Statement kinds the run must contain, so a generator change cannot quietly stop testing one.
MUST_COVER = ("tf.while_loop(", "tf.GradientTape()", "tf.cond(", ".assign", "tf.matmul(", "tf.gather(",
              "tf.reshape(", "tf.transpose(", "tf.concat(", "tf.where(", "for i in tf.range(", "if tf.reduce_sum(",
              "tf.reduce_", "tf.tile(tf.reshape(", "tf.slice(")


def test_fixed_seed_programs_agree_eagerly_and_traced():
    found, sources, raising = {}, [], 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # overflow/NaN warnings and AutoGraph notes are expected here
        for i in range(COUNT):
            program = fuzz_generator.generate(np.random.default_rng([SEED, i]), label=f"{SEED}/{i}")
            sources.append(program.source())
            raising += program.raises
            for m in fuzz_compare.check(program):
                found.setdefault((i, m.kind, m.mode), m.detail)
    unexpected = {k: v for k, v in found.items() if k not in KNOWN_MISMATCHES}
    assert not unexpected, "eager and traced differ (replay: tools/fuzz_programs.py --seed %d --first I " \
                           "--count 1):\n%s" % (SEED, "\n".join(f"{k}: {v}" for k, v in unexpected.items()))
    fixed = [k for k in KNOWN_MISMATCHES if k not in found]
    assert not fixed, f"known mismatches no longer reproduce; remove them from KNOWN_MISMATCHES: {fixed}"
    text = "\n".join(sources)
    assert [k for k in MUST_COVER if k not in text] == []
    assert re.search(r"= (v|x)\d+\[", text)   # Python slicing
    assert raising >= 5   # exception classes are compared too


def _program(lines, target, inputs):
    body = [Statement(lines, target, list(inputs))]
    return Program({k: np.asarray(v, np.float32) for k, v in inputs.items()}, {}, body, [target], "handmade")


def test_comparison_reports_a_traced_difference():
    """TensorFlow's own eager/traced difference (a while_loop of 0 trips returns the watched tensor itself
    when eager, a new value when traced) must show as a value mismatch in both modes."""
    lines = ["v2 = tf.while_loop(lambda i, a: i < 0, lambda i, a: (i + 1, a), [tf.constant(0), x0])[1]",
             "with tf.GradientTape() as tape:",
             "    tape.watch(x0)",
             "    loss = tf.reduce_sum(tf.square(x0) * v2)",
             "v3 = tape.gradient(loss, x0)"]
    found = fuzz_compare.check(_program(lines, "v3", {"x0": [1.0, 2.0]}))
    assert sorted(m.key() for m in found) == [("value", "none"), ("value", "static")]
    assert "v3" in fuzz_compare.reproducer(_program(lines, "v3", {"x0": [1.0, 2.0]}), found[0])


@pytest.mark.parametrize("expression, expected", [
    ("tf.gather(x0, [5])", []),                         # InvalidArgumentError in every mode
    ("x0 + tf.ones([3])", []),                          # static shapes: ValueError at trace, as TensorFlow
    ("tf.reduce_sum(x0, axis=3)", []),                  # the rank is known even with None dims
    ("tf.cast(x0, tf.int32) // 0", []),
])
def test_exception_classes_compare_as_tensorflow_raises_them(expression, expected):
    found = fuzz_compare.check(_program([f"v1 = {expression}"], "v1", {"x0": [1.0, 2.0]}))
    assert [m.key() for m in found] == expected


def test_exception_class_difference_is_reported():
    eager = fuzz_compare.Outcome(error=(TypeError, "eager", False))
    traced = fuzz_compare.Outcome(error=(ValueError, "traced", False))
    program = _program(["v1 = x0"], "v1", {"x0": [1.0]})
    assert [m.kind for m in fuzz_compare.compare(program, eager, traced, "none")] == ["exception_class"]
    ok = fuzz_compare.Outcome(values=[("float32", (1,), np.ones(1, np.float32))])
    assert [m.kind for m in fuzz_compare.compare(program, eager, ok, "none")] == ["raises_only_eager"]
