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
