"""`get_concrete_function(...).graph.as_graph_def()` prints TensorFlow 2.21's text (the intro_to_graphs guide
prints one). The expected texts in fixtures/graph_def_printouts_tf221.txt were printed by TensorFlow 2.21 for
the same functions; only the process-wide counters in function names are masked (`__inference_inner_<n>`,
`cond_true_<n>`),
as TensorFlow's depend on everything the process traced before.

Covered: the plain GraphDef's attrs (no `_output_shapes` unless asked for, as TensorFlow's default),
constants in TensorFlow's fields (`float_val: 2` with `tensor_shape {}` for one number, tensor_content for
more), the reduction axes constant, captured variables' placeholders named after their first consumer
(`AssignAddVariableOp/resource`) and made where first used, `read_value()`'s `Read/ReadVariableOp` +
`Identity`, the automatic control NoOp as `^NoOp` on the output, and a pure callee as `PartitionedCall`
with TensorFlow's private attrs, and a `tf.cond` of two lambdas: `StatelessIf` with TensorFlow's private attrs,
one input per outer tensor, branch functions with `cond/`-scoped nodes, output Identities and argument names
(`cond_mul_x`; counters masked as `cond_true_<n>`). A `tf.while_loop` (TensorFlow's counter and limit
inputs, `while/`-scoped functions returning through Identities) and a cond whose branch reads a variable (the
branch's automatic control NoOp) are compared up to the order of the library's functions, which TensorFlow
lists in its hash map's order."""
import os
import re

import pytest

import tensorflux as tf

FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", "graph_def_printouts_tf221.txt")
S = tf.TensorSpec([], tf.float32)
V = tf.TensorSpec([2], tf.float32)


def _expected():
    cases, name = {}, None
    with open(FIXTURE) as f:
        for line in f:
            found = re.match(r"===== (\w+)$", line)
            if found:
                name = found.group(1)
                cases[name] = []
            else:
                cases[name].append(line)
    return {k: "".join(v) for k, v in cases.items()}


def _printed(fn, *specs):
    text = str(tf.function(fn).get_concrete_function(*specs).graph.as_graph_def()) + "\n"
    text = re.sub(r"(cond|while)_(true|false|cond|body)_\d+", r"\1_\2_<n>", text)
    return re.sub(r"__inference_(\w+?)_\d+", r"__inference_\1_<n>", text)


def _cases():
    variable = tf.Variable(1.0)

    @tf.function
    def inner(x):
        return x + 1.0

    def arith(x, y):
        return x * y + 2.0

    def vector_const(x):
        return x + tf.constant([1.0, 2.0])

    def matmul_sum(x):
        m = tf.reshape(x, [1, 2])
        return tf.reduce_sum(tf.matmul(m, tf.transpose(m)))

    def strings_bools(x):
        return tf.strings.length(tf.constant("abc")), tf.logical_not(tf.constant(True)), x

    def assign_then_read(x):
        variable.assign_add(x)
        return variable.read_value()

    def read_plus(x):
        return variable.read_value() + x

    def nested(x):
        return inner(x) * 3.0

    def cond_lambda(x):
        return tf.cond(x > 0.0, lambda: x * 2.0, lambda: x - 1.0)

    return {"arith": (arith, [S, S]), "vector_const": (vector_const, [V]), "matmul_sum": (matmul_sum, [V]),
            "strings_bools": (strings_bools, [S]), "variable": (assign_then_read, [S]),
            "variable_read": (read_plus, [S]), "nested": (nested, [S]), "cond_lambda": (cond_lambda, [S])}


def _functions_sorted(text):
    """The text with its library's functions in name order (TensorFlow lists them in its hash map's order)."""
    head, found, rest = text.partition("library {\n")
    if not found:
        return text
    library, _, tail = rest.rpartition("}\nversions")
    functions = sorted(f for f in re.split(r"(?m)^  function \{\n", library) if f.strip())
    return head + found + "  function {\n".join([""] + functions) + "}\nversions" + tail


@pytest.mark.parametrize("case", ["while_loop", "cond_reads_variable"])
def test_control_flow_graph_def_prints_as_tensorflow_up_to_function_order(case):
    variable = tf.Variable(1.0)

    def while_loop(x):
        return tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * 2.0), [tf.constant(0), x])

    def cond_reads_variable(x):
        return tf.cond(x > 0.0, lambda: variable * x, lambda: x)

    fn = {"while_loop": while_loop, "cond_reads_variable": cond_reads_variable}[case]
    assert _functions_sorted(_printed(fn, S)) == _functions_sorted(_expected()[case])


@pytest.mark.parametrize("case", ["arith", "vector_const", "matmul_sum", "strings_bools", "variable",
                                  "variable_read", "nested", "cond_lambda"])
def test_graph_def_prints_as_tensorflow(case):
    fn, specs = _cases()[case]
    assert _printed(fn, *specs) == _expected()[case]


def test_shapes_only_when_asked_for():
    cf = tf.function(lambda x: x * 2.0).get_concrete_function(S)
    from tensorflux._src.io.formats.graph_export import export_graph_def
    plain, shaped = cf.graph.as_graph_def(), export_graph_def(cf, add_shapes=True)
    assert not any("_output_shapes" in n.attr for n in plain.node)
    assert all("_output_shapes" in n.attr for n in shaped.node)


def test_cond_and_while_carry_tensorflows_private_attrs_and_numbered_functions():
    variable = tf.Variable(2.0)

    def cond_reads_variable(x):
        return tf.cond(x > 0.0, lambda: variable * x, lambda: x)

    def loop(x):
        return tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * 2.0), [tf.constant(0), x])

    graph_def = tf.function(cond_reads_variable).get_concrete_function(S).graph.as_graph_def()
    (node,) = [n for n in graph_def.node if n.op == "If"]
    # the variable's handle (input 1, after the condition) is read, never written, in the branches
    assert list(node.attr["Tin"].list.type)[0] == tf.resource.as_datatype_enum
    assert list(node.attr["_read_only_resource_inputs"].list.i) == [1]
    assert node.attr["_lower_using_switch_merge"].b is True
    then_name, else_name = node.attr["then_branch"].func.name, node.attr["else_branch"].func.name
    then_number = int(re.fullmatch(r"cond_true_(\d+)", then_name).group(1))
    assert else_name == f"cond_false_{then_number + 1}"
    assert {f.signature.name for f in graph_def.library.function} == {then_name, else_name}
    graph_def = tf.function(loop).get_concrete_function(S).graph.as_graph_def()
    (node,) = [n for n in graph_def.node if n.op == "StatelessWhile"]
    assert node.attr["_lower_using_switch_merge"].b is True
    assert node.attr["_num_original_outputs"].i == len(node.attr["T"].list.type)
    assert re.fullmatch(r"while_cond_\d+", node.attr["cond"].func.name)
    assert re.fullmatch(r"while_body_\d+", node.attr["body"].func.name)
    assert graph_def.versions.producer == 2474 and graph_def.versions.min_consumer == 12


def test_exporting_a_graph_again_keeps_its_function_names():
    cf = tf.function(lambda x: tf.cond(x > 0.0, lambda: x, lambda: -x)).get_concrete_function(S)
    first = [f.signature.name for f in cf.graph.as_graph_def().library.function]
    assert [f.signature.name for f in cf.graph.as_graph_def().library.function] == first


def test_add_shapes_adds_output_shapes():
    @tf.function
    def f(x):
        return x * 2

    graph = f.get_concrete_function(tf.TensorSpec([3])).graph
    assert "_output_shapes" in str(graph.as_graph_def(add_shapes=True))
    assert "_output_shapes" not in str(graph.as_graph_def())
