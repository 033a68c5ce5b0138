"""Rules that read Spark configuration: Python, spark-defaults.conf, spark-submit lines, YAML, XML, event logs (SPK8xx)."""
