"""Fidelity: AutoGraph reference, "Generated code" (tensorflow/python/autograph/g3doc/reference/
generated_code.md), differential against TensorFlow 2.21.

Each `ex_*` function is an adapted example of the document; its test compares what tensorflux prints
with what the same function printed under TensorFlow 2.21 (recorded literals). For
`tf.autograph.to_code` the expected value is TensorFlow's generated code, character for character: the
document presents that code as normal Python the user can read and step through.

Adaptations: the document's `def f(a): ...` placeholders get small bodies, one per transformation of its
summary list (calls, if/while/for, break/continue/return, and/or/not).

Normalised: the random name of the temporary source file, and (with `canonical_code`) the order of
names in `nonlocal` statements and of `ag__.Undefined` lines, which TensorFlow emits in hash-set order.

Left out: nothing runnable.
"""
import inspect

import tensorflux as tf
from fidelity._fidelity_autograph import canonical_code, output_of, run_script


def scale(a):
    return a * 2


# --- AutoGraph generates normal Python code ------------------------------------------------------------

def ex_source_file_of_converted_function():
    converted = tf.autograph.to_graph(scale)
    print(inspect.getsourcefile(converted))


def ex_source_file_via_python_function():
    @tf.function
    def halve(a):
        return a / 2

    converted = tf.autograph.to_graph(halve.python_function)
    print(inspect.getsourcefile(converted))


def ex_to_code_is_getsource_of_to_graph():
    code = tf.autograph.to_code(scale)
    print(code == inspect.getsource(tf.autograph.to_graph(scale)))


# --- The transformations, as to_code shows them --------------------------------------------------------

def ex_to_code_function_call():
    print(tf.autograph.to_code(scale))

    def calls(a):
        return scale(a) + abs(a)

    print(tf.autograph.to_code(calls))


def ex_to_code_if():
    def clip(a):
        if a > 10:
            a = 10
        else:
            a = a + 1
        return a

    print(tf.autograph.to_code(clip))


def ex_to_code_while():
    def halve_until_small(a):
        while a > 1:
            a = a // 2
        return a

    print(tf.autograph.to_code(halve_until_small))


def ex_to_code_for():
    def total(items):
        s = 0
        for v in items:
            s += v
        return s

    print(tf.autograph.to_code(total))


def ex_to_code_break():
    def first_negative(items):
        found = 0
        for v in items:
            if v < 0:
                found = v
                break
        return found

    print(tf.autograph.to_code(first_negative))


def ex_to_code_continue():
    def positive_sum(items):
        s = 0
        for v in items:
            if v < 0:
                continue
            s += v
        return s

    print(tf.autograph.to_code(positive_sum))


def ex_to_code_return():
    def sign(a):
        if a < 0:
            return -1
        return 1

    print(tf.autograph.to_code(sign))


def ex_to_code_boolean_operators():
    def logic(a, b):
        return (a and b) or not a

    print(tf.autograph.to_code(logic))


# --- Recording diagnostic information ------------------------------------------------------------------

def ex_verbosity_3_logs_generated_code():
    def double(a):
        if a > 0:
            a = a * 2
        return a

    tf.autograph.set_verbosity(3, True)
    try:
        tf.function(double)(tf.constant(1))
    finally:
        tf.autograph.set_verbosity(0, False)


def ex_verbosity_0_logs_nothing():
    def triple(a):
        if a > 0:
            a = a * 3
        return a

    tf.autograph.set_verbosity(0, True)
    try:
        print(tf.function(triple)(tf.constant(1)).numpy())
    finally:
        tf.autograph.set_verbosity(0, False)


VERBOSITY_SCRIPT = '''\\
import logging
import tensorflux as tf

logging.getLogger('tensorflow').setLevel(logging.INFO)  # AutoGraph's log records are at INFO level

def double(a):
    if a > 0:
        a = a * 2
    return a

print(tf.function(double)(tf.constant(1)).numpy())
'''


def ex_verbosity_from_environment():
    text, status = run_script(VERBOSITY_SCRIPT, env={'AUTOGRAPH_VERBOSITY': '3'})
    print(canonical_code(text), end='')
    print('exit:', status)


# === Tests: TensorFlow 2.21 output as the expected value ===============================================

OPTIONS = ("ag__.ConversionOptions(recursive=True, user_requested=True, optional_features=(), "
           "internal_convert_user_code=True)")


def test_source_file_of_converted_function():
    assert output_of(ex_source_file_of_converted_function) == '<tmp>/__autograph_generated_file<random>.py\n'


def test_source_file_via_python_function():
    assert output_of(ex_source_file_via_python_function) == '<tmp>/__autograph_generated_file<random>.py\n'


def test_to_code_is_getsource_of_to_graph():
    assert output_of(ex_to_code_is_getsource_of_to_graph) == 'False\n'


def test_to_code_function_call():
    assert canonical_code(output_of(ex_to_code_function_call)) == canonical_code(
        'def tf__scale(a):\n'
        f"    with ag__.FunctionScope('scale', 'fscope', {OPTIONS}) as fscope:\n"
        '        do_return = False\n'
        '        retval_ = ag__.UndefinedReturnValue()\n'
        '        try:\n'
        '            do_return = True\n'
        '            retval_ = ag__.ld(a) * 2\n'
        '        except:\n'
        '            do_return = False\n'
        '            raise\n'
        '        return fscope.ret(retval_, do_return)\n'
        '\n'
        'def tf__calls(a):\n'
        f"    with ag__.FunctionScope('calls', 'fscope', {OPTIONS}) as fscope:\n"
        '        do_return = False\n'
        '        retval_ = ag__.UndefinedReturnValue()\n'
        '        try:\n'
        '            do_return = True\n'
        '            retval_ = ag__.converted_call(ag__.ld(scale), (ag__.ld(a),), None, fscope) + '
        'ag__.converted_call(ag__.ld(abs), (ag__.ld(a),), None, fscope)\n'
        '        except:\n'
        '            do_return = False\n'
        '            raise\n'
        '        return fscope.ret(retval_, do_return)\n'
        '\n'
    )


def test_to_code_if():
    assert canonical_code(output_of(ex_to_code_if)) == canonical_code(
        'def tf__clip(a):\n'
        f"    with ag__.FunctionScope('clip', 'fscope', {OPTIONS}) as fscope:\n"
        '        do_return = False\n'
        '        retval_ = ag__.UndefinedReturnValue()\n'
        '\n'
        '        def get_state():\n'
        '            return (a,)\n'
        '\n'
        '        def set_state(vars_):\n'
        '            nonlocal a\n'
        '            a, = vars_\n'
        '\n'
        '        def if_body():\n'
        '            nonlocal a\n'
        '            a = 10\n'
        '\n'
        '        def else_body():\n'
        '            nonlocal a\n'
        '            a = ag__.ld(a) + 1\n'
        "        ag__.if_stmt(ag__.ld(a) > 10, if_body, else_body, get_state, set_state, ('a',), 1)\n"
        '        try:\n'
        '            do_return = True\n'
        '            retval_ = ag__.ld(a)\n'
        '        except:\n'
        '            do_return = False\n'
        '            raise\n'
        '        return fscope.ret(retval_, do_return)\n'
        '\n'
    )


def test_to_code_while():
    assert canonical_code(output_of(ex_to_code_while)) == canonical_code(
        'def tf__halve_until_small(a):\n'
        f"    with ag__.FunctionScope('halve_until_small', 'fscope', {OPTIONS}) as fscope:\n"
        '        do_return = False\n'
        '        retval_ = ag__.UndefinedReturnValue()\n'
        '\n'
        '        def get_state():\n'
        '            return (a,)\n'
        '\n'
        '        def set_state(vars_):\n'
        '            nonlocal a\n'
        '            a, = vars_\n'
        '\n'
        '        def loop_body():\n'
        '            nonlocal a\n'
        '            a = ag__.ld(a) // 2\n'
        '\n'
        '        def loop_test():\n'
        '            return ag__.ld(a) > 1\n'
        "        ag__.while_stmt(loop_test, loop_body, get_state, set_state, ('a',), {})\n"
        '        try:\n'
        '            do_return = True\n'
        '            retval_ = ag__.ld(a)\n'
        '        except:\n'
        '            do_return = False\n'
        '            raise\n'
        '        return fscope.ret(retval_, do_return)\n'
        '\n'
    )


def test_to_code_for():
    assert canonical_code(output_of(ex_to_code_for)) == canonical_code(
        'def tf__total(items):\n'
        f"    with ag__.FunctionScope('total', 'fscope', {OPTIONS}) as fscope:\n"
        '        do_return = False\n'
        '        retval_ = ag__.UndefinedReturnValue()\n'
        '        s = 0\n'
        '\n'
        '        def get_state():\n'
        '            return (s,)\n'
        '\n'
        '        def set_state(vars_):\n'
        '            nonlocal s\n'
        '            s, = vars_\n'
        '\n'
        '        def loop_body(itr):\n'
        '            nonlocal s\n'
        '            v = itr\n'
        '            s = ag__.ld(s)\n'
        '            s += v\n'
        "        v = ag__.Undefined('v')\n"
        "        ag__.for_stmt(ag__.ld(items), None, loop_body, get_state, set_state, ('s',), {'iterate_names': 'v'})\n"
        '        try:\n'
        '            do_return = True\n'
        '            retval_ = ag__.ld(s)\n'
        '        except:\n'
        '            do_return = False\n'
        '            raise\n'
        '        return fscope.ret(retval_, do_return)\n'
        '\n'
    )


def test_to_code_break():
    assert canonical_code(output_of(ex_to_code_break)) == canonical_code(
        'def tf__first_negative(items):\n'
        f"    with ag__.FunctionScope('first_negative', 'fscope', {OPTIONS}) as fscope:\n"
        '        do_return = False\n'
        '        retval_ = ag__.UndefinedReturnValue()\n'
        '        found = 0\n'
        '        break_ = False\n'
        '\n'
        '        def get_state_1():\n'
        '            return (found, break_)\n'
        '\n'
        '        def set_state_1(vars_):\n'
        '            nonlocal break_, found\n'
        '            found, break_ = vars_\n'
        '\n'
        '        def loop_body(itr):\n'
        '            nonlocal break_, found\n'
        '            v = itr\n'
        '            continue_ = False\n'
        '            (break_,)\n'
        '\n'
        '            def get_state():\n'
        '                return (break_, found)\n'
        '\n'
        '            def set_state(vars_):\n'
        '                nonlocal break_, found\n'
        '                break_, found = vars_\n'
        '\n'
        '            def if_body():\n'
        '                nonlocal break_, found\n'
        '                found = ag__.ld(v)\n'
        '                break_ = True\n'
        '                continue_ = True\n'
        '\n'
        '            def else_body():\n'
        '                nonlocal break_, found\n'
        '                pass\n'
        "            ag__.if_stmt(ag__.ld(v) < 0, if_body, else_body, get_state, set_state, ('break_', 'found'), 2)\n"
        '\n'
        '        def extra_test():\n'
        '            nonlocal break_, found\n'
        '            return ag__.not_(break_)\n'
        "        continue_ = ag__.Undefined('continue_')\n"
        "        v = ag__.Undefined('v')\n"
        "        ag__.for_stmt(ag__.ld(items), extra_test, loop_body, get_state_1, set_state_1, ('found', 'break_'), "
        "{'iterate_names': 'v'})\n"
        '        try:\n'
        '            do_return = True\n'
        '            retval_ = ag__.ld(found)\n'
        '        except:\n'
        '            do_return = False\n'
        '            raise\n'
        '        return fscope.ret(retval_, do_return)\n'
        '\n'
    )


def test_to_code_continue():
    assert canonical_code(output_of(ex_to_code_continue)) == canonical_code(
        'def tf__positive_sum(items):\n'
        f"    with ag__.FunctionScope('positive_sum', 'fscope', {OPTIONS}) as fscope:\n"
        '        do_return = False\n'
        '        retval_ = ag__.UndefinedReturnValue()\n'
        '        s = 0\n'
        '\n'
        '        def get_state_2():\n'
        '            return (s,)\n'
        '\n'
        '        def set_state_2(vars_):\n'
        '            nonlocal s\n'
        '            s, = vars_\n'
        '\n'
        '        def loop_body(itr):\n'
        '            nonlocal s\n'
        '            v = itr\n'
        '            continue_ = False\n'
        '\n'
        '            def get_state():\n'
        '                return (continue_,)\n'
        '\n'
        '            def set_state(vars_):\n'
        '                nonlocal continue_\n'
        '                continue_, = vars_\n'
        '\n'
        '            def if_body():\n'
        '                nonlocal continue_\n'
        '                continue_ = True\n'
        '\n'
        '            def else_body():\n'
        '                nonlocal continue_\n'
        '                pass\n'
        "            ag__.if_stmt(ag__.ld(v) < 0, if_body, else_body, get_state, set_state, ('continue_',), 1)\n"
        '\n'
        '            def get_state_1():\n'
        '                return (s,)\n'
        '\n'
        '            def set_state_1(vars_):\n'
        '                nonlocal s\n'
        '                s, = vars_\n'
        '\n'
        '            def if_body_1():\n'
        '                nonlocal s\n'
        '                s = ag__.ld(s)\n'
        '                s += v\n'
        '\n'
        '            def else_body_1():\n'
        '                nonlocal s\n'
        '                pass\n'
        "            ag__.if_stmt(ag__.not_(continue_), if_body_1, else_body_1, get_state_1, set_state_1, ('s',), 1)\n"
        "        continue_ = ag__.Undefined('continue_')\n"
        "        v = ag__.Undefined('v')\n"
        "        ag__.for_stmt(ag__.ld(items), None, loop_body, get_state_2, set_state_2, ('s',), {'iterate_names': "
        "'v'})\n"
        '        try:\n'
        '            do_return = True\n'
        '            retval_ = ag__.ld(s)\n'
        '        except:\n'
        '            do_return = False\n'
        '            raise\n'
        '        return fscope.ret(retval_, do_return)\n'
        '\n'
    )


def test_to_code_return():
    assert canonical_code(output_of(ex_to_code_return)) == canonical_code(
        'def tf__sign(a):\n'
        f"    with ag__.FunctionScope('sign', 'fscope', {OPTIONS}) as fscope:\n"
        '        do_return = False\n'
        '        retval_ = ag__.UndefinedReturnValue()\n'
        '\n'
        '        def get_state():\n'
        '            return (do_return, retval_)\n'
        '\n'
        '        def set_state(vars_):\n'
        '            nonlocal do_return, retval_\n'
        '            do_return, retval_ = vars_\n'
        '\n'
        '        def if_body():\n'
        '            nonlocal do_return, retval_\n'
        '            try:\n'
        '                do_return = True\n'
        '                retval_ = -1\n'
        '            except:\n'
        '                do_return = False\n'
        '                raise\n'
        '\n'
        '        def else_body():\n'
        '            nonlocal do_return, retval_\n'
        '            try:\n'
        '                do_return = True\n'
        '                retval_ = 1\n'
        '            except:\n'
        '                do_return = False\n'
        '                raise\n'
        "        ag__.if_stmt(ag__.ld(a) < 0, if_body, else_body, get_state, set_state, ('do_return', 'retval_'), 2)\n"
        '        return fscope.ret(retval_, do_return)\n'
        '\n'
    )


def test_to_code_boolean_operators():
    assert canonical_code(output_of(ex_to_code_boolean_operators)) == canonical_code(
        'def tf__logic(a, b):\n'
        f"    with ag__.FunctionScope('logic', 'fscope', {OPTIONS}) as fscope:\n"
        '        do_return = False\n'
        '        retval_ = ag__.UndefinedReturnValue()\n'
        '        try:\n'
        '            do_return = True\n'
        '            retval_ = ag__.or_(lambda: ag__.and_(lambda: ag__.ld(a), lambda: ag__.ld(b)), lambda: '
        'ag__.not_(ag__.ld(a)))\n'
        '        except:\n'
        '            do_return = False\n'
        '            raise\n'
        '        return fscope.ret(retval_, do_return)\n'
        '\n'
    )


def test_verbosity_3_logs_generated_code():
    assert canonical_code(output_of(ex_verbosity_3_logs_generated_code)) == canonical_code(
        'Converted call: <function ex_verbosity_3_logs_generated_code.<locals>.double at 0x...>\n'
        "    args: (<tf.Tensor 'a:0' shape=() dtype=int32>,)\n"
        '    kwargs: {}\n'
        '\n'
        '<function ex_verbosity_3_logs_generated_code.<locals>.double at 0x...> is not cached for subkey '
        'ConversionOptions[{}]\n'
        'Source code of <function ex_verbosity_3_logs_generated_code.<locals>.double at 0x...>:\n'
        '\n'
        'def double(a):\n'
        '    if a > 0:\n'
        '        a = a * 2\n'
        '    return a\n'
        '\n'
        '\n'
        'Transformed <function ex_verbosity_3_logs_generated_code.<locals>.double at 0x...>:\n'
        '\n'
        '# coding=utf-8\n'
        'def tf__double(a):\n'
        f"    with ag__.FunctionScope('double', 'fscope', {OPTIONS}) as fscope:\n"
        '        do_return = False\n'
        '        retval_ = ag__.UndefinedReturnValue()\n'
        '\n'
        '        def get_state():\n'
        '            return (a,)\n'
        '\n'
        '        def set_state(vars_):\n'
        '            nonlocal a\n'
        '            a, = vars_\n'
        '\n'
        '        def if_body():\n'
        '            nonlocal a\n'
        '            a = ag__.ld(a) * 2\n'
        '\n'
        '        def else_body():\n'
        '            nonlocal a\n'
        '            pass\n'
        "        ag__.if_stmt(ag__.ld(a) > 0, if_body, else_body, get_state, set_state, ('a',), 1)\n"
        '        try:\n'
        '            do_return = True\n'
        '            retval_ = ag__.ld(a)\n'
        '        except:\n'
        '            do_return = False\n'
        '            raise\n'
        '        return fscope.ret(retval_, do_return)\n'
        '\n'
        'Defaults of <function outer_factory.<locals>.inner_factory.<locals>.tf__double at 0x...> : None\n'
        'KW defaults of <function outer_factory.<locals>.inner_factory.<locals>.tf__double at 0x...> : None\n'
        'Calling <function outer_factory.<locals>.inner_factory.<locals>.tf__double at 0x...> with\n'
        '    a: Tensor("a:0", shape=(), dtype=int32)\n'
        '\n'
    )


def test_verbosity_0_logs_nothing():
    assert output_of(ex_verbosity_0_logs_nothing) == '3\n'


def test_verbosity_from_environment():
    assert output_of(ex_verbosity_from_environment) == (
        'INFO:tensorflow:Converted call: <function double at 0x...>\n'
        "    args: (<tf.Tensor 'a:0' shape=() dtype=int32>,)\n"
        '    kwargs: {}\n'
        '\n'
        'INFO:tensorflow:<function double at 0x...> is not cached for subkey ConversionOptions[{}]\n'
        'INFO:tensorflow:Source code of <function double at 0x...>:\n'
        '\n'
        'def double(a):\n'
        '    if a > 0:\n'
        '        a = a * 2\n'
        '    return a\n'
        '\n'
        '\n'
        'INFO:tensorflow:Transformed <function double at 0x...>:\n'
        '\n'
        '# coding=utf-8\n'
        'def tf__double(a):\n'
        f"    with ag__.FunctionScope('double', 'fscope', {OPTIONS}) as fscope:\n"
        '        do_return = False\n'
        '        retval_ = ag__.UndefinedReturnValue()\n'
        '\n'
        '        def get_state():\n'
        '            return (a,)\n'
        '\n'
        '        def set_state(vars_):\n'
        '            nonlocal a\n'
        '            a, = vars_\n'
        '\n'
        '        def if_body():\n'
        '            nonlocal a\n'
        '            a = ag__.ld(a) * 2\n'
        '\n'
        '        def else_body():\n'
        '            nonlocal a\n'
        '            pass\n'
        "        ag__.if_stmt(ag__.ld(a) > 0, if_body, else_body, get_state, set_state, ('a',), 1)\n"
        '        try:\n'
        '            do_return = True\n'
        '            retval_ = ag__.ld(a)\n'
        '        except:\n'
        '            do_return = False\n'
        '            raise\n'
        '        return fscope.ret(retval_, do_return)\n'
        '\n'
        'INFO:tensorflow:Defaults of <function outer_factory.<locals>.inner_factory.<locals>.tf__double at 0x...> : '
        'None\n'
        'INFO:tensorflow:KW defaults of <function outer_factory.<locals>.inner_factory.<locals>.tf__double at 0x...> '
        ': None\n'
        'INFO:tensorflow:Calling <function outer_factory.<locals>.inner_factory.<locals>.tf__double at 0x...> with\n'
        '    a: Tensor("a:0", shape=(), dtype=int32)\n'
        '\n'
        '2\n'
        'exit: 0\n'
    )
