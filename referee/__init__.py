"""A referee for Hearts bot tournaments."""

__version__ = "0.1.0"
