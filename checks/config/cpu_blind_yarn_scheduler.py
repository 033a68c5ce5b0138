from linter.registry import ConfigRule, Invalid, Valid

_XML = """<?xml version="1.0"?>
<configuration>
  <property>
    <name>yarn.scheduler.capacity.resource-calculator</name>
    <value>org.apache.hadoop.yarn.util.resource.DefaultResourceCalculator</value>
  </property>
</configuration>
"""


class CpuBlindYarnScheduler(ConfigRule):
    """
    ## What it does
    Finds YARN's capacity scheduler configured with the CPU-blind
    `DefaultResourceCalculator` (`yarn.scheduler.capacity.resource-calculator`
    in `capacity-scheduler.xml`, or written `capacity-scheduler:yarn...` as a
    cluster property), and a `capacity-scheduler.xml` that does not set it
    (the default is that calculator).

    ## Why is this bad?
    The default calculator schedules containers by memory alone: an executor
    asking for 8 cores is counted as one vcore, nodes are oversubscribed and
    `spark.executor.cores` means nothing to YARN. Spark jobs then compete for
    CPU they were promised.

    ## Example
    ```xml
    <property>
      <name>yarn.scheduler.capacity.resource-calculator</name>
      <value>org.apache.hadoop.yarn.util.resource.DefaultResourceCalculator</value>
    </property>
    ```

    ## Use instead
    ```xml
    <property>
      <name>yarn.scheduler.capacity.resource-calculator</name>
      <value>org.apache.hadoop.yarn.util.resource.DominantResourceCalculator</value>
    </property>
    ```
    On Dataproc: `--properties capacity-scheduler:yarn.scheduler.capacity.resource-calculator=...DominantResourceCalculator`.

    ## Fix safety
    No fix: a cluster setting.

    ## References
    - Hadoop, "Capacity Scheduler" (`yarn.scheduler.capacity.resource-calculator`).
    """

    code = "SPK811"
    name = "cpu-blind-yarn-scheduler"
    summary = "YARN's capacity scheduler ignores CPU (DefaultResourceCalculator)"
    default_reason = ("the default calculator schedules YARN containers by memory alone, so "
                      "nodes are oversubscribed and `spark.executor.cores` means nothing to YARN")
    invalid = (Invalid(_XML, path="capacity-scheduler.xml"),
               Invalid("gcloud dataproc clusters create etl --properties "
                       "capacity-scheduler:yarn.scheduler.capacity.resource-calculator="
                       "org.apache.hadoop.yarn.util.resource.DefaultResourceCalculator\n", path="cluster.sh"))
    valid = (Valid(_XML.replace("DefaultResourceCalculator", "DominantResourceCalculator"),
                   path="capacity-scheduler.xml"),)

    def check(self, conf) -> None:
        setting = conf.get("yarn.scheduler.capacity.resource-calculator")
        if setting is not None and "DefaultResourceCalculator" in setting.value:
            self.ctx.report(self, setting, "the capacity scheduler counts memory only: executor cores are not "
                            "reserved on the nodes", help="org.apache.hadoop.yarn.util.resource.DominantResourceCalculator")
        elif setting is None and conf.kind == "xml" and any(s.key.startswith("yarn.scheduler.capacity.")
                                                             for s in conf.settings):
            first = next(s for s in conf.settings if s.key.startswith("yarn.scheduler.capacity."))
            self.ctx.report(self, first, "this capacity-scheduler.xml leaves the resource calculator at the "
                            "CPU-blind default", help="set yarn.scheduler.capacity.resource-calculator to "
                            "org.apache.hadoop.yarn.util.resource.DominantResourceCalculator")
