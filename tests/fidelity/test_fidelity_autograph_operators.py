"""Fidelity: AutoGraph reference, "Operator semantics" (tensorflow/python/autograph/g3doc/reference/
operators.md), differential against TensorFlow 2.21.

Each `ex_*` function is an adapted example of the document; its test compares what tensorflux prints or
raises with what the same function printed or raised under TensorFlow 2.21 (recorded literals). The
document's examples are pairs of user code and the code AutoGraph generates for it: the user code is
wrapped in a function and `tf.autograph.to_code` of it is compared, character for character, with
TensorFlow's (the document's listings are abridged; TensorFlow 2.21's full text is the expected value).
The dispatch rules it states (Python values take the Python path, tensors the TensorFlow one) are run.

Normalised: the order of names in `nonlocal` statements and of `ag__.Undefined` lines, which TensorFlow
emits in hash-set order (`canonical_code`).

Left out: `ag__.eq(tf.constant(1), tf.constant(2))` and other direct calls of the `ag__` operators: the
operators module is internal to TensorFlow (no public `tf.` name), so user code cannot call it.
"""
import pytest

import tensorflux as tf
from fidelity._fidelity_autograph import canonical_code, class_names, error_of, output_of

OPTIONS = ("ag__.ConversionOptions(recursive=True, user_requested=True, optional_features=(), "
           "internal_convert_user_code=True)")


# --- Generated code of the document's examples ---------------------------------------------------------

def ex_to_code_if_else():
    def choose(x):
        if x:
            y = 1
        else:
            y = 2
        return y

    print(tf.autograph.to_code(choose))


def ex_to_code_if_exp():
    def choose(cond, true_val, false_val):
        return true_val if cond else false_val

    print(tf.autograph.to_code(choose))


def ex_to_code_for_range():
    def accumulate(j):
        for i in range(3):
            j = j + i
        return j

    print(tf.autograph.to_code(accumulate))


def ex_to_code_for_range_with_break():
    def accumulate(j):
        for i in range(3):
            if i > 2:
                break
            j = j + i
        return j

    print(tf.autograph.to_code(accumulate))


def ex_to_code_if_without_else():
    def bump(j, i, k):
        if k > 1:
            j = j + i
        return j

    print(tf.autograph.to_code(bump))


def ex_to_code_while():
    def grow(j, i):
        while j > 10:
            j = j + i
        return j

    print(tf.autograph.to_code(grow))


def ex_to_code_list_append():
    def extend(items, x):
        items.append(x)
        return items

    print(tf.autograph.to_code(extend))


def ex_to_code_list_append_with_lists_feature():
    def extend(items, x):
        items.append(x)
        return items

    print(tf.autograph.to_code(
        extend, experimental_optional_features=tf.autograph.experimental.Feature.LISTS))


def ex_to_code_list_pop():
    def take_last(items):
        x = items.pop()
        return x

    print(tf.autograph.to_code(take_last))


# --- Type-based dispatch -------------------------------------------------------------------------------

def negate(x):
    return not x


def ex_not_dispatch():
    converted = tf.autograph.to_graph(negate)
    print(converted(False), not False)
    print(repr(converted(tf.constant(False))))


def pick(cond, true_val, false_val):
    return true_val if cond else false_val


def ex_if_exp_dispatch():
    converted = tf.autograph.to_graph(pick)
    print(converted(True, 'yes', 'no'), converted(0, 'yes', 'no'))
    graph_pick = tf.function(pick)
    print(graph_pick(tf.constant(True), tf.constant(1), tf.constant(2)).numpy(),
          graph_pick(tf.constant(False), tf.constant(1), tf.constant(2)).numpy())


def ex_if_exp_on_tensor_checks_types():
    tf.function(pick)(tf.constant(True), tf.constant(1), tf.constant(2.0))


def op_types(function, *args):
    return [op.type for op in function.get_concrete_function(*args).graph.get_operations()]


def ex_for_over_tf_range_is_a_graph_loop():
    @tf.function
    def total(n):
        s = tf.constant(0)
        for i in tf.range(n):
            s += i
        return s

    kinds = op_types(total, tf.constant(4))
    print(total(tf.constant(4)).numpy(), '| Range op:', 'Range' in kinds,
          '| loop op:', 'While' in kinds or 'StatelessWhile' in kinds)


def ex_for_over_tensor_iterates_outer_dimension():
    @tf.function
    def row_sums(m):
        sums = tf.TensorArray(tf.int32, size=0, dynamic_size=True)
        for row in m:
            sums = sums.write(sums.size(), tf.reduce_sum(row))
        return sums.stack()

    print(row_sums(tf.constant([[1, 2], [3, 4], [5, 6]])).numpy())


def ex_while_dispatch_on_test_type():
    def grow(j, i):
        while j < 10:
            j = j + i
        return j

    print(grow(1, 4), tf.function(grow)(tf.constant(1), tf.constant(4)).numpy())


# === Tests: TensorFlow 2.21 output as the expected value ===============================================


def test_to_code_if_else():
    assert canonical_code(output_of(ex_to_code_if_else)) == canonical_code(
        'def tf__choose(x):\n'
        f"    with ag__.FunctionScope('choose', 'fscope', {OPTIONS}) as fscope:\n"
        '        do_return = False\n'
        '        retval_ = ag__.UndefinedReturnValue()\n'
        '\n'
        '        def get_state():\n'
        '            return (y,)\n'
        '\n'
        '        def set_state(vars_):\n'
        '            nonlocal y\n'
        '            y, = vars_\n'
        '\n'
        '        def if_body():\n'
        '            nonlocal y\n'
        '            y = 1\n'
        '\n'
        '        def else_body():\n'
        '            nonlocal y\n'
        '            y = 2\n'
        "        y = ag__.Undefined('y')\n"
        "        ag__.if_stmt(ag__.ld(x), if_body, else_body, get_state, set_state, ('y',), 1)\n"
        '        try:\n'
        '            do_return = True\n'
        '            retval_ = ag__.ld(y)\n'
        '        except:\n'
        '            do_return = False\n'
        '            raise\n'
        '        return fscope.ret(retval_, do_return)\n'
        '\n'
    )


def test_to_code_if_exp():
    assert canonical_code(output_of(ex_to_code_if_exp)) == canonical_code(
        'def tf__choose(cond, true_val, false_val):\n'
        f"    with ag__.FunctionScope('choose', 'fscope', {OPTIONS}) as fscope:\n"
        '        do_return = False\n'
        '        retval_ = ag__.UndefinedReturnValue()\n'
        '        try:\n'
        '            do_return = True\n'
        "            retval_ = ag__.if_exp(ag__.ld(cond), lambda: ag__.ld(true_val), lambda: ag__.ld(false_val), "
        "'cond')\n"
        '        except:\n'
        '            do_return = False\n'
        '            raise\n'
        '        return fscope.ret(retval_, do_return)\n'
        '\n'
    )


def test_to_code_for_range():
    assert canonical_code(output_of(ex_to_code_for_range)) == canonical_code(
        'def tf__accumulate(j):\n'
        f"    with ag__.FunctionScope('accumulate', 'fscope', {OPTIONS}) as fscope:\n"
        '        do_return = False\n'
        '        retval_ = ag__.UndefinedReturnValue()\n'
        '\n'
        '        def get_state():\n'
        '            return (j,)\n'
        '\n'
        '        def set_state(vars_):\n'
        '            nonlocal j\n'
        '            j, = vars_\n'
        '\n'
        '        def loop_body(itr):\n'
        '            nonlocal j\n'
        '            i = itr\n'
        '            j = ag__.ld(j) + ag__.ld(i)\n'
        "        i = ag__.Undefined('i')\n"
        "        ag__.for_stmt(ag__.converted_call(ag__.ld(range), (3,), None, fscope), None, loop_body, get_state, "
        "set_state, ('j',), {'iterate_names': 'i'})\n"
        '        try:\n'
        '            do_return = True\n'
        '            retval_ = ag__.ld(j)\n'
        '        except:\n'
        '            do_return = False\n'
        '            raise\n'
        '        return fscope.ret(retval_, do_return)\n'
        '\n'
    )


def test_to_code_for_range_with_break():
    assert canonical_code(output_of(ex_to_code_for_range_with_break)) == canonical_code(
        'def tf__accumulate(j):\n'
        f"    with ag__.FunctionScope('accumulate', 'fscope', {OPTIONS}) as fscope:\n"
        '        do_return = False\n'
        '        retval_ = ag__.UndefinedReturnValue()\n'
        '        break_ = False\n'
        '\n'
        '        def get_state_2():\n'
        '            return (j, break_)\n'
        '\n'
        '        def set_state_2(vars_):\n'
        '            nonlocal break_, j\n'
        '            j, break_ = vars_\n'
        '\n'
        '        def loop_body(itr):\n'
        '            nonlocal break_, j\n'
        '            i = itr\n'
        '            continue_ = False\n'
        '            (break_,)\n'
        '\n'
        '            def get_state():\n'
        '                return (break_, continue_)\n'
        '\n'
        '            def set_state(vars_):\n'
        '                nonlocal break_, continue_\n'
        '                break_, continue_ = vars_\n'
        '\n'
        '            def if_body():\n'
        '                nonlocal break_, continue_\n'
        '                break_ = True\n'
        '                continue_ = True\n'
        '\n'
        '            def else_body():\n'
        '                nonlocal break_, continue_\n'
        '                pass\n'
        "            ag__.if_stmt(ag__.ld(i) > 2, if_body, else_body, get_state, set_state, ('break_', 'continue_'), "
        "2)\n"
        '\n'
        '            def get_state_1():\n'
        '                return (j,)\n'
        '\n'
        '            def set_state_1(vars_):\n'
        '                nonlocal j\n'
        '                j, = vars_\n'
        '\n'
        '            def if_body_1():\n'
        '                nonlocal j\n'
        '                j = ag__.ld(j) + ag__.ld(i)\n'
        '\n'
        '            def else_body_1():\n'
        '                nonlocal j\n'
        '                pass\n'
        "            ag__.if_stmt(ag__.not_(continue_), if_body_1, else_body_1, get_state_1, set_state_1, ('j',), 1)\n"
        '\n'
        '        def extra_test():\n'
        '            nonlocal break_, j\n'
        '            return ag__.not_(break_)\n'
        "        i = ag__.Undefined('i')\n"
        "        continue_ = ag__.Undefined('continue_')\n"
        "        ag__.for_stmt(ag__.converted_call(ag__.ld(range), (3,), None, fscope), extra_test, loop_body, "
        "get_state_2, set_state_2, ('j', 'break_'), {'iterate_names': 'i'})\n"
        '        try:\n'
        '            do_return = True\n'
        '            retval_ = ag__.ld(j)\n'
        '        except:\n'
        '            do_return = False\n'
        '            raise\n'
        '        return fscope.ret(retval_, do_return)\n'
        '\n'
    )


def test_to_code_if_without_else():
    assert canonical_code(output_of(ex_to_code_if_without_else)) == canonical_code(
        'def tf__bump(j, i, k):\n'
        f"    with ag__.FunctionScope('bump', 'fscope', {OPTIONS}) as fscope:\n"
        '        do_return = False\n'
        '        retval_ = ag__.UndefinedReturnValue()\n'
        '\n'
        '        def get_state():\n'
        '            return (j,)\n'
        '\n'
        '        def set_state(vars_):\n'
        '            nonlocal j\n'
        '            j, = vars_\n'
        '\n'
        '        def if_body():\n'
        '            nonlocal j\n'
        '            j = ag__.ld(j) + ag__.ld(i)\n'
        '\n'
        '        def else_body():\n'
        '            nonlocal j\n'
        '            pass\n'
        "        ag__.if_stmt(ag__.ld(k) > 1, if_body, else_body, get_state, set_state, ('j',), 1)\n"
        '        try:\n'
        '            do_return = True\n'
        '            retval_ = ag__.ld(j)\n'
        '        except:\n'
        '            do_return = False\n'
        '            raise\n'
        '        return fscope.ret(retval_, do_return)\n'
        '\n'
    )


def test_to_code_while():
    assert canonical_code(output_of(ex_to_code_while)) == canonical_code(
        'def tf__grow(j, i):\n'
        f"    with ag__.FunctionScope('grow', 'fscope', {OPTIONS}) as fscope:\n"
        '        do_return = False\n'
        '        retval_ = ag__.UndefinedReturnValue()\n'
        '\n'
        '        def get_state():\n'
        '            return (j,)\n'
        '\n'
        '        def set_state(vars_):\n'
        '            nonlocal j\n'
        '            j, = vars_\n'
        '\n'
        '        def loop_body():\n'
        '            nonlocal j\n'
        '            j = ag__.ld(j) + ag__.ld(i)\n'
        '\n'
        '        def loop_test():\n'
        '            return ag__.ld(j) > 10\n'
        "        ag__.while_stmt(loop_test, loop_body, get_state, set_state, ('j',), {})\n"
        '        try:\n'
        '            do_return = True\n'
        '            retval_ = ag__.ld(j)\n'
        '        except:\n'
        '            do_return = False\n'
        '            raise\n'
        '        return fscope.ret(retval_, do_return)\n'
        '\n'
    )


def test_to_code_list_append():
    assert canonical_code(output_of(ex_to_code_list_append)) == canonical_code(
        'def tf__extend(items, x):\n'
        f"    with ag__.FunctionScope('extend', 'fscope', {OPTIONS}) as fscope:\n"
        '        do_return = False\n'
        '        retval_ = ag__.UndefinedReturnValue()\n'
        '        ag__.converted_call(ag__.ld(items).append, (ag__.ld(x),), None, fscope)\n'
        '        try:\n'
        '            do_return = True\n'
        '            retval_ = ag__.ld(items)\n'
        '        except:\n'
        '            do_return = False\n'
        '            raise\n'
        '        return fscope.ret(retval_, do_return)\n'
        '\n'
    )


def test_to_code_list_append_with_lists_feature():
    assert canonical_code(output_of(ex_to_code_list_append_with_lists_feature)) == canonical_code(
        'def tf__extend(items, x):\n'
        "    with ag__.FunctionScope('extend', 'fscope', ag__.ConversionOptions(recursive=True, user_requested=True, "
        "optional_features=ag__.Feature.LISTS, internal_convert_user_code=True)) as fscope:\n"
        '        do_return = False\n'
        '        retval_ = ag__.UndefinedReturnValue()\n'
        '        items = ag__.list_append(ag__.ld(items), ag__.ld(x))\n'
        '        try:\n'
        '            do_return = True\n'
        '            retval_ = ag__.ld(items)\n'
        '        except:\n'
        '            do_return = False\n'
        '            raise\n'
        '        return fscope.ret(retval_, do_return)\n'
        '\n'
    )


def test_to_code_list_pop():
    assert canonical_code(output_of(ex_to_code_list_pop)) == canonical_code(
        'def tf__take_last(items):\n'
        f"    with ag__.FunctionScope('take_last', 'fscope', {OPTIONS}) as fscope:\n"
        '        do_return = False\n'
        '        retval_ = ag__.UndefinedReturnValue()\n'
        '        x = ag__.converted_call(ag__.ld(items).pop, (), None, fscope)\n'
        '        try:\n'
        '            do_return = True\n'
        '            retval_ = ag__.ld(x)\n'
        '        except:\n'
        '            do_return = False\n'
        '            raise\n'
        '        return fscope.ret(retval_, do_return)\n'
        '\n'
    )


def test_not_dispatch():
    assert output_of(ex_not_dispatch) == (
        'True True\n'
        '<tf.Tensor: shape=(), dtype=bool, numpy=True>\n'
    )


def test_if_exp_dispatch():
    assert output_of(ex_if_exp_dispatch) == (
        'yes no\n'
        '1 2\n'
    )


def test_if_exp_on_tensor_checks_types():
    _, error = error_of(ex_if_exp_on_tensor_checks_types)
    assert class_names(error)[:2] == ['TypeError', 'Exception']
    assert "'cond' has dtype int32 in the main branch, but dtype float32 in the else branch" in str(error)


def test_for_over_tf_range_is_a_graph_loop():
    assert output_of(ex_for_over_tf_range_is_a_graph_loop) == '6 | Range op: True | loop op: True\n'


def test_for_over_tensor_iterates_outer_dimension():
    assert output_of(ex_for_over_tensor_iterates_outer_dimension) == '[ 3  7 11]\n'


def test_while_dispatch_on_test_type():
    assert output_of(ex_while_dispatch_on_test_type) == '13 13\n'
