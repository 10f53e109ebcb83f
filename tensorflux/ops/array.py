"""(op family 'array' — being written)"""

API = {}
