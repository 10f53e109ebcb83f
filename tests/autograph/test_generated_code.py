"""tf.autograph.to_code against TensorFlow 2.21's generated code for shapes the fidelity documents do
not show: local functions and lambdas, returns inside loops, `global`, functions without a return,
`del` and starred calls, attribute state, docstrings, a return in one branch, tuple targets, names local
to a loop body, names first bound in a loop, nested loops with break/continue, elif chains,
try/except in a loop, `while True` with break, keyword-only defaults, returns in nested loops, attribute
and item state in loops.

Each expected value is what TensorFlow 2.21's `tf.autograph.to_code` printed for the same function
(recorded literal; `canonical_code` sorts what TensorFlow emits in hash-set order).
"""
import pytest

import tensorflux as tf
from fidelity._fidelity_autograph import canonical_code


def combine(*args, **kwargs):
    return args, kwargs


g = 0

def nested(x):
    def inner(y):
        return y + x
    f = lambda z: z * 2
    print(x)
    return inner(f(x))

def while_ret(n):
    i = 0
    while i < n:
        if i > 5:
            return i
        i += 1
    return -1

def uses_global(x):
    global g
    if x > 0:
        g = x
    return g

def no_return(x):
    if x > 0:
        print(x)

def del_and_star(x, *args, **kw):
    y = x
    del y
    return combine(*args, x, **kw)

def attr_assign(obj, x):
    if x > 0:
        obj.a = x
    return obj

def docstring(x):
    """Doc."""
    return x

def early(x):
    if x > 0:
        return 1
    else:
        x = x + 1
    x = x * 2
    return x

def tuple_target(pairs):
    s = 0
    for a, b in pairs:
        s = s + a * b
    return s

def local_in_loop(n):
    for i in range(n):
        t = i * 2
        print(t)
    return n

def defined_later(n):
    i = 0
    while i < n:
        z = i
        i += 1
    return z

def two_loops(n):
    s = 0
    for i in range(n):
        for j in range(i):
            if j > 2:
                continue
            s += j
    while s > 100:
        s -= 1
        if s == 50:
            break
    return s

def elif_chain(x):
    if x > 2:
        y = 1
    elif x > 1:
        y = 2
    else:
        y = 3
    return y


def try_in_loop(items):
    total = 0
    for v in items:
        try:
            total += int(v)
        except ValueError:
            total -= 1
    return total


def while_true(n):
    i = 0
    while True:
        i += 1
        if i > n:
            break
    return i


def kwonly(a, *args, b=2, **kw):
    return a + b + len(args) + len(kw)


def return_in_for(items):
    for v in items:
        if v > 3:
            return v
    return None


def aug_attr(obj, n):
    for i in range(n):
        obj.count += i
    return obj


def subscript_state(d, n):
    i = 0
    while i < n:
        d['k'] = i
        i += 1
    return d


def nested_loops_return(m):
    for i in range(m):
        j = 0
        while j < i:
            if i * j > 6:
                return i * j
            j += 1
    return 0


EXPECTED = {
    'nested': "def tf__nested(x):\n    with ag__.FunctionScope('nested', 'fscope', ag__.ConversionOptions(recursive=True, user_requested=True, optional_features=(), internal_convert_user_code=True)) as fscope:\n        do_return = False\n        retval_ = ag__.UndefinedReturnValue()\n\n        @ag__.autograph_artifact\n        def inner(y):\n            with ag__.FunctionScope('inner', 'fscope_1', ag__.STD) as fscope_1:\n                do_return_1 = False\n                retval__1 = ag__.UndefinedReturnValue()\n                try:\n                    do_return_1 = True\n                    retval__1 = ag__.ld(y) + ag__.ld(x)\n                except:\n                    do_return_1 = False\n                    raise\n                return fscope_1.ret(retval__1, do_return_1)\n        f = ag__.autograph_artifact(lambda z: ag__.ld(z) * 2)\n        ag__.ld(print)(ag__.ld(x))\n        try:\n            do_return = True\n            retval_ = ag__.converted_call(ag__.ld(inner), (ag__.converted_call(ag__.ld(f), (ag__.ld(x),), None, fscope),), None, fscope)\n        except:\n            do_return = False\n            raise\n        return fscope.ret(retval_, do_return)\n",
    'while_ret': "def tf__while_ret(n):\n    with ag__.FunctionScope('while_ret', 'fscope', ag__.ConversionOptions(recursive=True, user_requested=True, optional_features=(), internal_convert_user_code=True)) as fscope:\n        do_return = False\n        retval_ = ag__.UndefinedReturnValue()\n        i = 0\n\n        def get_state_1():\n            return (do_return, retval_, i)\n\n        def set_state_1(vars_):\n            nonlocal do_return, retval_, i\n            do_return, retval_, i = vars_\n\n        def loop_body():\n            nonlocal do_return, retval_, i\n\n            def get_state():\n                return (do_return, i, retval_)\n\n            def set_state(vars_):\n                nonlocal do_return, i, retval_\n                do_return, i, retval_ = vars_\n\n            def if_body():\n                nonlocal do_return, i, retval_\n                try:\n                    do_return = True\n                    retval_ = ag__.ld(i)\n                except:\n                    do_return = False\n                    raise\n\n            def else_body():\n                nonlocal do_return, i, retval_\n                i = ag__.ld(i)\n                i += 1\n            ag__.if_stmt(ag__.ld(i) > 5, if_body, else_body, get_state, set_state, ('do_return', 'i', 'retval_'), 3)\n\n        def loop_test():\n            return ag__.and_(lambda: ag__.not_(do_return), lambda: ag__.ld(i) < ag__.ld(n))\n        ag__.while_stmt(loop_test, loop_body, get_state_1, set_state_1, ('do_return', 'retval_', 'i'), {})\n\n        def get_state_2():\n            return (do_return, retval_)\n\n        def set_state_2(vars_):\n            nonlocal do_return, retval_\n            do_return, retval_ = vars_\n\n        def if_body_1():\n            nonlocal do_return, retval_\n            try:\n                do_return = True\n                retval_ = -1\n            except:\n                do_return = False\n                raise\n\n        def else_body_1():\n            nonlocal do_return, retval_\n            pass\n        ag__.if_stmt(ag__.not_(do_return), if_body_1, else_body_1, get_state_2, set_state_2, ('do_return', 'retval_'), 2)\n        return fscope.ret(retval_, do_return)\n",
    'uses_global': "def tf__uses_global(x):\n    with ag__.FunctionScope('uses_global', 'fscope', ag__.ConversionOptions(recursive=True, user_requested=True, optional_features=(), internal_convert_user_code=True)) as fscope:\n        do_return = False\n        retval_ = ag__.UndefinedReturnValue()\n        global g\n\n        def get_state():\n            return (g,)\n\n        def set_state(vars_):\n            global g\n            g, = vars_\n\n        def if_body():\n            global g\n            g = ag__.ld(x)\n\n        def else_body():\n            global g\n            pass\n        ag__.if_stmt(ag__.ld(x) > 0, if_body, else_body, get_state, set_state, ('g',), 1)\n        try:\n            do_return = True\n            retval_ = ag__.ld(g)\n        except:\n            do_return = False\n            raise\n        return fscope.ret(retval_, do_return)\n",
    'no_return': "def tf__no_return(x):\n    with ag__.FunctionScope('no_return', 'fscope', ag__.ConversionOptions(recursive=True, user_requested=True, optional_features=(), internal_convert_user_code=True)) as fscope:\n\n        def get_state():\n            return ()\n\n        def set_state(block_vars):\n            pass\n\n        def if_body():\n            ag__.ld(print)(ag__.ld(x))\n\n        def else_body():\n            pass\n        ag__.if_stmt(ag__.ld(x) > 0, if_body, else_body, get_state, set_state, (), 0)\n",
    'del_and_star': "def tf__del_and_star(x, *args, **kw):\n    with ag__.FunctionScope('del_and_star', 'fscope', ag__.ConversionOptions(recursive=True, user_requested=True, optional_features=(), internal_convert_user_code=True)) as fscope:\n        do_return = False\n        retval_ = ag__.UndefinedReturnValue()\n        y = ag__.ld(x)\n        y = ag__.Undefined('y')\n        try:\n            do_return = True\n            retval_ = ag__.converted_call(ag__.ld(combine), tuple(ag__.ld(args)) + (ag__.ld(x),), dict(**ag__.ld(kw)), fscope)\n        except:\n            do_return = False\n            raise\n        return fscope.ret(retval_, do_return)\n",
    'attr_assign': "def tf__attr_assign(obj, x):\n    with ag__.FunctionScope('attr_assign', 'fscope', ag__.ConversionOptions(recursive=True, user_requested=True, optional_features=(), internal_convert_user_code=True)) as fscope:\n        do_return = False\n        retval_ = ag__.UndefinedReturnValue()\n\n        def get_state():\n            return (ag__.ldu(lambda: obj.a, 'obj.a'),)\n\n        def set_state(vars_):\n            obj.a, = vars_\n\n        def if_body():\n            ag__.ld(obj).a = ag__.ld(x)\n\n        def else_body():\n            pass\n        ag__.if_stmt(ag__.ld(x) > 0, if_body, else_body, get_state, set_state, ('obj.a',), 1)\n        try:\n            do_return = True\n            retval_ = ag__.ld(obj)\n        except:\n            do_return = False\n            raise\n        return fscope.ret(retval_, do_return)\n",
    'docstring': 'def tf__docstring(x):\n    """Doc."""\n    with ag__.FunctionScope(\'docstring\', \'fscope\', ag__.ConversionOptions(recursive=True, user_requested=True, optional_features=(), internal_convert_user_code=True)) as fscope:\n        do_return = False\n        retval_ = ag__.UndefinedReturnValue()\n        try:\n            do_return = True\n            retval_ = ag__.ld(x)\n        except:\n            do_return = False\n            raise\n        return fscope.ret(retval_, do_return)\n',
    'early': "def tf__early(x):\n    with ag__.FunctionScope('early', 'fscope', ag__.ConversionOptions(recursive=True, user_requested=True, optional_features=(), internal_convert_user_code=True)) as fscope:\n        do_return = False\n        retval_ = ag__.UndefinedReturnValue()\n\n        def get_state():\n            return (do_return, retval_, x)\n\n        def set_state(vars_):\n            nonlocal do_return, x, retval_\n            do_return, retval_, x = vars_\n\n        def if_body():\n            nonlocal do_return, x, retval_\n            try:\n                do_return = True\n                retval_ = 1\n            except:\n                do_return = False\n                raise\n\n        def else_body():\n            nonlocal do_return, x, retval_\n            x = ag__.ld(x) + 1\n            x = ag__.ld(x) * 2\n            try:\n                do_return = True\n                retval_ = ag__.ld(x)\n            except:\n                do_return = False\n                raise\n        ag__.if_stmt(ag__.ld(x) > 0, if_body, else_body, get_state, set_state, ('do_return', 'retval_', 'x'), 2)\n        return fscope.ret(retval_, do_return)\n",
    'tuple_target': "def tf__tuple_target(pairs):\n    with ag__.FunctionScope('tuple_target', 'fscope', ag__.ConversionOptions(recursive=True, user_requested=True, optional_features=(), internal_convert_user_code=True)) as fscope:\n        do_return = False\n        retval_ = ag__.UndefinedReturnValue()\n        s = 0\n\n        def get_state():\n            return (s,)\n\n        def set_state(vars_):\n            nonlocal s\n            s, = vars_\n\n        def loop_body(itr):\n            nonlocal s\n            a, b = itr\n            s = ag__.ld(s) + ag__.ld(a) * ag__.ld(b)\n        b = ag__.Undefined('b')\n        a = ag__.Undefined('a')\n        ag__.for_stmt(ag__.ld(pairs), None, loop_body, get_state, set_state, ('s',), {'iterate_names': '(a, b)'})\n        try:\n            do_return = True\n            retval_ = ag__.ld(s)\n        except:\n            do_return = False\n            raise\n        return fscope.ret(retval_, do_return)\n",
    'local_in_loop': "def tf__local_in_loop(n):\n    with ag__.FunctionScope('local_in_loop', 'fscope', ag__.ConversionOptions(recursive=True, user_requested=True, optional_features=(), internal_convert_user_code=True)) as fscope:\n        do_return = False\n        retval_ = ag__.UndefinedReturnValue()\n\n        def get_state():\n            return ()\n\n        def set_state(block_vars):\n            pass\n\n        def loop_body(itr):\n            i = itr\n            t = ag__.ld(i) * 2\n            ag__.ld(print)(ag__.ld(t))\n        i = ag__.Undefined('i')\n        t = ag__.Undefined('t')\n        ag__.for_stmt(ag__.converted_call(ag__.ld(range), (ag__.ld(n),), None, fscope), None, loop_body, get_state, set_state, (), {'iterate_names': 'i'})\n        try:\n            do_return = True\n            retval_ = ag__.ld(n)\n        except:\n            do_return = False\n            raise\n        return fscope.ret(retval_, do_return)\n",
    'defined_later': "def tf__defined_later(n):\n    with ag__.FunctionScope('defined_later', 'fscope', ag__.ConversionOptions(recursive=True, user_requested=True, optional_features=(), internal_convert_user_code=True)) as fscope:\n        do_return = False\n        retval_ = ag__.UndefinedReturnValue()\n        i = 0\n\n        def get_state():\n            return (z, i)\n\n        def set_state(vars_):\n            nonlocal i, z\n            z, i = vars_\n\n        def loop_body():\n            nonlocal i, z\n            z = ag__.ld(i)\n            i = ag__.ld(i)\n            i += 1\n\n        def loop_test():\n            return ag__.ld(i) < ag__.ld(n)\n        z = ag__.Undefined('z')\n        ag__.while_stmt(loop_test, loop_body, get_state, set_state, ('z', 'i'), {})\n        try:\n            do_return = True\n            retval_ = ag__.ld(z)\n        except:\n            do_return = False\n            raise\n        return fscope.ret(retval_, do_return)\n",
    'two_loops': "def tf__two_loops(n):\n    with ag__.FunctionScope('two_loops', 'fscope', ag__.ConversionOptions(recursive=True, user_requested=True, optional_features=(), internal_convert_user_code=True)) as fscope:\n        do_return = False\n        retval_ = ag__.UndefinedReturnValue()\n        s = 0\n\n        def get_state_3():\n            return (s,)\n\n        def set_state_3(vars_):\n            nonlocal s\n            s, = vars_\n\n        def loop_body_1(itr_1):\n            nonlocal s\n            i = itr_1\n\n            def get_state_2():\n                return (s,)\n\n            def set_state_2(vars_):\n                nonlocal s\n                s, = vars_\n\n            def loop_body(itr):\n                nonlocal s\n                j = itr\n                continue__1 = False\n\n                def get_state():\n                    return (continue__1,)\n\n                def set_state(vars_):\n                    nonlocal continue__1\n                    continue__1, = vars_\n\n                def if_body():\n                    nonlocal continue__1\n                    continue__1 = True\n\n                def else_body():\n                    nonlocal continue__1\n                    pass\n                ag__.if_stmt(ag__.ld(j) > 2, if_body, else_body, get_state, set_state, ('continue__1',), 1)\n\n                def get_state_1():\n                    return (s,)\n\n                def set_state_1(vars_):\n                    nonlocal s\n                    s, = vars_\n\n                def if_body_1():\n                    nonlocal s\n                    s = ag__.ld(s)\n                    s += j\n\n                def else_body_1():\n                    nonlocal s\n                    pass\n                ag__.if_stmt(ag__.not_(continue__1), if_body_1, else_body_1, get_state_1, set_state_1, ('s',), 1)\n            ag__.for_stmt(ag__.converted_call(ag__.ld(range), (ag__.ld(i),), None, fscope), None, loop_body, get_state_2, set_state_2, ('s',), {'iterate_names': 'j'})\n        i = ag__.Undefined('i')\n        j = ag__.Undefined('j')\n        continue__1 = ag__.Undefined('continue__1')\n        ag__.for_stmt(ag__.converted_call(ag__.ld(range), (ag__.ld(n),), None, fscope), None, loop_body_1, get_state_3, set_state_3, ('s',), {'iterate_names': 'i'})\n        break__2 = False\n\n        def get_state_5():\n            return (s, break__2)\n\n        def set_state_5(vars_):\n            nonlocal break__2, s\n            s, break__2 = vars_\n\n        def loop_body_2():\n            nonlocal break__2, s\n            continue__2 = False\n            s = ag__.ld(s)\n            s -= 1\n\n            def get_state_4():\n                return (break__2,)\n\n            def set_state_4(vars_):\n                nonlocal break__2\n                break__2, = vars_\n\n            def if_body_2():\n                nonlocal break__2\n                break__2 = True\n                continue__2 = True\n\n            def else_body_2():\n                nonlocal break__2\n                pass\n            ag__.if_stmt(ag__.ld(s) == 50, if_body_2, else_body_2, get_state_4, set_state_4, ('break__2',), 1)\n\n        def loop_test():\n            return ag__.and_(lambda: ag__.not_(break__2), lambda: ag__.ld(s) > 100)\n        continue__2 = ag__.Undefined('continue__2')\n        ag__.while_stmt(loop_test, loop_body_2, get_state_5, set_state_5, ('s', 'break__2'), {})\n        try:\n            do_return = True\n            retval_ = ag__.ld(s)\n        except:\n            do_return = False\n            raise\n        return fscope.ret(retval_, do_return)\n",
    'elif_chain': "def tf__elif_chain(x):\n    with ag__.FunctionScope('elif_chain', 'fscope', ag__.ConversionOptions(recursive=True, user_requested=True, optional_features=(), internal_convert_user_code=True)) as fscope:\n        do_return = False\n        retval_ = ag__.UndefinedReturnValue()\n\n        def get_state_1():\n            return (y,)\n\n        def set_state_1(vars_):\n            nonlocal y\n            y, = vars_\n\n        def if_body_1():\n            nonlocal y\n            y = 1\n\n        def else_body_1():\n            nonlocal y\n\n            def get_state():\n                return (y,)\n\n            def set_state(vars_):\n                nonlocal y\n                y, = vars_\n\n            def if_body():\n                nonlocal y\n                y = 2\n\n            def else_body():\n                nonlocal y\n                y = 3\n            y = ag__.Undefined('y')\n            ag__.if_stmt(ag__.ld(x) > 1, if_body, else_body, get_state, set_state, ('y',), 1)\n        y = ag__.Undefined('y')\n        ag__.if_stmt(ag__.ld(x) > 2, if_body_1, else_body_1, get_state_1, set_state_1, ('y',), 1)\n        try:\n            do_return = True\n            retval_ = ag__.ld(y)\n        except:\n            do_return = False\n            raise\n        return fscope.ret(retval_, do_return)\n",
    'try_in_loop': "def tf__try_in_loop(items):\n    with ag__.FunctionScope('try_in_loop', 'fscope', ag__.ConversionOptions(recursive=True, user_requested=True, optional_features=(), internal_convert_user_code=True)) as fscope:\n        do_return = False\n        retval_ = ag__.UndefinedReturnValue()\n        total = 0\n\n        def get_state():\n            return (total,)\n\n        def set_state(vars_):\n            nonlocal total\n            total, = vars_\n\n        def loop_body(itr):\n            nonlocal total\n            v = itr\n            try:\n                total = ag__.ld(total)\n                total += ag__.converted_call(int, (v,), None, fscope)\n            except ValueError:\n                total = ag__.ld(total)\n                total -= 1\n        v = ag__.Undefined('v')\n        ag__.for_stmt(ag__.ld(items), None, loop_body, get_state, set_state, ('total',), {'iterate_names': 'v'})\n        try:\n            do_return = True\n            retval_ = ag__.ld(total)\n        except:\n            do_return = False\n            raise\n        return fscope.ret(retval_, do_return)\n",
    'while_true': "def tf__while_true(n):\n    with ag__.FunctionScope('while_true', 'fscope', ag__.ConversionOptions(recursive=True, user_requested=True, optional_features=(), internal_convert_user_code=True)) as fscope:\n        do_return = False\n        retval_ = ag__.UndefinedReturnValue()\n        i = 0\n        break_ = False\n\n        def get_state_1():\n            return (i, break_)\n\n        def set_state_1(vars_):\n            nonlocal i, break_\n            i, break_ = vars_\n\n        def loop_body():\n            nonlocal i, break_\n            continue_ = False\n            i = ag__.ld(i)\n            i += 1\n\n            def get_state():\n                return (break_,)\n\n            def set_state(vars_):\n                nonlocal break_\n                break_, = vars_\n\n            def if_body():\n                nonlocal break_\n                break_ = True\n                continue_ = True\n\n            def else_body():\n                nonlocal break_\n                pass\n            ag__.if_stmt(ag__.ld(i) > ag__.ld(n), if_body, else_body, get_state, set_state, ('break_',), 1)\n\n        def loop_test():\n            return ag__.and_(lambda: ag__.not_(break_), lambda: True)\n        continue_ = ag__.Undefined('continue_')\n        ag__.while_stmt(loop_test, loop_body, get_state_1, set_state_1, ('i', 'break_'), {})\n        try:\n            do_return = True\n            retval_ = ag__.ld(i)\n        except:\n            do_return = False\n            raise\n        return fscope.ret(retval_, do_return)\n",
    'kwonly': "def tf__kwonly(a, *args, b=None, **kw):\n    with ag__.FunctionScope('kwonly', 'fscope', ag__.ConversionOptions(recursive=True, user_requested=True, optional_features=(), internal_convert_user_code=True)) as fscope:\n        do_return = False\n        retval_ = ag__.UndefinedReturnValue()\n        try:\n            do_return = True\n            retval_ = ag__.ld(a) + ag__.ld(b) + ag__.converted_call(ag__.ld(len), (ag__.ld(args),), None, fscope) + ag__.converted_call(ag__.ld(len), (ag__.ld(kw),), None, fscope)\n        except:\n            do_return = False\n            raise\n        return fscope.ret(retval_, do_return)\n",
    'return_in_for': "def tf__return_in_for(items):\n    with ag__.FunctionScope('return_in_for', 'fscope', ag__.ConversionOptions(recursive=True, user_requested=True, optional_features=(), internal_convert_user_code=True)) as fscope:\n        do_return = False\n        retval_ = ag__.UndefinedReturnValue()\n\n        def get_state_1():\n            return (do_return, retval_)\n\n        def set_state_1(vars_):\n            nonlocal retval_, do_return\n            do_return, retval_ = vars_\n\n        def loop_body(itr):\n            nonlocal retval_, do_return\n            v = itr\n\n            def get_state():\n                return (do_return, retval_)\n\n            def set_state(vars_):\n                nonlocal retval_, do_return\n                do_return, retval_ = vars_\n\n            def if_body():\n                nonlocal retval_, do_return\n                try:\n                    do_return = True\n                    retval_ = ag__.ld(v)\n                except:\n                    do_return = False\n                    raise\n\n            def else_body():\n                nonlocal retval_, do_return\n                pass\n            ag__.if_stmt(ag__.ld(v) > 3, if_body, else_body, get_state, set_state, ('do_return', 'retval_'), 2)\n\n        def extra_test():\n            nonlocal retval_, do_return\n            return ag__.not_(do_return)\n        v = ag__.Undefined('v')\n        ag__.for_stmt(ag__.ld(items), extra_test, loop_body, get_state_1, set_state_1, ('do_return', 'retval_'), {'iterate_names': 'v'})\n\n        def get_state_2():\n            return (do_return, retval_)\n\n        def set_state_2(vars_):\n            nonlocal retval_, do_return\n            do_return, retval_ = vars_\n\n        def if_body_1():\n            nonlocal retval_, do_return\n            try:\n                do_return = True\n                retval_ = None\n            except:\n                do_return = False\n                raise\n\n        def else_body_1():\n            nonlocal retval_, do_return\n            pass\n        ag__.if_stmt(ag__.not_(do_return), if_body_1, else_body_1, get_state_2, set_state_2, ('do_return', 'retval_'), 2)\n        return fscope.ret(retval_, do_return)\n",
    'aug_attr': "def tf__aug_attr(obj, n):\n    with ag__.FunctionScope('aug_attr', 'fscope', ag__.ConversionOptions(recursive=True, user_requested=True, optional_features=(), internal_convert_user_code=True)) as fscope:\n        do_return = False\n        retval_ = ag__.UndefinedReturnValue()\n\n        def get_state():\n            return (ag__.ldu(lambda: obj.count, 'obj.count'),)\n\n        def set_state(vars_):\n            obj.count, = vars_\n\n        def loop_body(itr):\n            i = itr\n            ag__.ld(obj).count += ag__.ld(i)\n        i = ag__.Undefined('i')\n        ag__.for_stmt(ag__.converted_call(ag__.ld(range), (ag__.ld(n),), None, fscope), None, loop_body, get_state, set_state, ('obj.count',), {'iterate_names': 'i'})\n        try:\n            do_return = True\n            retval_ = ag__.ld(obj)\n        except:\n            do_return = False\n            raise\n        return fscope.ret(retval_, do_return)\n",
    'subscript_state': 'def tf__subscript_state(d, n):\n    with ag__.FunctionScope(\'subscript_state\', \'fscope\', ag__.ConversionOptions(recursive=True, user_requested=True, optional_features=(), internal_convert_user_code=True)) as fscope:\n        do_return = False\n        retval_ = ag__.UndefinedReturnValue()\n        i = 0\n\n        def get_state():\n            return (ag__.ldu(lambda: d[\'k\'], "d[\'k\']"), i)\n\n        def set_state(vars_):\n            nonlocal i\n            d[\'k\'], i = vars_\n\n        def loop_body():\n            nonlocal i\n            ag__.ld(d)[\'k\'] = ag__.ld(i)\n            i = ag__.ld(i)\n            i += 1\n\n        def loop_test():\n            return ag__.ld(i) < ag__.ld(n)\n        ag__.while_stmt(loop_test, loop_body, get_state, set_state, ("d[\'k\']", \'i\'), {})\n        try:\n            do_return = True\n            retval_ = ag__.ld(d)\n        except:\n            do_return = False\n            raise\n        return fscope.ret(retval_, do_return)\n',
    'nested_loops_return': "def tf__nested_loops_return(m):\n    with ag__.FunctionScope('nested_loops_return', 'fscope', ag__.ConversionOptions(recursive=True, user_requested=True, optional_features=(), internal_convert_user_code=True)) as fscope:\n        do_return = False\n        retval_ = ag__.UndefinedReturnValue()\n\n        def get_state_2():\n            return (do_return, retval_)\n\n        def set_state_2(vars_):\n            nonlocal retval_, do_return\n            do_return, retval_ = vars_\n\n        def loop_body_1(itr):\n            nonlocal retval_, do_return\n            i = itr\n            j = 0\n\n            def get_state_1():\n                return (do_return, retval_, j)\n\n            def set_state_1(vars_):\n                nonlocal retval_, do_return, j\n                do_return, retval_, j = vars_\n\n            def loop_body():\n                nonlocal retval_, do_return, j\n\n                def get_state():\n                    return (do_return, j, retval_)\n\n                def set_state(vars_):\n                    nonlocal retval_, do_return, j\n                    do_return, j, retval_ = vars_\n\n                def if_body():\n                    nonlocal retval_, do_return, j\n                    try:\n                        do_return = True\n                        retval_ = ag__.ld(i) * ag__.ld(j)\n                    except:\n                        do_return = False\n                        raise\n\n                def else_body():\n                    nonlocal retval_, do_return, j\n                    j = ag__.ld(j)\n                    j += 1\n                ag__.if_stmt(ag__.ld(i) * ag__.ld(j) > 6, if_body, else_body, get_state, set_state, ('do_return', 'j', 'retval_'), 3)\n\n            def loop_test():\n                return ag__.and_(lambda: ag__.not_(do_return), lambda: ag__.ld(j) < ag__.ld(i))\n            ag__.while_stmt(loop_test, loop_body, get_state_1, set_state_1, ('do_return', 'retval_', 'j'), {})\n\n        def extra_test():\n            nonlocal retval_, do_return\n            return ag__.not_(do_return)\n        i = ag__.Undefined('i')\n        j = ag__.Undefined('j')\n        ag__.for_stmt(ag__.converted_call(ag__.ld(range), (ag__.ld(m),), None, fscope), extra_test, loop_body_1, get_state_2, set_state_2, ('do_return', 'retval_'), {'iterate_names': 'i'})\n\n        def get_state_3():\n            return (do_return, retval_)\n\n        def set_state_3(vars_):\n            nonlocal retval_, do_return\n            do_return, retval_ = vars_\n\n        def if_body_1():\n            nonlocal retval_, do_return\n            try:\n                do_return = True\n                retval_ = 0\n            except:\n                do_return = False\n                raise\n\n        def else_body_1():\n            nonlocal retval_, do_return\n            pass\n        ag__.if_stmt(ag__.not_(do_return), if_body_1, else_body_1, get_state_3, set_state_3, ('do_return', 'retval_'), 2)\n        return fscope.ret(retval_, do_return)\n",
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_to_code_matches_tensorflow(name):
    assert canonical_code(tf.autograph.to_code(globals()[name])) == canonical_code(EXPECTED[name])


def test_loop_with_else_is_not_converted():
    def with_else(items):
        for v in items:
            if v:
                break
        else:
            v = 0
        return v

    # TensorFlow 2.21: UnsupportedLanguageElementError 'for/else statement not yet supported'.
    with pytest.raises(Exception, match="for/else statement not yet supported"):
        tf.autograph.to_code(with_else)
