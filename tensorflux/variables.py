"""(tf.Variable — being written)"""

API = {}
