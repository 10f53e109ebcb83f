"""Records TensorFlow 2.21's outputs for image_extra_cases.py:

    ~/venv-tf/bin/python tests/ops/record_image_extra_cases.py   # writes tests/ops/image_extra_recorded.json
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import image_extra_cases  # noqa: E402
from tnp_cases import describe  # noqa: E402

recorded = {}
for name, make in image_extra_cases.cases(tf, np).items():
    try:
        recorded[name] = describe(make())
    except Exception as e:  # noqa: BLE001
        recorded[name] = {"error": type(e).__name__, "message": str(e)[:200]}
with open(os.path.join(HERE, "image_extra_recorded.json"), "w") as f:
    json.dump(recorded, f, indent=0, sort_keys=True)
print(len(recorded), "cases;", sum("error" in r for r in recorded.values()), "raised")
