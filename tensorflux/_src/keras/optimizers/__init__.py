"""Keras optimizers: the base class and the classic rules (`optimizer.py`), Lamb and Adafactor
(`lamb_adafactor.py`), Muon (`muon.py`), ScheduleFreeAdamW (`schedule_free_adamw.py`), the wrappers
LossScaleOptimizer (`loss_scale.py`) and MultiOptimizer/OptimizerMap (`multi.py`), and learning-rate schedules
(`schedules.py`)."""
