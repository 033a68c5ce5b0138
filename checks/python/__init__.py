"""Rules that read PySpark code (libcst)."""
