"""The rooms `import tensorflux` leaves unloaded (namespaces.LAZY_ROOMS) behave as if they were loaded.

Each check that looks at what is imported runs in a fresh interpreter: the test process itself has long
since loaded everything."""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _run(code):
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                         env=dict(os.environ, PYTHONPATH=ROOT))
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_index_is_current():
    out = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "build_lazy_index.py"), "--check"],
                         capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr + out.stdout


def test_import_leaves_the_lazy_rooms_unloaded_and_a_name_loads_its_module():
    result = _run("""
import json, sys
import tensorflux as tf
from tensorflux._src import lazy_index
P = "tensorflux._src."
loaded = [m for m in lazy_index.MODULES if P + m in sys.modules]
listed = "decode_png" in dir(tf.io) and "Checkpoint" in dir(tf.train)
before = P + "io.codecs.png_decode" in sys.modules
fn = tf.io.decode_png
after = P + "io.codecs.png_decode" in sys.modules
print(json.dumps([loaded, listed, before, after, fn is tf.image.decode_png, fn is tf.io.decode_png]))
""")
    assert result == [[], True, False, True, True, True]


def test_an_op_type_loads_its_module():
    # A GraphDef or SavedModel names op types, not functions: the registry finds lazy ones by name.
    result = _run("""
import json, sys
import tensorflux
from tensorflux._src.ops.registry import OPS
before = "tensorflux._src.io.codecs.jpeg_ops" in sys.modules
known = "DecodeJpeg" in OPS and "NoSuchOp" not in OPS and OPS.get("NoSuchOp") is None
op = OPS["DecodeJpeg"]
print(json.dumps([before, known, op.name, "DecodeJpeg" in OPS.all_types()]))
""")
    assert result == [False, True, "DecodeJpeg", True]


def test_every_indexed_name_is_the_modules_object():
    result = _run("""
import importlib, json
import tensorflux as tf
from tensorflux._src import lazy_index, namespaces
wrong = []
for ns, names in lazy_index.NAMES.items():
    holder = tf if not ns else namespaces.NAMESPACES[ns]
    for public, (module, attribute) in names.items():
        if getattr(holder, public) is not getattr(namespaces.load_module(module), attribute):
            wrong.append(f"{ns}.{public}")
print(json.dumps(wrong))
""")
    assert result == []


def test_as_graph_def_loads_the_exporter_on_first_use():
    # The exporter lives in a lazy room; the framework's hook loads it, so the first as_graph_def() of a
    # fresh process already gives TensorFlow's GraphDef, not the light view.
    result = _run("""
import json, sys
import tensorflux as tf
f = tf.function(lambda x: x + 1)
before = "tensorflux._src.io.formats.graph_export" in sys.modules
graph_def = f.get_concrete_function(tf.constant(1.0)).graph.as_graph_def()
print(json.dumps([before, type(graph_def).__name__, len(graph_def.node), hasattr(graph_def, "SerializeToString")]))
""")
    assert result == [False, "GraphDef", 4, True]


def test_small_sums_never_load_the_compiler():
    # Eigen-order sums build their compiled loops only for large inputs: a program's first small sums
    # (and repeated ones) must not wait for numba's import and compile.
    result = _run("""
import json, sys
import tensorflux as tf
x = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
for _ in range(20):
    tf.reduce_sum(x), tf.reduce_mean(x, axis=1), tf.nn.softmax(x)
print(json.dumps(["numba" in sys.modules]))
""")
    assert result == [False]


def test_a_dataset_reached_first_through_any_name_has_all_its_methods():
    # data/options.py, experimental_ops.py and composite_batching.py add Dataset methods: whichever name of
    # the (lazy) data room a program reads first, the class must come complete.
    result = _run("""
import json, sys
import tensorflux as tf
P = "tensorflux._src."
unloaded = P + "data.dataset" not in sys.modules
group_by_window = tf.data.experimental.group_by_window        # a name of data/experimental_ops.py first
ds = tf.data.Dataset.range(6)
methods = [hasattr(ds, m) for m in ("options", "with_options", "apply", "take_while", "ragged_batch")]
print(json.dumps([unloaded, methods, [int(x) for x in ds.take_while(lambda x: x < 3)]]))
""")
    assert result == [True, [True] * 5, [0, 1, 2]]


def test_an_eager_op_reaching_into_a_lazy_room_loads_it_where_it_is_used():
    # tf.print formats through ops/strings.py, a failed tf.debugging.Assert through its summarize, and a
    # ragged string split through the strings kernels: each must work in a fresh process, where the room
    # is not loaded yet.
    result = _run("""
import json, sys
import tensorflux as tf
P = "tensorflux._src."
before = [P + m in sys.modules for m in ("ops.strings", "ops.sparse", "data", "distribute", "ops.nn.conv")]
tf.print("x", tf.constant([1, 2]))
split = [[w.decode() for w in row] for row in tf.strings.split(tf.constant(["a b", "c"])).to_list()]
@tf.function
def check(x):
    tf.debugging.Assert(tf.reduce_all(x > 2.0), [x])
    return x
try:
    check(tf.constant([1.0, 2.0]))
    failed = None
except tf.errors.InvalidArgumentError as e:
    failed = e.message
y = tf.nn.conv2d(tf.ones([1, 3, 3, 1]), tf.ones([2, 2, 1, 1]), 1, "VALID")
print(json.dumps([before, split, failed, y.numpy().ravel().tolist()]))
""")
    assert result[0] == [False] * 5
    assert result[1] == [["a", "b"], ["c"]]
    assert "assertion failed: [1 2]" in result[2]
    assert result[3] == [4.0, 4.0, 4.0, 4.0]


def _build_with_extra_module(tmp_path, relative, text):
    """The builder's verdict on a copy of the package with one more module in a lazy room."""
    import shutil
    shutil.copytree(os.path.join(ROOT, "tensorflux"), tmp_path / "tensorflux",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(os.path.join(ROOT, "tools"), tmp_path / "tools", ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "tensorflux" / "_src" / relative).write_text(text)
    out = subprocess.run([sys.executable, str(tmp_path / "tools" / "build_lazy_index.py"), "--check"],
                         capture_output=True, text=True, cwd=tmp_path)
    return out.returncode, out.stderr


def test_builder_refuses_a_lazy_module_that_re_exports_an_eager_callable(tmp_path):
    # The eager part (the ragged dispatch) wraps the names eager namespaces hold at import; a lazy re-export
    # of an eager function would escape it.
    code, err = _build_with_extra_module(tmp_path, "io/zz_reexport.py",
                                         "from ..ops.math.arith import sigmoid\nAPI = {'io': ['zz_sigmoid=sigmoid']}\n")
    assert code == 1 and "io.zz_reexport re-exports io.zz_sigmoid from the eager ops." in err


def test_builder_refuses_a_lazy_module_that_changes_one_loaded_before_it(tmp_path):
    code, err = _build_with_extra_module(tmp_path, "io/zz_patch.py",
                                         "from .formats import tfrecord\ntfrecord.ZZ_PATCHED = True\n")
    assert code == 1 and "loading io.zz_patch changes io.formats.tfrecord.ZZ_PATCHED" in err
