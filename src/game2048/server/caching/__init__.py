"""Answers kept: the answer cache and a bounded LRU (``answers``), conditional answers (``conditional``)."""
