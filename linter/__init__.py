"""sparkcheck: a linter for Apache Spark (the engine; rules live in ``checks``)."""

__version__ = "0.1.0"
