"""Makes the TensorFlow-side data of the graph-protocol-buffer code. Runs under real TensorFlow 2.21 only;
nothing in tensorflux or its tests imports this script.

    ~/venv-tf/bin/python tests/io_formats/make_graph_fixtures.py op-table > tensorflux/_src/io/formats/op_signatures.py
    ~/venv-tf/bin/python tests/io_formats/make_graph_fixtures.py fixtures [DIR]   # default tests/io_formats/fixtures

`op-table` records, for every op type tensorflux implements (plus the structural ops graphs are made of),
the facts of TensorFlow's op interface that a FunctionDef must satisfy: the argument names and how their
dtypes are given, the attrs, their kinds and defaults, and whether the op is stateful. `fixtures` traces a few functions
in TensorFlow (an MLP, control flow with a nested call and a variable update, a CNN with inference-mode
batch norm, shape ops) and writes each as `<name>.pb` (the FunctionDefLibrary: the function and all it
calls) with `<name>.json` (its name, the values of its captures in argument order, and inputs with the
outputs TensorFlow computed); tests/io_formats/test_graph_protos.py imports them. The interop tests run
this same script into a temporary directory.
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf
from tensorflow.core.framework import function_pb2
from tensorflow.python.framework import op_def_registry

HERE = os.path.dirname(os.path.abspath(globals().get("__file__", os.path.join("tests", "io_formats", "-"))))
ROOT = os.path.dirname(os.path.dirname(HERE))

STRUCTURAL = ("Const Placeholder PartitionedCall StatefulPartitionedCall If StatelessIf While StatelessWhile Case StatelessCase NoOp "
              "FusedBatchNorm FusedBatchNormV3 Identity IdentityN VarHandleOp ReadVariableOp AssignVariableOp "
              "AssignAddVariableOp AssignSubVariableOp Mean Prod Any All Min Max SplitV Squeeze Softmax LogSoftmax "
              "Select StopGradient PreventGradient Snapshot EnsureShape AddN Rsqrt Sigmoid Tanh Erf Erfc "
              "Square Maximum Minimum Log Log1p Exp Abs Neg Greater Less RealDiv Mul Sub AddV2 Sum Sqrt Reciprocal "
              "Relu Relu6 Elu Selu LeakyRelu Softplus Softsign Conv2D MaxPool AvgPool BiasAdd MatMul BatchMatMulV2 "
              "Reshape Shape Cast Transpose ExpandDims ConcatV2 Pack Unpack StridedSlice GatherV2 Fill Range "
              "DepthwiseConv2dNative Conv3D MaxPool3D AvgPool3D Einsum ArgMax ArgMin TopKV2 OneHot Tile Pad "
              "PadV2 MirrorPad Slice Split SelectV2 SquaredDifference Floor FloorDiv FloorMod ZerosLike OnesLike "
              "SparseSoftmaxCrossEntropyWithLogits SoftmaxCrossEntropyWithLogits BroadcastTo Size Rank Where "
              "StatelessRandomUniformV2 StatelessRandomNormalV2 StatelessRandomGetKeyCounter "
              "RandomUniform RandomStandardNormal Cumsum ReverseV2 Equal NotEqual LogicalAnd LogicalOr LogicalNot "
              "GreaterEqual LessEqual Pow Sin Cos ClipByValue Xlogy DivNoNan Round Ceil Sign VarIsInitializedOp "
              "RaggedTensorToTensor").split()   # the last: TensorFlow ops imported by rules (import_rules.py)


def _dtype(enum):
    return tf.as_dtype(enum).name


def _default(attr):
    value = attr.default_value
    kind = value.WhichOneof("value")
    if kind is None:
        return ()
    if kind == "list":
        lst = value.list
        if attr.type == "list(type)":
            return ([_dtype(t) for t in lst.type],)
        if attr.type == "list(int)":
            return (list(lst.i),)
        if attr.type == "list(float)":
            return (list(lst.f),)
        if attr.type == "list(string)":
            return ([s.decode() for s in lst.s],)
        if attr.type == "list(shape)":
            return ([_shape(s) for s in lst.shape],)
        return ([],)
    if kind == "type":
        return (_dtype(value.type),)
    if kind == "shape":
        return (_shape(value.shape),)
    if kind == "s":
        return (value.s.decode(),)
    if kind in ("i", "f", "b"):
        return (getattr(value, kind),)
    return ()


def _shape(proto):
    return None if proto.unknown_rank else [d.size for d in proto.dim]


def _arg(arg):
    if arg.type_list_attr:
        kind = f"[{arg.type_list_attr}]"
    else:
        kind = f"@{arg.type_attr}" if arg.type_attr else _dtype(arg.type)
        if arg.number_attr:
            kind = f"{arg.number_attr}*{kind}"
    return f"{arg.name}:{kind}"


def op_table():
    names = set(open(os.path.join(HERE, "fixtures", "tensorflux_op_types.txt")).read().split()) \
        if os.path.exists(os.path.join(HERE, "fixtures", "tensorflux_op_types.txt")) else set()
    names.update(STRUCTURAL)
    lines, missing = [], []
    for name in sorted(names):
        op = op_def_registry.get(name)
        if op is None:
            missing.append(name)
            continue
        inputs = " ".join(_arg(a) for a in op.input_arg)
        outputs = " ".join(_arg(a) for a in op.output_arg)
        attrs = tuple((a.name, a.type) + _default(a) for a in op.attr)
        lines.append(f"    {name!r}: ({inputs!r}, {outputs!r}, {attrs!r}, {bool(op.is_stateful)}),")
    print('"""TensorFlow\'s op interfaces, as data: for each op type, its inputs, outputs, attrs and statefulness.\n\n'
          'Generated by `tests/io_formats/make_graph_fixtures.py op-table` under TensorFlow 2.21 (facts of the op\n'
          'interface only). An argument is `name:kind`: a dtype (`int32`), `@T` (the dtype is attr T), `N*@T` (a\n'
          'list of attr N tensors of dtype T), `[Tin]` (a list whose dtypes are the list attr Tin). An attr is\n'
          '`(name, kind)` or `(name, kind, default)`. NOT_TENSORFLOW_OPS: the op types of tensorflux that\n'
          'TensorFlow does not have (written in other forms by export_rules.py, or not exportable).\n"""\n\n'
          'SIGNATURES = {')
    print("\n".join(lines))
    print("}")
    print()
    print("NOT_TENSORFLOW_OPS = (")
    for start in range(0, len(missing), 4):
        print("    " + " ".join(f"{name!r}," for name in missing[start:start + 4]))
    print(")")


def _functions():
    rng = np.random.default_rng(7)
    f32 = lambda *shape: rng.normal(size=shape).astype(np.float32)  # noqa: E731
    w1, b1, w2 = tf.Variable(f32(4, 8)), tf.Variable(f32(8)), tf.Variable(f32(8, 3))

    @tf.function
    def mlp(x):
        h = tf.nn.relu(tf.matmul(x, w1) + b1)
        logits = tf.matmul(h, w2)
        return tf.nn.softmax(logits), tf.argmax(logits, axis=1), tf.reduce_mean(tf.nn.sigmoid(logits), axis=0)

    counter = tf.Variable(np.float32(1.0))

    @tf.function
    def inner(a, b):
        return tf.tanh(a) * b

    @tf.function
    def control_flow(x, n):
        if tf.reduce_sum(x) > 0:
            y = x * 2.0
        else:
            y = -x
        i = tf.constant(0)
        while i < n:
            y = inner(y, x) + 1.0
            i += 1
        counter.assign_add(1.0)
        picked = tf.switch_case(n % 4, [lambda: y * 2.0, lambda: y - 1.0, lambda: tf.tanh(y)])
        return y * counter, i, picked

    kernel, gamma, beta = tf.Variable(f32(3, 3, 2, 4)), tf.Variable(f32(4)), tf.Variable(f32(4))
    mean, var = tf.constant(f32(4)), tf.constant(np.abs(f32(4)) + 0.5)
    dense = tf.Variable(f32(16, 2))

    @tf.function
    def cnn(img):
        c = tf.nn.conv2d(img, kernel, strides=1, padding="SAME")
        c = tf.nn.bias_add(c, beta)
        c, _, _ = tf.compat.v1.nn.fused_batch_norm(c, gamma, beta, mean=mean, variance=var, epsilon=1e-3,
                                                   is_training=False)
        c = tf.nn.max_pool2d(tf.nn.relu(c), 2, 2, "VALID")
        a = tf.nn.avg_pool2d(c, 2, 1, "SAME")
        flat = tf.reshape(a, [-1, 16])
        return tf.matmul(flat, dense), tf.nn.gelu(a), tf.nn.leaky_relu(c, 0.3)

    @tf.function
    def shapes(x):
        s = tf.shape(x)
        r = tf.reshape(x, [s[0], 2, 3])
        parts = tf.split(x, 3, axis=1)
        return (tf.transpose(r, [0, 2, 1]), tf.concat([x, x * 2.0], axis=1), tf.stack([x, x], 1),
                tf.gather(x, [0, 5], axis=1), parts[1], tf.unstack(x, axis=1)[2], x[:, 1:4:2],
                tf.reduce_max(x, axis=[0, 1]), tf.reduce_sum(x, axis=1, keepdims=True), tf.cast(x * 10.0, tf.int32),
                tf.math.cumsum(x, axis=1), tf.tile(x, [1, 2]), tf.pad(x, [[1, 0], [0, 1]]),
                tf.where(x > 0.0, x, tf.zeros_like(x)), tf.math.top_k(x, 2).values, tf.one_hot(tf.argmin(x, 1), 6),
                tf.squeeze(tf.expand_dims(x, 0), [0]), tf.reverse(x, [1]), tf.range(s[1]), tf.fill([2], 1.5))

    import keras
    layers = keras.layers
    models = {
        "tf_keras_cnn": [keras.Input((8, 8, 3)), layers.Conv2D(4, 3, padding="same"), layers.BatchNormalization(),
                         layers.ReLU(), layers.MaxPooling2D(), layers.GlobalAveragePooling2D(), layers.Dropout(0.3),
                         layers.Dense(2, activation="softmax")],
        "tf_keras_lstm": [keras.Input((5, 3)), layers.LSTM(4), layers.Dense(1)],
        "tf_keras_gru": [keras.Input((5, 3)), layers.GRU(4, return_sequences=True), layers.LayerNormalization(),
                         layers.Flatten()],
        "tf_keras_embedding": [keras.Input((6,), dtype="int32"), layers.Embedding(10, 4), layers.Conv1D(3, 2),
                               layers.GlobalMaxPooling1D()],
    }
    keras_functions = {}
    for name, model_layers in models.items():
        model = keras.Sequential(model_layers)
        spec = model.inputs[0]
        shape = [None] + list(spec.shape[1:])
        make = (lambda shape=shape: [rng.integers(0, 10, size=[2] + shape[1:]).astype(np.int32)]) \
            if spec.dtype == "int32" else (lambda shape=shape: [f32(2, *shape[1:])])
        keras_functions[name] = (tf.function(lambda x, model=model: model(x, training=False)),
                                 [tf.TensorSpec(shape, spec.dtype)], make)

    return {
        **keras_functions,
        "tf_mlp": (mlp, [tf.TensorSpec([None, 4], tf.float32)], lambda: [f32(3, 4)]),
        "tf_control_flow": (control_flow, [tf.TensorSpec([None, 2], tf.float32), tf.TensorSpec([], tf.int32)],
                            lambda: [f32(2, 2), np.int32(rng.integers(0, 5))]),
        "tf_cnn": (cnn, [tf.TensorSpec([None, 4, 4, 2], tf.float32)], lambda: [f32(2, 4, 4, 2)]),
        "tf_shapes": (shapes, [tf.TensorSpec([None, 6], tf.float32)], lambda: [f32(int(rng.integers(1, 4)), 6)]),
    }


def _jsonable(value):
    value = np.asarray(value)
    return {"dtype": value.dtype.name, "value": value.tolist()}


def fixtures(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    for name, (fn, specs, make_inputs) in _functions().items():
        cf = fn.get_concrete_function(*specs)
        library = function_pb2.FunctionDefLibrary()
        library.function.add().CopyFrom(cf.function_def)
        library.function.extend(cf.graph.as_graph_def().library.function)
        handles = {id(v.handle): v for v in cf.variables}
        captures = []
        for t in cf.captured_inputs:
            variable = handles.get(id(t))
            captures.append(dict(kind="variable", **_jsonable(variable.numpy())) if variable is not None else
                            dict(kind="tensor", **_jsonable(t.numpy())))
        cases = []
        for _ in range(4):
            inputs = make_inputs()
            outputs = tf.nest.flatten(cf(*[tf.constant(a) for a in inputs]))
            cases.append({"inputs": [_jsonable(a) for a in inputs], "outputs": [_jsonable(o) for o in outputs]})
        with open(os.path.join(out_dir, name + ".pb"), "wb") as f:
            f.write(library.SerializeToString())
        with open(os.path.join(out_dir, name + ".json"), "w") as f:
            json.dump({"function": cf.function_def.signature.name, "captures": captures, "cases": cases}, f)
    print(json.dumps({"written": sorted(_functions())}))


if __name__ == "__main__":
    if sys.argv[1] == "op-table":
        op_table()
    else:
        fixtures(sys.argv[2] if len(sys.argv) > 2 else os.path.join(HERE, "fixtures"))
