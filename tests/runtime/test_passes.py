"""Runtime graph passes: each pass's op list before and after, and compiled == eager (differential)."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tensorflux as tf
from tensorflux._src.framework.context import state
from tensorflux._src.ops import registry
from tensorflux._src.ops.math.arith import CAST
from tensorflux._src.runtime import passes
from tensorflux._src.runtime.passes.cse import eliminate_common_subexpressions
from tensorflux._src.runtime.passes.fold import FOLD_MAX_ELEMENTS, fold_constants
from tensorflux._src.runtime.passes.inline import inline_calls
from tensorflux._src.runtime.passes.rewrite import plain_key
from tensorflux._src.runtime.passes.simplify import _broadcasts_into, _inverse, simplify_arithmetic

F32 = tf.float32
RNG = np.random.default_rng(0)


def concrete(fn, *specs):
    return tf.function(fn, autograph=False).get_concrete_function(*specs)


def types(ops):
    return [op.type for op in ops if op.type != "Placeholder"]


def traced_ops(cf):
    return inline_calls(cf.graph.get_operations(), {})


def final_ops(cf):
    ops, _ = passes.run_all(cf.graph, cf.outputs)
    return ops


def remapped(result, tensors):
    return [result.remap.get(id(t), t) for t in tensors]


def values(x):
    return [np.asarray(t) for t in (x if isinstance(x, (list, tuple)) else [x])]


def assert_same_as_eager(fn, *args):
    """The compiled function and the plain Python function on eager tensors give the same numbers."""
    graph = tf.function(fn, autograph=False)(*args)
    eager = fn(*args)
    for g, e in zip(values(graph), values(eager)):
        assert g.dtype == e.dtype and g.shape == e.shape
        np.testing.assert_array_equal(g, e)


def f32(*shape):
    return tf.constant(RNG.standard_normal(shape).astype(np.float32))


# -- simplify --------------------------------------------------------------------------------------
def test_multiply_by_one_and_add_zero_disappear():
    def f(x):
        return x * 1.0 + 0.0

    cf = concrete(f, tf.TensorSpec([3], F32))
    ops = traced_ops(cf)
    assert types(ops) == ["Const", "Mul", "Const", "AddV2", "Identity"]
    result = simplify_arithmetic(ops)
    assert dict(result.counts) == {"x*1": 1, "x+0": 1, "identity chain": 1}
    assert remapped(result, cf.outputs) == [cf.graph.inputs[0]]  # the function returns its argument
    assert types(final_ops(cf)) == []
    assert "k_Mul" not in cf.generated_source() and "return (x,)" in cf.generated_source()
    assert_same_as_eager(f, f32(3))


@pytest.mark.parametrize("fn, rule", [
    (lambda x: 1.0 * x, "1*x"), (lambda x: 0.0 + x, "0+x"), (lambda x: x - 0.0, "x-0"),
    (lambda x: x / 1.0, "x/1"), (lambda x: tf.add(x, 0.0), "x+0"), (lambda x: x * [1.0, 1.0, 1.0], "x*1"),
    (lambda x: x * [[1.0], [1.0]], "x*1"), (lambda x: tf.math.divide(x, 1.0), "x/1"),
])
def test_each_arithmetic_identity(fn, rule):
    cf = concrete(fn, tf.TensorSpec([2, 3], F32))
    result = simplify_arithmetic(traced_ops(cf))
    assert result.counts[rule] == 1
    assert types(final_ops(cf)) == []
    assert_same_as_eager(fn, f32(2, 3))


def test_integer_identities_simplify_too():
    def f(x):
        return (x * 1 + 0) - 0

    cf = concrete(f, tf.TensorSpec([None], tf.int32))
    assert types(final_ops(cf)) == []
    assert_same_as_eager(f, tf.constant([1, -2, 3]))


@pytest.mark.parametrize("fn, spec", [
    (lambda x: x * [1.0, 1.0], tf.TensorSpec([], F32)),        # the constant would widen a scalar
    (lambda x: x * [1.0, 1.0], tf.TensorSpec([None], F32)),    # x may be [1]: broadcasting widens it
    (lambda x: x + [[0.0, 0.0]], tf.TensorSpec([2], F32)),      # the constant adds a dimension
    (lambda x: x * 2.0, tf.TensorSpec([2], F32)),               # not a neutral element
    (lambda x: 0.0 - x, tf.TensorSpec([2], F32)),               # 0 - x is a negation
    (lambda x: 1.0 / x, tf.TensorSpec([2], F32)),
    (lambda x: x * [1.0, 2.0], tf.TensorSpec([2], F32)),        # only some elements are 1
])
def test_arithmetic_that_is_not_an_identity_stays(fn, spec):
    cf = concrete(fn, spec)
    assert sum(simplify_arithmetic(traced_ops(cf)).counts.values()) == 1  # only the output Identity
    assert len(types(final_ops(cf))) == 2
    x = tf.constant(np.float32(1.5)) if spec.shape.rank == 0 else tf.constant([1.5, -2.0], F32)
    assert_same_as_eager(fn, x)


def test_shape_condition_allows_a_size_one_constant_against_an_unknown_dim():
    def f(x):
        return x * [1.0]

    cf = concrete(f, tf.TensorSpec([None], F32))
    assert types(final_ops(cf)) == []
    assert_same_as_eager(f, f32(4))
    assert_same_as_eager(f, f32(0))


@pytest.mark.parametrize("const_shape, x_dims, expected", [
    ((), None, True), ((), (None, 2), True), ((1,), (None,), True), ((3,), (2, 3), True),
    ((2, 1), (2, 3), True), ((1, 1), (3,), False), ((2,), (None,), False), ((3,), None, False),
    ((2,), (3,), False), ((1,), (), False),
])
def test_broadcast_condition(const_shape, x_dims, expected):
    assert _broadcasts_into(const_shape, x_dims) is expected


def test_inverse_permutation_condition():
    class Op:
        def __init__(self, perm):
            self.attrs = {} if perm is None else {"perm": perm}

    assert _inverse(Op(None), Op(None)) and _inverse(Op((1, 0)), Op(None)) and _inverse(Op((1, 2, 0)), Op((2, 0, 1)))
    assert _inverse(Op((-1, 0, 1)), Op((1, 2, 0)))
    assert not _inverse(Op((1, 2, 0)), Op((1, 2, 0))) and not _inverse(Op((0, 2, 1)), Op(None))


def test_double_transpose_with_inverse_permutations_is_dropped():
    def default(x):
        return tf.transpose(tf.transpose(x))

    def inverse(x):
        return tf.transpose(tf.transpose(x, [1, 2, 0]), [2, 0, 1])

    def not_inverse(x):
        return tf.transpose(tf.transpose(x, [1, 2, 0]), [1, 2, 0])

    for fn, kept in ((default, []), (inverse, []), (not_inverse, ["Transpose", "Transpose"])):
        for shape in ([2, 3, 4], [2, 2, 2]):  # on a cube a wrong rule would keep the shape
            cf = concrete(fn, tf.TensorSpec(shape, F32))
            assert types(final_ops(cf)) == kept
            assert_same_as_eager(fn, f32(*shape))
    cf = concrete(default, tf.TensorSpec(None, F32))  # reversing twice needs no known rank
    assert simplify_arithmetic(traced_ops(cf)).counts["double transpose"] == 1


def test_identity_chains_collapse_and_returned_inputs_still_work():
    def chain(x):
        return tf.identity(tf.identity(tf.identity(x)))

    cf = concrete(chain, tf.TensorSpec([2], F32))
    assert types(traced_ops(cf)) == ["Identity"] * 4
    assert simplify_arithmetic(traced_ops(cf)).counts["identity chain"] == 4
    assert types(final_ops(cf)) == []
    assert_same_as_eager(chain, f32(2))

    def passthrough(x, y):
        return x, x, y * 1

    cf = concrete(passthrough, tf.TensorSpec([2], F32), tf.TensorSpec([], tf.int32))
    assert "return (x, x, y" in cf.generated_source()
    out = cf(tf.constant([1.0, 2.0]), tf.constant(3))
    assert [o.numpy().tolist() for o in out[:2]] == [[1.0, 2.0], [1.0, 2.0]] and out[2].numpy() == 3
    assert tf.function(lambda x: x)(tf.constant(7)).numpy() == 7


def test_same_dtype_cast_and_same_shape_reshape_are_dropped():
    def f(x):
        same = registry.apply(CAST, (x,), {"DstT": np.dtype(np.float32)}, "Cast")  # tf.cast skips these itself
        return tf.reshape(same, [2, 3]) + tf.cast(tf.cast(x, tf.int32), F32)

    cf = concrete(f, tf.TensorSpec([2, 3], F32))
    counts = simplify_arithmetic(traced_ops(cf)).counts
    assert counts["same-dtype cast"] == 1 and counts["same-shape reshape"] == 1
    assert types(final_ops(cf)) == ["Cast", "Cast", "AddV2"]
    assert_same_as_eager(f, f32(2, 3) * 4)


@pytest.mark.parametrize("spec, target, dropped", [
    ([None, 3], [-1, 3], True),       # one unknown dim, fixed by the element count
    ([None, None], [-1, 3], False),
    ([2, 3], [3, 2], False),
    ([None, 0], [-1, 0], False),      # with a zero dim the element count says nothing
])
def test_reshape_is_dropped_only_when_it_must_be_the_identity(spec, target, dropped):
    def f(x):
        return tf.reshape(x, target)

    cf = concrete(f, tf.TensorSpec(spec, F32))
    assert (types(final_ops(cf)) == []) is dropped
    shape = [3 if d is None else d for d in spec]
    assert_same_as_eager(f, tf.zeros(shape) + 1.5)


# -- fold ------------------------------------------------------------------------------------------
def test_constant_expression_is_folded():
    def f(x):
        return tf.constant(2.0) * tf.constant(3.0) + x

    cf = concrete(f, tf.TensorSpec([2], F32))
    ops = traced_ops(cf)
    assert types(ops) == ["Const", "Const", "Mul", "AddV2", "Identity"]
    result = fold_constants(ops)
    assert dict(result.counts) == {"Mul": 1}
    assert types(result.ops) == ["Const", "Const", "Const", "AddV2", "Identity"]
    final = final_ops(cf)
    assert types(final) == ["Const", "AddV2"]
    folded = final[1]
    assert folded.attrs["value"].tolist() == 6.0 and folded.attrs["value"].dtype == np.float32
    assert folded.outputs[0].dtype is F32 and folded.opdef is None
    assert_same_as_eager(f, f32(2))


def test_folding_goes_through_chains_and_multi_output_ops():
    def f(x):
        a, b = tf.unstack(tf.constant([[1.0, 2.0], [3.0, 4.0]]))
        return tf.reduce_sum(tf.range(10)) + tf.cast(x, tf.int32), a * b + x

    cf = concrete(f, tf.TensorSpec([2], F32))
    assert types(final_ops(cf)) == ["Const", "Cast", "AddV2", "Const", "AddV2"]
    assert_same_as_eager(f, f32(2))


def test_fold_leaves_large_results_failing_kernels_and_random_ops():
    def f(x):
        big = tf.range(FOLD_MAX_ELEMENTS + 1) * 2                       # more than the bound
        bad = tf.gather(tf.constant([1, 2, 3]), tf.constant(5))         # fails at run time
        noise = tf.random.stateless_normal([2], seed=[1, 2])            # random, even if stateless
        return big, bad + x, noise

    cf = concrete(f, tf.TensorSpec([], tf.int32))
    assert sum(fold_constants(traced_ops(cf)).counts.values()) == 0
    kept = types(final_ops(cf))
    assert {"Range", "Mul", "GatherV2", "StatelessRandomNormal"} <= set(kept)
    with pytest.raises(tf.errors.InvalidArgumentError, match="node GatherV2"):
        cf(tf.constant(1))


def test_folded_values_are_copies_not_views_of_other_constants():
    def f(x):
        source = tf.constant([1.0, 2.0, 3.0, 4.0])
        return tf.reshape(source, [2, 2]) + x, tf.identity(source) * x

    cf = concrete(f, tf.TensorSpec([], F32))
    ops = traced_ops(cf)
    folded = fold_constants(ops).ops
    source = next(op for op in ops if op.name == "Const").attrs["value"]
    reshaped = next(op for op in folded if op.name == "Reshape").attrs["value"]
    assert reshaped.shape == (2, 2) and not np.shares_memory(reshaped, source)
    assert_same_as_eager(f, tf.constant(2.0))


def test_string_ops_fold():
    def f(x):
        return tf.strings.join([tf.constant("a"), tf.constant("b")]), x

    cf = concrete(f, tf.TensorSpec([], F32))
    final = final_ops(cf)
    assert types(final) == ["Const"] and final[1].attrs["value"].dtype == object
    assert cf(tf.constant(1.0))[0].numpy() == b"ab"


# -- cse -------------------------------------------------------------------------------------------
def test_repeated_subexpression_is_computed_once():
    def f(x, y):
        return (x + y) * (x + y)

    cf = concrete(f, tf.TensorSpec([3], F32), tf.TensorSpec([3], F32))
    ops = traced_ops(cf)
    assert types(ops) == ["AddV2", "AddV2", "Mul", "Identity"]
    result = eliminate_common_subexpressions(ops)
    assert dict(result.counts) == {"op": 1}
    assert types(result.ops) == ["AddV2", "Mul", "Identity"]
    mul = result.ops[-2]
    assert mul.inputs[0] is mul.inputs[1]
    assert types(final_ops(cf)) == ["AddV2", "Mul"]
    assert_same_as_eager(f, f32(3), f32(3))


def test_equal_small_constants_merge_but_signed_zeros_and_dtypes_stay_apart():
    def f(x, y, n):
        return x * 2.0 + y * 2.0, tf.maximum(x, -0.0) + tf.maximum(y, 0.0), n * 2

    cf = concrete(f, tf.TensorSpec([2], F32), tf.TensorSpec([2], F32), tf.TensorSpec([], tf.int32))
    result = eliminate_common_subexpressions(traced_ops(cf))
    assert result.counts["const"] == 1
    consts = [op.attrs["value"] for op in final_ops(cf) if op.type == "Const"]
    assert sorted((c.dtype.name, float(c), str(c)) for c in consts) == [
        ("float32", -0.0, "-0.0"), ("float32", 0.0, "0.0"), ("float32", 2.0, "2.0"), ("int32", 2.0, "2")]
    assert_same_as_eager(f, f32(2), f32(2), tf.constant(3))


def test_attrs_must_be_equal_by_value():
    def f(x):
        return (tf.reduce_sum(x, axis=0) + tf.reduce_sum(x, axis=0),
                tf.reduce_sum(x, axis=1),
                tf.transpose(x, [1, 0]) * tf.transpose(x, [1, 0]))

    cf = concrete(f, tf.TensorSpec([2, 2], F32))
    assert eliminate_common_subexpressions(traced_ops(cf)).counts["op"] == 2
    assert types(final_ops(cf)).count("Sum") == 2 and types(final_ops(cf)).count("Transpose") == 1
    assert_same_as_eager(f, f32(2, 2))


def test_float_attrs_compare_with_their_sign_and_type():
    def f(x):
        return (tf.nn.leaky_relu(x, alpha=0.0), tf.nn.leaky_relu(x, alpha=-0.0),
                tf.nn.leaky_relu(x, alpha=0.5), tf.nn.leaky_relu(x, alpha=0.5))

    cf = concrete(f, tf.TensorSpec([2], F32))
    assert eliminate_common_subexpressions(traced_ops(cf)).counts["op"] == 2  # a LeakyRelu, then its Identity
    assert types(final_ops(cf)).count("LeakyRelu") == 3
    x = tf.constant([-1.0, 2.0])
    zero, minus_zero = cf(x)[:2]
    assert np.signbit(zero.numpy()[0]) and not np.signbit(minus_zero.numpy()[0])
    assert_same_as_eager(f, x)


def test_attr_keys():
    assert plain_key(0.0) != plain_key(-0.0) and plain_key(1) != plain_key(True) != plain_key(1.0)
    assert plain_key((1, (2, "a"))) == plain_key((1, (2, "a")))
    assert plain_key(np.dtype("float32")) == plain_key(np.dtype("float32")) != plain_key(np.dtype("float64"))
    assert plain_key(tf.TensorShape([None, 2])) == plain_key(tf.TensorShape([None, 2]))
    assert plain_key(tf.TensorShape(None)) != plain_key(tf.TensorShape([]))
    for unplain in ([1, 2], np.zeros(2), lambda: 0, (1, [2]), tf.function(lambda: 0)):
        assert plain_key(unplain) is None


def test_cse_sees_inputs_rewritten_by_simplify():
    def f(x, y):
        return (x * 1.0 + y) * tf.identity(x + y)

    cf = concrete(f, tf.TensorSpec([2], F32), tf.TensorSpec([2], F32))
    assert types(final_ops(cf)) == ["AddV2", "Mul"]
    assert_same_as_eager(f, f32(2), f32(2))


# -- stateful ops ----------------------------------------------------------------------------------
def test_prints_are_never_merged_folded_or_dropped(capfd):
    @tf.function
    def f(x):
        tf.print("value", tf.constant(1) + tf.constant(1))
        tf.print("value", tf.constant(1) + tf.constant(1))
        return x * 1

    cf = f.get_concrete_function(tf.constant(5))
    final = types(final_ops(cf))
    assert final.count("PrintV2") == 2
    assert cf(tf.constant(5)).numpy() == 5
    assert capfd.readouterr().err.count("value 2") == 2


def test_variable_updates_and_reads_keep_their_order_and_count():
    v = tf.Variable(0.0)

    @tf.function
    def f():
        before = v.read_value() * 1.0
        v.assign_add(1.0)
        v.assign_add(1.0)
        after = v.read_value() + 0.0
        return before, after

    cf = f.get_concrete_function()
    final = types(final_ops(cf))
    assert final.count("AssignAddVariableOp") == 2 and final.count("ReadVariableOp") == 2
    before, after = f()
    assert (before.numpy(), after.numpy()) == (0.0, 2.0)
    before, after = f()
    assert (before.numpy(), after.numpy()) == (2.0, 4.0)


def test_random_ops_are_never_merged_or_folded():
    @tf.function
    def f():
        tf.random.uniform([3])  # unused, but stateful: it stays
        return tf.random.uniform([3]), tf.random.uniform([3])

    cf = f.get_concrete_function()
    assert types(final_ops(cf)).count("RandomUniform") == 3
    a, b = f()
    assert not np.array_equal(a.numpy(), b.numpy())

    @tf.function
    def g():
        return tf.random.stateless_uniform([3], seed=[1, 2]) + tf.random.stateless_uniform([3], seed=[1, 2])

    assert types(final_ops(g.get_concrete_function())).count("StatelessRandomUniform") == 2
    np.testing.assert_allclose(g().numpy(), 2 * tf.random.stateless_uniform([3], seed=[1, 2]).numpy())


def test_ops_with_control_inputs_are_kept():
    v = tf.Variable(1.0)

    @tf.function
    def f(x):
        v.assign_add(1.0)
        update = state.graph.get_operations()[-1]
        assert update.type == "AssignAddVariableOp"
        same = x * 1.0
        with state.graph.control_dependencies([update]):
            y = tf.identity(same)  # its input is rewritten: the copy must keep the control input
        return y

    cf = f.get_concrete_function(tf.TensorSpec([], F32))
    ops, outputs = passes.run_all(cf.graph, cf.outputs, keep_stateful=False)  # only what outputs need
    assert types(ops) == ["Const", "AssignAddVariableOp", "Identity"]
    identity = ops[-1]
    assert outputs == identity.outputs
    assert identity.inputs[0] is cf.graph.inputs[0] and identity.control_inputs[0].type == "AssignAddVariableOp"
    assert f(tf.constant(3.0)).numpy() == 3.0 and v.numpy() == 2.0


def test_control_flow_ops_are_not_folded():
    def f(x):
        return tf.cond(tf.constant(True), lambda: tf.constant(1.0), lambda: tf.constant(2.0)) + x

    cf = concrete(f, tf.TensorSpec([], F32))
    assert "StatelessIf" in types(final_ops(cf))
    assert_same_as_eager(f, tf.constant(1.5))


# -- the graph itself, nesting, gradients ----------------------------------------------------------
def test_traced_graph_is_left_as_traced():
    def f(x, y):
        return (x * 1.0 + y) * (x * 1.0 + y) + tf.constant(1.0) * tf.constant(2.0)

    cf = concrete(f, tf.TensorSpec([2], F32), tf.TensorSpec([2], F32))
    snapshot = [(op, list(op.inputs), list(op.outputs)) for op in cf.graph.get_operations()]
    cf.generated_source()
    passes.explain(cf)
    after = cf.graph.get_operations()
    assert [op for op, _, _ in snapshot] == after
    assert all(list(op.inputs) == inputs and list(op.outputs) == outputs for op, inputs, outputs in snapshot)
    assert types(after).count("Mul") == 4


def test_branches_and_loop_bodies_are_simplified():
    def f(x):
        y = tf.cond(tf.reduce_sum(x) > 0, lambda: x * 1.0, lambda: tf.identity(x + 0.0) - 1.0)
        _, z = tf.while_loop(lambda i, acc: i < 3, lambda i, acc: (i + 1, (acc + 1.0) * 1.0), (0, y))
        return z

    cf = concrete(f, tf.TensorSpec([2], F32))
    source = cf.generated_source()
    assert "k_Mul" not in source and "k_Identity" not in source
    assert_same_as_eager(f, tf.constant([1.0, 2.0]))
    assert_same_as_eager(f, tf.constant([-1.0, -2.0]))


def test_passes_repeat_while_one_enables_another():
    def f(x, y):
        return x * (tf.constant(3.0) - 2.0) + y, x + y

    cf = concrete(f, tf.TensorSpec([2], F32), tf.TensorSpec([2], F32))
    assert types(final_ops(cf)) == ["AddV2"]  # fold makes the 1, simplify drops x*1, cse merges the adds
    text = passes.explain(cf)
    assert "simplify (round 2): 1 rewrite (x*1)" in text and "cse (round 2): 1 rewrite (op)" in text
    assert_same_as_eager(f, f32(2), f32(2))


def test_nested_function_calls_are_optimised_after_inlining():
    @tf.function
    def inner(a):
        return a * 1.0 + tf.constant(1.0) * tf.constant(2.0)

    def outer(a):
        return inner(a) * inner(a)

    cf = concrete(outer, tf.TensorSpec([2], F32))
    assert types(final_ops(cf)) == ["Const", "AddV2", "Mul"]
    assert_same_as_eager(outer, f32(2))


def test_gradients_through_optimised_functions_match_eager():
    def f(x, y):
        return tf.identity((x * 1.0 + y) * (x + y)) * (tf.constant(2.0) * tf.constant(3.0)) + x / 1.0

    traced = tf.function(f)
    x, y = f32(3), f32(3)
    grads = []
    for fn in (f, traced):
        with tf.GradientTape() as tape:
            tape.watch([x, y])
            out = tf.reduce_sum(fn(x, y))
        grads.append([g.numpy() for g in tape.gradient(out, [x, y])])
    for g, e in zip(grads[1], grads[0]):
        np.testing.assert_allclose(g, e, rtol=1e-6)

    passthrough = tf.function(lambda a: tf.identity(a))
    with tf.GradientTape() as tape:
        tape.watch(x)
        out = tf.reduce_sum(passthrough(x) * 3.0)
    np.testing.assert_allclose(tape.gradient(out, x).numpy(), [3.0, 3.0, 3.0])


@settings(max_examples=40, deadline=None)
@given(rule=st.sampled_from(["mul", "rmul", "add", "radd", "sub", "div"]),
       const_shape=st.sampled_from([(), (1,), (3,), (2, 1), (2, 3), (1, 1, 3)]),
       x_shape=st.sampled_from([(), (3,), (2, 3), (1, 3)]),
       neutral=st.booleans(), unknown=st.booleans())
def test_simplified_arithmetic_matches_eager_for_any_broadcast(rule, const_shape, x_shape, neutral, unknown):
    base = 0.0 if rule in ("add", "radd", "sub") else 1.0
    c = np.full(const_shape, base if neutral else 2.5, np.float32)
    ops = {"mul": lambda x: x * c, "rmul": lambda x: c * x, "add": lambda x: x + c, "radd": lambda x: c + x,
           "sub": lambda x: x - c, "div": lambda x: x / c}
    fn = ops[rule]
    spec = tf.TensorSpec([None] * len(x_shape) if unknown else x_shape, F32)
    x = tf.constant(RNG.standard_normal(x_shape).astype(np.float32))
    cf = concrete(fn, spec)
    out = cf(x)
    expected = fn(x)
    assert out.shape == expected.shape and out.dtype is expected.dtype
    np.testing.assert_array_equal(out.numpy(), expected.numpy())


# -- seeing what the passes did --------------------------------------------------------------------
def test_explain_lists_each_pass_with_its_rewrite_counts():
    def f(x):
        return x * 1.0 + 0.0

    text = passes.explain(concrete(f, tf.TensorSpec([3], F32)))
    assert "runtime passes for graph" in text
    assert "  before: 6 ops" in text and "    mul = Mul(x, mul/y)" in text
    assert "  inline: no change" in text
    assert "  simplify: 3 rewrites (x*1, x+0, identity chain), 3 ops" in text
    assert "  prune: 2 rewrites (dead op x2), 1 ops" in text
    assert text.rstrip().endswith("return x")


def test_explain_covers_branch_graphs():
    def f(x):
        return tf.cond(x > 0, lambda: x * 1.0, lambda: x - 1.0)

    text = passes.explain(concrete(f, tf.TensorSpec([], F32)))
    assert "then_graph of" in text and "else_graph of" in text and "x*1" in text


def test_dump_environment_variable_prints_the_passes(monkeypatch, capsys):
    monkeypatch.setenv("TENSORFLUX_DUMP_PASSES", "1")
    cf = concrete(lambda x: tf.identity(x * 1.0), tf.TensorSpec([], F32))
    cf.generated_source()
    err = capsys.readouterr().err
    assert "runtime passes for graph" in err and "simplify: 3 rewrites (x*1, identity chain x2), 2 ops" in err
    monkeypatch.delenv("TENSORFLUX_DUMP_PASSES")
    concrete(lambda x: x + 1.0, tf.TensorSpec([], F32)).generated_source()
    assert capsys.readouterr().err == ""


def test_a_dropped_pure_op_leaves_the_control_inputs_it_was_named_in():
    @tf.function
    def f(x):
        pure = tf.identity(x * 1.0)
        with state.graph.control_dependencies([pure.op]):
            y = x + 1.0
        return y

    cf = f.get_concrete_function(tf.TensorSpec([], F32))
    ops, _ = passes.run_all(cf.graph, cf.outputs)
    assert types(ops) == ["Const", "AddV2"] and all(op.control_inputs == [] for op in ops)
    traced_add = next(op for op in cf.graph.get_operations() if op.type == "AddV2")
    assert [c.type for c in traced_add.control_inputs] == ["Identity"]  # the traced graph keeps it
    assert f(tf.constant(2.0)).numpy() == 3.0
