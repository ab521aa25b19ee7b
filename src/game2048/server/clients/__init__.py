"""Who the client is: its address and network (``address``), its browser (``browser``)."""
