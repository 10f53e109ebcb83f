"""Keras optimizers (`optimizer.py`) and learning-rate schedules (`schedules.py`)."""
