"""A profile tensorflux writes parses with TensorFlow's own XSpace message (tsl's xplane.proto)."""
import os

import tensorflux as tf

from _tensorflow_side import require_tensorflow, run_tensorflow

_READ = r"""
import json, sys
from tensorflow.tsl.profiler.protobuf import xplane_pb2
space = xplane_pb2.XSpace()
space.ParseFromString(open(sys.argv[1], "rb").read())
planes = [{"name": p.name, "events": sorted(p.event_metadata[e.metadata_id].name for l in p.lines for e in l.events),
           "stats": sorted(p.stat_metadata[s.metadata_id].name for s in p.stats)} for p in space.planes]
print(json.dumps({"hostnames": list(space.hostnames), "planes": planes}))
"""


def test_tensorflow_reads_our_profile(tmp_path):
    require_tensorflow()
    with tf.profiler.experimental.Profile(str(tmp_path)):
        with tf.profiler.experimental.Trace("step", step_num=1):
            tf.nn.relu(tf.constant([1.0, -1.0]))
    (path,) = [os.path.join(r, f) for r, _, fs in os.walk(tmp_path) for f in fs]
    seen = run_tensorflow(_READ, path)
    host, environment = seen["planes"]
    assert host["name"] == "/host:CPU" and {"step", "Relu"} <= set(host["events"])
    assert environment == {"name": "Task Environment", "events": [],
                           "stats": ["profile_start_time", "profile_stop_time"]}
