"""TensorBoard's profile format: an `XSpace` message (tsl/profiler/protobuf/xplane.proto) with one XPlane per
host, one XLine per thread and one XEvent per recorded span, written as
`<logdir>/plugins/profile/<YYYY_MM_DD_HH_MM_SS>/<host>.xplane.pb` as TensorFlow's profiler writes it.

The schema is built here as a descriptor (the field numbers and types of TensorFlow's xplane.proto) in a
private descriptor pool, so no generated module is needed and TensorFlow's own modules can coexist in the
process. protobuf is imported on the first save only (`import tensorflux` stays free of it).
"""
import os

__all__ = ["xspace_class", "write_profile"]

_PACKAGE = "tensorflow.profiler"
# message -> [(field, number, type, label, message type or None, oneof index or None)]
_INT64, _UINT64, _DOUBLE, _STRING, _BYTES, _MESSAGE = 3, 4, 1, 9, 12, 11
_OPTIONAL, _REPEATED = 1, 3
_SCHEMA = {
    "XSpace": [("planes", 1, _MESSAGE, _REPEATED, "XPlane", None), ("errors", 2, _STRING, _REPEATED, None, None),
               ("warnings", 3, _STRING, _REPEATED, None, None), ("hostnames", 4, _STRING, _REPEATED, None, None)],
    "XPlane": [("id", 1, _INT64, _OPTIONAL, None, None), ("name", 2, _STRING, _OPTIONAL, None, None),
               ("lines", 3, _MESSAGE, _REPEATED, "XLine", None),
               ("event_metadata", 4, _MESSAGE, _REPEATED, "XPlane.EventMetadataEntry", None),
               ("stat_metadata", 5, _MESSAGE, _REPEATED, "XPlane.StatMetadataEntry", None),
               ("stats", 6, _MESSAGE, _REPEATED, "XStat", None)],
    "XLine": [("id", 1, _INT64, _OPTIONAL, None, None), ("display_id", 10, _INT64, _OPTIONAL, None, None),
              ("name", 2, _STRING, _OPTIONAL, None, None), ("display_name", 11, _STRING, _OPTIONAL, None, None),
              ("timestamp_ns", 3, _INT64, _OPTIONAL, None, None), ("duration_ps", 9, _INT64, _OPTIONAL, None, None),
              ("events", 4, _MESSAGE, _REPEATED, "XEvent", None)],
    "XEvent": [("metadata_id", 1, _INT64, _OPTIONAL, None, None), ("offset_ps", 2, _INT64, _OPTIONAL, None, 0),
               ("num_occurrences", 5, _INT64, _OPTIONAL, None, 0), ("duration_ps", 3, _INT64, _OPTIONAL, None, None),
               ("stats", 4, _MESSAGE, _REPEATED, "XStat", None)],
    "XStat": [("metadata_id", 1, _INT64, _OPTIONAL, None, None), ("double_value", 2, _DOUBLE, _OPTIONAL, None, 0),
              ("uint64_value", 3, _UINT64, _OPTIONAL, None, 0), ("int64_value", 4, _INT64, _OPTIONAL, None, 0),
              ("str_value", 5, _STRING, _OPTIONAL, None, 0), ("bytes_value", 6, _BYTES, _OPTIONAL, None, 0),
              ("ref_value", 7, _UINT64, _OPTIONAL, None, 0)],
    "XEventMetadata": [("id", 1, _INT64, _OPTIONAL, None, None), ("name", 2, _STRING, _OPTIONAL, None, None),
                       ("display_name", 4, _STRING, _OPTIONAL, None, None),
                       ("metadata", 3, _BYTES, _OPTIONAL, None, None), ("stats", 5, _MESSAGE, _REPEATED, "XStat", None),
                       ("child_id", 6, _INT64, _REPEATED, None, None)],
    "XStatMetadata": [("id", 1, _INT64, _OPTIONAL, None, None), ("name", 2, _STRING, _OPTIONAL, None, None),
                      ("description", 3, _STRING, _OPTIONAL, None, None)],
}
_ONEOFS = {"XEvent": "data", "XStat": "value"}
_MAPS = {"EventMetadataEntry": "XEventMetadata", "StatMetadataEntry": "XStatMetadata"}
_classes = {}


def xspace_class():
    """The XSpace message class (built on first use)."""
    if not _classes:
        from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
        proto = descriptor_pb2.FileDescriptorProto(name="tsl/profiler/protobuf/xplane.proto", package=_PACKAGE,
                                                   syntax="proto3")
        for name, fields in _SCHEMA.items():
            message = proto.message_type.add(name=name)
            if name in _ONEOFS:
                message.oneof_decl.add(name=_ONEOFS[name])
            if name == "XPlane":
                for entry, value in _MAPS.items():
                    nested = message.nested_type.add(name=entry)
                    nested.options.map_entry = True
                    nested.field.add(name="key", number=1, type=_INT64, label=_OPTIONAL)
                    nested.field.add(name="value", number=2, type=_MESSAGE, label=_OPTIONAL,
                                     type_name=f".{_PACKAGE}.{value}")
            for field, number, kind, label, type_name, oneof in fields:
                added = message.field.add(name=field, number=number, type=kind, label=label)
                if type_name:
                    added.type_name = f".{_PACKAGE}.{type_name}"
                if oneof is not None:
                    added.oneof_index = oneof
        pool = descriptor_pool.DescriptorPool()  # private: TensorFlow's own xplane.proto may be loaded too
        pool.Add(proto)
        _classes["XSpace"] = message_factory.GetMessageClass(pool.FindMessageTypeByName(f"{_PACKAGE}.XSpace"))
    return _classes["XSpace"]


def _set_stat(stat, value):
    if isinstance(value, bool) or isinstance(value, int):
        stat.int64_value = int(value)
    elif isinstance(value, float):
        stat.double_value = value
    elif isinstance(value, bytes):
        stat.bytes_value = value
    else:
        stat.str_value = str(value)


def build_xspace(host, start_ns, stop_ns, threads):
    """The XSpace of one session: `threads` is [(thread id, thread name, [(name, start ns, end ns, stats)])]."""
    space = xspace_class()()
    space.hostnames.append(host)
    plane = space.planes.add(id=0, name="/host:CPU")
    event_ids, stat_ids = {}, {}

    def stat_id(name):
        if name not in stat_ids:
            stat_ids[name] = len(stat_ids) + 1
            plane.stat_metadata[stat_ids[name]].id = stat_ids[name]
            plane.stat_metadata[stat_ids[name]].name = name
        return stat_ids[name]

    for thread_id, thread_name, events in threads:
        if not events:
            continue
        line = plane.lines.add(id=thread_id, display_id=thread_id, name=thread_name, timestamp_ns=start_ns,
                               duration_ps=max(stop_ns - start_ns, 0) * 1000)
        for name, begin, end, stats in sorted(events, key=lambda e: (e[1], -e[2])):
            if name not in event_ids:
                event_ids[name] = len(event_ids) + 1
                plane.event_metadata[event_ids[name]].id = event_ids[name]
                plane.event_metadata[event_ids[name]].name = name
            event = line.events.add(metadata_id=event_ids[name], offset_ps=(begin - start_ns) * 1000,
                                    duration_ps=max(end - begin, 0) * 1000)
            for key, value in (stats or {}).items():
                _set_stat(event.stats.add(metadata_id=stat_id(key)), value)
    environment = space.planes.add(id=0, name="Task Environment")
    for number, (key, value) in enumerate((("profile_start_time", start_ns), ("profile_stop_time", stop_ns)), 1):
        environment.stat_metadata[number].id = number
        environment.stat_metadata[number].name = key
        environment.stats.add(metadata_id=number, uint64_value=value)
    return space


def write_profile(logdir, run, host, space):
    """Writes `space` to `<logdir>/plugins/profile/<run>/<host>.xplane.pb` (atomically) and returns the path."""
    folder = os.path.join(os.fspath(logdir), "plugins", "profile", run)
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, f"{host}.xplane.pb")
    temporary = os.path.join(folder, f".{host}.xplane.pb.saving-{os.getpid()}-{os.urandom(4).hex()}")
    try:
        with open(temporary, "wb") as f:
            f.write(space.SerializeToString())
        os.replace(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.remove(temporary)
    return path
