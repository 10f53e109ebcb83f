"""tf.print, tf.debugging assertions and check_numerics, against real TensorFlow's output and messages."""
import logging
import sys

import numpy as np
import pytest

import tensorflux as tf
from tensorflux._src.ops import assertion, logging as L
from tensorflux._src.ops.registry import apply


def _err(capsys):
    return capsys.readouterr().err


# -- tf.print ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("args, kwargs, printed", [
    ((tf.constant([1, 2, 3]),), {}, "[1 2 3]\n"),
    ((tf.constant([1.0, 2.5]),), {}, "[1 2.5]\n"),
    ((tf.constant(3.14159),), {}, "3.14159\n"),
    ((tf.constant([0.1, 1 / 3]),), {}, "[0.1 0.333333343]\n"),
    ((tf.constant([True, False]),), {}, "[1 0]\n"),
    ((tf.constant(True),), {}, "1\n"),
    ((tf.constant(["a", "bc"]),), {}, '["a" "bc"]\n'),
    ((tf.constant("hello"),), {}, "hello\n"),
    (("a", tf.constant("s")), {}, 'a "s"\n'),
    ((tf.constant("s"), 1), {}, '"s" 1\n'),
    (([tf.constant("s")],), {}, '["s"]\n'),
    ((tf.constant([[1, 2], [3, 4]]),), {}, "[[1 2]\n [3 4]]\n"),
    ((tf.constant(np.arange(10, dtype=np.int32)),), {}, "[0 1 2 ... 7 8 9]\n"),
    ((tf.constant(np.arange(10, dtype=np.int32)),), {"summarize": 2}, "[0 1 ... 8 9]\n"),
    ((tf.constant(np.arange(10, dtype=np.int32)),), {"summarize": -1}, "[0 1 2 3 4 5 6 7 8 9]\n"),
    (("x:", tf.constant(1), 2, 3.5, "s", [1, tf.constant(2)], {"a": tf.constant(1), "b": 2}), {},
     "x: 1 2 3.5 s [1, 2] {'a': 1, 'b': 2}\n"),
    (((1, 2), [tf.constant([1, 2])]), {}, "(1, 2) [[1 2]]\n"),
    ((None, True), {}, "None True\n"),
    ((["s", 1.5, None], {"b": tf.constant(1), "a": "x"}), {}, "['s', 1.5, None] {'a': 'x', 'b': 1}\n"),
    (("a", "b"), {"sep": ",", "end": "!\n"}, "a,b!\n"),
    (("{}", tf.constant(1)), {}, "{} 1\n"),
    ((tf.constant([[1, 2]]), tf.constant([3])), {"sep": "\n"}, "[[1 2]]\n[3]\n"),
    ((tf.constant([]),), {}, "[]\n"),
    ((tf.constant(float("nan")), tf.constant(float("inf")), tf.constant(-float("inf"))), {}, "nan inf -inf\n"),
    ((tf.constant(1 + 2j),), {}, "?\n"),
    ((), {}, "\n"),
    ((tf.constant(1), tf.constant(2)), {"summarize": None}, "1 2\n"),
    ((tf.constant(1),), {"end": ""}, "1"),
])
def test_print_formats_like_tensorflow(capsys, args, kwargs, printed):
    assert tf.print(*args, **kwargs) is None
    assert _err(capsys) == printed


def test_print_long_structure_wraps_like_pprint(capsys):
    tf.print({"key_number_%d" % i: tf.constant(i) for i in range(6)})
    assert _err(capsys) == ("{'key_number_0': 0,\n 'key_number_1': 1,\n 'key_number_2': 2,\n 'key_number_3': 3,\n"
                            " 'key_number_4': 4,\n 'key_number_5': 5}\n")


def test_print_escapes_strings_inside_tensors(capsys):
    tf.print(tf.constant(["a\nb", 'q"', "tab\t", "back\\", "é"]))
    assert _err(capsys) == '["a\\nb" "q\\"" "tab\\t" "back\\\\" "é"]\n'


def test_print_output_streams(capsys, tmp_path):
    tf.print(tf.constant(1), output_stream=sys.stdout)
    out = capsys.readouterr()
    assert out.out == "1\n" and out.err == ""
    path = tmp_path / "log.txt"
    tf.print(tf.constant([1, 2]), output_stream=f"file://{path}")
    tf.print("more", output_stream=f"file://{path}")
    assert path.read_text() == "[1 2]\nmore\n"


def test_print_to_logging(caplog):
    with caplog.at_level(logging.INFO, logger="tensorflow"):
        tf.print("hello", tf.constant(2), output_stream=logging.info)
    assert [r.getMessage() for r in caplog.records] == ["hello 2"]


def test_print_unsupported_stream():
    with pytest.raises(ValueError, match="Unsupported output stream, logging level, or file.42. Supported streams "
                                         "are sys.stdout, sys.stderr"):
        tf.print(1, output_stream=42)
    with pytest.raises(ValueError, match="Unsupported output stream"):
        tf.print(1, output_stream="stdout")


def test_print_variable_prints_its_value(capsys):
    tf.print(tf.Variable([1, 2]))
    assert _err(capsys) == "[1 2]\n"


def test_print_op_runs_each_time_and_writes_at_run_time(capsys):
    text = tf.strings.format("{}", tf.constant([7]))
    apply(L.PRINT_V2, (text,), {"output_stream": "stderr", "end": "\n"}, "PrintV2")
    apply(L.PRINT_V2, (text,), {"output_stream": "stderr", "end": "\n"}, "PrintV2")
    assert _err(capsys) == "[7]\n[7]\n"
    assert L.PRINT_V2.stateful and L.PRINT_V2.infer([tf.TensorSpec([], tf.string)], {}) == []


# -- binary assertions -------------------------------------------------------------------------------

X = tf.constant([1, 2, 3])
Y = tf.constant([1, 2, 4])


def _message(fn, *args, **kwargs):
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        fn(*args, **kwargs)
    return info.value.message


def test_assert_equal_passes_and_fails():
    assert tf.debugging.assert_equal(X, X) is None
    assert _message(tf.debugging.assert_equal, X, Y) == (
        "Condition x == y did not hold.\nIndices of first 1 different values:\n[[2]]\nCorresponding x values:\n"
        "[3]\nCorresponding y values:\n[4]\nFirst 3 elements of x:\n[1 2 3]\nFirst 3 elements of y:\n[1 2 4]")


def test_assert_equal_message_and_summarize():
    assert _message(tf.debugging.assert_equal, X, Y, message="custom", summarize=1) == (
        "custom\nCondition x == y did not hold.\nIndices of first 1 different values:\n[[2]]\n"
        "Corresponding x values:\n[3]\nCorresponding y values:\n[4]\nFirst 1 elements of x:\n[1]\n"
        "First 1 elements of y:\n[1]")
    assert _message(tf.debugging.assert_equal, X, Y, summarize=-1).endswith("First 3 elements of y:\n[1 2 4]")


def test_assert_equal_many_failures_and_2d():
    r = tf.constant(np.arange(20, dtype=np.int32))
    msg = _message(tf.assert_equal, r, r + 1)
    assert msg.startswith("Condition x == y did not hold.\nIndices of first 3 different values:\n[[0]\n [1]\n [2]]")
    m = _message(tf.debugging.assert_equal, tf.constant([[0, 1], [2, 3]]), tf.constant([[0, 0], [0, 0]]))
    assert "Indices of first 3 different values:\n[[0 1]\n [1 0]\n [1 1]]\nCorresponding x values:\n[1 2 3]" in m


def test_assert_scalars_and_floats_and_strings():
    assert _message(tf.debugging.assert_equal, 1, 2) == (
        "Condition x == y did not hold.\nFirst 1 elements of x:\n[1]\nFirst 1 elements of y:\n[2]")
    assert _message(tf.debugging.assert_equal, tf.constant(1), 2, message="m").startswith("m\nCondition x == y")
    m = _message(tf.debugging.assert_equal, tf.constant([0.1, 1 / 3]), tf.constant([0.2, 1 / 3]))
    assert "First 2 elements of x:\n[0.1        0.33333334]" in m
    m = _message(tf.debugging.assert_equal, tf.constant(["a"]), tf.constant(["b"]))
    assert "Corresponding x values:\n[b'a']" in m


@pytest.mark.parametrize("fn, sym, x, y, failing", [
    (tf.debugging.assert_less, "<", X, Y, "[[0]\n [1]]"),
    (tf.debugging.assert_greater, ">", X, Y, "[[0]\n [1]\n [2]]"),
    (tf.debugging.assert_none_equal, "!=", tf.constant([1, 2]), tf.constant([1, 3]), "[[0]]"),
    (tf.debugging.assert_less_equal, "<=", Y, X, "[[2]]"),
    (tf.debugging.assert_greater_equal, ">=", X, Y, "[[2]]"),
])
def test_comparison_assertions(fn, sym, x, y, failing):
    msg = _message(fn, x, y)
    assert msg.startswith(f"Condition x {sym} y did not hold.\n")
    assert failing in msg


def test_comparison_assertions_pass():
    assert tf.debugging.assert_less_equal(X, Y) is None
    assert tf.debugging.assert_greater_equal(Y, X) is None
    assert tf.assert_less(X, X + 1) is None
    assert tf.assert_greater(Y, 0) is None


def test_assert_errors_from_the_comparison_op():
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Incompatible shapes: \[3\] vs. \[2\] \[Op:Equal\]"):
        tf.debugging.assert_equal(X, tf.constant([1, 2]))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"cannot compute Equal as input #1\(zero-based\) was expected to be a int32 tensor "
                             r"but is a float tensor"):
        tf.debugging.assert_equal(X, tf.constant([1.0, 2, 3]))
    with pytest.raises(TypeError, match="unexpected keyword argument 'data'"):
        tf.debugging.assert_equal(X, X, data=[X])


# -- sign assertions ---------------------------------------------------------------------------------

def test_sign_assertions_messages():
    neg = tf.constant([0.1, -1 / 3])
    assert _message(tf.debugging.assert_positive, neg) == (
        "\nCondition x > 0 did not hold element-wise:\nx (shape=(2,) dtype=float32) = \n['0.1', '-0.33333334']")
    assert _message(tf.debugging.assert_positive, neg, message="msg") == (
        "msg.  \nCondition x > 0 did not hold element-wise:\nx (shape=(2,) dtype=float32) = \n"
        "['0.1', '-0.33333334']")
    assert _message(tf.debugging.assert_negative, X) == (
        "\nCondition x < 0 did not hold element-wise:\nx (shape=(3,) dtype=int32) = \n['1', '2', '3']")
    assert _message(tf.debugging.assert_non_negative, tf.constant([-1, 2])) == (
        "\nCondition x >= 0 did not hold element-wise:\nx (shape=(2,) dtype=int32) = \n['-1', '2']")
    assert _message(tf.debugging.assert_non_positive, X) == (
        "\nCondition x <= 0 did not hold element-wise:x (shape=(3,) dtype=int32) = \n['1', '2', '3']")


def test_sign_assertions_summarize_and_pass():
    r = tf.constant(np.arange(10, dtype=np.int32))
    assert _message(tf.debugging.assert_negative, r).endswith("['0', '1', '2', '...']")
    assert _message(tf.debugging.assert_negative, r, summarize=2).endswith("['0', '1', '...']")
    assert tf.debugging.assert_positive(X) is None
    assert tf.debugging.assert_non_negative(tf.constant([0, 1])) is None
    assert tf.debugging.assert_negative(tf.constant([-1, -2])) is None
    assert tf.debugging.assert_non_positive(tf.constant([0.0, -1.0])) is None


# -- Assert, assert_near -----------------------------------------------------------------------------

def test_eager_assert():
    assert _message(tf.debugging.Assert, False, [X, "hello", 3]) == (
        "Expected 'False' to be true. Summarized data: 1, 2, 3\nb'hello'\n3")
    r = tf.constant(np.arange(10, dtype=np.int32))
    assert _message(tf.Assert, False, [r], summarize=2) == "Expected 'False' to be true. Summarized data: 0, 1, ..."
    assert tf.debugging.Assert(tf.constant(True), [X]) is None
    assert tf.debugging.Assert(tf.constant([True]), [X]) is None
    assert _message(tf.debugging.Assert, tf.constant(False), [1.5]) == (
        "Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be true. Summarized data: 1.5")


def test_assert_op_kernel_has_graph_message():
    data = (tf.constant("mm"), tf.constant([1, 2, 3]), tf.constant(np.arange(6, dtype=np.int32).reshape(2, 3)),
            tf.constant([True, False]), tf.constant(["a\n", "b"]), tf.constant(0.1))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"^\{\{function_node __wrapped__Assert_T_6_device_/job:localhost/replica:0/task:0/device:CPU:0\}\} "
                             r"assertion failed: \[mm\] \[1 2 3\] \[\[0 1 2\]\.\.\.\] \[1 0\] \[a\\n b\] \[0\.1\] "
                             r"\[Op:Assert\]"):
        apply(assertion.ASSERT, (tf.constant(False),) + data, {"summarize": 3}, "Assert")
    assert apply(assertion.ASSERT, (tf.constant(True),) + data, {"summarize": 3}, "Assert") == ()
    assert assertion.ASSERT.stateful and assertion.ASSERT.infer([tf.TensorSpec([], tf.bool)], {"summarize": 3}) == []


def test_assert_near():
    assert tf.debugging.assert_near(tf.constant([1.0]), tf.constant([1.0000001])) is None
    assert _message(tf.debugging.assert_near, tf.constant([1.0]), tf.constant([1.1])) == (
        "Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be true. Summarized data: b''\n"
        "b'x and y not equal to tolerance rtol = tf.Tensor(1.1920929e-06, shape=(), dtype=float32), "
        "atol = tf.Tensor(1.1920929e-06, shape=(), dtype=float32)'\n"
        "b'x (shape=(1,) dtype=float32) = '\n1.0\nb'y (shape=(1,) dtype=float32) = '\n1.1")
    assert tf.debugging.assert_near(tf.constant([1.0]), tf.constant([1.5]), atol=0.6) is None


# -- static checks -----------------------------------------------------------------------------------

def test_rank_type_scalar_integer_checks():
    assert tf.debugging.assert_rank(X, 1) is None
    with pytest.raises(ValueError, match=r"^Tensor  must have rank 2\.  Received rank 1, shape \(3,\)$"):
        tf.assert_rank(X, 2)
    with pytest.raises(ValueError, match=r"^Tensor  must have rank at least 2\.  Received rank 1, shape \(3,\)"):
        tf.debugging.assert_rank_at_least(X, 2)
    assert tf.debugging.assert_rank_at_least(X, 1) is None
    with pytest.raises(ValueError, match=r"^Tensor  must have rank in \(0, 2\)\.  Received rank 1"):
        tf.debugging.assert_rank_in(X, [0, 2])
    assert tf.debugging.assert_rank_in(X, [0, 1]) is None
    with pytest.raises(TypeError, match="^tensor must be of type tf.float32; got tf.int32$"):
        tf.debugging.assert_type(X, tf.float32)
    assert tf.debugging.assert_type(X, tf.int32) is None
    with pytest.raises(ValueError, match=r"Expected scalar shape, saw shape: \(3,\)\."):
        tf.debugging.assert_scalar(X)
    with pytest.raises(TypeError, match="Expected \"x\" to be integer type.  Found: tensor of dtype "
                                        "<dtype: 'float32'>"):
        tf.debugging.assert_integer(tf.constant(1.0))
    assert tf.debugging.assert_integer(X) is None
    assert tf.debugging.is_numeric_tensor(X) and not tf.debugging.is_numeric_tensor(tf.constant("a"))


# -- check_numerics ----------------------------------------------------------------------------------

def test_check_numerics():
    ok = tf.constant([1.0])
    assert tf.debugging.check_numerics(ok, "bad").numpy().tolist() == [1.0]
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"bad : Tensor had NaN values \[Op:CheckNumerics\]"):
        tf.debugging.check_numerics(tf.constant([1.0, float("nan")]), "bad")
    with pytest.raises(tf.errors.InvalidArgumentError, match="bad : Tensor had Inf values"):
        tf.debugging.assert_all_finite(tf.constant([1.0, float("inf")]), "bad")
    with pytest.raises(tf.errors.InvalidArgumentError, match="Tensor had Inf and NaN values"):
        tf.debugging.check_numerics(tf.constant([float("inf"), float("nan")], tf.float64), "m")
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Value for attr 'T' of int32 is not in the list of allowed values: bfloat16, half, "
                             "float, double"):
        tf.debugging.check_numerics(tf.constant([1]), "bad")
    assert L.CHECK_NUMERICS.infer([tf.TensorSpec([None], tf.float32)], {"message": "m"}) == \
        [(tf.float32, tf.TensorShape([None]))]


# -- inside tf.function: the ops run on every call ---------------------------------------------------

def test_print_and_assert_in_traced_function(capsys):
    @tf.function
    def f(x):
        tf.print("x is", x, [1, x])
        tf.debugging.assert_positive(x)
        tf.debugging.assert_equal(x, x, message="never")
        return x + 1

    assert f(tf.constant(2)).numpy() == 3
    assert f(tf.constant(3)).numpy() == 4
    assert _err(capsys) == "x is 2 [1, 2]\nx is 3 [1, 3]\n"
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"assertion failed: \[\] \[Condition x > 0 did not hold element-wise:\] "
                             r"\[x \(x:0\) = \] \[-10\]"):
        f(tf.constant(-10))


def test_graph_assert_equal_message():
    @tf.function
    def f(x, y):
        tf.debugging.assert_equal(x, y, message="mm")
        return x

    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"assertion failed: \[mm\] \[Condition x == y did not hold element-wise:\] "
                             r"\[x \(x:0\) = \] \[1 2 3\] \[y \(y:0\) = \] \[1 2 4\]"):
        f(X, Y)
    assert f(X, X).numpy().tolist() == [1, 2, 3]
