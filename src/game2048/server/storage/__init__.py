"""The database: the engine, migrations and writes (``db``: ``one_writer``, ``durable``, ``utc_now``), the
tables (``models``)."""
