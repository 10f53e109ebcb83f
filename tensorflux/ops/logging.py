"""(op family 'logging' — being written)"""

API = {}
