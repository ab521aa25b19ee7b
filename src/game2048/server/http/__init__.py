"""HTTP plumbing in pure ASGI, one job a file: body limits and readable bodies, HEAD as GET, security
headers, the request log, conditional answers and the answer cache.
"""
