"""TensorFlow's checkpoints, both ways: `tf.train.Checkpoint`, `CheckpointManager` and the checkpoint readers.

A checkpoint `prefix` is a tensor bundle (`prefix.index` + `prefix.data-…`, io/formats/tensor_bundle.py)
holding each variable under TensorFlow's object-graph key (`model/layer/kernel/.ATTRIBUTES/VARIABLE_VALUE`)
and, under `_CHECKPOINTABLE_OBJECT_GRAPH`, the serialized `TrackableObjectGraph` that says which object
owns which key. Which objects a program holds is decided one floor down (state/checkpoint.py).

| module | what |
| --- | --- |
| `object_graph.py` | the `TrackableObjectGraph` of a live object graph; a read one, validated |
| `restore.py` | matching a saved object graph against live objects; load statuses; deferred restoration |
| `checkpoint.py` | `tf.train.Checkpoint` (write/save/read/restore) and `CheckpointOptions` |
| `state_file.py` | the `checkpoint` text file (`CheckpointState`), `latest_checkpoint`, `get_checkpoint_state` |
| `manager.py` | `tf.train.CheckpointManager`, `checkpoints_iterator` |
| `reader.py` | `load_checkpoint` (a `CheckpointReader`), `list_variables`, `load_variable` |
"""
