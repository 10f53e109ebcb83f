"""Keras saving: `.keras` archives and weight files (`saving.py`), objects to and from configs
(`serialization.py`)."""
