"""Data shipped with the code: reads of paths built from `__file__` are small (linter/semantic/paths.py)."""

import json

import pytest

from tests.test_semantic import PRELUDE, infer_last
from linter.semantic import BOUNDED, DATAFRAME, UNBOUNDED


@pytest.mark.parametrize("code, bound", [
    ("import os\nspark.read.csv(os.path.join(os.path.dirname(__file__), '..', 'resources', 'orders.csv'))", BOUNDED),
    ("import os.path\nspark.read.json(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'x.json'))", BOUNDED),
    ("from pathlib import Path\nspark.read.parquet(str(Path(__file__).parent / 'data'))", BOUNDED),
    ("from pathlib import Path\nspark.read.parquet(str(Path(__file__).parents[1] / 'data'))", BOUNDED),
    ("from pathlib import Path\nHERE = Path(__file__).resolve().parent\nspark.read.json(str(HERE / 'd' / 'e.json'))",
     BOUNDED),
    ("import os\nHERE = os.path.dirname(__file__)\nspark.read.json(f'{HERE}/events.json')", BOUNDED),
    ("import os\nHERE = os.path.dirname(__file__)\nspark.read.json('{}/events.json'.format(HERE))", BOUNDED),
    ("import os\nHERE = os.path.dirname(__file__)\nspark.read.json(HERE + '/events.json')", BOUNDED),
    # not beside the code: another root, a field that does not start the path, a name bound twice
    ("import os\nspark.read.json(os.path.join(LAKE, os.path.basename(__file__)))", UNBOUNDED),
    ("import os\nHERE = os.path.dirname(__file__)\nspark.read.json(f's3://lake/{HERE}')", UNBOUNDED),
    ("import os\nHERE = os.path.dirname(__file__)\nHERE = 's3://lake'\nspark.read.json(HERE + '/e')", UNBOUNDED),
    ("import os\nspark.read.json(os.path.join(os.getcwd(), 'events'))", UNBOUNDED),
    ("spark.read.json('s3://lake/events/')", UNBOUNDED),
    # rebound under a condition, joined with an absolute path, a file that assigns __file__ (the review's cases)
    ("import os, sys\nHERE = os.path.dirname(__file__)\nif len(sys.argv) > 1:\n    HERE = sys.argv[1]\n"
     "spark.read.csv(os.path.join(HERE, 'events'))", UNBOUNDED),
    ("import os\nHERE = os.path.dirname(__file__)\ntry:\n    HERE = os.environ['ROOT']\nexcept KeyError:\n"
     "    pass\nspark.read.csv(os.path.join(HERE, 'events'))", UNBOUNDED),
    ("import os\nspark.read.csv(os.path.join(os.path.dirname(__file__), '/mnt/lake/events'))", UNBOUNDED),
    ("from pathlib import Path\nspark.read.csv(str(Path(__file__).parent / '/mnt/lake/events'))", UNBOUNDED),
    ("__file__ = 's3://lake/events/'\nspark.read.csv(__file__)", UNBOUNDED),
    # a helper of the module that returns such a path (spark-expectations' prepend_csv_path), with a scheme its caller may put in front; not when a branch, a literal prefix or a
    # second definition leads elsewhere
    ("import os\nHERE = os.path.dirname(__file__)\n"
     "def sample(name, prepend=None):\n    path = os.path.join(HERE, '..', 'resources', name)\n"
     "    return path if prepend is None else f'{prepend}{path}'\nspark.read.csv(sample('orders.csv'))", BOUNDED),
    ("from pathlib import Path\ndef sample(name):\n    return str(Path(__file__).parent / 'data' / name)\n"
     "spark.read.csv(sample('orders.csv'))", BOUNDED),
    ("import os\nHERE = os.path.dirname(__file__)\ndef sample(name, local):\n"
     "    if local:\n        return os.path.join(HERE, name)\n    return 's3://lake/' + name\n"
     "spark.read.csv(sample('orders.csv', False))", UNBOUNDED),
    ("import os\nHERE = os.path.dirname(__file__)\ndef sample(name):\n    return os.path.join(HERE, name)\n"
     "spark.read.csv(sample('/mnt/lake/events'))", UNBOUNDED),
    ("from pathlib import Path\ndef sample(name):\n    return Path(__file__).parent / name\n"
     "spark.read.csv(str(sample('s3://lake/events')))", UNBOUNDED),
    ("import os\nHERE = os.path.dirname(__file__)\ndef sample(name):\n    return f's3://{HERE}/{name}'\n"
     "spark.read.csv(sample('orders.csv'))", UNBOUNDED),
    ("import os\nHERE = os.path.dirname(__file__)\ndef sample(name, HERE='s3://lake'):\n"
     "    return os.path.join(HERE, name)\nspark.read.csv(sample('orders.csv'))", UNBOUNDED),
    ("import os\nHERE = os.path.dirname(__file__)\ndef sample(name):\n    HERE = os.environ['ROOT']\n"
     "    return os.path.join(HERE, name)\nspark.read.csv(sample('orders.csv'))", UNBOUNDED),
    ("import os\nHERE = os.path.dirname(__file__)\ndef sample(name):\n    return os.path.join(HERE, name)\n"
     "sample = lambda name: 's3://lake/' + name\nspark.read.csv(sample('orders.csv'))", UNBOUNDED),
])
def test_reads_of_files_beside_the_code_are_small(code, bound):
    value = infer_last(PRELUDE + code + "\n")
    assert value.kind == DATAFRAME and value.bound == bound


def test_a_function_local_path_is_followed_and_a_parameter_is_not(tmp_path, run):
    job = tmp_path / "job.py"
    job.write_text(PRELUDE + "import os\n\n\n"
                   "def sample():\n    here = os.path.dirname(os.path.abspath(__file__))\n"
                   "    return spark.read.option('inferSchema', True).csv(os.path.join(here, 'orders.csv')).collect()\n\n\n"
                   "def load(here):\n"
                   "    return spark.read.option('inferSchema', True).csv(os.path.join(here, 'orders.csv')).collect()\n")
    r = run("check", job, "--select", "SPK101,SPK405", "--output-format", "json", "--no-cache")
    assert sorted((f["code"], f["location"]["row"]) for f in json.loads(r.out)) == [("SPK101", 13), ("SPK405", 13)]


def test_a_helper_defined_below_its_readers_is_followed(tmp_path, run):
    """spark-expectations' examples/scripts/read_example_dataset.py: the readers come first, the helper last."""
    job = tmp_path / "read_examples.py"
    job.write_text(PRELUDE + "import os\nCURRENT_DIR = os.path.dirname(os.path.abspath(__file__))\n\n\n"
                   "def read_orders(prepend=None):\n"
                   "    return spark.read.option('inferSchema', 'true').csv(sample_path('order.csv', prepend))\n\n\n"
                   "def read_events(root):\n"
                   "    return spark.read.option('inferSchema', 'true').csv(os.path.join(root, 'events.csv'))\n\n\n"
                   "def sample_path(name, prepend=None):\n"
                   "    path = os.path.join(CURRENT_DIR, '..', 'resources', name)\n"
                   "    return path if prepend is None else f'{prepend}{path}'\n")
    r = run("check", job, "--select", "SPK405", "--output-format", "json", "--no-cache")
    assert [(f["code"], f["location"]["row"]) for f in json.loads(r.out)] == [("SPK405", 13)]
