from typing import Optional

import libcst as cst

from checks.python._driver import shown
from checks.python._fixes import replace
from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import SESSION, keyword_arg, literal_string, positional_args

_SETUP = (
    "from pyspark import StorageLevel\nfrom pyspark.sql import SparkSession\n"
    "spark = SparkSession.builder.getOrCreate()\norders = spark.table('sales.orders')\n"
)
# The memory-only levels and the level with disk that keeps everything else (serialization, replicas).
_WITH_DISK = {"MEMORY_ONLY": "MEMORY_AND_DISK", "MEMORY_ONLY_2": "MEMORY_AND_DISK_2"}
_SERIALIZED = ("MEMORY_ONLY_SER", "MEMORY_ONLY_SER_2")  # Scala's names: PySpark has none since 2.0
_STORAGE_LEVEL = ("pyspark.StorageLevel", "pyspark.storagelevel.StorageLevel")


class MemoryOnlyStorageLevel(PythonRule):
    """
    ## What it does
    Finds a DataFrame persisted with a memory-only storage level:
    `df.persist(StorageLevel.MEMORY_ONLY)` (`MEMORY_ONLY_2`, a
    `StorageLevel(False, True, ...)` built by hand, the string
    `"MEMORY_ONLY"`), and `spark.catalog.cacheTable(name, StorageLevel.MEMORY_ONLY)`.
    Scala's `MEMORY_ONLY_SER` is reported too: PySpark has no such level.

    RDDs are not reported: `MEMORY_ONLY` is `RDD.persist()`'s own default,
    Spark's choice for data whose lineage is usually cheap to replay. Nor is
    a receiver sparkcheck cannot tell is a DataFrame (it may be an RDD).

    ## Why is this bad?
    With a memory-only level, the cached partitions that do not fit in
    storage memory, or that are evicted later to make room, are simply
    dropped, and every action that reads the cache recomputes them from the
    DataFrame's whole lineage: the scan, the joins, the shuffles the cache
    was there to avoid. That is why `DataFrame.cache()` and `persist()`
    default to a level with disk (`MEMORY_AND_DISK`, shown as
    `MEMORY_AND_DISK_DESER` since PySpark 3.4): when everything fits, the two
    levels behave the same; when it does not, reading a spilled block back
    from local disk is cheaper than recomputing a partition of a SQL plan.
    `StorageLevel.MEMORY_ONLY_SER` raises `AttributeError` in PySpark, and a
    string level fails (`TypeError`: "storageLevel must be of type
    pyspark.StorageLevel").

    ## Example
    ```python
    orders.persist(StorageLevel.MEMORY_ONLY)
    ```

    ## Use instead
    ```python
    orders.persist(StorageLevel.MEMORY_AND_DISK)  # or orders.cache()
    ```

    ## Fix safety
    Safe, for `StorageLevel.MEMORY_ONLY` -> `MEMORY_AND_DISK` and
    `MEMORY_ONLY_2` -> `MEMORY_AND_DISK_2` (same serialization, same
    replicas): a storage level decides where cached blocks are kept, never
    what the DataFrame holds, so every result stays the same. What changes
    is that blocks which do not fit are written to executors' local disk
    instead of being dropped. No fix for the other forms.

    ## References
    - PySpark API: `DataFrame.persist` ("If no storage level is specified
      defaults to (MEMORY_AND_DISK_DESER)"), `RDD.persist`, `StorageLevel`.
    - RDD Programming Guide, "Which Storage Level to Choose?".
    """

    code = "SPK425"
    name = "memory-only-storage-level"
    summary = "a DataFrame persisted memory-only recomputes every partition that does not fit"
    default_reason = ("a memory-only DataFrame cache drops what does not fit and recomputes it from the "
                      "whole lineage, and its string and `_SER` forms fail outright; RDDs are not reported")
    triggers = ("MEMORY_ONLY", "StorageLevel")
    fix = "safe"
    doc_setup = "from pyspark import StorageLevel\norders = spark.table('sales.orders')\n"

    invalid = (
        Invalid(_SETUP + "orders.persist(StorageLevel.MEMORY_ONLY)\n",
                fixed=_SETUP + "orders.persist(StorageLevel.MEMORY_AND_DISK)\n"),
        Invalid(_SETUP + "import pyspark\nhot = orders.filter('amount > 0').persist(pyspark.StorageLevel.MEMORY_ONLY_2)\n",
                fixed=_SETUP + "import pyspark\nhot = orders.filter('amount > 0').persist(pyspark.StorageLevel.MEMORY_AND_DISK_2)\n"),
        Invalid(_SETUP + "orders.persist(storageLevel=StorageLevel.MEMORY_ONLY_SER)\n"),
        Invalid(_SETUP + "orders.persist(StorageLevel(False, True, False, False))\n"),
        Invalid(_SETUP + "orders.persist('MEMORY_ONLY')\n"),
        Invalid(_SETUP + "spark.catalog.cacheTable('sales.orders', StorageLevel.MEMORY_ONLY)\n",
                fixed=_SETUP + "spark.catalog.cacheTable('sales.orders', StorageLevel.MEMORY_AND_DISK)\n"),
        Invalid("from pyspark import StorageLevel\n\ndef prepare(df):\n"
                "    return df.withColumn('x', df.a + 1).persist(StorageLevel.MEMORY_ONLY)\n",
                fixed="from pyspark import StorageLevel\n\ndef prepare(df):\n"
                "    return df.withColumn('x', df.a + 1).persist(StorageLevel.MEMORY_AND_DISK)\n"),
        # a notebook cell: `df` and `StorageLevel` come from an earlier cell, nothing here binds them
        Invalid("from pyspark.sql import SparkSession\n\ndf.persist(StorageLevel.MEMORY_ONLY)\n",
                fixed="from pyspark.sql import SparkSession\n\ndf.persist(StorageLevel.MEMORY_AND_DISK)\n"),
    )
    valid = (
        Valid(_SETUP + "orders.persist(StorageLevel.MEMORY_AND_DISK)\n"),
        Valid(_SETUP + "orders.persist()\norders.cache()\n"),
        # dask imported: a free `df` may be its frame, whose `persist` takes no storage level of Spark's
        Valid("from pyspark.sql import SparkSession\nimport dask.dataframe as dd\n\ndf.persist(StorageLevel.MEMORY_ONLY)\n"),
        Valid(_SETUP + "lines = spark.sparkContext.textFile('s3://logs/')\nlines.persist(StorageLevel.MEMORY_ONLY)\n"),
        Valid(_SETUP + "pairs = orders.rdd.map(lambda r: (r.id, r))\npairs.persist(StorageLevel.MEMORY_ONLY)\n"),
        Valid("from pyspark import StorageLevel\n\ndef keep(data):\n    return data.persist(StorageLevel.MEMORY_ONLY)\n"),
        Valid(_SETUP + "orders.persist(StorageLevel.DISK_ONLY)\n"),
    )

    def _level(self, arg) -> Optional[tuple[str, Optional[cst.Name]]]:
        """(the level's name, the node a fix rewrites) for a memory-only level."""
        semantic = self.ctx.semantic
        if isinstance(arg, cst.Attribute):
            level = arg.attr.value
            if level in _WITH_DISK or level in _SERIALIZED:
                if semantic.qualified_name(arg.value) in _STORAGE_LEVEL:
                    return level, arg.attr
            return None
        text = literal_string(arg)
        if text is not None:
            return (text, None) if text.upper().startswith("MEMORY_ONLY") else None
        if isinstance(arg, cst.Call) and semantic.qualified_name(arg.func) in _STORAGE_LEVEL:
            flags = positional_args(arg)
            disk = keyword_arg(arg, "useDisk") or (flags[0] if flags else None)
            memory = keyword_arg(arg, "useMemory") or (flags[1] if len(flags) > 1 else None)
            if isinstance(disk, cst.Name) and disk.value == "False" and isinstance(memory, cst.Name) \
                    and memory.value == "True":
                return "StorageLevel(False, True, ...)", None
        return None

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not isinstance(func, cst.Attribute) or func.attr.value not in ("persist", "cacheTable"):
            return
        method = func.attr.value
        args = positional_args(node)
        position = 0 if method == "persist" else 1
        arg = keyword_arg(node, "storageLevel")
        if arg is None:
            arg = args[position] if len(args) > position else None
        if arg is None:
            return
        found = self._level(arg)
        if found is None:
            return
        level, fixable = found
        receiver = func.value
        if method == "persist":
            if not self.ctx.semantic.is_dataframe(receiver):
                return  # an RDD (MEMORY_ONLY is its default), or nothing says which
            what = f"`{shown(self.ctx, receiver)}`"
        else:
            if not (isinstance(receiver, cst.Attribute) and receiver.attr.value == "catalog"):
                return
            session = self.ctx.semantic.infer(receiver.value)
            if session is None or session.kind != SESSION:
                return
            what = f"table {shown(self.ctx, args[0])}" if args else "the table"
        if level in _SERIALIZED:
            message = f"`StorageLevel.{level}` does not exist in PySpark (`AttributeError`): persisting {what}"
        elif fixable is None and literal_string(arg) is not None:
            message = (f"`{method}` takes a `StorageLevel`, not a string: it fails (`TypeError`); and a memory-only "
                       f"level for {what} would drop the partitions that do not fit")
        else:
            message = (f"{what} is cached with `{level}`: partitions that do not fit in memory are dropped and "
                       f"recomputed from the whole lineage on every use")
        fix = None
        if fixable is not None and level in _WITH_DISK:
            fix = replace(fixable, _WITH_DISK[level], f"Use `StorageLevel.{_WITH_DISK[level]}`")
        self.ctx.report(
            self,
            node,
            message,
            help="use `StorageLevel.MEMORY_AND_DISK` (or plain `cache()`): blocks that do not fit go to local disk",
            fix=fix,
            start=func.attr,
        )
