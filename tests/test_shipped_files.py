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
