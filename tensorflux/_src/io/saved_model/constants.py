"""The `tf.saved_model` constants: tag sets, signature keys and method names of TensorFlow Serving's
signature conventions, and the names of a SavedModel directory's parts, with TensorFlow's values."""

# Tags of a MetaGraphDef.
SERVING = "serve"
TRAINING = "train"
GPU = "gpu"
TPU = "tpu"

# Signature keys and method names (classify, regress, predict), with their conventional input/output keys.
DEFAULT_SERVING_SIGNATURE_DEF_KEY = "serving_default"
CLASSIFY_METHOD_NAME = "tensorflow/serving/classify"
CLASSIFY_INPUTS = "inputs"
CLASSIFY_OUTPUT_CLASSES = "classes"
CLASSIFY_OUTPUT_SCORES = "scores"
REGRESS_METHOD_NAME = "tensorflow/serving/regress"
REGRESS_INPUTS = "inputs"
REGRESS_OUTPUTS = "outputs"
PREDICT_METHOD_NAME = "tensorflow/serving/predict"
PREDICT_INPUTS = "inputs"
PREDICT_OUTPUTS = "outputs"

# The directory layout.
SAVED_MODEL_FILENAME_PB = "saved_model.pb"
SAVED_MODEL_FILENAME_PBTXT = "saved_model.pbtxt"
SAVED_MODEL_SCHEMA_VERSION = 1
VARIABLES_DIRECTORY = "variables"
VARIABLES_FILENAME = "variables"
ASSETS_DIRECTORY = "assets"
ASSETS_KEY = "saved_model_assets"
DEBUG_DIRECTORY = "debug"
DEBUG_INFO_FILENAME_PB = "saved_model_debug_info.pb"

API = {"saved_model": ["SERVING", "TRAINING", "GPU", "TPU", "DEFAULT_SERVING_SIGNATURE_DEF_KEY", "CLASSIFY_METHOD_NAME",
                       "CLASSIFY_INPUTS", "CLASSIFY_OUTPUT_CLASSES", "CLASSIFY_OUTPUT_SCORES", "REGRESS_METHOD_NAME",
                       "REGRESS_INPUTS", "REGRESS_OUTPUTS", "PREDICT_METHOD_NAME", "PREDICT_INPUTS", "PREDICT_OUTPUTS",
                       "SAVED_MODEL_FILENAME_PB", "SAVED_MODEL_FILENAME_PBTXT", "SAVED_MODEL_SCHEMA_VERSION",
                       "VARIABLES_DIRECTORY", "VARIABLES_FILENAME", "ASSETS_DIRECTORY", "ASSETS_KEY", "DEBUG_DIRECTORY",
                       "DEBUG_INFO_FILENAME_PB"]}
