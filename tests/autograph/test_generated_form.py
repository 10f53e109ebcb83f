"""TensorFlow's generated form as the code that runs: `tf.autograph.to_graph` (and a function that calls a
debugger) is compiled from a temporary `__autograph_generated_file<random>.py` holding `to_code`'s text in
TensorFlow's factory layout, and computes what the lean conversion computes.

Expected layouts and values were recorded from TensorFlow 2.21."""
import inspect
import linecache
import os
import stat
import subprocess
import sys
import tempfile
import textwrap

import numpy as np
import pytest

import tensorflux as tf
from tensorflux._src.autograph import api

K = 3


def _make_closure():
    k = 2

    def with_closure(a, b=1, *, c=4):
        def inner(y):
            return y + k
        return inner(a) * k + K + b + c
    return with_closure


with_closure = _make_closure()


def branches(x):
    t = x
    if x > 0:
        t = t + 1          # read and changed in the branch, not used after it: an input-only symbol
        z = t * 2
    else:
        z = -x
    return z


def loops(n):
    i = 0
    s = 0
    while i < n:
        i += 1
        if i > 5:
            break
        if i % 2 == 0:
            continue
        s += i
    for j in tf.range(3):
        s += j
    return s


def early_return(x):
    for i in range(4):
        if i == 2:
            return x + i
    return x


def logic(x, flag):
    y = x if flag else -x
    return y > 0 and not flag or y < -100


def with_lambda(x):
    scale = lambda v: v * 3   # noqa: E731 - a lambda made inside converted code
    return tf.map_fn(scale, x)


class Base:
    def f(self, x):
        return x + 1


class Child(Base):
    def f(self, x):
        if x > 0:
            y = super().f(x)
        else:
            y = x
        return y * 2


CASES = [
    (with_closure, (tf.constant(1),)),
    (branches, (tf.constant(2),)),
    (branches, (tf.constant(-2),)),
    (loops, (tf.constant(9),)),
    (loops, (4,)),
    (early_return, (tf.constant(5),)),
    (logic, (tf.constant(3), False)),
    (logic, (tf.constant(3), True)),
    (with_lambda, (tf.constant([1, 2]),)),
]


@pytest.mark.parametrize("fn,args", CASES, ids=[f"{c[0].__name__}-{i}" for i, c in enumerate(CASES)])
def test_generated_form_computes_what_the_lean_conversion_computes(fn, args):
    generated = tf.autograph.to_graph(fn)
    assert generated.__name__ == "tf__" + fn.__name__
    lean = tf.function(fn)(*args)
    staged = tf.function(generated, autograph=False)(*args)
    eager = generated(*args)
    np.testing.assert_array_equal(np.asarray(staged), np.asarray(lean))
    np.testing.assert_array_equal(np.asarray(eager), np.asarray(lean))


def test_zero_argument_super_in_a_converted_method():
    generated = tf.autograph.to_graph(Child.f)
    assert int(generated(Child(), tf.constant(1))) == 4
    assert int(tf.function(generated, autograph=False)(Child(), tf.constant(1))) == 4
    assert int(tf.function(generated, autograph=False)(Child(), tf.constant(-1))) == -2


def test_the_temporary_module_has_tensorflows_layout():
    generated = tf.autograph.to_graph(with_closure)
    path = inspect.getsourcefile(generated)
    assert os.path.dirname(path) == tempfile.gettempdir()
    assert os.path.basename(path).startswith("__autograph_generated_file") and path.endswith(".py")
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600      # private to the user
    with open(path, encoding="utf-8") as f:
        text = f.read()
    body = textwrap.indent(tf.autograph.to_code(with_closure), " " * 8)
    assert text == ("# coding=utf-8\n"
                    "def outer_factory():\n"
                    "    k = None\n"
                    "\n"
                    "    def inner_factory(ag__):\n"
                    "\n"
                    + body +
                    "        return tf__with_closure\n"
                    "    return inner_factory\n")
    # TensorFlow's name, qualified name and source: the generated def as it stands in the module
    assert generated.__qualname__ == "outer_factory.<locals>.inner_factory.<locals>.tf__with_closure"
    assert inspect.getsource(generated) == body
    assert generated.__code__.co_firstlineno == 7
    assert generated.__defaults__ == (1,) and generated.__kwdefaults__ == {"c": 4}
    assert generated.__module__ == __name__
    assert not hasattr(generated, "__wrapped__")


def test_the_temporary_modules_are_removed_when_the_process_exits(tmp_path):
    script = tmp_path / "convert.py"
    script.write_text(textwrap.dedent("""\
        import inspect
        import tensorflux as tf

        def double(a):
            return a * 2

        generated = tf.autograph.to_graph(double)
        print(inspect.getsourcefile(generated))
        print(int(generated(tf.constant(4))))
        """))
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, check=True).stdout
    path, value = out.split()
    assert value == "8"
    assert os.path.basename(path).startswith("__autograph_generated_file")
    assert not os.path.exists(path)


def test_what_tensorflow_cannot_convert_raises_its_errors():
    def counted(n):
        total = 0
        for i in range(n):
            total += i
        else:             # for/else: TensorFlow's AutoGraph has no conversion for it
            total += 100
        return total

    for convert in (tf.autograph.to_graph, tf.autograph.to_code):
        with pytest.raises(NotImplementedError) as info:
            convert(counted)
        assert type(info.value).__name__ == "UnsupportedLanguageElementError"
        assert str(info.value) == "for/else statement not yet supported"
    assert int(tf.function(counted)(3)) == 103          # a tf.function runs it unconverted

    namespace = {}
    exec("def no_source(x):\n    return x\n", namespace)   # noqa: S102 - a function without source
    no_source = namespace["no_source"]

    class Callable:
        def __call__(self, x):
            return x + 1

    traced = tf.function(counted)
    for convert in (tf.autograph.to_graph, tf.autograph.to_code):
        with pytest.raises(api.ConversionError) as info:
            convert(no_source)
        assert str(info.value) == (
            f"converting {no_source!r}: InaccessibleSourceCodeError: Unable to locate the source code of "
            f"{no_source!r}. Note that functions defined in certain environments, like the interactive Python "
            "shell, do not expose their source code. If that is the case, you should define them in a .py source "
            "file. If you are certain the code is graph-compatible, wrap the call using "
            "@tf.autograph.experimental.do_not_convert. Original error: could not get source code")
        for entity in (traced, Callable(), print):
            with pytest.raises(api.ConversionError) as info:
                convert(entity)
            assert str(info.value) == (
                f"converting {entity!r}: ValueError: Cannot apply autograph to a function that doesn't expose a "
                "__code__ object. If this is a @tf.function, try passing f.python_function instead.")
    bound = tf.autograph.to_graph(Callable().__call__)   # a bound method converts to its plain function
    assert bound.__name__ == "tf____call__" and not inspect.ismethod(bound)
    assert int(bound(Callable(), tf.constant(1))) == 2


def mixes_dtypes(x):
    y = x + 1
    if y > 0:
        y = tf.constant("a") + y
    return y


ADD_MISMATCH = "Input 'y' of 'Add' Op has type int32 that does not match type string of argument 'x'."


def test_errors_in_the_function_to_graph_returns_are_not_framed_as_converted_code():
    # TensorFlow runs the function to_graph returned as it is: called by tf.function directly, its error is
    # not framed "in user code"; called from converted code, its generated frames are unconverted user
    # code (`tf__f  **`, then the branch function), with the generated file's lines.
    generated = tf.autograph.to_graph(mixes_dtypes)
    path = inspect.getsourcefile(generated)
    with pytest.raises(TypeError) as info:
        tf.function(generated)(tf.constant(1))
    assert str(info.value) == ADD_MISMATCH

    def outer(x):
        return generated(x)

    with pytest.raises(TypeError) as info:
        tf.function(outer)(tf.constant(1))
    outer_line = outer.__code__.co_firstlineno + 1
    assert str(info.value) == (
        "in user code:\n\n"
        f'    File "{__file__}", line {outer_line}, in outer  *\n'
        "        return generated(x)\n"
        f'    File "{path}", line 26, in tf__mixes_dtypes  **\n'
        "        ag__.if_stmt(ag__.ld(y) > 0, if_body, else_body, get_state, set_state, ('y',), 1)\n"
        f'    File "{path}", line 21, in if_body\n'
        "        y = ag__.converted_call(ag__.ld(tf).constant, ('a',), None, fscope) + ag__.ld(y)\n\n"
        f"    TypeError: {ADD_MISMATCH}\n")


class _QuietDebugger:
    """Stands for the `pdb` module: AutoGraph recognises `pdb.set_trace()` by name."""

    @staticmethod
    def set_trace():
        pass


pdb = _QuietDebugger()


def debugged(x):
    pdb.set_trace()
    y = x + 1
    if y > 0:
        y = y * 3
    return y


def test_a_function_calling_a_debugger_maps_its_generated_lines_to_the_users():
    converted = api.convert(debugged)
    code = converted.__code__
    assert os.path.basename(code.co_filename).startswith("__autograph_generated_file")
    assert int(tf.function(debugged)(tf.constant(1))) == 6
    user_lines = inspect.getsource(debugged).splitlines()
    first = debugged.__code__.co_firstlineno

    def user_line_of(generated_text):
        number = next(i for i, line in enumerate(linecache.getlines(code.co_filename), 1) if generated_text in line)
        filename, line = api.original_location(code, number)
        assert filename == __file__
        return user_lines[line - first].strip()

    assert user_line_of("ag__.ld(pdb).set_trace()") == "pdb.set_trace()"
    assert user_line_of("y = ag__.ld(x) + 1") == "y = x + 1"
    assert user_line_of("ag__.if_stmt(") == "if y > 0:"
    assert user_line_of("y = ag__.ld(y) * 3") == "y = y * 3"
    assert user_line_of("retval_ = ag__.ld(y)") == "return y"
    assert api.original_location(tf.autograph.to_graph(debugged).__code__, 10) is None   # to_graph: none


def scale_by(v):
    return v


FACTOR = 2
bounded = lambda x: scale_by(x) * FACTOR if x > 0 and x < 5 else -x   # noqa: E731 - the lambda form
negated = lambda x, y=1: not x   # noqa: E731


def _lambda_over_closure():
    offset = 3
    return lambda x: x + offset


OPTIONS = ("ag__.ConversionOptions(recursive=True, user_requested=True, optional_features=(), "
           "internal_convert_user_code=True)")


def test_lambdas_have_tensorflows_generated_form():
    # Recorded from TensorFlow 2.21's to_code and to_graph of the same lambdas.
    assert tf.autograph.to_code(bounded) == (
        "tf__lam = lambda x: ag__.with_function_scope(lambda lscope: ag__.if_exp(ag__.and_(lambda: x > 0, "
        "lambda: x < 5), lambda: ag__.converted_call(scale_by, (x,), None, lscope) * FACTOR, lambda: -x, "
        f"'x > 0 and x < 5'), 'lscope', {OPTIONS})\n")
    assert tf.autograph.to_code(negated) == (
        f"tf__lam = lambda x, y=None: ag__.with_function_scope(lambda lscope: ag__.not_(x), 'lscope', {OPTIONS})\n")
    closing = _lambda_over_closure()
    generated = tf.autograph.to_graph(closing)
    assert generated.__name__ == "<lambda>"
    with open(inspect.getsourcefile(generated), encoding="utf-8") as f:
        assert f.read() == (
            "# coding=utf-8\n"
            "def outer_factory():\n"
            "    offset = None\n"
            "\n"
            "    def inner_factory(ag__):\n"
            "        tf__lam = lambda x: ag__.with_function_scope(lambda lscope: x + offset, 'lscope', "
            f"{OPTIONS})\n"
            "        return tf__lam\n"
            "    return inner_factory\n")
    assert int(generated(tf.constant(1))) == 4
    converted = tf.autograph.to_graph(bounded)
    assert int(converted(tf.constant(3))) == 6
    assert int(tf.function(converted, autograph=False)(tf.constant(-3))) == 3
    assert int(tf.function(converted, autograph=False)(tf.constant(2))) == 4
    assert tf.autograph.to_graph(negated)(False) is True and tf.autograph.to_graph(negated)(True) is False
