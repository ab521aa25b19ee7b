"""The browser game: its static files (``static/``) and how they are served (``assets``)."""
