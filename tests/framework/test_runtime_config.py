"""tf.config's soft placement, optimizer and threading switches, and the deprecated experimental_* spellings:
values and messages recorded from TensorFlow 2.21."""
import logging

import pytest

import tensorflux as tf

config = tf.config


@pytest.fixture
def restore():
    yield
    config.set_soft_device_placement(True)
    config.optimizer.set_jit(False)
    config.run_functions_eagerly(False)


def test_soft_device_placement_round_trip(restore):
    assert config.get_soft_device_placement() is True
    config.set_soft_device_placement(False)
    assert config.get_soft_device_placement() is False
    config.set_soft_device_placement(1)
    assert config.get_soft_device_placement() is True


def test_jit_switch(restore):
    assert config.optimizer.get_jit() == ""
    config.optimizer.set_jit(True)
    assert config.optimizer.get_jit() == "autoclustering"
    config.optimizer.set_jit(False)
    assert config.optimizer.get_jit() == ""
    config.optimizer.set_jit("autoclustering")
    assert config.optimizer.get_jit() == "autoclustering"


def test_optimizer_experimental_options_in_tensorflows_order():
    from tensorflux._src.framework import runtime_config
    saved = dict(runtime_config._options)
    try:
        runtime_config._options.clear()
        assert config.optimizer.get_experimental_options() == {
            "disable_model_pruning": False, "disable_meta_optimizer": False}
        config.optimizer.set_experimental_options({"min_graph_nodes": 3, "auto_mixed_precision": True,
                                                   "layout_optimizer": False, "bogus": True})
        got = config.optimizer.get_experimental_options()
        assert list(got.items()) == [("layout_optimizer", False), ("disable_model_pruning", False),
                                     ("auto_mixed_precision", True), ("disable_meta_optimizer", False),
                                     ("min_graph_nodes", 3)]
    finally:
        runtime_config._options.clear()
        runtime_config._options.update(saved)


def test_threading_settings_read_back():
    threading = config.threading
    before = (threading.get_inter_op_parallelism_threads(), threading.get_intra_op_parallelism_threads())
    try:
        threading.set_inter_op_parallelism_threads(2)
        threading.set_intra_op_parallelism_threads(3)
        assert (threading.get_inter_op_parallelism_threads(), threading.get_intra_op_parallelism_threads()) == (2, 3)
    finally:
        threading.set_inter_op_parallelism_threads(before[0])
        threading.set_intra_op_parallelism_threads(before[1])


def test_experimental_spellings_warn_once_and_forward(restore, caplog):
    with caplog.at_level(logging.WARNING, logger="tensorflow"):
        assert config.experimental_functions_run_eagerly() is False
        config.experimental_run_functions_eagerly(True)
        assert config.functions_run_eagerly() is True and config.experimental_functions_run_eagerly() is True
        config.experimental_run_functions_eagerly(False)
    texts = [r.getMessage() for r in caplog.records]
    assert len(texts) <= 2       # once per function per process
    for text in texts:
        assert "is deprecated and will be removed in a future version.\nInstructions for updating:\n" in text
        assert text.startswith(f"From {__file__}:")
