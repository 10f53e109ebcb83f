"""(being written)"""

API = {}
