"""Configuration discovery and precedence, per-file ignores, rule options, init."""
import os

from conftest import write

COLLECT = "rows = spark.table('orders').collect()\n"
BIG_LIMIT = "rows = spark.table('orders').limit(500).collect()\n"


def codes(r):
    return sorted(l.split(": ")[1].split()[0] for l in r.out.splitlines() if ": SPK" in l)


def test_pyproject_section_applies(tmp_path, run):
    write(tmp_path / "pyproject.toml", "[project]\nname = 'x'\n\n[tool.sparkcheck]\nignore = ['SPK101']\n")
    write(tmp_path / "src" / "a.py", COLLECT)
    assert run("check", ".", "--no-cache", cwd=tmp_path).code == 0


def test_pyproject_without_section_is_passed_over(tmp_path, run):
    write(tmp_path / "sparkcheck.toml", "ignore = ['SPK101']\n")
    write(tmp_path / "sub" / "pyproject.toml", "[project]\nname = 'sub'\n")
    write(tmp_path / "sub" / "a.py", COLLECT)
    assert run("check", ".", "--no-cache", cwd=tmp_path).code == 0


def test_nearest_config_wins_and_cli_wins_over_files(tmp_path, run):
    write(tmp_path / "pyproject.toml", "[tool.sparkcheck]\nignore = ['SPK101']\n")
    write(tmp_path / "a.py", COLLECT)
    write(tmp_path / "pkg" / "sparkcheck.toml", "select = ['SPK1']\n")
    write(tmp_path / "pkg" / "b.py", COLLECT)
    r = run("check", ".", "--no-cache", "--output-format", "concise", cwd=tmp_path)
    assert r.out.splitlines()[0].startswith("pkg/b.py:1:30: SPK101") and codes(r) == ["SPK101"]
    r = run("check", ".", "--no-cache", "--output-format", "concise", "--select", "SPK101", cwd=tmp_path)
    assert codes(r) == ["SPK101", "SPK101"]


def test_sparkcheck_toml_beats_pyproject_in_the_same_directory(tmp_path, run):
    write(tmp_path / "pyproject.toml", "[tool.sparkcheck]\nignore = ['SPK101']\n")
    write(tmp_path / "sparkcheck.toml", "ignore = []\n")
    write(tmp_path / "a.py", COLLECT)
    assert run("check", ".", "--no-cache", cwd=tmp_path).code == 1


def test_per_file_ignores(tmp_path, run):
    write(tmp_path / "pyproject.toml", '[tool.sparkcheck.per-file-ignores]\n"tests/**" = ["SPK101"]\n"notebook_*.py" = ["SPK1"]\n')
    write(tmp_path / "tests" / "unit" / "test_a.py", COLLECT)
    write(tmp_path / "jobs" / "notebook_explore.py", COLLECT)
    write(tmp_path / "jobs" / "etl.py", COLLECT)
    r = run("check", ".", "--no-cache", "--output-format", "concise", cwd=tmp_path)
    assert [l.split(":")[0] for l in r.out.splitlines() if "SPK101" in l] == ["jobs/etl.py"]


def test_a_bad_code_in_per_file_ignores_stops_before_any_report(tmp_path, run):
    """A typo (`SPK5O1`, a letter O) is a configuration error: exit 2 with one line naming it, and no report
    that looks clean (an empty SARIF would close every open code-scanning alert)."""
    for key in ("per-file-ignores", "extend-per-file-ignores"):
        write(tmp_path / "pyproject.toml", f'[tool.sparkcheck.{key}]\n"*.sql" = ["SPK5O1"]\n')
        write(tmp_path / "report.sql", "SELECT * FROM t;\n")
        r = run("check", ".", "--no-cache", "--output-format", "sarif", "-o", "out.sarif", cwd=tmp_path)
        assert r.code == 2 and not (tmp_path / "out.sarif").exists()
        assert r.err.strip().count("\n") == 0 and "unknown rule selector 'SPK5O1'" in r.err and key in r.err
        assert "internal error" not in r.err and "All checks passed" not in r.out


def test_rule_options_by_code_and_name(tmp_path, run):
    write(tmp_path / "a.py", BIG_LIMIT)
    assert run("check", ".", "--no-cache", cwd=tmp_path).code == 0
    write(tmp_path / "pyproject.toml", "[tool.sparkcheck.SPK101]\nmax-rows = 100\n")
    r = run("check", ".", "--no-cache", "--output-format", "concise", cwd=tmp_path)
    assert "its `limit(500)` is above max-rows (100)" in r.out
    write(tmp_path / "pyproject.toml", "[tool.sparkcheck.collect-on-unbounded-dataframe]\nmax-rows = 1000\n")
    assert run("check", ".", "--no-cache", cwd=tmp_path).code == 0


def test_inline_config_and_config_file(tmp_path, run):
    write(tmp_path / "a.py", BIG_LIMIT)
    r = run("check", ".", "--no-cache", "--config", "SPK101.max-rows = 10", cwd=tmp_path)
    assert r.code == 1
    write(tmp_path / "ci" / "strict.toml", "[SPK101]\nmax-rows = 1\n")
    write(tmp_path / "pyproject.toml", "[tool.sparkcheck]\nignore = ['SPK101']\n")
    assert run("check", ".", "--no-cache", cwd=tmp_path).code == 0
    assert run("check", ".", "--no-cache", "--config", "ci/strict.toml", cwd=tmp_path).code == 1
    r = run("check", ".", "--config", "nonsense here", cwd=tmp_path)
    assert r.code == 2 and r.err.count("\n") == 1


def test_exclude_gitignore_and_force_exclude(tmp_path, run):
    write(tmp_path / ".gitignore", "generated/\n*.tmp.py\n!keep.tmp.py\n")
    write(tmp_path / "generated" / "a.py", COLLECT)
    write(tmp_path / "x.tmp.py", COLLECT)
    write(tmp_path / "keep.tmp.py", COLLECT)
    write(tmp_path / ".venv" / "lib" / "b.py", COLLECT)
    write(tmp_path / "legacy" / "old.py", COLLECT)
    write(tmp_path / "jobs" / "etl.py", COLLECT)
    write(tmp_path / "pyproject.toml", "[tool.sparkcheck]\nextend-exclude = ['legacy']\n")
    r = run("check", ".", "--no-cache", "--output-format", "concise", cwd=tmp_path)
    files = sorted(l.split(":")[0] for l in r.out.splitlines() if "SPK101" in l)
    assert files == ["jobs/etl.py", "keep.tmp.py"]
    # Files named explicitly are checked, unless --force-exclude (as pre-commit passes them).
    assert run("check", "legacy/old.py", "--no-cache", cwd=tmp_path).code == 1
    r = run("check", "legacy/old.py", "generated/a.py", "--force-exclude", "--no-cache", cwd=tmp_path)
    assert r.code == 0 and r.out == "All checks passed!\n"
    r = run("check", ".", "--no-cache", "--no-respect-gitignore", "--output-format", "concise", cwd=tmp_path)
    assert "generated/a.py" in r.out


def test_gitignore_of_parent_checkout_applies(tmp_path, run):
    os.makedirs(tmp_path / ".git")
    write(tmp_path / ".gitignore", "scratch/\n")
    write(tmp_path / "proj" / "scratch" / "a.py", COLLECT)
    write(tmp_path / "proj" / "b.py", COLLECT)
    r = run("check", "proj", "--no-cache", "--output-format", "concise", cwd=tmp_path)
    assert [l.split(":")[0] for l in r.out.splitlines() if "SPK101" in l] == ["proj/b.py"]


def test_target_spark_is_validated(tmp_path, run):
    write(tmp_path / "a.py", COLLECT)
    assert run("check", ".", "--target-spark", "3.5", "--no-cache", cwd=tmp_path).code == 1
    r = run("check", ".", "--target-spark", "three", cwd=tmp_path)
    assert r.code == 2 and "Spark version" in r.err


def test_init_appends_without_touching_other_bytes(tmp_path, run):
    original = "[project]\r\nname = 'demo'  # keep me\r\n\r\n[tool.ruff]\r\nline-length = 100\r\n"
    write(tmp_path / "pyproject.toml", original)
    r = run("init", tmp_path)
    assert r.code == 0 and "added a [tool.sparkcheck] section" in r.out
    new = open(tmp_path / "pyproject.toml", "rb").read().decode()
    assert new.startswith(original) and "[tool.sparkcheck]\r\n" in new
    assert "\n" not in new.replace("\r\n", "")
    assert run("init", tmp_path).out.endswith("nothing changed\n")
    assert open(tmp_path / "pyproject.toml", "rb").read().decode() == new
    write(tmp_path / "a.py", COLLECT)
    assert run("check", ".", "--no-cache", cwd=tmp_path).code == 1  # the section it wrote is valid


def test_init_in_a_subfolder_does_not_shadow_the_project(tmp_path, run):
    """The nearest configuration wins whole: `init` in a package folder of a configured project would drop the
    project's ignores there; it says so and writes nothing."""
    write(tmp_path / "pyproject.toml", '[tool.sparkcheck]\nignore = ["SPK101"]\n')
    sub = tmp_path / "src" / "pkg"
    sub.mkdir(parents=True)
    r = run("init", cwd=sub)
    assert r.code == 0 and "already configures" in r.out and str(tmp_path / "pyproject.toml") in r.out
    assert sorted(p.name for p in sub.iterdir()) == []


def test_init_creates_sparkcheck_toml(tmp_path, run):
    r = run("init", tmp_path)
    assert r.code == 0 and os.path.isfile(tmp_path / "sparkcheck.toml")
    write(tmp_path / "a.py", COLLECT)
    assert run("check", ".", "--no-cache", cwd=tmp_path).code == 1


def test_cache_directory_layout(tmp_path, run):
    write(tmp_path / "a.py", COLLECT)
    run("check", ".", cwd=tmp_path)
    cache = tmp_path / ".sparkcheck_cache"
    assert (cache / "CACHEDIR.TAG").read_text().startswith("Signature: 8a477f597d28d172789f06886806bc55")
    assert (cache / ".gitignore").read_text().strip().endswith("*")
    from linter import __version__

    assert (cache / __version__).is_dir()


def test_per_file_sql_dialect(tmp_path, run):
    # Databricks' JSON path syntax parses only in the databricks dialect.
    sql = "SELECT payload:customer.id AS customer_id FROM raw.events;\n"
    write(tmp_path / "databricks" / "q.sql", sql)
    write(tmp_path / "spark" / "q.sql", sql)
    write(tmp_path / "pyproject.toml", '[tool.sparkcheck.per-file-sql-dialect]\n"databricks/**" = "databricks"\n')
    r = run("check", ".", "--no-cache", "--output-format", "concise", cwd=tmp_path)
    bad = sorted(l.split(":")[0] for l in r.out.splitlines() if "SPK001" in l)
    assert bad == ["spark/q.sql"]
    r = run("check", ".", "--config", "per-file-sql-dialect = {'x/**' = 'oracle'}", cwd=tmp_path)
    assert r.code == 2 and "must be one of" in r.err


def test_sql_schema_file(tmp_path, run):
    write(tmp_path / "q.sql", "SELECT id FROM t WHERE zip = 1234;\n")
    assert run("check", ".", "--no-cache", cwd=tmp_path).code == 0  # no schema: types unknown, nothing said
    write(tmp_path / "sparkcheck.toml", "sql-schema = ['schema.sql']\n")
    r = run("check", ".", "--no-cache", cwd=tmp_path)
    assert r.code == 2 and r.err.count("\n") == 1 and "sql-schema: cannot read schema.sql" in r.err
    write(tmp_path / "schema.sql", "CREATE TABLE t (id BIGINT, zip STRING);\n")
    r = run("check", ".", "--output-format", "concise", cwd=tmp_path)
    assert "q.sql:1:24: SPK513" in r.out
    write(tmp_path / "schema.sql", "CREATE TABLE t (id BIGINT, zip INT);\n")  # the cache sees the schema change
    assert run("check", ".", cwd=tmp_path).code == 0
    write(tmp_path / "ddl" / "a" / "t.sql", "CREATE TABLE t (id BIGINT, zip STRING);\n")
    write(tmp_path / "sparkcheck.toml", "sql-schema = ['ddl/**/*.sql']\n")
    assert "q.sql:1:24: SPK513" in run("check", "q.sql", "--output-format", "concise", cwd=tmp_path).out


# Dataproc and Yandex Data Processing cluster properties: `prefix:key=value`, the key read without its prefix.
CALCULATOR = "capacity-scheduler:yarn.scheduler.capacity.resource-calculator=" \
             "org.apache.hadoop.yarn.util.resource.DefaultResourceCalculator"
CLUSTER_FORMATS = {
    "cluster.properties": f"# Yandex Data Processing component properties\n{CALCULATOR}\nspark:spark.executor.cores=8\n",
    "gcloud_equals.sh": f"gcloud dataproc clusters create etl \\\n    --region=europe-west1 \\\n"
                        f"    --properties={CALCULATOR},spark:spark.executor.cores=8\n",
    "gcloud_quoted.sh": f"gcloud dataproc clusters create etl --properties '{CALCULATOR},spark:spark.executor.cores=8'\n",
    "gcloud_delimiter.sh": f"gcloud beta dataproc clusters create etl \\\n  --properties=^#^spark:spark.jars=a.jar,b.jar#{CALCULATOR}\n",
    "yc.sh": f'yc dataproc cluster create analytics \\\n   --zone=ru-central1-a \\\n   --property "{CALCULATOR}"\n',
    "ci.yml": f"jobs:\n  create:\n    steps:\n      - run: |\n          gcloud dataproc clusters create staging \\\n"
              f"            --properties={CALCULATOR}\n      - run: yc dataproc cluster create s --property {CALCULATOR}\n",
}


def _positions(text, needle):
    out = []
    start = text.find(needle)
    while start != -1:
        before = text[:start]
        out.append((before.count("\n") + 1, start - (before.rfind("\n") + 1) + 1))
        start = text.find(needle, start + 1)
    return out


def test_cluster_properties_reach_the_config_rules_at_their_values(tmp_path, run):
    for name, text in CLUSTER_FORMATS.items():
        write(tmp_path / name, text)
        r = run("check", name, "--no-cache", "--output-format", "json", "--select", "SPK811", cwd=tmp_path)
        found = [(f["location"]["row"], f["location"]["column"]) for f in __import__("json").loads(r.out)]
        assert found == _positions(text, "org.apache.hadoop.yarn.util.resource.DefaultResourceCalculator"), name
        assert r.err == "", name


def test_each_cluster_command_is_its_own_cluster_definition(tmp_path, run):
    # Cores of one cluster are not weighed against the memory of another (SPK806 heap per core).
    write(tmp_path / "two.sh", "gcloud dataproc clusters create a --properties=spark:spark.executor.cores=8\n"
                               "yc dataproc cluster create b --property spark:spark.executor.memory=4g\n")
    assert "SPK806" not in run("check", "two.sh", "--no-cache", "--output-format", "concise", cwd=tmp_path).out
    write(tmp_path / "one.sh", "yc dataproc cluster create b --property spark:spark.executor.cores=8 \\\n"
                               "  --property=spark:spark.executor.memory=4g\n")
    r = run("check", "one.sh", "--no-cache", "--output-format", "concise", cwd=tmp_path)
    assert "one.sh:2:42: SPK806" in r.out  # the memory, 4g
    # A cluster runs Spark on YARN: event logging switched off there is a cluster's (SPK809); not with a local master.
    write(tmp_path / "log.sh", "gcloud dataproc clusters create a --properties=spark:spark.eventLog.enabled=false\n")
    assert "log.sh:1:77: SPK809" in run("check", "log.sh", "--no-cache", "--output-format", "concise", cwd=tmp_path).out
    write(tmp_path / "local.properties", "spark:spark.master=local[4]\nspark:spark.eventLog.enabled=false\n")
    assert run("check", "local.properties", "--no-cache", cwd=tmp_path).code == 0


def test_properties_files_that_are_not_spark_settings(tmp_path, run):
    # Java's own .properties files: ISO 8859-1 text, other keys, `:` separators; nothing to say about them.
    write(tmp_path / "messages_de.properties", "greeting=Gr\xfc\xdfe\nlabel.size: gro\xdf\n".encode("latin-1"), mode="wb")
    write(tmp_path / "log4j.properties", "log4j.rootCategory=WARN, console\nlog4j.logger.org.apache.spark=WARN\n")
    write(tmp_path / "unknown.properties", "zeppelin:zeppelin.spark.maxResult=0\nspark.executor.cores: 2\n")
    r = run("check", ".", "--no-cache", cwd=tmp_path)
    assert r.code == 0 and r.out == "All checks passed!\n" and r.err == ""


def test_a_family_prefix_with_no_rules_is_accepted_with_a_warning(tmp_path, run):
    """`SPK9` is a valid selector (a configuration written for a newer sparkcheck), but a run that selects
    nothing by it says so on stderr, once, whether it came from the command line or the configuration."""
    write(tmp_path / "job.py", "rows = spark.table('orders').collect()\n")
    r = run("check", "job.py", "--no-cache", "--select", "SPK9", cwd=tmp_path)
    assert r.code == 0 and r.err.strip() == "sparkcheck: warning: --select: 'SPK9' selects no rule (see `sparkcheck rules`)"
    write(tmp_path / "pyproject.toml", '[tool.sparkcheck]\nextend-select = ["SPK99"]\n')
    r = run("check", "job.py", "--no-cache", "--output-format", "concise", cwd=tmp_path)
    assert r.code == 1 and "SPK101" in r.out
    assert r.err.count("\n") == 1 and "`extend-select`: 'SPK99' selects no rule" in r.err
    r = run("check", "job.py", "--no-cache", "--select", "SPK1", cwd=tmp_path)
    assert "--select" not in r.err and r.err.count("\n") == 1
