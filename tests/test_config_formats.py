"""Cluster definitions (EMR, Databricks, Dataproc and Yandex in Terraform, the Spark operator) reach every
SPK8xx rule: each rule's own invalid examples, rewritten in each format that can carry their settings, are
reported at the value's line and column there; sizing rules read both sides from one cluster; and files of
these formats that define no cluster are neither parsed nor picked by discovery."""

import json
import os

import libcst as cst
import pytest
from conftest import FIXTURES

from linter.config import Resolver
from linter.engine import check_source
from linter.files import discover, holds_settings
from linter.registry import all_rules
from linter.sources.sparkconf import PythonSettings, config_sets

RULES = [r for r in all_rules() if r.kind == "config"]


def _settings(tmp_path, target="4.0"):
    return Resolver({"select": ["SPK"], "preview": True, "target-spark": target},
                    cwd=str(tmp_path)).for_path(str(tmp_path / "x"))


def _example_settings(example) -> list:
    """The (key, value) pairs an example writes, read the way sparkcheck reads its format."""
    if example.path.endswith(".py"):
        collector = PythonSettings(example.source)

        class Calls(cst.CSTVisitor):
            def visit_Call(self, node):
                collector.visit_Call(node)

        cst.parse_module(example.source).visit(Calls())
        settings = collector.conf.settings
    else:
        settings = [s for conf in config_sets(example.path, example.source) for s in conf.settings]
    return [(s.key, s.value.strip()) for s in settings]


class Doc:
    """A rendered definition: its text and where each value is (1-based row, column)."""

    def __init__(self):
        self.parts: list = []
        self.places: dict = {}

    def write(self, text: str) -> "Doc":
        self.parts.append(text)
        return self

    def value(self, key: str, value: str) -> "Doc":
        before = "".join(self.parts)
        row = before.count("\n") + 1
        self.places.setdefault(key, set()).add((row, len(before) - (before.rfind("\n") + 1) + 1))
        return self.write(value)

    @property
    def text(self) -> str:
        return "".join(self.parts)


def _emr_list(doc: Doc, pairs: list, indent: str, quote=json.dumps) -> None:
    """An EMR configuration list (JSON), each key under the classification of its file."""
    groups = {"spark-defaults": [], "capacity-scheduler": [], "yarn-site": []}
    for key, value in pairs:
        group = "capacity-scheduler" if key.startswith("yarn.scheduler.capacity.") else \
            "yarn-site" if key.startswith("yarn.") else "spark-defaults"
        groups[group].append((key, value))
    doc.write("[")
    first = True
    for name, items in groups.items():
        if not items:
            continue
        doc.write(("" if first else ",") + f"\n{indent}  {{{quote('Classification')}: {quote(name)}, "
                  f"{quote('Properties')}: {{")
        for i, (key, value) in enumerate(items):
            doc.write(("" if i == 0 else ",") + f'\n{indent}    {quote(key)}: "').value(key, value).write('"')
        doc.write(f"\n{indent}  }}}}")
        first = False
    doc.write(f"\n{indent}]")


def emr_json(pairs):
    doc = Doc()
    _emr_list(doc, pairs, "")
    return "configurations.json", doc.write("\n")


def emr_cli(pairs):
    doc = Doc().write("aws emr create-cluster --name etl --release-label emr-7.2.0 --applications Name=Spark \\\n"
                      "  --configurations '")
    _emr_list(doc, pairs, "  ")
    return "create_cluster.sh", doc.write("'\n")


def _classified(pairs):
    """EMR's classifications of the settings: Spark's in spark-defaults, YARN's in capacity-scheduler."""
    return (("spark-defaults", [(k, v) for k, v in pairs if not k.startswith("yarn.")]),
            ("capacity-scheduler", [(k, v) for k, v in pairs if k.startswith("yarn.")]))


def _write_classified(doc, pairs, head: str, key: str, after: str, tail: str = "") -> None:
    """Each non-empty classification of ``_classified``: ``head`` (its name in the ``{}``), then per setting
    ``key`` (the key in the ``{}``), the value and ``after``; then ``tail``."""
    for classification, items in _classified(pairs):
        if items:
            doc.write(head.format(classification))
            for name, value in items:
                doc.write(key.format(name)).value(name, value).write(after)
            doc.write(tail)


def cloudformation(pairs):
    doc = Doc().write("Resources:\n  Cluster:\n    Type: AWS::EMR::Cluster\n    Properties:\n"
                      "      ReleaseLabel: emr-7.2.0\n      Configurations:\n")
    _write_classified(doc, pairs, "        - Classification: {}\n          ConfigurationProperties:\n",
                      "            {}: \"", "\"\n")
    return "template.yaml", doc


def serverless(pairs):
    doc = Doc().write('{\n  "applicationId": "00f1",\n  "jobDriver": {\n    "sparkSubmit": {\n'
                      '      "entryPoint": "s3://code/job.py",\n      "sparkSubmitParameters": "')
    for i, (key, value) in enumerate(pairs):
        doc.write(("" if i == 0 else " ") + f"--conf {key}=").value(key, value)
    return "job-run.json", doc.write('"\n    }\n  }\n}\n')


def databricks_json(pairs):
    doc = Doc().write('{\n  "cluster_name": "etl",\n  "spark_version": "15.4.x-scala2.12",\n  "spark_conf": {')
    for i, (key, value) in enumerate(pairs):
        doc.write(("" if i == 0 else ",") + f'\n    "{key}": "').value(key, value).write('"')
    return "cluster.json", doc.write("\n  }\n}\n")


def bundle(pairs):
    doc = Doc().write("resources:\n  jobs:\n    nightly:\n      job_clusters:\n        - job_cluster_key: main\n"
                      "          new_cluster:\n            num_workers: 4\n            spark_conf:\n")
    for key, value in pairs:
        doc.write(f"              {key}: \"").value(key, value).write("\"\n")
    return "nightly.yml", doc


def databricks_tf(pairs):
    doc = Doc().write('resource "databricks_cluster" "etl" {\n  cluster_name = "etl"\n  spark_conf = {\n')
    for key, value in pairs:
        doc.write(f'    "{key}" : "').value(key, value).write('",\n')
    return "main.tf", doc.write("  }\n}\n")


def _prefixed(key: str) -> str:
    return ("capacity-scheduler:" if key.startswith("yarn.scheduler.capacity.") else
            "yarn:" if key.startswith("yarn.") else "spark:") + key


def _prefixed_tf(resource: str, block: str, name: str, pairs):
    """A Terraform cluster whose `cluster_config { <block> }` holds Dataproc-style `prefix:key` properties."""
    doc = Doc().write(f'resource "{resource}" "etl" {{\n  name = "etl"\n  cluster_config {{\n    {block}')
    for key, value in pairs:
        doc.write(f'        "{_prefixed(key)}" = "').value(key, value).write('"\n')
    return name, doc.write("      }\n    }\n  }\n}\n")


def dataproc_tf(pairs):
    return _prefixed_tf("google_dataproc_cluster", "software_config {\n      override_properties = {\n",
                        "dataproc.tf", pairs)


def yandex_tf(pairs):
    return _prefixed_tf("yandex_dataproc_cluster", 'hadoop {\n      services = ["HDFS", "YARN", "SPARK"]\n'
                        "      properties = {\n", "yandex.tf", pairs)


def spark_application(pairs):
    doc = Doc().write("apiVersion: sparkoperator.k8s.io/v1beta2\nkind: SparkApplication\nmetadata:\n"
                      "  name: nightly\nspec:\n  type: Python\n  mainApplicationFile: local:///opt/job.py\n"
                      "  arguments: [\"--output\", \"s3a://lake/out/\"]\n  sparkConf:\n")
    for key, value in pairs:
        doc.write(f"    {key}: \"").value(key, value).write("\"\n")
    return "app.yaml", doc


def airflow_emr(pairs):
    """An Airflow DAG creating an EMR cluster: the `JobFlowOverrides` dict of EmrCreateJobFlowOperator."""
    doc = Doc().write("from airflow import DAG\nfrom airflow.providers.amazon.aws.operators.emr import "
                      "EmrCreateJobFlowOperator\n\nJOB_FLOW_OVERRIDES = {\n    \"Name\": \"nightly\",\n"
                      "    \"ReleaseLabel\": \"emr-7.2.0\",\n    \"Configurations\": [\n")
    _write_classified(doc, pairs, '        {{"Classification": "{}", "Properties": {{\n', '            "{}": "', '",\n',
                      "        }},\n")
    return "nightly_dag.py", doc.write("    ],\n}\n\nwith DAG(\"nightly\") as dag:\n"
                                       "    EmrCreateJobFlowOperator(task_id=\"create\", "
                                       "job_flow_overrides=JOB_FLOW_OVERRIDES)\n")


def airflow_databricks(pairs):
    """An Airflow task running a Databricks job on a new cluster: `new_cluster={... "spark_conf": {...}}`."""
    doc = Doc().write("from airflow.providers.databricks.operators.databricks import DatabricksSubmitRunOperator\n\n"
                      "run = DatabricksSubmitRunOperator(\n    task_id=\"run\",\n    new_cluster={\n"
                      "        \"spark_version\": \"15.4.x-scala2.12\",\n        \"num_workers\": 4,\n"
                      "        \"spark_conf\": {\n")
    for key, value in pairs:
        doc.write(f'            "{key}": "').value(key, value).write('",\n')
    return "run_dag.py", doc.write("        },\n    },\n    spark_python_task={\"python_file\": "
                                   "\"dbfs:/jobs/nightly.py\"},\n)\n")


FORMATS = {f.__name__: f for f in (emr_json, emr_cli, cloudformation, serverless, databricks_json, bundle,
                                   databricks_tf, dataproc_tf, yandex_tf, spark_application, airflow_emr,
                                   airflow_databricks)}
YARN_FORMATS = {"emr_json", "emr_cli", "cloudformation", "dataproc_tf", "yandex_tf", "airflow_emr"}
# Where a rule does not fire by design, and why (its manual says so).
NOT_CARRIED = {
    "SPK810": "Kryo registration matters where the same source uses RDDs: job code only",
    "SPK813": "a hard-coded shuffle partition count is reported in job code only",
    "SPK823": "only a run's event log knows how much data its shuffles read",
    "SPK824": "only a run's event log tells a JVM application's RDD work from a PySpark one's",
}
NOT_IN_FORMAT = {
    # SPK805 needs an object-store path in the definition: the job's arguments or entry point.
    "SPK805": set(FORMATS) - {"serverless", "spark_application"},
    # SPK814: not on Kubernetes or Databricks, nor where the definition names an object store.
    "SPK814": {"spark_application", "serverless", "databricks_json", "bundle", "databricks_tf", "airflow_databricks"},
    # SPK821: the managed platforms run their own shuffle service.
    "SPK821": set(FORMATS) - {"spark_application"},
}


def _cases():
    for rule in RULES:
        if rule.code in NOT_CARRIED:
            continue
        for i, example in enumerate(rule.invalid):
            if example.options:
                continue
            pairs = _example_settings(example)
            if not pairs:
                continue
            for name in FORMATS:
                if name in NOT_IN_FORMAT.get(rule.code, ()):
                    continue
                if any(k.startswith("yarn.") for k, _ in pairs) and name not in YARN_FORMATS:
                    continue
                yield pytest.param(rule, pairs, name, id=f"{rule.code}-{i}-{name}")


@pytest.mark.parametrize("rule, pairs, name", list(_cases()))
def test_rule_fires_from_each_format(tmp_path, rule, pairs, name):
    path, doc = FORMATS[name](pairs)
    full = str(tmp_path / path)
    found = [f for f in check_source(full, doc.text.encode(), _settings(tmp_path)) if f.code == rule.code]
    assert found, doc.text
    places = set().union(*doc.places.values())
    for finding in found:
        assert (finding.location.row, finding.location.column) in places, (finding, doc.text)


def test_every_config_rule_is_covered():
    covered = {p.values[0].code for p in _cases()}
    assert covered | set(NOT_CARRIED) == {r.code for r in RULES}


def _codes(tmp_path, name: str, text: str, target="4.0", only=None) -> list:
    return [(f.location.row, f.code) for f in check_source(str(tmp_path / name), text.encode(),
                                                             _settings(tmp_path, target))
            if only is None or f.code == only]


def test_sizing_reads_both_sides_from_one_cluster(tmp_path):
    job = {"name": "nightly", "job_clusters": [
        {"job_cluster_key": "a", "new_cluster": {"spark_conf": {"spark.executor.memory": "4g"}}},
        {"job_cluster_key": "b", "new_cluster": {"spark_conf": {"spark.executor.cores": "8"}}}]}
    assert _codes(tmp_path, "job.json", json.dumps(job, indent=2), only="SPK806") == []
    job["job_clusters"][1]["new_cluster"]["spark_conf"]["spark.executor.memory"] = "4g"
    assert [c for _, c in _codes(tmp_path, "job.json", json.dumps(job, indent=2), only="SPK806")] == ["SPK806"]
    head = "apiVersion: sparkoperator.k8s.io/v1beta2\nkind: SparkApplication\nspec:\n  executor:\n"
    two_apps = f"{head}    cores: 8\n---\n{head}    memory: 4g\n"
    assert _codes(tmp_path, "apps.yaml", two_apps, only="SPK806") == []
    assert _codes(tmp_path, "app.yaml", f"{head}    cores: 8\n    memory: 4g\n", only="SPK806") == [(6, "SPK806")]
    terraform = ('resource "google_dataproc_cluster" "a" {\n  cluster_config {\n    software_config {\n'
                 '      override_properties = { "spark:spark.executor.cores" = "8" }\n    }\n  }\n}\n'
                 'resource "google_dataproc_cluster" "b" {\n  cluster_config {\n    software_config {\n'
                 '      override_properties = { "spark:spark.executor.memory" = "4g" }\n    }\n  }\n}\n')
    assert _codes(tmp_path, "main.tf", terraform, only="SPK806") == []
    one = terraform.replace('"spark:spark.executor.cores" = "8" }', '"spark:spark.executor.cores" = "8", '
                            '"spark:spark.executor.memory" = "4g" }')
    assert _codes(tmp_path, "main.tf", one, only="SPK806") == [(4, "SPK806")]


def test_settings_inside_a_definition_are_read_once(tmp_path):
    text = "kind: SparkApplication\nspec:\n  sparkConf:\n    spark.driver.maxResultSize: \"0\"\n"
    assert _codes(tmp_path, "app.yaml", text) == [(4, "SPK808")]
    template = ("Resources:\n  Cluster:\n    Type: AWS::EMR::Cluster\n    Properties:\n      Configurations:\n"
                "        - Classification: spark-defaults\n          ConfigurationProperties:\n"
                "            spark.driver.maxResultSize: \"0\"\n")
    assert _codes(tmp_path, "template.yaml", template) == [(8, "SPK808")]


def test_operator_default_shuffle_tracking_and_old_targets(tmp_path):
    app = "apiVersion: sparkoperator.k8s.io/v1beta2\nkind: SparkApplication\nspec:\n  dynamicAllocation:\n    enabled: true\n"
    assert _codes(tmp_path, "app.yaml", app, target="3.3") == []  # the operator switches tracking on
    conf = "spark.master  k8s://https://10.0.0.1:6443\nspark.dynamicAllocation.enabled  true\n"
    assert _codes(tmp_path, "spark-defaults.conf", conf, target="3.3") == [(2, "SPK821")]
    assert _codes(tmp_path, "spark-defaults.conf", conf, target="3.5") == []


def test_broken_inputs(tmp_path):
    broken = '[{"Classification": "spark-defaults", "Properties": {"spark.driver.maxResultSize": "0"}\n'
    found = check_source(str(tmp_path / "c.json"), broken.encode(), _settings(tmp_path))
    assert [(f.code, f.location.row) for f in found] == [("SPK001", 2)]
    assert "cannot parse JSON" in found[0].message
    helm = ("apiVersion: sparkoperator.k8s.io/v1beta2\nkind: SparkApplication\nspec:\n"
            "  sparkConf:\n{{- range $k, $v := .Values.sparkConf }}\n    {{ $k }}: {{ $v | quote }}\n{{- end }}\n"
            "  executor:\n    cores: {{ .Values.cores }}\n")
    assert _codes(tmp_path, "app.yaml", helm) == []
    hcl = 'resource "databricks_cluster" "x" {\n  spark_conf = {\n    "spark.driver.maxResultSize" = "0"\n'
    assert _codes(tmp_path, "main.tf", hcl) == [(3, "SPK808")]  # cut off mid-block: read as far as it goes


UNRELATED = os.path.join(FIXTURES, "config", "unrelated")


def test_unrelated_json_yaml_terraform_are_not_discovered():
    names = [os.path.join(base, n) for base, _, files in os.walk(UNRELATED) for n in files]
    assert len(names) >= 6 and not any(holds_settings(n) for n in names)
    found = list(discover([UNRELATED], lambda p: _no_patterns(p), lambda p: False, False, []))
    assert found == []
    picked = list(discover([os.path.join(FIXTURES, "config")], lambda p: _no_patterns(p), lambda p: False,
                           False, []))
    for name in ("emr/configurations.json", "terraform/dataproc.tf", "kubernetes/spark-pi.yaml",
                 "databricks/bundle/resources/orders_job.yml"):
        assert os.path.join(FIXTURES, "config", name) in picked
    assert not any(p.startswith(UNRELATED) for p in picked)


def _no_patterns(path):
    from linter.files import PatternSet

    return PatternSet(path, [])


def test_yaml_reader_keeps_places():
    from linter.sources.tree import Map, read_yaml

    text = ("base: &cluster\n  spark_conf: {spark.sql.adaptive.enabled: 'false', \"k\": v}\n"
            "jobs:\n  - <<: *cluster\n    name: a   # a comment: with a colon\n"
            "    run: |\n      spark-submit --conf x=1\n    tag: !Ref Cluster\n  - 'quoted key': \"a\\tb\"\n")
    (doc,) = read_yaml(text)
    first, second = doc.get("jobs").items
    assert isinstance(first, Map) and first.get("spark_conf") is doc.get("base").get("spark_conf")
    conf = first.get("spark_conf")
    value = conf.get("spark.sql.adaptive.enabled")
    assert (value.value, text[value.start:value.end]) == ("false", "false")
    assert first.text("name") == "a" and first.text("tag") == "Cluster"
    run = first.get("run")
    assert "spark-submit --conf x=1" in run.value and text[run.at(run.value.index("x=1"))] == "x"
    tab = second.get("quoted key")
    assert tab.value == "a\tb" and text[tab.at(2)] == "b"


def test_escaped_json_values_are_placed(tmp_path):
    job = ('{"jobDriver": {"sparkSubmit": {"sparkSubmitParameters": '
           '"--conf \\"spark.driver.maxResultSize=0\\" --name \\"nightly\\""}}}\n')
    found = [f for f in check_source(str(tmp_path / "run.json"), job.encode(), _settings(tmp_path))]
    assert [(f.code, f.location.column) for f in found] == [("SPK808", job.index("=0") + 2)]


def test_a_json_surrogate_pair_is_one_character_at_its_first_escape():
    from linter.sources.tree import read_json_value

    text = '{"k": "a\\ud83d\\ude00b\\u00e9c"}'
    node = read_json_value(text, text.index(":") + 1)
    assert node.value == "a\U0001F600b\u00e9c"
    assert [text[node.at(i)] for i in range(len(node.value))] == ["a", "\\", "b", "\\", "c"]
    assert text[node.at(1):node.at(2)] == "\\ud83d\\ude00"


DEFINITIONS = sorted(os.path.join(base, n) for base, _, names in os.walk(os.path.join(FIXTURES, "config"))
                     for n in names if n.endswith((".json", ".tf", ".yaml", ".yml"))
                     and "unrelated" not in base)


def test_windows_line_endings_change_nothing(tmp_path):
    settings = _settings(tmp_path)
    for path in DEFINITIONS:
        with open(path, "rb") as f:
            data = f.read()
        lf = {(f.location.row, f.location.column, f.code) for f in check_source(path, data, settings)}
        crlf = {(f.location.row, f.location.column, f.code)
                for f in check_source(path, data.replace(b"\n", b"\r\n"), settings)}
        assert crlf == lf and (lf or "/good/" in path), path


def test_cut_off_definitions_never_crash():
    from linter.sources import SourceError

    for path in DEFINITIONS:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for cut in range(0, len(text), 7):
            try:
                config_sets(path, text[:cut])
            except SourceError:
                assert path.endswith(".json")


def test_files_named_one_by_one(tmp_path, run):
    """What pre-commit does: a JSON file that names nothing of Spark's is passed over without a word, even
    one over max-file-size; one that defines a cluster is checked."""
    lock = {"name": "web", "lockfileVersion": 3, "packages": {f"node_modules/p{i}": {"version": "1.0.0"}
                                                              for i in range(2000)}}
    (tmp_path / "package-lock.json").write_text(json.dumps(lock, indent=2))
    (tmp_path / "pyproject.toml").write_text("[tool.sparkcheck]\nmax-file-size = 1000\n")
    (tmp_path / "emr.json").write_text('[{"Classification": "spark-defaults",\n'
                                       '  "Properties": {"spark.driver.maxResultSize": "0"}}]\n')
    r = run("check", "package-lock.json", "--no-cache", "--output-format", "concise", cwd=tmp_path)
    assert (r.code, r.err) == (0, "")
    r = run("check", "package-lock.json", "emr.json", "--no-cache", "--output-format", "concise", cwd=tmp_path)
    assert r.code == 1 and r.out.startswith("emr.json:2:49: SPK808") and r.err == ""


def test_yaml_reader_reads_what_pyyaml_reads():
    """The fixtures' YAML, as PyYAML's BaseLoader reads it (all scalars strings); block scalars compared with
    their blanks folded (the reader keeps their raw text, indentation included)."""
    yaml = pytest.importorskip("yaml")
    from linter.sources.tree import Map, Seq, read_yaml

    def ours(node):
        if isinstance(node, Map):
            return {k: ours(v) for k, v in node.entries()}
        if isinstance(node, Seq):
            return [ours(v) for v in node.items]
        return " ".join(node.value.split()) if node is not None else ""

    def theirs(value):
        if isinstance(value, dict):
            return {str(k): theirs(v) for k, v in value.items()}
        if isinstance(value, list):
            return [theirs(v) for v in value]
        return " ".join(str(value).split()) if value is not None else ""

    paths = [os.path.join(base, n) for base, _, names in os.walk(FIXTURES) for n in names
             if n.endswith((".yml", ".yaml"))]
    assert len(paths) >= 8
    for path in paths:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        expected = [theirs(d) for d in yaml.load_all(text, Loader=yaml.BaseLoader) if d is not None]
        assert [ours(d) for d in read_yaml(text) if d is not None] == expected, path
