"""The server's log: the ``game2048`` loggers as one JSON object a line on standard error."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime
from typing import Any


class JsonLines(logging.Formatter):
    """Each record as one JSON object; ``extra={"fields": {...}}`` adds keys."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds")
                  .replace("+00:00", "Z"),
            "level": record.levelname.lower(),
            "logger": record.name,
        }
        fields = getattr(record, "fields", None)
        if fields:
            line.update(fields)
        else:
            line["message"] = record.getMessage()
        if record.exc_info:
            line["error"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False)


def setup_logging() -> None:
    """Send the ``game2048`` loggers to standard error as JSON lines (once per process)."""
    root = logging.getLogger("game2048")
    if any(isinstance(h.formatter, JsonLines) for h in root.handlers):
        return
    handler = logging.StreamHandler()
    handler.setFormatter(JsonLines())
    root.addHandler(handler)
    root.setLevel(logging.INFO)
