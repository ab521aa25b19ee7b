"""What one client may spend: requests per window (``rate``), CPU seconds (``cpu``), and who the client
is (``address``).
"""
