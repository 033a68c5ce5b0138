"""What a Python expression is, as far as Spark is concerned.

The model is built during the engine's single walk: imports, assignments,
function parameters and returns are recorded in scopes as they are met, so when
a rule looks at ``rows = orders.collect()`` it can ask what ``orders`` is.

Where each kind of knowledge is decided:

- ``values``: the kinds (DataFrame, Column, SparkSession, reader, grouped data,
  RDD, pandas and other foreign frames, ...), ``Value`` and the literal helpers;
- ``api``: pyspark's API as inference needs it (which methods keep rows, columns,
  shuffle, cache, write);
- ``scopes``: bindings from imports, assignments, parameters, returns, classes;
- ``inference``: the kind of an expression from the bindings and pyspark's API,
  including the platform entry points (Glue, Delta, DLT, pandas-on-Spark);
- ``evidence``: how a name nothing proves is known from how it is used (a
  DataFrame-only method, a Column argument) and the counter-evidence that wins
  over it (pandas, polars, dask, ibis, ORM objects and their own methods);
- ``bounds``: row bounds, including those of SQL text;
- ``columns``: columns of few values (a condition, a `when` of literals, a UDF returning literals), whose
  groupings and distinct rows are few;
- ``paths``: paths of data shipped with the code (built from ``__file__``): local sample files, small;
- ``templates``: SQL built from Python values (f-strings, ``.format``, ``%``, ``+``), read into text and fields.

A ``Value`` carries a kind, a row ``bound`` and, for DataFrames known from
usage, ``why`` (the evidence, for messages).  ``bound`` is ``UNBOUNDED``,
``None`` (the value came from branches with different bounds),
``BOUNDED`` (size unknown but bounded: data built on the driver, a ``limit(n)``
of a variable) or an ``int`` (at most that many rows: ``limit(10)``, a global
aggregate).  Rows are unbounded unless something proves them small.
"""

from __future__ import annotations

from linter.semantic.api import AGGREGATES, CACHES, GROUPED_MAPS, SHUFFLES, WRITER_CONFIG, WRITES
from linter.semantic.bounds import BOUNDED, FEW_ROWS, UNBOUNDED, sql_bound
from linter.semantic.evidence import Evidence, persist_is_spark
from linter.semantic.columns import FewValues
from linter.semantic.inference import Inference
from linter.semantic.paths import ShippedFiles
from linter.semantic.scopes import Scopes
from linter.semantic.values import (
    BUILDER, CLASS, COLUMN, CONTEXT, DATAFRAME, DATAFRAMES, DYNAMICFRAME, FOREIGN, FUNCTION, FUNCTIONS, GROUPED,
    IMPORT, INSTANCE, NA, PANDAS, RDD, READER, ROWS, SESSION, STRING, UDF, WINDOW, WRITER, Schema, Value,
    dotted_name, keyword_arg, literal_int, literal_string, literal_type, merge, method_name, normalise_type,
    parse_ddl, positional_args,
)


class Semantic(Evidence, Scopes, Inference, FewValues, ShippedFiles):
    """Scopes, evidence and inference, fed by the engine's walk (see ``Scopes.hooks``)."""

    def __init__(self, dataframe_functions: frozenset = frozenset(), text: str | None = None,
                 project_constants: dict | None = None, package_callers: dict | None = None,
                 small_tables: tuple = (), bundled_source: tuple | None = None, neighbours: bool = False,
                 project_sessions: frozenset = frozenset()):
        Scopes.__init__(self, dataframe_functions, text)
        # a notebook: the tables the files beside it write from small frames (linter/neighbours.py)
        self.neighbours = neighbours and bundled_source is not None
        self.small_tables = tuple(small_tables)  # the project's `small-tables` patterns (bounds.declared_small)
        self.bundled_source = bundled_source  # (path, document text): the sample files it may read (paths.py)
        self.project_constants = project_constants or {}  # `pkg.constants.NAME` -> text (linter/project.py)
        self.project_sessions = project_sessions  # `pkg.base.spark`: a session another module of the project made
        # function name -> what the package's other modules pass it (linter/callers.py)
        self.package_callers = package_callers or {}
        Evidence.__init__(self)


__all__ = [
    "AGGREGATES", "BOUNDED", "BUILDER", "CACHES", "CLASS", "COLUMN", "CONTEXT", "DATAFRAME", "DATAFRAMES",
    "DYNAMICFRAME", "FEW_ROWS", "FOREIGN", "FUNCTION", "FUNCTIONS", "GROUPED", "GROUPED_MAPS", "IMPORT", "INSTANCE", "NA", "PANDAS", "RDD",
    "READER", "ROWS", "SESSION", "SHUFFLES", "STRING", "UDF", "UNBOUNDED", "WINDOW", "WRITER", "WRITER_CONFIG",
    "WRITES", "Schema", "Semantic", "Value", "dotted_name", "keyword_arg", "literal_int", "literal_string",
    "literal_type", "merge", "method_name", "normalise_type", "parse_ddl", "persist_is_spark", "positional_args",
    "sql_bound",
]
