"""HTTP middleware in pure ASGI, one class a file named for it: body limits and readable bodies, HEAD as
GET, security headers, compression, the request log, the raw channel and the warm-up gate.
"""
