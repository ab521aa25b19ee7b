"""What one client may spend: requests per window (``rate``), CPU seconds (``cpu``), stored records
(``quota``), open connections (``connections``).
"""
