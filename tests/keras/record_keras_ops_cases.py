"""Records what Keras 3.15's `keras.ops` (TensorFlow 2.21 backend) returns for the calls of keras_ops_cases.py:

    ~/venv-tf/bin/python tests/keras/record_keras_ops_cases.py   # writes tests/keras/keras_ops_recorded.json
"""
import json
import os
import sys

import tensorflow as tf
from keras import ops

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "ops"))
import keras_ops_cases  # noqa: E402
from tnp_cases import describe  # noqa: E402

recorded = {}
for name, make in keras_ops_cases.cases(ops, tf).items():
    try:
        recorded[name] = describe(make())
    except Exception as e:  # noqa: BLE001  (Keras' failure is recorded and the case skipped)
        recorded[name] = {"error": type(e).__name__, "message": str(e)[:200]}
with open(os.path.join(HERE, "keras_ops_recorded.json"), "w") as f:
    json.dump(recorded, f, indent=0, sort_keys=True)
print(len(recorded), "cases;", sum("error" in r for r in recorded.values()), "raised")
