"""Cluster and job definitions of the platforms Spark runs on, read into one ConfigSet per cluster.

The documents are read into trees (linter/sources/tree.py for JSON and YAML, linter/sources/hcl.py for
Terraform) and one walker finds, wherever they are nested:

- **AWS EMR** configuration lists: `[{"Classification": "spark-defaults", "Properties": {...},
  "Configurations": [...]}, ...]`, as a file for `aws emr create-cluster --configurations file://...`, in a
  CloudFormation or CDK template (`ConfigurationProperties`), EMR Serverless and EMR on EKS
  (`applicationConfiguration`, `RuntimeConfiguration`: any letter case), Terraform `aws_emr_cluster` and
  `aws_emr_instance_group` (`configurations_json`, a heredoc or `jsonencode`) and
  `aws_emrcontainers_job_template` (an `application_configuration` block); `sparkSubmitParameters` strings
  (EMR Serverless `StartJobRun`, EMR on EKS, Step Functions, Terraform's `spark_submit_parameters`); step
  `Args` lists that run `spark-submit`.
- **Databricks**: every map that holds `spark_conf` is one cluster (cluster JSON of the REST API and
  the CLI, a job's `new_cluster` in `job_clusters` or `tasks`, asset-bundle YAML, Terraform
  `databricks_cluster` and the `new_cluster` blocks of `databricks_job`); `spark_submit_task` parameters.
- **Kubernetes**: `SparkApplication` and `ScheduledSparkApplication` manifests of the Spark operator:
  `sparkConf`, `driver`/`executor` `cores`, `memory`, `memoryOverhead`, `coreLimit`, `instances`,
  `dynamicAllocation` (whose shuffle tracking the operator switches on unless it is set).
- **Dataproc and Yandex Data Processing** in Terraform (and `gcloud dataproc clusters export` YAML):
  `software_config.override_properties` / `softwareConfig.properties` of `google_dataproc_cluster`,
  `cluster_config.hadoop.properties` of `yandex_dataproc_cluster`, with their `prefix:` keys read without the
  prefix; the `properties` of Dataproc jobs and Serverless batches (`pyspark_config`, `runtime_config`).

Which cluster a setting belongs to: the nearest enclosing definition (a CloudFormation resource, a Terraform
resource, a job run, a Databricks cluster spec, a manifest), else the document. Each setting keeps the
offsets of its value in the file.
"""

from __future__ import annotations

import re
from typing import Optional

from linter.sources.tree import Map, Scalar, Seq

# Content that makes a JSON, YAML or Terraform file worth reading as a cluster definition: nothing else
# in those formats is parsed (see ``wanted``).
_MARKERS = re.compile(r"classification|spark_conf|sparkconf|spark_?submit_?parameters|spark-submit|"
                      r"sparkapplication|override_properties|dataproc|softwareconfig|spark_submit_task|"
                      r"configurations_json", re.IGNORECASE)


# The same markers as plain lower-case words, looked for in the lowered text: a case-insensitive search of the
# pattern takes about 4 ms per Python file of the corpus (the whole run checks every Python file for a cluster
# defined in literals), ``str.lower`` and ``in`` a quarter of that. Only text with one of the four non-ASCII
# letters that case-insensitive matching equates with an ASCII one (and that ``lower`` does not map to it
# alone) is searched with the pattern.
_MARKER_WORDS = ("classification", "spark_conf", "sparkconf", "sparksubmitparameters", "spark_submitparameters",
                 "sparksubmit_parameters", "spark_submit_parameters", "spark-submit", "sparkapplication",
                 "override_properties", "dataproc", "softwareconfig", "spark_submit_task", "configurations_json")
_FOLDED_LETTERS = ("\u0130", "\u0131", "\u017f", "\u212a")  # İ ı ſ K


def wanted(text: str) -> bool:
    """Whether a JSON, YAML or Terraform text can hold a cluster definition sparkcheck reads."""
    if not text.isascii() and any(c in text for c in _FOLDED_LETTERS):
        return _MARKERS.search(text) is not None
    lowered = text.lower()
    return any(word in lowered for word in _MARKER_WORDS)


_PROPERTIES = ("properties", "configurationproperties", "configuration_properties")
_CONFIGURATIONS = ("configurations", "applicationconfiguration", "runtimeconfiguration", "application_configuration")
_SOFTWARE = ("software_config", "softwareconfig", "hadoop")  # where `prefix:key` cluster properties are
_JOB_PROPERTIES = ("pyspark_config", "spark_config", "spark_sql_config", "runtime_config", "runtimeconfig",
                   "pysparkjob", "sparkjob", "sparksqljob", "pysparkbatch", "sparkbatch")
_SPARK_APPS = ("SparkApplication", "ScheduledSparkApplication")
# SparkApplication fields that are Spark settings: (section, field) -> key.
_APP_FIELDS = {("driver", "cores"): "spark.driver.cores", ("driver", "memory"): "spark.driver.memory",
               ("driver", "memoryOverhead"): "spark.driver.memoryOverhead",
               ("driver", "coreLimit"): "spark.kubernetes.driver.limit.cores",
               ("driver", "coreRequest"): "spark.kubernetes.driver.request.cores",
               ("executor", "cores"): "spark.executor.cores", ("executor", "memory"): "spark.executor.memory",
               ("executor", "memoryOverhead"): "spark.executor.memoryOverhead",
               ("executor", "instances"): "spark.executor.instances",
               ("executor", "coreLimit"): "spark.kubernetes.executor.limit.cores",
               ("executor", "coreRequest"): "spark.kubernetes.executor.request.cores",
               ("dynamicAllocation", "enabled"): "spark.dynamicAllocation.enabled",
               ("dynamicAllocation", "initialExecutors"): "spark.dynamicAllocation.initialExecutors",
               ("dynamicAllocation", "minExecutors"): "spark.dynamicAllocation.minExecutors",
               ("dynamicAllocation", "maxExecutors"): "spark.dynamicAllocation.maxExecutors",
               ("dynamicAllocation", "shuffleTrackingEnabled"): "spark.dynamicAllocation.shuffleTracking.enabled"}


def cluster_sets(documents: list, text: str, store: bool) -> list:
    """One ConfigSet per cluster defined in the documents (each with ``span``: where it is written)."""
    walker = _Walker(text, store)
    for document in documents:
        if document is not None:
            walker.walk(document, [], [])
    return [conf for conf in walker.sets.values() if conf.settings]


class _Walker:
    def __init__(self, text: str, store: bool):
        self.text = text
        self.store = store
        self.sets: dict = {}  # id(owner node) -> ConfigSet
        self.done: set = set()  # nodes read already (a YAML alias repeats its anchor's node)

    # -- where settings go
    def conf(self, owner, kind: str, master: Optional[str]):
        from linter.sources.sparkconf import ConfigSet

        conf = self.sets.get(id(owner))
        if conf is None:
            conf = self.sets[id(owner)] = ConfigSet(kind, object_store_writes=self.store)
            conf.span = (owner.start, owner.end)
            conf.master = master
        return conf

    @staticmethod
    def owner(path: list, ancestors: list):
        """The definition a setting found under ``ancestors`` belongs to."""
        for node in reversed(ancestors):
            kind = node.text("Type")
            if kind and kind.startswith("AWS::"):
                return node  # a CloudFormation resource (its Type says which EMR it is)
        for node in reversed(ancestors):
            if any(node.get(k, fold=True) is not None for k in ("jobDriver", "job_driver", "ReleaseLabel",
                                                                 "release_label", "virtualClusterId")):
                return node  # a job run, a RunJobFlow request
        if len(path) >= 3 and path[0] in ("resource", "resources") and len(ancestors) > 3:
            return ancestors[3]  # a Terraform resource's body; an asset bundle's job or cluster
        return ancestors[0] if ancestors else None

    @staticmethod
    def emr_master(owner) -> Optional[str]:
        """EMR on EC2 runs Spark on YARN; EMR Serverless has no cluster manager to name, EMR on EKS is k8s."""
        if owner is None:
            return "yarn"
        kind = owner.text("Type") or ""
        if owner.get("virtualClusterId", fold=True) is not None or "EMRContainers" in kind:
            return "k8s://"
        if owner.get("jobDriver", fold=True) is not None or owner.get("job_driver") is not None or \
                "EMRServerless" in kind or \
                owner.get("applicationId", fold=True) is not None:
            return None
        return "yarn"

    def add(self, conf, key: str, value) -> None:
        from linter.sources.sparkconf import Setting

        if isinstance(value, Scalar):
            conf.add(Setting(key, value.value, value.start, value.end))

    # -- the walk
    def walk(self, node, path: list, ancestors: list) -> None:
        if isinstance(node, Seq):
            if id(node) in self.done:
                return
            if any(isinstance(item, Map) and item.text("classification", fold=True) is not None
                   for item in node.items):
                self.done.add(id(node))
                owner = self.owner(path, ancestors)
                conf = self.conf(owner if owner is not None else node, "emr", self.emr_master(owner))
                self.configurations(node, conf)
                return
            submit_task = len(path) >= 2 and path[-1] == "parameters" and path[-2].lower() == "spark_submit_task"
            if submit_task or path and path[-1].lower() == "args" and any(
                    isinstance(s, Scalar) and s.value.strip() == "spark-submit" for s in node.items):
                self.done.add(id(node))
                self.step_args(node, path, ancestors)
                return
            for item in node.items:
                self.walk(item, path, ancestors)
            return
        if not isinstance(node, Map) or id(node) in self.done:
            return
        self.done.add(id(node))
        if node.text("kind") in _SPARK_APPS and isinstance(node.get("spec"), Map):
            self.spark_application(node)
            return
        if node.text("classification", fold=True) is not None and any(
                isinstance(node.get(k, fold=True), Map) for k in _PROPERTIES):
            # One configuration written as a block (Terraform's `application_configuration { classification = ...
            # properties = {...} }` of aws_emrcontainers_job_template), not in a list.
            owner = self.owner(path, ancestors)
            conf = self.conf(owner if owner is not None else node, "emr", self.emr_master(owner))
            single = Seq(node.start)
            single.items.append(node)
            self.configurations(single, conf)
            return
        here = ancestors + [node]
        parent = path[-1].lower() if path else ""
        for key, _, value in node.items:
            lower = key.lower()
            if lower == "spark_conf" and isinstance(value, Map):
                # A job's `new_cluster` is its task's (or job cluster's): a spark_submit_task beside it joins it.
                within = path and path[-1].lower() in ("new_cluster", "cluster") and ancestors
                conf = self.conf(ancestors[-1] if within else node, "databricks", None)
                for k, v in value.entries():
                    self.add(conf, k, v)
                self.done.add(id(value))
                continue
            if lower in ("override_properties", "properties") and parent in _SOFTWARE and isinstance(value, Map):
                owner = self.owner(path, here) or node
                self.cluster_properties(value, self.conf(owner, "cluster", "yarn"))
                continue
            if lower == "properties" and parent in _JOB_PROPERTIES and isinstance(value, Map):
                owner = self.owner(path, here) or node
                serverless = parent in ("runtime_config", "runtimeconfig")
                conf = self.conf(owner, "cluster", None if serverless else "yarn")
                for k, v in value.entries():
                    self.add(conf, k, v)
                continue
            if lower.replace("_", "") == "sparksubmitparameters" and isinstance(value, Scalar):
                owner = self.owner(path, here) or node
                self.submit_string(value, self.conf(owner, "emr", self.emr_master(owner)))
                continue
            if lower == "configurations_json" and isinstance(value, Scalar) and value.offsets is None:
                from linter.sources.tree import TreeError, read_json

                try:
                    inner = read_json(self.text, value.start, value.end)
                except TreeError:
                    continue
                self.walk(inner, path + [key], here)
                continue
            self.walk(value, path + [key], here)

    # -- the formats
    def configurations(self, seq: Seq, conf) -> None:
        """An EMR configuration list: every classification's properties, nested configurations included."""
        for item in seq.items:
            if not isinstance(item, Map):
                continue
            for key, value in item.entries():
                lower = key.lower()
                if lower in _PROPERTIES and isinstance(value, Map):
                    for k, v in value.entries():
                        self.add(conf, k, v)
                elif lower in _CONFIGURATIONS and isinstance(value, Seq):
                    self.configurations(value, conf)

    def cluster_properties(self, props: Map, conf) -> None:
        """Dataproc and Yandex Data Processing properties: `spark:spark.executor.cores`, read without the prefix."""
        from linter.sources.sparkconf import PROPERTY_PREFIXES

        for key, value in props.entries():
            prefix, colon, name = key.partition(":")
            if colon and prefix in PROPERTY_PREFIXES:
                self.add(conf, name, value)
            elif not colon and key.startswith(("spark.", "yarn.")):
                self.add(conf, key, value)
        master = conf.get("spark.master")
        if master is not None:
            conf.master = master.value

    def submit_string(self, value: Scalar, conf) -> None:
        """`--conf k=v --executor-memory 4g ...`: the flags of spark-submit in one string."""
        from linter.sources.sparkconf import _shell_words, submit_words

        words = [(word, [value.at(o) for o in offsets]) for word, offsets in
                 _shell_words(value.value, 0, len(value.value))]
        submit_words(words, conf)

    def step_args(self, seq: Seq, path: list, ancestors: list) -> None:
        """`"Args": ["spark-submit", "--deploy-mode", "cluster", "--conf", "k=v", ...]` (EMR steps, Step
        Functions, a Databricks `spark_submit_task`'s parameters)."""
        from linter.sources.sparkconf import submit_words

        databricks = len(path) >= 2 and path[-2].lower() == "spark_submit_task"
        owner = ancestors[-2] if databricks and len(ancestors) >= 2 else self.owner(path, ancestors)
        conf = self.conf(owner if owner is not None else seq, "databricks" if databricks else "emr",
                         None if databricks else self.emr_master(owner))
        words = [(s.value, [s.at(k) for k in range(len(s.value))]) for s in seq.items if isinstance(s, Scalar)]
        submit_words(words, conf)

    def spark_application(self, manifest: Map) -> None:
        from linter.sources.sparkconf import Setting

        spec = manifest.get("spec")
        if manifest.text("kind") == "ScheduledSparkApplication" and isinstance(spec.get("template"), Map):
            spec = spec.get("template")
        conf = self.conf(manifest, "kubernetes", "k8s://")
        mode = spec.get("mode")
        if isinstance(mode, Scalar):
            conf.add(Setting("spark.submit.deployMode", mode.value, mode.start, mode.end))
        for section in ("driver", "executor", "dynamicAllocation"):
            block = spec.get(section)
            if not isinstance(block, Map):
                continue
            for key, value in block.entries():
                name = _APP_FIELDS.get((section, key))
                if name is not None:
                    self.add(conf, name, value)
            enabled = block.get("enabled") if section == "dynamicAllocation" else None
            if isinstance(enabled, Scalar) and enabled.value.lower() == "true" and \
                    block.get("shuffleTrackingEnabled") is None:
                # The operator sets shuffleTrackingEnabled to true when dynamic allocation is on and it is not set.
                conf.add(Setting("spark.dynamicAllocation.shuffleTracking.enabled", "true", enabled.start,
                                 enabled.end))
        spark_conf = spec.get("sparkConf")
        if isinstance(spark_conf, Map):
            for key, value in spark_conf.entries():
                self.add(conf, key, value)
        master = conf.get("spark.master")
        if master is not None:
            conf.master = master.value
