"""`for x in dataset` in a tf.function is staged as in TensorFlow 2.21: ScanDataset -> ReduceDataset, with a
TakeWhileDataset between them when the loop can break (op lists and results recorded from TensorFlow 2.21)."""
import tensorflux as tf

PAIRS = tf.data.Dataset.from_tensor_slices(([1, 2, 3], [3, 4, 5]))


def test_loop_is_scan_then_reduce():
    @tf.function
    def train(dataset):
        loss = tf.constant(0)
        for x, y in dataset:
            loss += tf.abs(y - x)
        return loss

    graph = train.get_concrete_function(PAIRS).graph
    ops = graph.get_operations()
    assert [op.type for op in ops] == ["Placeholder", "Const", "ScanDataset", "ReduceDataset", "Identity", "NoOp"]
    assert [t.op.name for t in ops[2].inputs] == ["dataset", "Const"]
    assert [t.op.name for t in ops[3].inputs] == ["ScanDataset", "Const"]
    assert len(graph.as_graph_def().node) == 6
    assert int(train(PAIRS)) == 6


def test_loop_that_breaks_takes_while():
    @tf.function
    def until(dataset):
        loss = tf.constant(0)
        for x, y in dataset:
            if loss > 3:
                break
            loss += tf.abs(y - x)
        return loss

    graph = until.get_concrete_function(PAIRS).graph
    by_type = {op.type: op for op in graph.get_operations()}
    assert by_type["TakeWhileDataset"].inputs[0].op is by_type["ScanDataset"]
    assert by_type["ReduceDataset"].inputs[0].op is by_type["TakeWhileDataset"]
    # TensorFlow's "stopped" flags: a False constant in the scan's and in the reduction's initial state.
    assert [t.op.name for t in by_type["ReduceDataset"].inputs][-1] == "initial_state/normalize_element/component_1"
    assert "normalize_element/component_1" in [t.op.name for t in by_type["ScanDataset"].inputs]
    assert int(until(PAIRS)) == 4


def test_loop_without_variables_scans_a_dummy_state():
    @tf.function
    def show():
        for x in tf.data.Dataset.range(3):
            tf.print(x)

    ops = show.get_concrete_function().graph.get_operations()
    scan = [op for op in ops if op.type == "ScanDataset"][0]
    assert scan.inputs[1].op.type == "Const"
    assert "NoOp" not in [op.type for op in ops]   # TensorFlow: nothing returned, no control output
