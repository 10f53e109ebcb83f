"""Sweep table, part 3: random, variables, control flow, TensorArrays, datasets, files, summaries and
function calls; and the op types no public call creates directly (`UNREACHABLE`, with the reason)."""
import os
import tempfile

import numpy as np

from sweep import F, Case, Fix, P, T

X = F()
SEED = np.array([1, 2], np.int32)
_PROBE_DIR = os.path.join(tempfile.gettempdir(), "tensorflux-error-sweep")
os.makedirs(_PROBE_DIR, exist_ok=True)
PRESENT_FILE = os.path.join(_PROBE_DIR, "present.bin")
with open(PRESENT_FILE, "wb") as _f:
    _f.write(b"present")
WRITTEN_FILE = os.path.join(_PROBE_DIR, "written.bin")
# The sweep runs with the probe directory as working directory (the junk string "junk" is a relative file
# name there: write_file creates it, read_file finds it, whatever order the cases run in).
PROBE_DIR = _PROBE_DIR
with open(os.path.join(_PROBE_DIR, "junk"), "wb") as _f:
    _f.write(b"data")


def _variable(tf):
    return tf.Variable(np.zeros((2, 3), np.float32))


def _tensor_array(tf):
    return tf.TensorArray(tf.float32, size=2, element_shape=[3])


def _example(tf):
    feature = tf.train.Feature(float_list=tf.train.FloatList(value=[1.5, 2.5]))
    return tf.train.Example(features=tf.train.Features(feature={"v": feature})).SerializeToString()


def _writer(tf):
    return tf.summary.create_file_writer(_PROBE_DIR)


def _summary_scalar(tf, writer, data, step):
    with writer.as_default():
        return tf.summary.scalar("value", data, step=step)


def _custom_square(tf, x):
    @tf.custom_gradient
    def square(v):
        return v * v, lambda dy: 2.0 * v * dy
    return square(x)


def _stateful_cond(tf, v, pred):
    def up():
        v.assign_add(tf.ones([2, 3]))
        return tf.constant(1)

    def down():
        v.assign_sub(tf.ones([2, 3]))
        return tf.constant(0)
    return tf.cond(pred, up, down)


def _stateful_loop(tf, v, n):
    def body(i):
        v.assign_add(tf.ones([2, 3]))
        return (i + 1,)
    return tf.while_loop(lambda i: i < n, body, [0])


CASES = [
    # Random (stateful and stateless)
    Case("RandomUniform", lambda tf, shape: tf.random.uniform(shape, seed=1), shape=P("shape", [2, 3])),
    Case("RandomUniformInt", lambda tf, maxval: tf.random.uniform([2, 3], 0, maxval, dtype=tf.int32, seed=1),
         maxval=T("int", 10)),
    Case("RandomStandardNormal", lambda tf, shape: tf.random.normal(shape, seed=1), shape=P("shape", [2, 3])),
    Case("TruncatedNormal", lambda tf, shape: tf.random.truncated_normal(shape, seed=1), shape=P("shape", [2, 3])),
    Case("Multinomial", lambda tf, logits, n: tf.random.categorical(logits, n, seed=1), logits=T("float", X),
         n=P("size", 4)),
    Case("StatelessRandomUniformV2", lambda tf, shape, seed: tf.random.stateless_uniform(shape, seed),
         shape=P("shape", [2, 3]), seed=T("int", SEED)),
    Case("StatelessRandomNormalV2", lambda tf, shape, seed: tf.random.stateless_normal(shape, seed),
         shape=P("shape", [2, 3]), seed=T("int", SEED)),
    Case("StatelessTruncatedNormalV2", lambda tf, shape, seed: tf.random.stateless_truncated_normal(shape, seed),
         shape=P("shape", [2, 3]), seed=T("int", SEED)),
    Case("StatelessRandomUniformIntV2", lambda tf, maxval, seed: tf.random.stateless_uniform(
        [2, 3], seed, minval=0, maxval=maxval, dtype=tf.int32), maxval=T("int", 10), seed=T("int", SEED)),
    Case("StatelessRandomUniformFullIntV2", lambda tf, shape, seed: tf.random.stateless_uniform(
        shape, seed, minval=None, maxval=None, dtype=tf.int32), shape=P("shape", [2, 3]), seed=T("int", SEED)),
    Case("RngReadAndSkip", lambda tf, g, shape: g.normal(shape), g=Fix(lambda tf: tf.random.Generator.from_seed(1)),
         shape=P("shape", [2, 3])),
    # Variables: the value assigned is the malformed input
    Case("AssignVariableOp", lambda tf, v, x: v.assign(x), v=Fix(_variable), x=T("float", X)),
    Case("AssignAddVariableOp", lambda tf, v, x: v.assign_add(x), v=Fix(_variable), x=T("float", X)),
    Case("AssignSubVariableOp", lambda tf, v, x: v.assign_sub(x), v=Fix(_variable), x=T("float", X)),
    Case("ReadVariableOp", lambda tf, v, x: v.read_value() + x, v=Fix(_variable), x=T("float", X)),
    Case("VarIsInitializedOp", lambda tf, v: v.is_initialized(), v=Fix(_variable)),
    # Control flow and function calls
    Case("StatelessIf", lambda tf, pred, x: tf.cond(pred, lambda: x + 1.0, lambda: x - 1.0),
         pred=T("bool", True), x=T("float", X)),
    Case("If", _stateful_cond, v=Fix(_variable), pred=T("bool", True)),
    Case("StatelessWhile", lambda tf, n, x: tf.while_loop(lambda i, a: i < n, lambda i, a: (i + 1, a * 2.0),
                                                          [0, x]), n=T("int", 3), x=T("float", X)),
    Case("While", _stateful_loop, v=Fix(_variable), n=T("int", 3)),
    Case("StatefulPartitionedCall", lambda tf, x: tf.function(lambda a: a * 2.0, autograph=False)(x),
         x=T("float", X)),
    Case("EagerPyFunc", lambda tf, x: tf.py_function(lambda a: a * 2.0, [x], Tout=tf.float32), x=T("float", X)),
    Case("PyFunc", lambda tf, x: tf.numpy_function(lambda a: a * 2.0, [x], Tout=tf.float32), x=T("float", X)),
    Case("CustomGradient", _custom_square, x=T("float", X)),
    Case("Assert", lambda tf, c, x: tf.debugging.Assert(c, [x]), c=T("bool", True), x=T("float", X)),
    Case("PrintV2", lambda tf, x: tf.print(x, output_stream="file://" + os.devnull), x=T("float", X)),
    # TensorArray (TensorList ops inside tf.function; Python lists eagerly in both frameworks)
    Case("TensorListReserve", lambda tf, size: tf.TensorArray(tf.float32, size=size).size(), size=P("size", 2)),
    Case("TensorListSetItem", lambda tf, ta, i, x: ta.write(i, x).stack(), ta=Fix(_tensor_array), i=T("int", 0),
         x=T("float", F((3,)))),
    Case("TensorListGetItem", lambda tf, ta, i: ta.unstack(tf.zeros([2, 3])).read(i), ta=Fix(_tensor_array),
         i=T("int", 1)),
    Case("TensorListStack", lambda tf, ta: ta.unstack(tf.zeros([2, 3])).stack(), ta=Fix(_tensor_array)),
    Case("TensorListFromTensor", lambda tf, ta, x: ta.unstack(x).stack(), ta=Fix(_tensor_array), x=T("float", X)),
    Case("TensorListGather", lambda tf, ta, i: ta.unstack(tf.zeros([2, 3])).gather(i), ta=Fix(_tensor_array),
         i=T("int", np.array([1, 0], np.int32))),
    Case("TensorListScatterIntoExistingList", lambda tf, ta, i, x: ta.scatter(i, x).stack(), ta=Fix(_tensor_array),
         i=T("int", np.array([1, 0], np.int32)), x=T("float", X)),
    Case("TensorListConcatV2", lambda tf, ta, x: ta.unstack(x).concat(), ta=Fix(_tensor_array), x=T("float", X)),
    Case("TensorListLength", lambda tf, ta: ta.size(), ta=Fix(_tensor_array)),
    # Datasets
    # Eager only: tensorflux iterates a dataset inside tf.function only through AutoGraph's for loop, and
    # the sweep traces with autograph=False (TensorFlow's iter() works there; reported for the data room).
    Case("AnonymousIteratorV3", lambda tf, x: iter(tf.data.Dataset.from_tensor_slices(x)) and 0, x=T("float", X),
         modes=("eager",)),
    Case("IteratorGetNext", lambda tf, x: next(iter(tf.data.Dataset.from_tensor_slices(x))), x=T("float", X),
         modes=("eager",)),
    Case("DatasetToSingleElement", lambda tf, x: tf.data.Dataset.from_tensors(x).get_single_element(),
         x=T("float", X)),
    # Files, records, summaries
    Case("ReadFile", lambda tf, name: tf.io.read_file(name), name=T("string", PRESENT_FILE)),
    Case("WriteFile", lambda tf, name, contents: tf.io.write_file(name, contents), name=T("string", WRITTEN_FILE),
         contents=T("string", "data")),
    Case("ParseExampleV2", lambda tf, example, serialized: tf.io.parse_single_example(
        serialized if serialized is not None else example, {"v": tf.io.FixedLenFeature([2], tf.float32)}),
        example=Fix(_example), serialized=P("string", None)),
    Case("WriteSummary", _summary_scalar, writer=Fix(_writer), data=T("float", 1.5), step=P("size", 1)),
    Case("FlushSummaryWriter", lambda tf, writer, x: writer.flush() or x, writer=Fix(_writer), x=T("float", 1.5)),
]

# Op types no public call creates with inputs of the caller's choosing. Their inputs are made by the ops
# that do have a public call (listed above), so the malformed inputs reach them only through those.
_GRADIENT_ONLY = "made only by the gradient of {} (its inputs are the forward op's, swept there)"
UNREACHABLE = {
    "ReluGrad": _GRADIENT_ONLY.format("Relu"),
    "ResourceApplyGradientDescent": "public in TensorFlow only as tf.raw_ops (tensorflux has none); the runtime makes "
                                    "it from a Mul and an AssignSubVariableOp (swept there) in generated code; its own "
                                    "errors are tests/ops/test_apply_gradient_descent.py's",
    "SoftmaxGrad": _GRADIENT_ONLY.format("Softmax") + " (a tensorflux op type: the fused softmax backward)",
    "LogSoftmaxGrad": _GRADIENT_ONLY.format("LogSoftmax") + " (a tensorflux op type: the fused backward)",
    "SparseAddGrad": _GRADIENT_ONLY.format("SparseAdd"),
    "SparseSliceGrad": _GRADIENT_ONLY.format("SparseSlice"),
    "FusedRecurrentSequence": "a tensorflux op type: Keras LSTM/GRU/SimpleRNN layers run a whole sequence with it; no "
                              "public TensorFlow call creates it (TensorFlow's Keras layers loop over cells)",
    "FusedRecurrentSequenceGrad": _GRADIENT_ONLY.format("FusedRecurrentSequence") + " (a tensorflux op type)",
    "FusedLayerNorm": "a tensorflux op type: Keras LayerNormalization runs it; no public TensorFlow call creates it "
                      "(TensorFlow's Keras layer composes moments and products)",
    "FusedLayerNormGrad": _GRADIENT_ONLY.format("FusedLayerNorm") + " (a tensorflux op type)",
    "AvgPoolGrad": _GRADIENT_ONLY.format("AvgPool"),
    "AvgPool3DGrad": _GRADIENT_ONLY.format("AvgPool3D"),
    "MaxPoolGrad": _GRADIENT_ONLY.format("MaxPool"),
    "MaxPool3DGrad": _GRADIENT_ONLY.format("MaxPool3D"),
    "MaxPoolGradGrad": _GRADIENT_ONLY.format("MaxPoolGrad"),
    "BiasAddGrad": _GRADIENT_ONLY.format("BiasAdd") + " (its public name is in tf.raw_ops only)",
    "Conv2DBackpropFilter": _GRADIENT_ONLY.format("Conv2D") + "; TensorFlow 2 has no public name for it",
    "ExtractImagePatchesGrad": _GRADIENT_ONLY.format("ExtractImagePatches") + " (a tensorflux op type)",
    "ResizeBilinearGrad": _GRADIENT_ONLY.format("ResizeBilinear"),
    "ResizeBicubicGrad": _GRADIENT_ONLY.format("ResizeBicubic"),
    "ResizeNearestNeighborGrad": _GRADIENT_ONLY.format("ResizeNearestNeighbor"),
    "ScaleAndTranslateGrad": _GRADIENT_ONLY.format("ScaleAndTranslate"),
    "StridedSliceGrad": _GRADIENT_ONLY.format("StridedSlice"),
    "MirrorPadGrad": _GRADIENT_ONLY.format("MirrorPad"),
    "SumToShape": "tensorflux-internal: sums a broadcast gradient back to its input's shape",
    "WhileGrad": _GRADIENT_ONLY.format("While") + " (a tensorflux op type)",
    "WhileHistoryUnzip": _GRADIENT_ONLY.format("While") + " taken under a recording tape (a tensorflux op type: "
                         "its input is the loop's own history output)",
    "WhileHistoryZip": _GRADIENT_ONLY.format("WhileHistoryUnzip") + " (a tensorflux op type)",
    "TensorListZerosLike": _GRADIENT_ONLY.format("the TensorList ops") + " (a tensorflux op type)",
    "TensorListAddN": _GRADIENT_ONLY.format("the TensorList ops") + " (a tensorflux op type)",
    "TensorListClearItem": _GRADIENT_ONLY.format("TensorListSetItem") + " (a tensorflux op type)",
    "TensorListClearItems": _GRADIENT_ONLY.format("TensorListScatterIntoExistingList") + " (a tensorflux op type)",
    "TensorListOneItem": _GRADIENT_ONLY.format("TensorListGetItem") + " (a tensorflux op type)",
    "TensorListStackLike": _GRADIENT_ONLY.format("TensorListFromTensor") + " (a tensorflux op type)",
    "TensorListGetItemOrZeros": _GRADIENT_ONLY.format("TensorListSetItem") + " (a tensorflux op type)",
    "TensorListScatterRows": _GRADIENT_ONLY.format("TensorListGather") + " (a tensorflux op type)",
    "TensorListGatherLike": _GRADIENT_ONLY.format("TensorListScatterIntoExistingList") + " (a tensorflux op type)",
    "IteratorGetNextAsOptional": "made by an iterator's get_next_as_optional() inside a tf.function; its input is "
                                 "the iterator resource, never a tensor of the caller's choosing",
    "OptionalGetValue": "made by Optional.get_value() on an iterator's get_next_as_optional() inside a "
                        "tf.function; its inputs are that op's outputs",
    "IgammaGradA": _GRADIENT_ONLY.format("Igamma") + " (its public name tf.math.igamma_grad_a is in "
                                                      "tf.raw_ops only)",
    "ReduceDataset": "made by a for loop over a tf.data.Dataset inside a tf.function (AutoGraph), whose inputs are "
                     "the loop's own state, not tensors of the caller's choosing",
    "CollectiveAllReduce": "made by tf.distribute strategies' cross-replica reductions of per-replica values "
                           "(distribute room), not by a call with tensors of the caller's choosing",
    "ReplicaAllReduce": "made by ReplicaContext.all_reduce traced in a replica's own tf.function under a MirroredStrategy "
                        "over several local devices (distribute room); it runs only inside strategy.run's replicas",
    "ReplicaCall": "made by strategy.run traced in a tf.function under a MirroredStrategy over several local devices "
                   "(distribute room); its inputs are the captures of the replicas' own traced functions",
    "Dilation2DBackpropInput": _GRADIENT_ONLY.format("Dilation2D"),
    "Dilation2DBackpropFilter": _GRADIENT_ONLY.format("Dilation2D"),
    "LRNGrad": _GRADIENT_ONLY.format("LRN"),
    "CTCLoss": "made by tf.compat.v1.nn.ctc_loss (sparse labels); TensorFlow 2's tf.nn.ctc_loss with dense labels "
               "builds other ops, and tensorflux has no tf.compat.v1 namespace",
    "Conv3DBackpropFilterV2": _GRADIENT_ONLY.format("Conv3D") + "; TensorFlow 2 has no public name for it",
    "StatelessRandomUniform": "TensorFlow 1 op type, kept for loading old SavedModels; tf.random.stateless_* "
                              "build the V2 ops",
    "StatelessRandomNormal": "TensorFlow 1 op type kept for loading old SavedModels (stateless_normal builds V2)",
    "StatelessTruncatedNormal": "TensorFlow 1 op type kept for loading old SavedModels (V2 is built)",
    "StatelessRandomUniformInt": "TensorFlow 1 op type kept for loading old SavedModels (V2 is built)",
    "StatelessRandomUniformFullInt": "TensorFlow 1 op type kept for loading old SavedModels (V2 is built)",
    "Timestamp": "takes no inputs (tf.timestamp()): there is nothing to malform",
    "KerasVocabularyLookup": "a tensorflux op type: Keras StringLookup/IntegerLookup/TextVectorization run it; no "
                             "public TensorFlow call creates it (Keras' layers use TensorFlow's hash tables)",
    **{name: "a lookup-table op: its first input is a table resource, which only a tf.lookup table object (or a "
                   "loaded SavedModel's table) holds, so the sweep's malformed inputs cannot reach it; tf.lookup's "
                   "own key/value dtype, shape, file and reserved-key errors are recorded from TensorFlow 2.21 in "
                   "tests/io_formats/test_lookup_tables.py"
       for name in ("HashTableV2", "MutableHashTableV2", "LookupTableImportV2", "LookupTableInsertV2",
                    "LookupTableFindV2", "LookupTableSizeV2", "LookupTableExportV2", "LookupTableRemoveV2",
                    "InitializeTableFromTextFileV2", "MutableHashTableOfTensorsV2", "MutableDenseHashTableV2")},
    "ScanDataset": "made by a for loop over a tf.data.Dataset inside a tf.function (AutoGraph); it runs at its "
                   "ReduceDataset, and no public call builds it with inputs of the caller's choosing",
    "TakeWhileDataset": "made by a for loop with a break over a tf.data.Dataset inside a tf.function (AutoGraph); "
                        "it runs at its ReduceDataset",
    "BoundDataset": "a tensorflux op type: a dataset made inside a tf.function from tensors the graph computes "
                    "(its recipe bound to their values); its inputs are those tensors, checked by the source "
                    "that read them (DatasetToSingleElement's graph cases reach it)",
}
