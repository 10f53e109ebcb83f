"""The descriptor pool that tensorflux's generated protobuf modules register their files in.

The messages keep TensorFlow's full names so that their bytes and `Any` type URLs are TensorFlow's;
protobuf's default pool accepts a name from one file only, so registering them there would break the
first time TensorFlow's own modules are imported in the same process (or the other way round). A
private pool holds them apart. The well-known files they import (`Any`, wrappers) are added here too,
since a pool resolves imports only among the files it holds.
"""
from google.protobuf import any_pb2, descriptor_pool, wrappers_pb2

POOL = descriptor_pool.DescriptorPool()
for _well_known in (any_pb2, wrappers_pb2):
    POOL.AddSerializedFile(_well_known.DESCRIPTOR.serialized_pb)
