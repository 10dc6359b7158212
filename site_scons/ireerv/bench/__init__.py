"""The bench: plans as data, tables and charts."""
