"""Experimental FX utilities (``optimization.fuse``)."""
