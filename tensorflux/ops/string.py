"""(op family 'string' — being written)"""

API = {}
