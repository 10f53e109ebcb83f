"""Records Keras 3.15's outputs and configs for keras_layers_cases.py:

    ~/venv-tf/bin/python tests/keras/record_keras_layers_cases.py   # writes tests/keras/keras_layers_recorded.json
"""
import json
import os
import sys

import keras
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import keras_layers_cases  # noqa: E402

recorded = {}
for name, make in keras_layers_cases.cases(keras, np).items():
    out, config = make()
    out = np.asarray(out)
    recorded[name] = {"dtype": str(out.dtype), "shape": list(out.shape), "value": out.tolist(), "config": config}
with open(os.path.join(HERE, "keras_layers_recorded.json"), "w") as f:
    json.dump(recorded, f, indent=0, sort_keys=True, default=repr)
print(len(recorded), "cases")
