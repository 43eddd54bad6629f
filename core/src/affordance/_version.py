"""The version of the affordance distribution (kept in one place, readable without importing
the package facade)."""

__version__ = "0.1.0"
