"""(tf.Module — being written)"""

API = {}
