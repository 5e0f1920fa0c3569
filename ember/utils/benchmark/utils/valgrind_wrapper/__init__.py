"""Callgrind instruction counts (not available in ember)."""
