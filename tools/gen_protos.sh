#!/bin/sh
# Regenerates tensorflux/_src/io/formats/pb/*_pb2.py from the schemas in tensorflux/_src/io/formats/proto/.
#
# Needs protoc as shipped by the `grpcio-tools` package, used only here (tensorflux itself needs only the
# `protobuf` runtime). The checked-in modules were made by grpcio-tools 1.62.3 (protoc 25.1, gencode for
# protobuf 4.25), the oldest gencode the supported runtimes (protobuf 4.25 to 7.x) all load:
#   .venv/bin/python -m pip install grpcio-tools==1.62.3
#   sh tools/gen_protos.sh            # or PYTHON=/path/to/python sh tools/gen_protos.sh
#
# protoc names modules after the .proto paths (tensorflow/core/framework/tensor_pb2.py importing
# `tensorflow.core.framework`); the steps after it move every module into one private package and point
# its imports there, so that they never meet a real TensorFlow's modules. They also register the files in
# a private descriptor pool instead of protobuf's default one: the messages keep TensorFlow's full names
# (`tensorflow.TensorProto`), which the default pool accepts only once per process.
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
PYTHON=${PYTHON:-$ROOT/.venv/bin/python}
FORMATS=$ROOT/tensorflux/_src/io/formats
OUT=$FORMATS/pb
PACKAGE=tensorflux._src.io.formats.pb

if ! "$PYTHON" -c "import grpc_tools.protoc" 2>/dev/null; then
    echo "gen_protos.sh: protoc not found; install it with: $PYTHON -m pip install grpcio-tools==1.62.3" >&2
    exit 1
fi

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd "$FORMATS/proto"
PROTOS=$(find . -name '*.proto' | sed 's|^\./||' | sort)
"$PYTHON" -m grpc_tools.protoc -I. --python_out="$WORK" $PROTOS

# Every module lands in one folder, so two schemas may not share a base name.
DUPLICATES=$(for p in $PROTOS; do basename "$p"; done | sort | uniq -d)
if [ -n "$DUPLICATES" ]; then
    echo "gen_protos.sh: schemas with the same base name: $DUPLICATES" >&2
    exit 1
fi

rm -f "$OUT"/*_pb2.py
for proto in $PROTOS; do
    generated=$WORK/${proto%.proto}_pb2.py
    target=$OUT/$(basename "${proto%.proto}")_pb2.py
    sed -E \
        -e "s/^from (tensorflow|xla)(\.[A-Za-z0-9_]+)* import ([A-Za-z0-9_]+_pb2) as /from $PACKAGE import \3 as /" \
        -e "s/^from (tensorflow|xla)(\.[A-Za-z0-9_]+)*\.([A-Za-z0-9_]+_pb2) import \*$/from $PACKAGE.\3 import */" \
        -e "s/^(from google\.protobuf\.internal import builder as _builder)$/\1\nfrom $PACKAGE import _private_pool/" \
        -e "s/_descriptor_pool\.Default\(\)/_private_pool.POOL/" \
        -e "s/'(tensorflow|xla)(\.[A-Za-z0-9_]+)*\.([A-Za-z0-9_]+_pb2)'/'$PACKAGE.\3'/" \
        -e "s|^# source: (.*)$|# source: tensorflux/_src/io/formats/proto/\1 (regenerate with tools/gen_protos.sh)|" \
        "$generated" > "$target"
    # A module still naming TensorFlow's packages or the default pool would clash with TensorFlow.
    if grep -qE "^from (tensorflow|xla)|_descriptor_pool\.Default\(\)|'(tensorflow|xla)\.[a-z_.]*_pb2'" "$target"; then
        echo "gen_protos.sh: $target still refers to TensorFlow's modules or the default pool" >&2
        exit 1
    fi
done
echo "gen_protos.sh: wrote $(echo "$PROTOS" | wc -l) modules to $OUT"
