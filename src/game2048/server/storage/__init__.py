"""The database: the engine and migrations (``db``), the tables (``models``)."""
