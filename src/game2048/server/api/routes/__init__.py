"""The API's routes by resource, each a thin call into the room that does the work."""
