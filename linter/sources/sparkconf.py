"""Spark configuration wherever it is written, as one list of settings the SPK8xx rules read.

- Python (collected during the engine's single walk): `SparkSession.builder.config("k", "v")` (also `key=`/`value=` and
  `map={...}`), `.master("...")`, `spark.conf.set("k", v)`, `SparkConf().set(...)`,
  `.setAll([(k, v), ...])`, `.setMaster(...)`; only literal values count.
- `spark-defaults.conf`: `key value` or `key=value` lines (Java properties: a `#`
  starts a comment only at the start of a line; after a value it is part of it).
- shell scripts and YAML (CI, Airflow, Kubernetes `SparkApplication`): every
  `spark-submit` command line (continued lines joined) with `--conf k=v`,
  `--master`, `--executor-memory`, `--executor-cores`, `--driver-memory`,
  `--num-executors`; and in YAML, `spark.*: value` keys (a `sparkConf:` map).
- Hadoop XML (`capacity-scheduler.xml`, `yarn-site.xml`): `<name>`/`<value>` pairs.
- Cluster properties written `prefix:key=value` (Dataproc, Yandex Data Processing: `spark:spark.executor.cores=8`,
  `capacity-scheduler:yarn.scheduler.capacity.resource-calculator=...`), the key read without its prefix:
  `.properties` files, and the `--properties` of `gcloud dataproc clusters create` (also gcloud's `^#^`
  delimiter) and `--property` of `yc dataproc cluster create` in shell scripts and YAML, one set per command.
- cluster and job definitions in JSON, YAML and Terraform (AWS EMR configuration lists, CloudFormation,
  EMR Serverless job runs and `sparkSubmitParameters`, Databricks `spark_conf`, Spark operator
  `SparkApplication` manifests, Dataproc and Yandex Data Processing Terraform): linter/sources/clusters.py,
  one set per cluster; and the JSON given inline to `aws emr create-cluster --configurations` and
  `aws emr-serverless start-job-run` in scripts.
- an event log's environment (Spark Properties), read by linter/sources/app.py.

Each setting keeps where its value is written (offsets into the text, or a
libcst node), so a finding lands on the value.
"""

from __future__ import annotations

import bisect
import itertools
import re
from dataclasses import dataclass, field
from typing import Any, Optional

# Command-line options of spark-submit that are settings.
SUBMIT_FLAGS = {"--master": "spark.master", "--executor-memory": "spark.executor.memory",
                "--executor-cores": "spark.executor.cores", "--driver-memory": "spark.driver.memory",
                "--num-executors": "spark.executor.instances", "--deploy-mode": "spark.submit.deployMode"}
OBJECT_STORE = re.compile(r"\b(?:s3a?|s3n|gs|abfss?|wasbs?|oss|cos)://", re.I)
_RDD = re.compile(r"\.rdd\b|\bparallelize\(|\.textFile\(|\bmapPartitions\(|\bsc\.\w+File\(")


def mentions_object_store(text: str) -> bool:
    """An s3://, gs://, abfss:// ... path in the text: ``OBJECT_STORE.search(text) is not None``.

    The pattern tried at every letter of a long text is slow, and most texts with a `://` hold only `http://`
    addresses (a licence header): it is tried only in the few characters before each `://`, where any match of
    it ends (its schemes are at most five letters; its word boundary is read from the text before them)."""
    at = text.find("://")
    while at >= 0:
        if OBJECT_STORE.search(text, max(at - 5, 0), at + 3) is not None:
            return True
        at = text.find("://", at + 1)
    return False


def _streams(text: str) -> bool:
    return any(w in text for w in ("readStream", "writeStream", "read_stream"))


def _uses_rdd(text: str) -> bool:
    return any(w in text for w in (".rdd", "parallelize(", "File(", "mapPartitions(")) and _RDD.search(text) is not None


@dataclass
class Setting:
    key: str
    value: str
    start: int = 0  # offsets of the value in the text (text sources)
    end: int = 0
    node: Any = None  # the libcst node of the value (Python)
    line: int = 0  # 1-based line (event logs)


@dataclass
class ConfigSet:
    """The settings of one source, in the order they are written (the last one of a key wins)."""

    # "python", "defaults", "submit", "yaml", "xml", "properties", "eventlog", "json", "terraform" (the file's own
    # settings), and for a cluster definition its platform: "cluster" (Dataproc, Yandex Data Processing), "emr",
    # "databricks", "kubernetes" (the Spark operator).
    kind: str
    settings: list = field(default_factory=list)
    object_store_writes: bool = False  # the same source writes to s3://, gs://, abfss:// ...
    uses_rdd: bool = False
    master: Optional[str] = None
    streaming: bool = False  # the same source runs a Structured Streaming query (readStream, writeStream, DLT)
    # a run's (event logs only): the most shuffle data one stage of a SQL execution read, in bytes; where the
    # settings were read (the Spark Properties' line), for a finding about a setting left at its default
    largest_sql_shuffle: int = 0
    line: int = 0
    # a run's (event logs only): the share of task time in RDD jobs (stages of no SQL execution), and whether
    # the application is a JVM one (its driver ran a class of a jar, not a Python file or the PySpark shell)
    rdd_share: float = 0.0
    jvm_application: bool = False

    def add(self, setting: Setting) -> None:
        self.settings.append(setting)
        if setting.key == "spark.master":
            self.master = setting.value

    def get(self, key: str) -> Optional[Setting]:
        for setting in reversed(self.settings):
            if setting.key == key:
                return setting
        return None

    def value(self, key: str) -> Optional[str]:
        setting = self.get(key)
        return setting.value.strip() if setting is not None else None

    @property
    def local(self) -> bool:
        return (self.master or "").startswith("local")


# What a JSON, YAML or Terraform file must say, in any letter case, to be read: a Spark or YARN setting, a
# spark-submit line or a Dataproc command (YAML), or the keys of a cluster definition (clusters.py's markers).
_CONTENT = {"json": (b"classification", b"spark_conf", b"sparkconf", b"sparksubmitparameters", b"spark-submit",
                     b"override_properties", b"softwareconfig", b"spark_submit_task", b"dataproc"),
            "terraform": (b"dataproc", b"databricks_cluster", b"databricks_job", b"spark_conf", b"aws_emr",
                          b"classification", b"spark_submit_parameters", b"spark."),
            "yaml": (b"spark", b"yarn", b"dataproc", b"classification")}


def may_hold_settings(language: str, data: bytes) -> bool:
    """Whether a file of a config language discovery picks by content (see ``BY_CONTENT`` in
    linter/sources/__init__.py) can hold a setting sparkcheck reads: a byte test, no decoding, no parse."""
    markers = _CONTENT.get(language)
    if markers is None:
        return True
    lowered = data.lower()
    return any(marker in lowered for marker in markers)


def file_may_hold_settings(language: str, path: str, chunk: int = 1 << 20) -> bool:
    """``may_hold_settings`` of a file, read a chunk at a time (a large data or lock file is not held in
    memory whole, and the scan stops at the first marker). A file that cannot be read says yes: reading
    it fails later, with its own message."""
    markers = _CONTENT.get(language)
    if markers is None:
        return True
    overlap = max(len(m) for m in markers) - 1
    try:
        with open(path, "rb") as f:
            tail = b""
            while True:
                block = f.read(chunk)
                if not block:
                    return False
                window = tail + block.lower()
                if any(marker in window for marker in markers):
                    return True
                tail = window[-overlap:]
    except OSError:
        return True


def is_config_file(path: str) -> bool:
    """A settings file by its name: spark-defaults*.conf, .properties, shell, YAML, capacity-scheduler.xml,
    yarn-site.xml, JSON, Terraform."""
    from linter.sources import CONFIG_LANGUAGES, language_of

    return language_of(path) in CONFIG_LANGUAGES


# What a config language is read as (ConfigSet.kind).
_KINDS = {"spark-defaults": "defaults", "properties": "properties", "shell": "submit", "yaml": "yaml",
          "hadoop-xml": "xml", "json": "json", "terraform": "terraform"}


def _kind(path: str, language: Optional[str] = None) -> str:
    from linter.sources import language_of

    return _KINDS.get(language or language_of(path) or "", "submit")


def from_text(path: str, text: str, language: Optional[str] = None) -> ConfigSet:
    """All the settings of a config file in one set, cluster definitions in it included (see ``config_sets``)."""
    sets = config_sets(path, text, language)
    if len(sets) == 1:
        return sets[0]
    merged = ConfigSet(sets[0].kind, object_store_writes=sets[0].object_store_writes)
    for conf in sets:
        for setting in conf.settings:
            merged.add(setting)
    return merged


def config_sets(path: str, text: str, language: Optional[str] = None) -> list:
    """The settings of a config file, one ConfigSet per cluster they configure.

    The file's own settings (spark-defaults lines, spark-submit options, YAML keys, XML pairs, the lines
    of a .properties file) are one set; each `gcloud dataproc clusters create`, `yc dataproc cluster
    create` or `aws emr ...` command, and each cluster defined in JSON, YAML or Terraform
    (linter/sources/clusters.py), is a set of its own, so the rules that weigh one setting against another
    (cores against memory) read both from the same cluster definition. A setting inside a definition is
    that definition's only.
    """
    kind = _kind(path, language)
    store = mentions_object_store(text)
    conf = ConfigSet(kind, object_store_writes=store, uses_rdd=False)
    clusters: list = []
    if kind == "defaults":
        for m in re.finditer(r"(?m)^[ \t]*(spark\.[\w.\-]+)(?:[ \t]*=[ \t]*|[ \t]+)(\S[^\n#]*?)[ \t]*$", text):
            conf.add(Setting(m.group(1), m.group(2), m.start(2), m.end(2)))
    elif kind == "xml":
        for m in re.finditer(r"<name>\s*([^<\s]+)\s*</name>\s*<value>\s*([^<]*?)\s*</value>", text):
            conf.add(Setting(m.group(1), m.group(2), m.start(2), m.end(2) if m.group(2) else m.start(2)))
    elif kind == "properties":
        _properties_file(text, conf)
    elif kind in ("json", "terraform"):
        clusters = _definitions(kind, text, store)
    else:
        _submit_lines(text, conf)
        if kind == "yaml":
            clusters = _definitions(kind, text, store)
            for m in re.finditer(r"(?m)^[ \t-]*[\"']?(spark\.[\w.\-]+)[\"']?[ \t]*:[ \t]*[\"']?([^\"'\n#]+?)[\"']?"
                                 r"[ \t]*(?:#.*)?$", text):
                conf.add(Setting(m.group(1), m.group(2), m.start(2), m.end(2)))
        clusters += _cluster_commands(text, store) + _aws_commands(text, store)
    if kind not in ("properties", "json", "terraform"):
        # `capacity-scheduler:yarn...=...` written outside a command sparkcheck reads (a Makefile line, a comment).
        for m in re.finditer(r"\b(?:capacity-scheduler|yarn):(yarn\.[\w.\-]+)=([\w.$]+)", text):
            conf.add(Setting(m.group(1), m.group(2), m.start(2), m.end(2)))
    if clusters:
        # What a cluster definition holds is that cluster's, not the file's as well.
        spans = sorted(c.span for c in clusters)
        starts = [a for a, _ in spans]
        reach = list(itertools.accumulate((b for _, b in spans), max))  # the furthest end up to each span

        def inside(offset: int) -> bool:
            k = bisect.bisect_right(starts, offset) - 1
            return k >= 0 and offset < reach[k]

        conf.settings = [s for s in conf.settings if not inside(s.start)]
        conf.master = None
        for setting in conf.settings:
            if setting.key == "spark.master":
                conf.master = setting.value
    return [conf, *clusters] if conf.settings or not clusters else clusters


def _definitions(kind: str, text: str, store: bool) -> list:
    """The clusters defined in a JSON, YAML or Terraform text (linter/sources/clusters.py); only a text
    with the keys of a cluster definition is parsed. JSON that does not parse is an SPK001 finding; YAML
    and Terraform are read as far as they go (templates)."""
    from linter.sources import clusters
    from linter.sources.tree import TreeError, line_col, read_json, read_yaml

    if not clusters.wanted(text):
        return []
    if kind == "json":
        try:
            documents = [read_json(text)]
        except TreeError as exc:
            from linter.sources import SourceError

            row, column = line_col(text, exc.offset)
            raise SourceError(exc.message, row, column) from None
    elif kind == "terraform":
        from linter.sources.hcl import read_hcl

        documents = [read_hcl(text)]
    else:
        documents = read_yaml(text)
    return clusters.cluster_sets(documents, text, store)


# The file prefixes of Dataproc's and Yandex Data Processing's cluster properties (`spark:spark.executor.cores`):
# which settings file a property goes to. The key without its prefix is the setting the rules read.
PROPERTY_PREFIXES = ("spark", "spark-env", "yarn", "capacity-scheduler", "core", "hdfs", "mapred", "hive", "livy",
                     "dataproc")
_PROPERTY = re.compile(r"([a-z][a-z0-9-]*):([^\s=:]+)=")
_PROPERTY_LINE = re.compile(r"(?m)^[ \t]*(?:([a-z][a-z0-9-]*):)?([A-Za-z_][\w.\-]*)([ \t]*[=:][ \t]*|[ \t]+)(.*?)[ \t\r]*$")


def _properties_file(text: str, conf: ConfigSet) -> None:
    """A .properties file: `prefix:key=value` lines (Dataproc, Yandex Data Processing), or plain `spark.*`
    and `yarn.*` keys (spark-submit's --properties-file). `#` and `!` lines are comments."""
    prefixed = False
    for m in _PROPERTY_LINE.finditer(text):
        prefix, key, separator, value = m.group(1), m.group(2), m.group(3), m.group(4)
        if prefix is not None:
            if prefix not in PROPERTY_PREFIXES or "=" not in separator:
                continue
            prefixed = True
        elif not key.startswith(("spark.", "yarn.")):
            continue
        conf.add(Setting(key, value, m.start(4), m.end(4)))
    if prefixed:
        # Cluster properties: Dataproc and Yandex Data Processing run Spark on YARN, and the cluster's
        # spark-defaults.conf says `spark.master yarn` unless a `spark:spark.master` property says otherwise.
        conf.kind = "cluster"
        if conf.master is None:
            conf.master = "yarn"


class _Cluster(ConfigSet):
    span: tuple = (0, 0)  # where the command is written


# `gcloud [alpha|beta] dataproc clusters create NAME ... --properties=...`, `yc dataproc cluster create ... --property ...`
_CLUSTER_COMMAND = re.compile(r"\b(?:gcloud(?:[ \t]+(?:alpha|beta))?[ \t]+dataproc[ \t]+clusters[ \t]+create"
                              r"|yc[ \t]+dataproc[ \t]+cluster[ \t]+create)\b")
_PROPERTY_FLAGS = ("--properties", "--property")


def _flag_arguments(words: list, flags, dashed_values: bool):
    """``(index, flag, value, offsets)`` of each of ``flags`` in a command's words, written ``--flag=value`` or
    ``--flag value`` (a next word starting with ``--`` is taken for the value only when ``dashed_values``)."""
    for i, (word, offsets) in enumerate(words):
        flag, eq, inline = word.partition("=")
        if flag not in flags:
            continue
        if eq:
            yield i, flag, inline, offsets[len(flag) + 1:]
        elif i + 1 < len(words) and (dashed_values or not words[i + 1][0].startswith("--")):
            yield i, flag, *words[i + 1]


def _cluster_commands(text: str, store: bool) -> list:
    if "dataproc" not in text:
        return []
    out = []
    for m in _CLUSTER_COMMAND.finditer(text):
        end = _command_end(text, m.end())
        before = text[text.rfind("\n", 0, m.start()) + 1:m.start()]
        # A command inside a quoted YAML string (`- "gcloud dataproc ..."`) ends at the closing quote.
        for quote in ("\"", "'"):
            if before.count(quote) % 2 == 1:
                close = text.rfind(quote, m.end(), end)
                if close != -1:
                    end = close
        conf = _Cluster("cluster", object_store_writes=store)
        conf.master = "yarn"  # both run Spark on YARN (see _properties_file)
        conf.span = (m.start(), end)
        words = _shell_words(text, m.end(), end)
        for _, flag, value, where in _flag_arguments(words, _PROPERTY_FLAGS, dashed_values=False):
            _property_list(value, where, conf, gcloud=flag == "--properties")
        if conf.get("spark.master") is not None:
            conf.master = conf.get("spark.master").value
        out.append(conf)
    return out


# `aws emr create-cluster --configurations '[...]'`, `aws emr-serverless start-job-run --job-driver '{...}'
# --configuration-overrides '{...}'`, and the same of `aws emr-containers` (EMR on EKS).
_AWS_COMMAND = re.compile(r"\baws[ \t]+(emr[ \t]+create-cluster|emr-serverless[ \t]+start-job-run|"
                          r"emr-containers[ \t]+start-job-run)\b")
_AWS_JSON_FLAGS = ("--configurations", "--job-driver", "--configuration-overrides")


def _aws_commands(text: str, store: bool) -> list:
    """One set per AWS CLI command that creates an EMR cluster or starts an EMR job, from the JSON given
    inline to its flags (a `file://` argument is a file of its own, checked where it is)."""
    if "aws" not in text or "emr" not in text:
        return []
    from linter.sources.clusters import cluster_sets
    from linter.sources.tree import Map, Scalar, TreeError, read_json, remap

    out = []
    for m in _AWS_COMMAND.finditer(text):
        end = _quoted_command_end(text, m.end())
        words = _shell_words(text, m.end(), end)
        documents = []
        for i, flag, value, where in _flag_arguments(words, _AWS_JSON_FLAGS, dashed_values=True):
            if flag == "--configurations" and "Properties={" in value:
                document = _shorthand_configurations(value, where)
                if document is not None:
                    documents.append(document)
                # The shorthand takes one configuration a word: `Classification=a,Properties={...} Classification=b,...`
                for extra, extra_where in words[i + 2:]:
                    if extra.startswith("--") or "Properties={" not in extra:
                        break
                    document = _shorthand_configurations(extra, extra_where)
                    if document is not None:
                        documents.append(document)
                continue
            if not value.lstrip().startswith(("[", "{")):
                continue
            try:
                document = read_json(value)
            except TreeError:
                continue
            remap(document, where)
            documents.append(document)
        if not documents:
            continue
        # The command is the definition: its flags' documents are one cluster (or one job run).
        root = Map(m.start())
        root.end = end
        kind = m.group(1).split()[0]
        for document in documents:
            root.items.append(("jobDriver" if kind != "emr" else "Configurations", document.start, document))
        if kind == "emr-containers":
            root.items.append(("virtualClusterId", m.start(), Scalar("", m.start(), m.start())))
        for conf in cluster_sets([root], text, store):
            conf.span = (m.start(), end)
            out.append(conf)
    return out


def _shorthand_configurations(value: str, where: list):
    """The AWS CLI's shorthand of one configuration, `Classification=spark-defaults,Properties={k=v,k2=v2}`,
    as the tree of its JSON form (`[{"Classification": ..., "Properties": {...}}]`), at its place in the file."""
    from linter.sources.tree import Map, Scalar, Seq

    m = re.search(r"Classification=([^,{}]*)", value)
    props = re.search(r"Properties=\{([^{}]*)\}", value)
    if m is None or props is None or not where:
        return None

    def at(i: int) -> int:
        return where[i] if i < len(where) else where[-1] + 1

    item = Map(at(0))
    item.items.append(("Classification", at(m.start(1)), Scalar(m.group(1), at(m.start(1)), at(m.end(1)))))
    properties = Map(at(props.start()))
    for pair in re.finditer(r"([^,=]+)=([^,]*)", props.group(1)):
        start, end = props.start(1) + pair.start(2), props.start(1) + pair.end(2)
        properties.items.append((pair.group(1).strip(), at(props.start(1) + pair.start(1)),
                                 Scalar(pair.group(2), at(start), at(end - 1) + 1 if end > start else at(start),
                                        offsets=[at(k) for k in range(start, end)])))
    item.items.append(("Properties", properties.start, properties))
    seq = Seq(item.start)
    seq.items.append(item)
    return seq


def _property_list(value: str, where: list, conf: ConfigSet, gcloud: bool) -> None:
    """`prefix:key=value,prefix:key=value`; gcloud's `^#^` at the start changes the delimiter (`gcloud topic
    escaping`). A piece that is not `prefix:key=...` continues the value before it (`spark:spark.jars=a.jar,b.jar`)."""
    delimiter, start = ",", 0
    if gcloud and value.startswith("^"):
        close = value.find("^", 1)
        if close > 1:
            delimiter, start = value[1:close], close + 1
    items: list = []  # [prefix, key, value start, value end], indexes into ``value``
    i = start
    while i <= len(value):
        cut = value.find(delimiter, i)
        cut = len(value) if cut == -1 else cut
        m = _PROPERTY.match(value, i, cut)
        if m:
            items.append([m.group(1), m.group(2), m.end(), cut])
        elif items:
            items[-1][3] = cut
        i = cut + len(delimiter)
    for prefix, key, s, e in items:
        if prefix not in PROPERTY_PREFIXES or not where:
            continue
        at = where[s] if s < len(where) else where[-1] + 1
        stop = where[e - 1] + 1 if e > s else at
        conf.add(Setting(key, value[s:e], at, stop))


def _command_end(text: str, end: int) -> int:
    """The end of the command line that goes on at ``end``: continuation lines (`\\` at the end) joined."""
    while True:
        newline = text.find("\n", end)
        if newline == -1:
            return len(text)
        if text[end:newline].rstrip().endswith("\\"):
            end = newline + 1
            continue
        return newline


def _quoted_command_end(text: str, i: int) -> int:
    """The end of a shell command whose quoted arguments may span lines (JSON given inline)."""
    quote = None
    while i < len(text):
        c = text[i]
        if quote:
            if c == quote:
                quote = None
            elif c == "\\" and quote == '"':
                i += 1
        elif c in "'\"":
            quote = c
        elif c == "\\":
            i += 1
        elif c == "\n" or c == "#" and text[i - 1] in " \t":
            return i if c == "\n" else text.find("\n", i) if "\n" in text[i:] else len(text)
        i += 1
    return len(text)


def _shell_words(text: str, start: int, end: int) -> list:
    """The shell words between two offsets: (the word without its quotes, the offset in ``text`` of each of
    its characters). Knows `'...'`, `"..."` (with `\\"`), `\\`-newline continuations and `#` comments."""
    words: list = []
    chars: list = []
    offsets: list = []
    i = start
    in_word = False
    while i < end:
        c = text[i]
        if c == "\\" and text.startswith(("\n", "\r\n"), i + 1):
            i += 2 if text[i + 1] == "\n" else 3
            continue
        if c in " \t\r\n":
            if in_word:
                words.append(("".join(chars), offsets))
                chars, offsets, in_word = [], [], False
            i += 1
            continue
        if c == "#" and not in_word:
            newline = text.find("\n", i, end)
            if newline == -1:
                break
            i = newline
            continue
        in_word = True
        if c in "'\"":
            close = i + 1
            while close < end and text[close] != c:
                close += 2 if c == '"' and text[close] == "\\" else 1
            close = min(close, end)
            k = i + 1
            while k < close:
                if c == '"' and text[k] == "\\" and k + 1 < close and text[k + 1] in '"\\$`':
                    k += 1
                chars.append(text[k])
                offsets.append(k)
                k += 1
            i = close + 1
            continue
        chars.append(c)
        offsets.append(i)
        i += 1
    if in_word:
        words.append(("".join(chars), offsets))
    return words


_SUBMIT = re.compile(r"\bspark-submit\b")
_TOKEN = re.compile(r"""(?:"([^"]*)"|'([^']*)'|(\S+))""")


def _submit_lines(text: str, conf: ConfigSet) -> None:
    """Every spark-submit command: its line and the continuation lines (`\\` at the end), tokenised."""
    for m in _SUBMIT.finditer(text):
        end = _command_end(text, m.end())
        words = []
        for t in _TOKEN.finditer(text, m.end(), end):
            if t.group(0) == "\\":
                continue
            group = 1 if t.group(1) is not None else 2 if t.group(2) is not None else 3
            words.append((t.group(group), range(t.start(group), t.end(group))))
        submit_words(words, conf)


def submit_words(words: list, conf: ConfigSet) -> None:
    """The settings among spark-submit's words: ``(word, offset of each of its characters)`` pairs;
    `--conf k=v` (also `--conf=k=v`, `-c k=v`) and the options of SUBMIT_FLAGS."""
    i = 0
    while i < len(words):
        token, offsets = words[i]
        flag, _, inline = token.partition("=")
        if flag in ("--conf", "-c") or flag in SUBMIT_FLAGS:
            if inline:
                value, where, i = inline, offsets[len(flag) + 1:], i + 1
            elif i + 1 < len(words):
                (value, where), i = words[i + 1], i + 2
            else:
                break
            if flag in SUBMIT_FLAGS:
                key, at = SUBMIT_FLAGS[flag], 0
            else:
                key, sep, _ = value.partition("=")
                if not sep or not key.startswith(("spark.", "yarn.")):
                    continue
                at = len(key) + 1
            start = where[at] if at < len(where) else (where[-1] + 1 if len(where) else 0)
            stop = where[len(value) - 1] + 1 if len(value) > at else start
            conf.add(Setting(key, value[at:], start, stop))
            continue
        i += 1


def from_properties(properties: dict, line: int, object_store_writes: bool, uses_rdd: bool,
                    largest_sql_shuffle: int = 0, rdd_share: float = 0.0, jvm_application: bool = False) -> ConfigSet:
    conf = ConfigSet("eventlog", object_store_writes=object_store_writes, uses_rdd=uses_rdd,
                     largest_sql_shuffle=largest_sql_shuffle, line=line, rdd_share=rdd_share,
                     jvm_application=jvm_application)
    for key, value in properties.items():
        conf.add(Setting(str(key), str(value), line=line))
    return conf


class PythonSettings:
    """Collects settings from Python calls during the engine's single walk (``visit_Call``), literal values only."""

    def __init__(self, text: str):
        self.conf = ConfigSet("python", object_store_writes=mentions_object_store(text),
                              uses_rdd=_uses_rdd(text), streaming=_streams(text))

    @staticmethod
    def _literal(node) -> Optional[str]:
        import libcst as cst

        from linter.semantic import literal_string

        value = literal_string(node)
        if value is not None:
            return value
        if isinstance(node, (cst.Integer, cst.Float)):
            return node.value
        if isinstance(node, cst.Name) and node.value in ("True", "False"):
            return node.value.lower()
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus) and \
                isinstance(node.expression, (cst.Integer, cst.Float)):
            return "-" + node.expression.value
        return None

    def _add(self, key_node, value_node) -> None:
        from linter.semantic import literal_string

        key, value = literal_string(key_node), self._literal(value_node)
        if key is not None and value is not None:
            self.conf.add(Setting(key, value, node=value_node))

    def visit_Call(self, node) -> None:
        import libcst as cst

        func = node.func
        if not isinstance(func, cst.Attribute):
            return
        name = func.attr.value
        if name not in ("config", "set", "setAll", "master", "setMaster"):
            return
        from linter.semantic import keyword_arg, positional_args

        positional = positional_args(node)
        if name in ("config", "set") and len(positional) >= 2:
            self._add(positional[0], positional[1])
        elif name == "config" and keyword_arg(node, "key") is not None and keyword_arg(node, "value") is not None:
            self._add(keyword_arg(node, "key"), keyword_arg(node, "value"))
        elif name == "config" and isinstance(keyword_arg(node, "map"), cst.Dict):
            for element in keyword_arg(node, "map").elements:
                if isinstance(element, cst.DictElement):
                    self._add(element.key, element.value)
        elif name == "setAll" and positional and isinstance(positional[0], (cst.List, cst.Tuple)):
            for element in positional[0].elements:
                pair = element.value
                if isinstance(pair, cst.Tuple) and len(pair.elements) == 2:
                    self._add(pair.elements[0].value, pair.elements[1].value)
        elif name in ("master", "setMaster") and len(positional) == 1:
            value = self._literal(positional[0])
            if value is not None:
                self.conf.add(Setting("spark.master", value, node=positional[0]))


_UNITS = {"b": 1, "k": 1 << 10, "kb": 1 << 10, "m": 1 << 20, "mb": 1 << 20, "g": 1 << 30, "gb": 1 << 30,
          "t": 1 << 40, "tb": 1 << 40, "p": 1 << 50, "pb": 1 << 50}


def bytes_of(value: Optional[str], default_unit: str = "b") -> Optional[float]:
    """Spark's size strings (`4g`, `512m`, `10485760`) in bytes; None when not a size."""
    m = re.fullmatch(r"\s*(-?\d+(?:\.\d+)?)\s*([kmgtp]?b?|[kmgtp]i?b)?\s*", (value or "").lower())
    if not m:
        return None
    unit = (m.group(2) or default_unit).replace("ib", "b")
    return float(m.group(1)) * _UNITS.get(unit, 1)


_TIMES = {"us": 0.001, "ms": 1, "s": 1000, "m": 60_000, "min": 60_000, "h": 3_600_000, "d": 86_400_000}


def millis_of(value: Optional[str], default_unit: str = "ms") -> Optional[float]:
    """Spark's durations (`10s`, `120s`, `2min`, `10000`) in milliseconds; None when not one."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(us|ms|s|m|min|h|d)?\s*", (value or "").lower())
    if not m:
        return None
    return float(m.group(1)) * _TIMES[m.group(2) or default_unit]
