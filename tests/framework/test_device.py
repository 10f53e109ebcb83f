"""tf.device, tf.DeviceSpec and tf.config's device lists, as TensorFlow 2.21 behaves on a machine with one
CPU and no accelerators (the expected values are what it printed)."""
import pytest

import tensorflux as tf


def test_device_lists():
    cpu = tf.config.list_physical_devices("CPU")
    assert repr(cpu) == "[PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')]"
    assert tf.config.list_physical_devices() == cpu and tf.config.list_physical_devices("GPU") == []
    # The first logical CPU (a module of this test process may have split the CPU into virtual devices).
    assert repr(tf.config.list_logical_devices()[0]) == "LogicalDevice(name='/device:CPU:0', device_type='CPU')"
    tf.config.set_visible_devices([], "GPU")
    assert tf.config.get_visible_devices() == cpu
    with pytest.raises(ValueError, match="Cannot set memory growth on non-GPU and non-Pluggable devices"):
        tf.config.experimental.set_memory_growth(cpu[0], True)


def test_eager_tensors_live_on_the_cpu_whatever_is_asked():
    with tf.device("/GPU:0"):
        x = tf.constant(1.0) + 1
    assert x.device == "/job:localhost/replica:0/task:0/device:CPU:0"


def test_graph_ops_record_the_requested_device():
    @tf.function
    def f(a):
        b = a * 2
        with tf.device("/cpu:0"):
            with tf.device("/job:localhost"):
                c = b + 1
        return c

    ops = {op.name: op.device for op in f.get_concrete_function(tf.constant(1.0)).graph.get_operations()}
    assert ops["mul"] == "" and ops["add"] == "/job:localhost/device:CPU:0"
    assert f(tf.constant(1.0)).numpy() == 3.0


def test_device_spec_parsing():
    spec = tf.DeviceSpec.from_string("/job:worker/replica:1/task:2/device:GPU:3")
    assert (spec.job, spec.replica, spec.task, spec.device_type, spec.device_index) == ("worker", 1, 2, "GPU", 3)
    assert tf.DeviceSpec.from_string("/gpu:1").to_string() == "/device:GPU:1"
    assert tf.DeviceSpec.from_string("/device:CPU:*").to_string() == "/device:CPU:*"
    with pytest.raises(ValueError, match="Unknown attribute 'nonsense' is encountered while parsing the device "
                                         "spec: 'nonsense:::'"):
        tf.device("nonsense:::")


def test_bare_device_type_names_any_device_of_that_type():
    # As TensorFlow 2.21 parses them (recorded): a bare type means index '*'.
    for text, expected in [("cpu", "/device:CPU:*"), ("CPU", "/device:CPU:*"), ("gpu", "/device:GPU:*"),
                           ("/cpu", "/device:CPU:*"), ("job:foo/cpu", "/job:foo/device:CPU:*")]:
        spec = tf.DeviceSpec.from_string(text)
        assert spec.to_string() == expected and spec.device_index is None
    with tf.device("cpu"):
        assert tf.constant(1.0).device == "/job:localhost/replica:0/task:0/device:CPU:0"
    with pytest.raises(ValueError, match="Unknown attribute 'foo'"):
        tf.DeviceSpec.from_string("foo")


def test_virtual_cpu_devices_are_fixed_once_listed():
    cpu = tf.config.list_physical_devices("CPU")[0]
    config = tf.config.LogicalDeviceConfiguration()
    assert repr(config) == ("LogicalDeviceConfiguration(memory_limit=None, experimental_priority=None, "
                            "experimental_device_ordinal=None)")
    assert tf.config.experimental.VirtualDeviceConfiguration is tf.config.LogicalDeviceConfiguration
    tf.config.list_logical_devices()   # TensorFlow's runtime is initialised from here on
    with pytest.raises(RuntimeError, match="Virtual devices cannot be modified after being initialized"):
        tf.config.set_logical_device_configuration(cpu, [config, config])
    names = [d.name for d in tf.config.list_logical_devices("CPU")]
    assert names == [f"/device:CPU:{i}" for i in range(len(names))]
