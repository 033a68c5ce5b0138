"""Loaded by `sparkcheck capture` into the job's interpreter (and only there), through PYTHONPATH.

PySpark names a SQL execution after the job's Python line only for some
actions (`collect at job.py:16`); DataFrame `count`, `show` and every write are
named after a JVM frame (`count at NativeMethodAccessorImpl.java:0`). This
wraps those actions so that they set the call
site from the job's calling line (as `SCCallSiteSync` does for `collect`), so
every execution and stage of the run names the line that started it. With
`capture --remote` (Spark Connect, whose event log is on the server), each
action also asks the server for its plan (`explain("cost")`) and appends it,
with the calling line, to the file SPARKCHECK_CONNECT_PLANS names. Nothing
else changes, nothing is
imported before the job imports pyspark, and a sitecustomize the job's
environment already had is run after this one.
"""

import functools
import importlib.abc
import importlib.util
import os
import sys

_ACTIONS = ("count", "collect", "toPandas", "show", "take", "first", "head", "foreach", "foreachPartition",
            "toLocalIterator", "tail", "isEmpty")
_WRITES = ("save", "parquet", "csv", "json", "orc", "text", "saveAsTable", "insertInto", "jdbc")


def _context(obj):
    session = getattr(obj, "sparkSession", None) or getattr(obj, "_spark", None)
    if session is None and getattr(obj, "_df", None) is not None:
        session = obj._df.sparkSession
    return getattr(session, "sparkContext", None)


def _wrap(cls, name, around):
    """Replace `cls.name` by a method that, when the job itself calls it (not pyspark), runs it through
    `around(self, name, filename, line, call)`; calls from inside pyspark go straight through."""
    original = cls.__dict__.get(name)
    if original is None or getattr(original, "_sparkcheck", False):
        return
    root = os.path.dirname(os.path.abspath(sys.modules["pyspark"].__file__))

    @functools.wraps(original)
    def action(self, *args, **kwargs):
        caller = sys._getframe(1)
        filename = os.path.abspath(caller.f_code.co_filename)
        if filename.startswith(root + os.sep):
            return original(self, *args, **kwargs)
        return around(self, name, filename, caller.f_lineno, lambda: original(self, *args, **kwargs))

    action._sparkcheck = True
    setattr(cls, name, action)


def _named_after_the_line(self, name, filename, line, call):
    """Classic Spark: the SQL execution and its stages are named `name at filename:line`."""
    from pyspark.traceback_utils import SCCallSiteSync

    if SCCallSiteSync._spark_stack_depth:
        return call()
    try:
        context = _context(self)
        context._jsc.setCallSite(f"{name} at {filename}:{line}")
    except Exception:
        return call()
    SCCallSiteSync._spark_stack_depth += 1  # pyspark's own helper inside keeps the job's line
    try:
        return call()
    finally:
        SCCallSiteSync._spark_stack_depth -= 1
        try:
            context._jsc.setCallSite(None)
        except Exception:
            pass


def _install():
    try:
        import pyspark.sql.dataframe as dataframe
        import pyspark.sql.readwriter as readwriter

        classes = [dataframe.DataFrame]
        try:
            import pyspark.sql.classic.dataframe as classic

            classes.append(classic.DataFrame)
        except Exception:
            pass
        for cls in classes:
            for name in _ACTIONS:
                _wrap(cls, name, _named_after_the_line)
        for name in _WRITES:
            _wrap(readwriter.DataFrameWriter, name, _named_after_the_line)
    except Exception:
        return  # never break the job: without the wrappers, call sites are only less precise


def _record_connect_plans(path):
    """Spark Connect: before each action, ask the server for the plan (`cost` mode) and append it to `path`."""
    import json

    try:
        import pyspark.sql.connect.dataframe as connect_dataframe
        import pyspark.sql.connect.readwriter as connect_readwriter
    except Exception:
        return

    def recorder(frame_of):
        # (a Connect DataFrame answers any unknown attribute with a Column: the frame is named per class)
        def recorded(self, name, filename, line, call):
            try:
                plan = frame_of(self)._explain_string(mode="cost")
                with open(path, "a", encoding="utf-8") as out:
                    out.write(json.dumps({"action": name, "file": filename, "line": line, "plan": plan}) + "\n")
            except Exception:
                pass  # the action runs whether or not its plan could be read
            return call()
        return recorded

    for name in _ACTIONS:
        _wrap(connect_dataframe.DataFrame, name, recorder(lambda df: df))
    for name in _WRITES:
        _wrap(connect_readwriter.DataFrameWriter, name, recorder(lambda writer: writer._df))


class _AfterSql(importlib.abc.MetaPathFinder):
    """Installs the wrappers once the `pyspark.sql` package has finished importing (no import cycle)."""

    def find_spec(self, fullname, path, target=None):
        if fullname != "pyspark.sql":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)
        if spec is None or spec.loader is None:
            return spec
        loader = spec.loader
        exec_module = loader.exec_module

        def exec_and_install(module):
            exec_module(module)
            _install()
            if os.environ.get("SPARKCHECK_CONNECT_PLANS"):
                _record_connect_plans(os.environ["SPARKCHECK_CONNECT_PLANS"])

        loader.exec_module = exec_and_install
        return spec


if os.environ.get("SPARKCHECK_CAPTURE") == "1":
    sys.meta_path.insert(0, _AfterSql())

# The job's own sitecustomize, if its environment had one, still runs.
_here = os.path.dirname(os.path.abspath(__file__))
for _entry in sys.path:
    if os.path.abspath(_entry or ".") == _here:
        continue
    _candidate = os.path.join(_entry or ".", "sitecustomize.py")
    if os.path.isfile(_candidate):
        _spec = importlib.util.spec_from_file_location("_sparkcheck_next_sitecustomize", _candidate)
        if _spec is not None and _spec.loader is not None:
            _spec.loader.exec_module(importlib.util.module_from_spec(_spec))
        break
