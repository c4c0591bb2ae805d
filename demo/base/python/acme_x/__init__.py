"""acme_x: the Python half of the acme utilities (statistics and the record format)."""
