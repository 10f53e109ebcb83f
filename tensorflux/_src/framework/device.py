"""Device names: `tf.device`, `tf.DeviceSpec`, and the devices `tf.config` lists.

tensorflux runs every kernel on the CPU with NumPy, which is what TensorFlow itself does on a machine
without accelerators: `tf.device("/GPU:0")` is accepted (soft placement) and eager tensors report the
CPU; inside graphs the requested device is recorded on each op (`op.device == "/device:GPU:0"`) as
TensorFlow records it. Device strings are parsed as TensorFlow parses them, so a malformed one fails
the same way.
"""
import collections
import contextlib
import re

from .context import state

__all__ = ["DeviceSpec", "device", "merge_device", "PhysicalDevice", "LogicalDevice", "list_physical_devices",
           "list_logical_devices", "get_visible_devices", "set_visible_devices", "set_memory_growth",
           "get_memory_growth", "LogicalDeviceConfiguration", "set_logical_device_configuration",
           "get_logical_device_configuration"]

_FIELD = re.compile(r"^(job|replica|task|device|cpu|gpu|tpu):(.*)$", re.IGNORECASE)
_BARE_TYPE = re.compile(r"^(cpu|gpu|tpu)$", re.IGNORECASE)   # "cpu" alone means any CPU, as in TensorFlow


class DeviceSpec:
    """A parsed device name: job, replica, task, device_type and device_index, each possibly unset."""

    __slots__ = ("job", "replica", "task", "device_type", "device_index")

    def __init__(self, job=None, replica=None, task=None, device_type=None, device_index=None):
        self.job = job
        self.replica = None if replica is None else int(replica)
        self.task = None if task is None else int(task)
        self.device_type = None if device_type is None else str(device_type).upper()
        self.device_index = None if device_index is None else int(device_index)

    @classmethod
    def from_string(cls, spec):
        fields = {}
        for part in (p for p in spec.split("/") if p):
            if _BARE_TYPE.match(part):
                fields["device_type"], fields["device_index"] = part.upper(), None
                continue
            m = _FIELD.match(part)
            if m is None:
                raise ValueError(f"Unknown attribute '{part.split(':')[0]}' is encountered while parsing the device "
                                 f"spec: '{spec}'.")
            key, value = m.group(1).lower(), m.group(2)
            if key in ("cpu", "gpu", "tpu"):          # "/cpu:0" is short for "/device:CPU:0"
                fields["device_type"], value = key.upper(), value
                fields["device_index"] = None if value in ("", "*") else _index(value, spec)
            elif key == "device":
                device_type, _, index = value.partition(":")
                fields["device_type"] = device_type.upper() or None
                fields["device_index"] = None if index in ("", "*") else _index(index, spec)
            else:
                fields[key] = value if key == "job" else _index(value, spec)
        return cls(**fields)

    def make_merged_spec(self, dev):
        """This spec with the fields `dev` sets overriding its own."""
        return DeviceSpec(*(getattr(dev, f) if getattr(dev, f) is not None else getattr(self, f)
                            for f in self.__slots__))

    def to_string(self):
        parts = [f"/job:{self.job}" if self.job is not None else "",
                 f"/replica:{self.replica}" if self.replica is not None else "",
                 f"/task:{self.task}" if self.task is not None else ""]
        if self.device_type is not None:
            index = "*" if self.device_index is None else self.device_index
            parts.append(f"/device:{self.device_type}:{index}")
        return "".join(parts)

    def __eq__(self, other):
        return isinstance(other, DeviceSpec) and self.to_string() == other.to_string()

    def __hash__(self):
        return hash(self.to_string())

    def __repr__(self):
        return f"<DeviceSpec(job={self.job}, replica={self.replica}, task={self.task}, " \
               f"device_type={self.device_type}, device_index={self.device_index})>"


def _index(text, spec):
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"Unknown attribute '{text}' is encountered while parsing the device spec: "
                         f"'{spec}'.") from None


def merge_device(device_name, outer=""):
    """The canonical name of `device_name` ("/cpu:0" → "/device:CPU:0") with unset fields from `outer`."""
    spec = device_name if isinstance(device_name, DeviceSpec) else DeviceSpec.from_string(str(device_name))
    base = DeviceSpec.from_string(outer) if outer else DeviceSpec()
    return base.make_merged_spec(spec).to_string()


def device(device_name):
    """`tf.device(name)`: ops created in graphs inside it record the device; eagerly, everything runs on the
    CPU (soft placement), so the name is only checked."""
    if callable(device_name):
        raise RuntimeError("tf.device does not support functions when eager execution is enabled.")
    graph = state.graph
    if graph is None:
        if device_name is not None:
            merge_device(device_name)
        return contextlib.nullcontext()
    return graph.device(device_name)


PhysicalDevice = collections.namedtuple("PhysicalDevice", ["name", "device_type"])
LogicalDevice = collections.namedtuple("LogicalDevice", ["name", "device_type"])
_CPU = PhysicalDevice("/physical_device:CPU:0", "CPU")
_visible = [_CPU]


def list_physical_devices(device_type=None):
    return [_CPU] if device_type is None or str(device_type).upper() == "CPU" else []


class LogicalDeviceConfiguration(collections.namedtuple(
        "LogicalDeviceConfiguration", ["memory_limit", "experimental_priority", "experimental_device_ordinal"])):
    """One logical (virtual) device to carve out of a physical one (`set_logical_device_configuration`)."""

    def __new__(cls, memory_limit=None, experimental_priority=None, experimental_device_ordinal=None):
        return super().__new__(cls, memory_limit, experimental_priority, experimental_device_ordinal)


_logical_configuration = {}   # physical device -> [LogicalDeviceConfiguration]
_devices_initialized = [False]   # TensorFlow fixes the logical devices once they are first listed


def set_logical_device_configuration(device, logical_devices):
    """Splits the physical `device` into `len(logical_devices)` logical devices (CPU:0, CPU:1, ...), as
    TensorFlow does before its runtime starts; ops still all run on the one CPU."""
    if device not in list_physical_devices():
        raise ValueError(f"Unrecognized device: {device!r}")
    if _devices_initialized[0]:
        raise RuntimeError("Virtual devices cannot be modified after being initialized")
    configurations = list(logical_devices) if logical_devices is not None else None
    if configurations is None:
        _logical_configuration.pop(device, None)
    else:
        _logical_configuration[device] = configurations


def get_logical_device_configuration(device):
    if device not in list_physical_devices():
        raise ValueError(f"Unrecognized device: {device!r}")
    found = _logical_configuration.get(device)
    return list(found) if found is not None else None


def list_logical_devices(device_type=None):
    _devices_initialized[0] = True
    if device_type is not None and str(device_type).upper() != "CPU":
        return []
    count = len(_logical_configuration.get(_CPU) or [None])
    return [LogicalDevice(f"/device:CPU:{i}", "CPU") for i in range(count)]


def get_visible_devices(device_type=None):
    return [d for d in _visible if device_type is None or d.device_type == str(device_type).upper()]


def set_visible_devices(devices, device_type=None):
    devices = [devices] if isinstance(devices, PhysicalDevice) else list(devices)
    for d in devices:
        if d not in list_physical_devices():
            raise ValueError(f"Unrecognized device: {d!r}")
    if device_type is None or str(device_type).upper() == "CPU":
        if not devices:
            raise ValueError("CPU must be visible: tensorflux runs every op on the CPU.")
        _visible[:] = devices


def set_memory_growth(device, enable):
    raise ValueError("Cannot set memory growth on non-GPU and non-Pluggable devices")


def get_memory_growth(device):
    raise ValueError("Cannot get memory growth on non-GPU and non-Pluggable devices")


set_virtual_device_configuration = set_logical_device_configuration
get_virtual_device_configuration = get_logical_device_configuration
VirtualDeviceConfiguration = LogicalDeviceConfiguration

API = {"": ["device", "DeviceSpec"],
       "config": ["list_physical_devices", "list_logical_devices", "get_visible_devices", "set_visible_devices",
                  "PhysicalDevice", "LogicalDevice", "LogicalDeviceConfiguration",
                  "set_logical_device_configuration", "get_logical_device_configuration"],
       "config.experimental": ["list_physical_devices", "list_logical_devices", "get_visible_devices",
                               "set_visible_devices", "set_memory_growth", "get_memory_growth",
                               "VirtualDeviceConfiguration", "set_virtual_device_configuration",
                               "get_virtual_device_configuration"]}
