"""Keras models: `Model` and `Sequential` (`model.py`), functional graphs of layer calls
(`functional.py`), the fit/evaluate/predict loops (`trainer.py`, `compile_utils.py`) and `summary()`."""
