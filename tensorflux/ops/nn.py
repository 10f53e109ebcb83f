"""(op family 'nn' — being written)"""

API = {}
