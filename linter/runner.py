"""Check many files: cache lookups in this process, misses over a process pool."""

from __future__ import annotations

import gc
import os
from contextlib import contextmanager
from dataclasses import dataclass, field

from linter.budget import OverBudget, deadline, over_budget, stopped
from linter.cache import Cache
from linter.diagnostics import Finding
from linter.engine import check_source, error_finding, forget_file_facts, read_file
from linter.sources import SourceError

# Below these, starting worker processes costs more than it saves.
PARALLEL_MIN_FILES = 8
PARALLEL_MIN_BYTES = 256 * 1024


@dataclass
class RunResult:
    findings: list[Finding] = field(default_factory=list)
    files: int = 0
    cached: int = 0
    internal_errors: list[str] = field(default_factory=list)


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return max(1, os.cpu_count() or 1)


_WORKER_SETTINGS: list = []


# A check allocates millions of small objects (libcst builds about 2 nodes per
# source token) and frees them by reference counting: libcst trees hold no
# cycles.  CPython's default collector would scan the young objects every 700
# allocations and the whole heap every few hundred thousand; with the objects
# alive at start frozen and the first threshold at 20,000, checking pyspark's
# sources in one process takes about 9% less time (bench/README.md).
_GC_THRESHOLD = (20_000, 20, 20)


def _tune_gc() -> None:
    gc.freeze()
    gc.set_threshold(*_GC_THRESHOLD)


@contextmanager
def _gc_tuned(until_first_file: bool = False):
    """The tuned collector for a check run in this process, restored afterwards (the API may be embedded);
    ``until_first_file``: off until ``_check_one`` has checked one file (below)."""
    global _GC_PENDING
    before = gc.get_threshold()
    collecting = gc.isenabled()
    _tune_gc()
    if until_first_file:
        _collector_off_until_first_file()
    try:
        yield
    finally:
        _GC_PENDING = False
        gc.set_threshold(*before)
        gc.unfreeze()
        if collecting:
            gc.enable()
        else:
            gc.disable()


# The first file a process checks imports what checking needs (libcst alone creates some 200,000 objects,
# nearly all alive until the process ends): the collector's passes over them then find nothing to free and
# cost a third of the import of libcst. So it is off until that first file is checked; then what is alive is
# frozen (out of every later pass) and the collector runs tuned, as below, for the rest of the run.
_GC_PENDING = False


def _collector_off_until_first_file() -> None:
    global _GC_PENDING
    gc.disable()
    _GC_PENDING = True


def _collector_on() -> None:
    global _GC_PENDING
    _GC_PENDING = False
    _tune_gc()
    gc.enable()


def _init_worker(settings_list, tune_gc: bool = False) -> None:
    global _WORKER_SETTINGS
    _WORKER_SETTINGS = settings_list
    if tune_gc:
        _collector_off_until_first_file()


def _check_one(task):
    index, path, data, _key = task
    settings = _WORKER_SETTINGS[index]
    try:
        with deadline(settings["time-budget"]):  # the file's time budget (linter/budget.py)
            findings = check_source(path, data, settings)
        if _GC_PENDING:
            _collector_on()
        return path, findings, None
    except OverBudget:
        if _GC_PENDING:
            _collector_on()
        return path, over_budget(path, settings), None
    except Exception as exc:  # noqa: BLE001 - one broken rule must not lose the other files
        if _GC_PENDING:
            _collector_on()
        import traceback

        tb = traceback.extract_tb(exc.__traceback__)[-1]
        where = f"{os.path.basename(tb.filename)}:{tb.lineno}"
        return path, [], f"{type(exc).__name__}: {exc} (at {where})"


def _check_batch(tasks):
    """A worker's results, as plain data for the trip back."""
    return [(path, [f.to_dict() for f in findings], error) for path, findings, error in map(_check_one, tasks)]


def _batches(tasks: list, total: int, jobs: int) -> list[list]:
    """Tasks in batches of similar size, largest first; a notebook's folder in one batch.

    A worker that is free takes the next batch, so batches must be small
    against the whole run; a batch per file would pay the pool's hand-over for
    each of thousands of small files.  Batches are cut by bytes, not by count:
    cutting pyspark's sources into len/16 files per batch put half of all bytes
    in the first one (cold, 2 processes: 6.9 s that way, 6.1 s by bytes).
    A notebook reads the files of its folder (linter/semantic/neighbours.py) and
    keeps their trees for their own checks: work done once per process, so such
    a folder is not cut (the shared corpus, 2 processes: 99 neighbour reads, as
    in one process, where files sorted by size alone made 170).
    """
    from linter.neighbours import folder_of, is_notebook

    folders = [folder_of(t[1]) for t in tasks]
    notebook_folders = {folder for folder, t in zip(folders, tasks) if is_notebook(t[1], t[2])}
    sizes: dict = {}
    for folder, task in zip(folders, tasks):
        if folder in notebook_folders:
            sizes[folder] = sizes.get(folder, 0) + len(task[2])
    # (a folder holding half a process's share or more is cut as usual: one worker alone on it would leave the
    # others idle, which costs more than parsing some neighbours twice)
    kept = {folder for folder, size in sizes.items() if size < max(32 * 1024, total // (2 * max(1, jobs)))}
    units: dict = {}  # a folder holding a notebook kept together, or one file -> its tasks
    for folder, task in zip(folders, tasks):
        units.setdefault(folder if folder in kept else task[1], []).append(task)
    groups = sorted((sorted(group, key=lambda t: -len(t[2])) for group in units.values()),
                    key=lambda group: -sum(len(t[2]) for t in group))
    target = max(32 * 1024, total // (jobs * 32))
    out, current, size = [], [], 0
    for group in groups:
        current.extend(group)
        size += sum(len(t[2]) for t in group)
        if size >= target:
            out.append(current)
            current, size = [], 0
    if current:
        out.append(current)
    return out


def check_files(paths: list[str], resolver, use_cache: bool, jobs: int, cache_dir: str | None) -> RunResult:
    result = RunResult(files=len(paths))
    forget_file_facts()  # what the files around them hold is read once per run (a process may run several)
    cache = Cache(cache_dir) if use_cache and cache_dir else None
    settings_list: list = []
    settings_index: dict[int, int] = {}
    misses = []  # (index, path, data, key)
    for path in paths:
        settings = resolver.for_path(path)
        index = settings_index.get(id(settings))
        if index is None:
            index = settings_index[id(settings)] = len(settings_list)
            settings_list.append(settings)
        try:
            data = read_file(path, settings["max-file-size"])
        except SourceError as exc:
            if "SPK001" in settings.codes_for(path):
                result.findings.append(error_finding(path, exc.message))
            continue
        key = None
        if cache is not None:
            key = cache.key(path, data, settings, settings.codes_for(path))
            hit = cache.get(key, path)
            if hit is not None:
                result.findings.extend(hit)
                result.cached += 1
                continue
        misses.append((index, path, data, key))

    total = sum(len(m[2]) for m in misses)
    # The cache's entries are added here, from what the checks return, and written in one pack at the end.
    keys = {m[1]: m[3] for m in misses} if cache is not None else {}
    if jobs > 1 and len(misses) >= PARALLEL_MIN_FILES and total >= PARALLEL_MIN_BYTES:
        from concurrent.futures import ProcessPoolExecutor  # 30 ms of imports that a one-file run does without

        with ProcessPoolExecutor(max_workers=jobs, initializer=_init_worker,
                                 initargs=(settings_list, True)) as pool:
            for batch in pool.map(_check_batch, _batches(misses, total, jobs)):
                for path, dicts, error in batch:
                    if cache is not None and error is None and not stopped(dicts):
                        cache.put_dicts(keys[path], dicts)
                    _take(result, path, [Finding.from_dict(d) for d in dicts], error)
    else:
        _init_worker(settings_list)
        with _gc_tuned(until_first_file=True):
            for task in misses:
                path, findings, error = _check_one(task)
                if cache is not None and error is None and not stopped(findings):
                    cache.put(task[3], findings)
                _take(result, path, findings, error)
    if cache is not None:
        cache.save(len(paths))
    result.findings.sort(key=Finding.sort_key)
    return result


def _take(result: RunResult, path: str, findings: list, error: str | None) -> None:
    if error is not None:
        result.internal_errors.append(f"{path}: {error}")
    else:
        result.findings.extend(findings)
