"""Records what TensorFlow 2.21's `tf.experimental.numpy` returns for the calls of tnp_cases.py:

    ~/venv-tf/bin/python tests/ops/record_tnp_cases.py   # writes tests/ops/tnp_recorded.json
"""
import json
import os
import sys

import tensorflow as tf
import tensorflow.experimental.numpy as tnp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tnp_cases  # noqa: E402

tnp.experimental_enable_numpy_behavior()
recorded = {}
for name, make in tnp_cases.cases(tnp, tf).items():
    try:
        recorded[name] = tnp_cases.describe(make())
    except Exception as e:  # noqa: BLE001  (TensorFlow's failure is recorded and the case skipped)
        recorded[name] = {"error": type(e).__name__, "message": str(e)[:200]}
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "tnp_recorded.json"), "w") as f:
    json.dump(recorded, f, indent=0, sort_keys=True)
print(len(recorded), "cases;", sum("error" in r for r in recorded.values()), "raised")
