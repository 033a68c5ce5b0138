"""What several configuration rules share."""

TRUE = ("true", "1", "yes")
BUILDER = 'from pyspark.sql import SparkSession\n\nspark = (\n    SparkSession.builder.appName("daily")\n'


def builder(*pairs) -> str:
    """A SparkSession builder with `.config(k, v)` for each pair: the examples' Python."""
    lines = "".join(f'    .config("{k}", "{v}")\n' for k, v in pairs)
    return BUILDER + lines + "    .getOrCreate()\n)\n"
