"""(op family 'random' — being written)"""

API = {}
