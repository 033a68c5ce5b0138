"""Rules that read Spark SQL (sqlglot)."""
