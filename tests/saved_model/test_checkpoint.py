"""tf.train.Checkpoint / CheckpointManager / latest_checkpoint / load_checkpoint: TensorFlow's object-graph
keys in tensor bundles, numbering, the state file, restore status checks, deferred restoration of Keras
layers and optimizers, crash safety and stale temporaries."""
import os

import numpy as np
import pytest

import tensorflux as tf
from concurrency._checkpoint_versions import Versioned, restored_version


class Net(tf.Module):
    def __init__(self, scale=1.0):
        super().__init__()
        self.w = tf.Variable(np.full((2, 3), scale, np.float32), name="w")
        self.layers = [tf.Variable([1, 2], name="a"), {"b": tf.Variable(3.0 * scale), "c": [tf.Variable(4.0)]}]
        self.frozen = tf.Variable(5.0, trainable=False)


def _values(module):
    return [v.numpy() for v in module.variables]


def test_save_numbers_files_and_restore_into_fresh_object(tmp_path):
    net = Net(2.0)
    ckpt = tf.train.Checkpoint(model=net)
    first = ckpt.save(str(tmp_path / "ckpt"))
    assert first == str(tmp_path / "ckpt-1")
    assert sorted(os.listdir(tmp_path)) == ["checkpoint", "ckpt-1.data-00000-of-00001", "ckpt-1.index"]
    net.w.assign(tf.zeros([2, 3]))
    second = ckpt.save(str(tmp_path / "ckpt"))
    assert second == str(tmp_path / "ckpt-2")
    assert tf.train.latest_checkpoint(str(tmp_path)) == second
    assert int(ckpt.save_counter.numpy()) == 2

    fresh = Net(0.0)
    status = tf.train.Checkpoint(model=fresh).restore(first)
    status.assert_consumed()
    for got, want in zip(_values(fresh), _values(Net(2.0))):
        np.testing.assert_array_equal(got, want)
        assert got.dtype == want.dtype
    assert fresh.w.dtype == tf.float32 and fresh.layers[0].dtype == tf.int32


def test_paths_are_attribute_paths_and_shared_variables_are_saved_once(tmp_path):
    net = Net()
    net.alias = net.w
    path = tf.train.Checkpoint(model=net).write(str(tmp_path / "x"))
    # Keys and shapes as TensorFlow writes them for the same module (recorded from TF 2.21).
    assert tf.train.list_variables(path) == [
        ("_CHECKPOINTABLE_OBJECT_GRAPH", []), ("model/frozen/.ATTRIBUTES/VARIABLE_VALUE", []),
        ("model/layers/0/.ATTRIBUTES/VARIABLE_VALUE", [2]), ("model/layers/1/b/.ATTRIBUTES/VARIABLE_VALUE", []),
        ("model/layers/1/c/0/.ATTRIBUTES/VARIABLE_VALUE", []), ("model/w/.ATTRIBUTES/VARIABLE_VALUE", [2, 3])]
    reader = tf.train.load_checkpoint(path)
    assert reader.get_variable_to_dtype_map()["model/w/.ATTRIBUTES/VARIABLE_VALUE"] == tf.float32
    assert reader.get_tensor("model/layers/1/b/.ATTRIBUTES/VARIABLE_VALUE") == np.float32(3.0)
    assert tf.train.load_variable(path, "model/layers/0/.ATTRIBUTES/VARIABLE_VALUE:0").tolist() == [1, 2]
    from tensorflux._src.io.formats import protos
    graph = protos.load("trackable_object_graph").TrackableObjectGraph()
    graph.ParseFromString(reader.get_tensor("_CHECKPOINTABLE_OBJECT_GRAPH"))
    root, model = graph.nodes[0], graph.nodes[graph.nodes[0].children[0].node_id]
    assert [c.local_name for c in root.children] == ["model"]
    assert [c.local_name for c in model.children] == ["w", "layers", "frozen", "alias"]
    w_id, alias_id = model.children[0].node_id, model.children[3].node_id
    assert w_id == alias_id    # one node, one value, two names
    (attribute,) = graph.nodes[w_id].attributes
    assert (attribute.name, attribute.full_name, attribute.checkpoint_key) == (
        "VARIABLE_VALUE", "w", "model/w/.ATTRIBUTES/VARIABLE_VALUE")
    assert all(node.has_checkpoint_values.value for node in graph.nodes)


def test_keys_escape_dots_and_slashes_as_tensorflow(tmp_path):
    holder = tf.Module()
    holder.table = {"a/b.c": tf.Variable(1.0)}
    path = tf.train.Checkpoint(m=holder).write(str(tmp_path / "e"))
    assert [k for k, _ in tf.train.list_variables(path)][1] == "m/table/a.Sb..c/.ATTRIBUTES/VARIABLE_VALUE"
    fresh = tf.Module()
    fresh.table = {"a/b.c": tf.Variable(0.0)}
    tf.train.Checkpoint(m=fresh).read(path).assert_consumed()
    assert fresh.table["a/b.c"].numpy() == 1.0


def test_load_checkpoint_of_a_directory_and_its_errors(tmp_path):
    ckpt = tf.train.Checkpoint(v=tf.Variable([1.0, 2.0]))
    ckpt.save(str(tmp_path / "c"))
    assert tf.train.list_variables(str(tmp_path)) == [
        ("_CHECKPOINTABLE_OBJECT_GRAPH", []), ("save_counter/.ATTRIBUTES/VARIABLE_VALUE", []),
        ("v/.ATTRIBUTES/VARIABLE_VALUE", [2])]
    assert tf.train.load_variable(str(tmp_path), "save_counter/.ATTRIBUTES/VARIABLE_VALUE") == 1
    reader = tf.train.load_checkpoint(str(tmp_path))
    assert reader.has_tensor("v/.ATTRIBUTES/VARIABLE_VALUE") and not reader.has_tensor("v")
    assert reader.debug_string().startswith(b"_CHECKPOINTABLE_OBJECT_GRAPH (DT_STRING) []\n")
    with pytest.raises(tf.errors.NotFoundError, match="Key nope not found in checkpoint"):
        reader.get_tensor("nope")
    with pytest.raises(ValueError, match="Couldn't find 'checkpoint' file or checkpoints in given directory"):
        tf.train.load_checkpoint(str(tmp_path / "empty_dir_") if os.makedirs(tmp_path / "empty_dir_") else
                                 str(tmp_path / "empty_dir_"))
    with pytest.raises(tf.errors.NotFoundError, match="Unsuccessful TensorSliceReader constructor: Failed to find "
                                                      "any matching files for .*nope"):
        tf.train.load_checkpoint(str(tmp_path / "nope"))
    state = tf.train.get_checkpoint_state(str(tmp_path))
    assert state.model_checkpoint_path == str(tmp_path / "c-1")
    assert state.all_model_checkpoint_paths == [str(tmp_path / "c-1")]


def test_a_checkpoint_of_the_old_format_is_named_as_such(tmp_path):
    (tmp_path / "old.npz").write_bytes(b"PK")
    (tmp_path / "old.json").write_text("{}")
    with pytest.raises(tf.errors.NotFoundError, match="not a TensorFlow checkpoint"):
        tf.train.Checkpoint(v=tf.Variable(1.0)).read(str(tmp_path / "old"))


def test_write_and_read_do_not_number_or_touch_the_state_file(tmp_path):
    v = tf.Variable(1.0)
    ckpt = tf.train.Checkpoint(v=v)
    assert ckpt.write(str(tmp_path / "plain")) == str(tmp_path / "plain")
    assert not os.path.exists(tmp_path / "checkpoint")
    assert tf.train.latest_checkpoint(str(tmp_path)) is None
    v.assign(9.0)
    ckpt.read(str(tmp_path / "plain")).assert_existing_objects_matched()
    assert v.numpy() == 1.0


def test_restored_save_counter_continues_numbering(tmp_path):
    ckpt = tf.train.Checkpoint(v=tf.Variable(1.0))
    ckpt.save(str(tmp_path / "a"))
    ckpt.save(str(tmp_path / "a"))
    other = tf.train.Checkpoint(v=tf.Variable(0.0))
    other.restore(str(tmp_path / "a-2"))
    assert int(other.save_counter.numpy()) == 2
    assert other.save(str(tmp_path / "a")) == str(tmp_path / "a-3")
    assert other.save_counter.name == "save_counter:0" and not other.save_counter.trainable


def test_state_file_is_tensorflow_text_format(tmp_path):
    ckpt = tf.train.Checkpoint(v=tf.Variable(1.0))
    ckpt.save(str(tmp_path / "a"))
    ckpt.save(str(tmp_path / "a"))
    text = (tmp_path / "checkpoint").read_text()
    assert text == 'model_checkpoint_path: "a-2"\nall_model_checkpoint_paths: "a-2"\n'
    os.remove(tmp_path / "a-2.index")
    assert tf.train.latest_checkpoint(str(tmp_path)) is None
    assert tf.train.latest_checkpoint(str(tmp_path / "missing")) is None
    assert tf.train.latest_checkpoint(str(tmp_path), latest_filename="other") is None


def test_assert_consumed_reports_unmatched_python_objects_and_leftover_values(tmp_path):
    path = tf.train.Checkpoint(v=tf.Variable(1.0)).write(str(tmp_path / "c"))
    extra = tf.train.Checkpoint(v=tf.Variable(0.0), w=tf.Variable(2.0))
    status = extra.read(path)
    assert extra.v.numpy() == 1.0
    with pytest.raises(AssertionError, match="Found 1 Python objects that were not bound to checkpointed values"):
        status.assert_consumed()
    # `restore` (unlike `read`) creates save_counter, which a `write` checkpoint has no value for (as TF).
    with pytest.raises(AssertionError, match="Found 2 Python objects .*save_counter"):
        tf.train.Checkpoint(v=tf.Variable(0.0), w=tf.Variable(2.0)).restore(path).assert_consumed()
    with pytest.raises(AssertionError, match="not bound"):
        status.assert_existing_objects_matched()
    status.assert_nontrivial_match()
    assert status.expect_partial() is status

    empty = tf.train.Checkpoint()
    status = empty.read(path)
    assert status.assert_existing_objects_matched() is status
    with pytest.raises(AssertionError, match=r"Unresolved object in checkpoint \(root\)\.v"):
        status.assert_consumed()
    with pytest.raises(AssertionError, match="Nothing except the root object matched"):
        status.assert_nontrivial_match()


def test_restore_none_is_initialization_only():
    status = tf.train.Checkpoint(v=tf.Variable(1.0)).restore(None)
    assert type(status).__name__ == "InitializationOnlyStatus"
    with pytest.raises(AssertionError, match="No checkpoint specified"):
        status.assert_consumed()
    status.expect_partial()


def test_restore_errors(tmp_path):
    path = tf.train.Checkpoint(v=tf.Variable(1.0)).write(str(tmp_path / "c"))
    with pytest.raises(tf.errors.NotFoundError, match="Failed to find any matching files for .*nope"):
        tf.train.Checkpoint(v=tf.Variable(1.0)).restore(str(tmp_path / "nope"))
    with pytest.raises(ValueError, match=r"Received incompatible tensor with shape \(\) when attempting to restore "
                                         r"variable with shape \(2,\)"):
        tf.train.Checkpoint(v=tf.Variable([1.0, 2.0])).restore(path)
    with pytest.raises(tf.errors.InvalidArgumentError, match="expected dtype int32 does not equal original dtype float"):
        tf.train.Checkpoint(v=tf.Variable(1)).restore(path)
    with pytest.raises(ValueError, match="`Checkpoint` was expecting x to be a trackable object"):
        tf.train.Checkpoint(x=1)


def test_attributes_assigned_later_are_tracked(tmp_path):
    ckpt = tf.train.Checkpoint()
    ckpt.late = tf.Variable([3.0, 4.0])
    path = ckpt.write(str(tmp_path / "late"))
    other = tf.train.Checkpoint()
    other.late = tf.Variable([0.0, 0.0])
    other.read(path).assert_consumed()
    np.testing.assert_array_equal(other.late.numpy(), [3.0, 4.0])


def test_root_object_children_are_top_level(tmp_path):
    path = tf.train.Checkpoint(Net(3.0)).write(str(tmp_path / "root"))
    assert ("w/.ATTRIBUTES/VARIABLE_VALUE", [2, 3]) in tf.train.list_variables(path)
    fresh = Net(0.0)
    tf.train.Checkpoint(fresh).read(path).assert_consumed()
    np.testing.assert_array_equal(fresh.w.numpy(), np.full((2, 3), 3.0, np.float32))


def test_unusual_dtypes_round_trip_exactly(tmp_path):
    values = {"s": tf.Variable([b"ab\x00", b"", "\u00e9".encode()]), "h": tf.Variable(tf.constant([1.5, -2.0], tf.bfloat16)),
              "i": tf.Variable(np.int64(2 ** 40)), "b": tf.Variable([True, False]),
              "c": tf.Variable(tf.constant([1 + 2j], tf.complex64))}
    path = tf.train.Checkpoint(**values).write(str(tmp_path / "types"))
    fresh = {k: tf.Variable(tf.zeros_like(v)) for k, v in values.items()}
    tf.train.Checkpoint(**fresh).read(path).assert_consumed()
    for k, v in values.items():
        assert fresh[k].dtype == v.dtype
        np.testing.assert_array_equal(fresh[k].numpy(), v.numpy())


def _train(model, optimizer, x, y, steps):
    for _ in range(steps):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((model(x) - y) ** 2)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))


def _keras_pair():
    keras = tf.keras
    model = keras.Sequential([keras.layers.Dense(4, activation="relu"), keras.layers.Dense(2)])
    return model, keras.optimizers.Adam(0.05)


def test_deferred_restoration_of_unbuilt_keras_layers_and_optimizer_slots(tmp_path):
    rng = np.random.default_rng(0)
    x, y = rng.random((6, 3), np.float32), rng.random((6, 2), np.float32)
    model, opt = _keras_pair()
    _train(model, opt, x, y, 3)
    path = tf.train.Checkpoint(model=model, optimizer=opt).save(str(tmp_path / "k"))

    model2, opt2 = _keras_pair()   # nothing built yet: no kernels, no slots
    status = tf.train.Checkpoint(model=model2, optimizer=opt2).restore(path)
    assert int(opt2.iterations.numpy()) == 3
    with pytest.raises(AssertionError, match="Unresolved object"):
        status.assert_consumed()
    np.testing.assert_allclose(model2(x).numpy(), model(x).numpy(), rtol=1e-6)   # built -> restored
    _train(model, opt, x, y, 2)
    _train(model2, opt2, x, y, 2)    # the slots restored when the optimizer builds: identical steps
    status.assert_consumed()
    for a, b in zip(model.variables, model2.variables):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5)


class _LazyDense(tf.Module):
    """Makes its variables on its first call, as the intro-to-modules guide's FlexibleDense."""

    def __init__(self):
        super().__init__()
        self.w = None

    def __call__(self, x):
        if self.w is None:
            self.w = tf.Variable(tf.ones([x.shape[-1], 2]), name="w")
        return tf.matmul(x, self.w)


def test_deferred_restoration_of_a_module_that_makes_its_variables_when_called(tmp_path):
    saved = _LazyDense()
    saved(tf.ones([1, 3]))
    saved.w.assign(tf.reshape(tf.range(6, dtype=tf.float32), [3, 2]))
    path = tf.train.Checkpoint(model=saved).write(str(tmp_path / "lazy"))
    fresh = _LazyDense()
    status = tf.train.Checkpoint(model=fresh).read(path)
    with pytest.raises(AssertionError, match="Unresolved object"):
        status.assert_consumed()
    # TensorFlow: the variable gets the checkpointed value as it is assigned, before the first matmul
    np.testing.assert_array_equal(fresh(tf.ones([1, 3])).numpy(), [[6.0, 9.0]])
    status.assert_consumed()
    fresh.w = tf.Variable(tf.zeros([3, 2]))     # given once: a later replacement keeps its own value
    np.testing.assert_array_equal(fresh.w.numpy(), np.zeros([3, 2]))


def test_a_random_generator_checkpoints_its_state_variable(tmp_path):
    gen = tf.random.Generator.from_seed(1)
    checkpoint = tf.train.Checkpoint(generator=gen)
    path = checkpoint.write(str(tmp_path / "gen"))
    # TensorFlow's key: the generator's one trackable child is its state variable, `_state_var`
    assert tf.train.list_variables(path) == [("_CHECKPOINTABLE_OBJECT_GRAPH", []),
                                             ("generator/_state_var/.ATTRIBUTES/VARIABLE_VALUE", [3])]
    first = gen.normal([2]).numpy()
    checkpoint.read(path)
    np.testing.assert_array_equal(gen.normal([2]).numpy(), first)
    assert type(gen.state).__name__ == "ResourceVariable" and gen.state.name == "StateVar:0"


def test_checkpoint_manager_keeps_the_newest(tmp_path):
    v = tf.Variable(0.0)
    ckpt = tf.train.Checkpoint(v=v)
    manager = tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=2)
    assert manager.latest_checkpoint is None and manager.checkpoints == [] and manager.directory == str(tmp_path)
    saved = []
    for _ in range(4):
        v.assign_add(1.0)
        saved.append(manager.save())
    assert saved == [str(tmp_path / f"ckpt-{i}") for i in range(1, 5)]
    assert manager.checkpoints == saved[2:] and manager.latest_checkpoint == saved[3]
    assert sorted(os.listdir(tmp_path)) == ["checkpoint", "ckpt-3.data-00000-of-00001", "ckpt-3.index",
                                            "ckpt-4.data-00000-of-00001", "ckpt-4.index"]
    assert tf.train.latest_checkpoint(str(tmp_path)) == saved[3]
    assert manager.save(checkpoint_number=10) == str(tmp_path / "ckpt-10")

    again = tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=3, checkpoint_name="model")
    assert again.checkpoints == [saved[3], str(tmp_path / "ckpt-10")]
    assert again.save() == str(tmp_path / "model-6")
    v.assign(0.0)
    assert again.restore_or_initialize() == str(tmp_path / "model-6")
    assert v.numpy() == 4.0


def test_checkpoint_manager_arguments_and_initialization(tmp_path):
    ckpt = tf.train.Checkpoint(v=tf.Variable(1.0))
    with pytest.raises(ValueError, match="Expected a positive integer or `None` for `max_to_keep`, got 0."):
        tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=0)
    calls = []
    manager = tf.train.CheckpointManager(ckpt, str(tmp_path / "new"), max_to_keep=None,
                                         init_fn=lambda: calls.append(1))
    assert manager.restore_or_initialize() is None and calls == [1]
    for _ in range(3):
        manager.save()
    assert len(manager.checkpoints) == 3


def test_restore_from_a_saved_model_directory(tmp_path):
    net = Net(4.0)
    tf.saved_model.save(net, str(tmp_path / "sm"))
    fresh = Net(0.0)
    tf.train.Checkpoint(fresh).read(str(tmp_path / "sm")).assert_consumed()
    np.testing.assert_array_equal(fresh.w.numpy(), net.w.numpy())


# -- crash safety ----------------------------------------------------------------------------------
class _Crash(BaseException):
    """Stands for the process dying between two file operations."""


def _crash_at(monkeypatch, n):
    """Makes the n-th file replacement or deletion from now (0-based) raise _Crash instead of happening."""
    count = [0]
    real_replace, real_remove = os.replace, os.remove

    def step(real):
        def op(*args):
            count[0] += 1
            if count[0] == n + 1:
                raise _Crash()
            return real(*args)
        return op

    monkeypatch.setattr(os, "replace", step(real_replace))
    monkeypatch.setattr(os, "remove", step(real_remove))
    return count


@pytest.mark.parametrize("how", ["write", "manager"])
def test_a_save_interrupted_at_any_file_operation_leaves_the_previous_one_whole(tmp_path, monkeypatch, how):
    n = 0
    while True:
        directory = tmp_path / f"{how}-{n}"
        first, second = Versioned().set(1), Versioned().set(2)
        if how == "write":
            first.write(str(directory / "same"))
        else:
            manager = tf.train.CheckpointManager(first, str(directory), max_to_keep=1)
            manager.save()
        count = _crash_at(monkeypatch, n)
        try:
            if how == "write":
                second.write(str(directory / "same"))
            else:
                tf.train.CheckpointManager(second, str(directory), max_to_keep=1).save()
            finished = True
        except _Crash:
            finished = False
        monkeypatch.undo()
        path = str(directory / "same") if how == "write" else tf.train.latest_checkpoint(str(directory))
        assert path is not None, f"no checkpoint after a crash at file operation {n}"
        assert restored_version(path) in ((2,) if finished else (1, 2))
        if finished:
            break
        assert count[0] > n  # the crash did happen at operation n
        n += 1
    assert n >= 2  # the save did replace its values, its index (and the state file) one by one
    assert not [f for f in os.listdir(directory) if ".saving-" in f]


def test_the_next_save_removes_temporaries_a_killed_save_left(tmp_path):
    """A save killed mid-write leaves its temporary siblings; the next save of the same prefix removes the
    ones of dead writers, and nothing else (issue 12)."""
    import subprocess
    import sys
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead_pid = int(dead.stdout)
    v = tf.Variable(np.arange(4.0))
    checkpoint = tf.train.Checkpoint(v=v)
    prefix = str(tmp_path / "ckpt")
    stale = [f".ckpt.index.saving-{dead_pid}-abc123", f".ckpt.data-00000-of-00001.saving-{dead_pid}-x_y9",
             f".checkpoint.saving-{dead_pid}-q1"]
    kept = [f".ckpt.index.saving-{os.getppid()}-live1",          # a live writer's
            f".other.index.saving-{dead_pid}-abc123",          # another target's
            "ckpt.index.saving-1-notours", ".ckpt.index.saving-x-y"]   # not the temporary pattern
    for name in stale + kept:
        (tmp_path / name).write_bytes(b"partial")
    manager = tf.train.CheckpointManager(checkpoint, str(tmp_path), max_to_keep=1)
    manager.save()
    checkpoint.write(prefix)
    left = set(os.listdir(tmp_path))
    assert not left & set(stale)
    assert set(kept) <= left


def test_checkpoint_manager_interval_hours_and_iterator(tmp_path):
    step = tf.Variable(0, dtype=tf.int64)
    v = tf.Variable(1.0)
    ckpt = tf.train.Checkpoint(v=v, step=step)
    with pytest.raises(ValueError, match="`step_counter` should be passed if `checkpoint_interval` is not None."):
        tf.train.CheckpointManager(ckpt, str(tmp_path / "x"), max_to_keep=2, checkpoint_interval=2)
    manager = tf.train.CheckpointManager(ckpt, str(tmp_path / "a"), max_to_keep=2, step_counter=step,
                                         checkpoint_interval=2)
    assert manager.checkpoint_interval == 2
    saved = []
    for s in range(5):
        step.assign(s)
        saved.append(manager.save())
    assert [p is not None for p in saved] == [True, False, True, False, True]
    step.assign(5)
    assert manager.save(check_interval=False) is not None
    # Every swept checkpoint older than the preservation period is kept on disk, unlisted (as TensorFlow).
    keeper = tf.train.CheckpointManager(ckpt, str(tmp_path / "b"), max_to_keep=1,
                                        keep_checkpoint_every_n_hours=1e-9)
    paths = [keeper.save() for _ in range(3)]
    assert keeper.checkpoints == paths[-1:]
    assert all(os.path.exists(p + ".index") for p in paths)
    state = tf.train.get_checkpoint_state(str(tmp_path / "b"))
    assert state.all_model_checkpoint_paths == paths[-1:] and len(state.all_model_checkpoint_timestamps) == 1
    assert state.last_preserved_timestamp > 0
    found = list(tf.train.checkpoints_iterator(str(tmp_path / "b"), timeout=0.1))
    assert found == paths[-1:]


def test_saved_files_get_the_mode_open_would_give_them(tmp_path):
    """Atomic saves write through mkstemp (private files); the result is readable as a plain write makes it."""
    import os
    import stat
    umask = os.umask(0o022)
    os.umask(umask)
    checkpoint = tf.train.Checkpoint(v=tf.Variable(1.0))
    prefix = checkpoint.write(str(tmp_path / "ckpt"))
    tf.saved_model.save(tf.Module(), str(tmp_path / "saved"))
    for name in (prefix + ".index", prefix + ".data-00000-of-00001"):
        assert stat.S_IMODE(os.stat(name).st_mode) == 0o666 & ~umask
    assert stat.S_IMODE(os.stat(tmp_path / "saved").st_mode) == 0o777 & ~umask
