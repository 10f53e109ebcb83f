"""Records what TensorFlow does with every call of the malformed-input sweep (tests/errors/).

Run it under an interpreter with TensorFlow 2.21 installed, from the repository root:

    TF_CPP_MIN_LOG_LEVEL=3 ~/venv-tf/bin/python tools/record_op_errors.py [tests/errors/tensorflow_outcomes.json]
    TF_CPP_MIN_LOG_LEVEL=3 ~/venv-tf/bin/python tools/record_op_errors.py --only DecodePng,EncodePng

`--only OP[,OP...]` records just those op types' cases and merges them into the existing recording (for
table entries added later; the rest of the recording is kept as it is).

It imports the sweep's tables (plain Python that never imports tensorflux), runs each case with `tf` =
tensorflow, eagerly and inside tf.function, and writes {case id: outcome} as JSON ("raise:<Class>" or
"ok:<dtype>[shape];..."), which tests/errors/test_op_errors.py compares with tensorflux. Rerun it after
adding table entries; the test reports case ids missing from the recording.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SWEEP = os.path.join(HERE, "..", "tests", "errors")


def main(argv):
    only = None
    if "--only" in argv:
        at = argv.index("--only")
        only = set(argv[at + 1].split(","))
        argv = argv[:at] + argv[at + 2:]
    out_path = os.path.abspath(argv[1] if len(argv) > 1 else os.path.join(SWEEP, "tensorflow_outcomes.json"))
    sys.path.insert(0, SWEEP)
    import tensorflow as tf  # noqa: PLC0415 - the recorder is the one place that runs real TensorFlow
    import sweep
    import table_array
    import table_math
    import table_rest
    import table_special
    import table_extra
    import table_composite

    tf.get_logger().setLevel("ERROR")
    os.chdir(table_rest.PROBE_DIR)   # relative junk file names resolve there, as in the test
    outcomes = {}
    if only is not None:
        with open(out_path) as f:
            outcomes = json.load(f)["outcomes"]
    for case in table_math.CASES + table_array.CASES + table_rest.CASES + table_special.CASES + table_extra.CASES + table_composite.CASES:
        if only is not None and case.op not in only:
            continue
        for variant, replaced in sweep.expand(case):
            for mode in case.modes:
                outcome, _ = sweep.run_case(tf, case, replaced, mode)
                outcomes[f"{case.op}|{variant}|{mode}"] = outcome
        print(case.op, file=sys.stderr)
    meta = {"tensorflow": tf.__version__, "cases": len(outcomes)}
    with open(out_path + ".tmp", "w") as f:
        json.dump({"meta": meta, "outcomes": outcomes}, f, indent=0, sort_keys=True)
        f.write("\n")
    os.replace(out_path + ".tmp", out_path)
    print(json.dumps(meta))


if __name__ == "__main__":
    main(sys.argv)
