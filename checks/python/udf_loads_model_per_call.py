from typing import Optional

import libcst as cst

from checks.python._udf import pandas_udf_kind, site_for_call, site_for_def
from linter.registry import Invalid, PythonRule, Valid
from linter.sources.python import child_nodes

_SETUP = (
    "import pandas as pd\nfrom pyspark.sql import SparkSession\nfrom pyspark.sql import functions as F\n"
    "from pyspark.sql.types import ArrayType, FloatType, StringType\n"
    "spark = SparkSession.builder.getOrCreate()\nreviews = spark.table('shop.reviews')\n"
)

# What loads a model or opens a client: by the qualified name the file imports it under.
_LOADERS = frozenset((
    "sentence_transformers.SentenceTransformer", "sentence_transformers.CrossEncoder", "transformers.pipeline",
    "joblib.load", "pickle.load", "cloudpickle.load", "dill.load", "torch.load", "torch.jit.load",
    "tensorflow.keras.models.load_model", "keras.models.load_model", "tensorflow.saved_model.load",
    "spacy.load", "onnxruntime.InferenceSession", "xgboost.Booster", "lightgbm.Booster", "fasttext.load_model",
    "boto3.client", "boto3.resource", "boto3.Session", "boto3.session.Session", "openai.OpenAI",
    "openai.AzureOpenAI", "requests.Session", "psycopg2.connect", "pymysql.connect", "pyodbc.connect",
))
_LOADER_PREFIXES = ("mlflow.",)  # `mlflow.pyfunc.load_model`, `mlflow.sklearn.load_model`, ...
_LOADER_METHODS = frozenset(("from_pretrained",))  # `AutoModel.from_pretrained(...)`, any transformers class


class UdfLoadsModelPerCall(PythonRule):
    """
    ## What it does
    Finds a Python UDF (`@udf`, `@pandas_udf`, `udf(f)`, `spark.udf.register`)
    whose body loads a model or opens a client on every call: a
    `SentenceTransformer(...)`, `AutoModel.from_pretrained(...)`,
    `transformers.pipeline(...)`, `mlflow.pyfunc.load_model(...)`,
    `joblib.load` / `pickle.load` (of a file: `pickle.loads` of a value is
    decoding), `torch.load`, Keras' `load_model`,
    `spacy.load`, an ONNX `InferenceSession`, an XGBoost or LightGBM
    `Booster`, a `boto3` client, an OpenAI client, a `requests.Session()`
    or a database connection.

    Not reported: a pandas UDF over an iterator of batches
    (`Iterator[pd.Series] -> Iterator[pd.Series]`, or the older
    `PandasUDFType.SCALAR_ITER`) that loads before its loop (once per
    partition, the documented way); a function declared a UDF twice is
    reported once; a load inside an `if`
    (a lazy cache: `if _model is None: _model = load()`) or in a function
    that declares it `global`; a load in a helper the UDF calls (not read).

    ## Why is this bad?
    A row-at-a-time UDF runs its body once per row, a Series-to-Series
    pandas UDF once per Arrow batch (10,000 rows by default): the model is
    read from storage, deserialised and warmed up again each time. Loading
    a transformer takes seconds, so a partition of a million rows spends
    its time loading, not scoring; a client per row opens a connection per
    row.

    ## Example
    ```python
    @F.pandas_udf(ArrayType(FloatType()))
    def embed(texts: pd.Series) -> pd.Series:
        model = SentenceTransformer("paraphrase-MiniLM-L6-v2")
        return pd.Series(model.encode(texts.to_list()).tolist())
    ```

    ## Use instead
    ```python
    @F.pandas_udf(ArrayType(FloatType()))
    def embed(batches: Iterator[pd.Series]) -> Iterator[pd.Series]:
        model = SentenceTransformer("paraphrase-MiniLM-L6-v2")  # once per partition
        for texts in batches:
            yield pd.Series(model.encode(texts.to_list()).tolist())
    ```

    ## Fix safety
    No fix: the iterator form changes the function's shape.

    ## References
    - PySpark API: `pandas_udf`, "Iterator of Series to Iterator of Series"
      ("useful when the UDF execution requires initializing some state,
      for example, loading a machine learning model file").
    """

    code = "SPK212"
    name = "udf-loads-model-per-call"
    summary = "a UDF loads a model or opens a client on every call (every row, or every Arrow batch)"
    default_reason = ("a model loaded inside a UDF is loaded again for every row (or every batch of a pandas "
                      "UDF): the job spends its time loading; an iterator UDF loading before its loop is left alone")
    triggers = ("udf",)
    doc_setup = ("import pandas as pd\nfrom typing import Iterator\nfrom sentence_transformers import SentenceTransformer\n"
                 "from pyspark.sql.types import ArrayType, FloatType\n")

    invalid = (
        Invalid(_SETUP + "from sentence_transformers import SentenceTransformer\n\n"
                "@F.pandas_udf(ArrayType(FloatType()))\ndef embed(texts: pd.Series) -> pd.Series:\n"
                "    model = SentenceTransformer('paraphrase-MiniLM-L6-v2')\n"
                "    return pd.Series(model.encode(texts.to_list()).tolist())\n"),
        Invalid(_SETUP + "import mlflow\n\n@F.udf(StringType())\ndef label(text):\n"
                "    model = mlflow.pyfunc.load_model('models:/sentiment/Production')\n"
                "    return str(model.predict(pd.DataFrame({'text': [text]}))[0])\n"),
        Invalid(_SETUP + "import joblib\n\ndef score(x):\n    return float(joblib.load('/dbfs/m.pkl').predict([[x]])[0])\n\n"
                "score_udf = F.udf(score, 'double')\nspark.udf.register('score', score, 'double')\n"),
        Invalid(_SETUP + "import boto3\n\ndef translate(text):\n    client = boto3.client('translate')\n"
                "    return client.translate_text(Text=text, SourceLanguageCode='auto', TargetLanguageCode='en')['TranslatedText']\n\n"
                "translate_udf = F.udf(translate, StringType())\n"),
        Invalid(_SETUP + "from typing import Iterator\nfrom transformers import AutoModel\n\n"
                "@F.pandas_udf(ArrayType(FloatType()))\ndef embed(batches: Iterator[pd.Series]) -> Iterator[pd.Series]:\n"
                "    for texts in batches:\n        model = AutoModel.from_pretrained('bert-base-uncased')\n"
                "        yield texts.map(lambda t: [float(len(t))])\n"),
    )
    valid = (
        Valid(_SETUP + "import joblib\nfrom pyspark.sql.functions import PandasUDFType\n\n"
              "@F.pandas_udf('double', PandasUDFType.SCALAR_ITER)\ndef predict(batches):\n"
              "    model = joblib.load('/dbfs/models/m.pkl')\n    for x in batches:\n        yield pd.Series(model.predict(x))\n"),
        Valid(_SETUP + "import pickle\n\n@F.udf(StringType())\ndef name_of(payload):\n    return pickle.loads(payload)['name']\n"),
        Valid(_SETUP + "from typing import Iterator\nfrom sentence_transformers import SentenceTransformer\n\n"
              "@F.pandas_udf(ArrayType(FloatType()))\ndef embed(batches: Iterator[pd.Series]) -> Iterator[pd.Series]:\n"
              "    model = SentenceTransformer('paraphrase-MiniLM-L6-v2')\n    for texts in batches:\n"
              "        yield pd.Series(model.encode(texts.to_list()).tolist())\n"),
        Valid(_SETUP + "import joblib\n_model = None\n\n@F.udf(StringType())\ndef score(x):\n    global _model\n"
              "    if _model is None:\n        _model = joblib.load('/dbfs/models/churn.pkl')\n"
              "    return str(_model.predict([[x]])[0])\n"),
        Valid(_SETUP + "import joblib\nmodel = joblib.load('/dbfs/models/churn.pkl')\nbroadcast_model = spark.sparkContext.broadcast(model)\n\n"
              "@F.udf(StringType())\ndef score(x):\n    return str(broadcast_model.value.predict([[x]])[0])\n"),
        Valid("import joblib\n\ndef score(x):\n    return joblib.load('/models/m.pkl').predict([[x]])\n"),
    )

    def __init__(self, ctx):
        super().__init__(ctx)
        self._reported: set = set()  # id() of the UDF functions reported

    def visit_Call(self, node: cst.Call) -> None:
        self._check(site_for_call(self.ctx, node))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._check(site_for_def(self.ctx, node))

    def _check(self, site) -> None:
        if site is None or site.function is None or id(site.function) in self._reported:
            return  # (a function declared a UDF twice, `F.udf(f)` and `spark.udf.register("f", f)`: once)
        function = site.function
        body = function.body
        if isinstance(function, cst.FunctionDef) and _declares_global(function):
            return  # a module-level cache the UDF fills once per worker
        iterator = (isinstance(function, cst.FunctionDef) and _takes_iterator(function)) or (
            pandas_udf_kind(self.ctx, site) == "SCALAR_ITER")  # an iterator UDF declared the old way
        found = self._load(body, loop=False, iterator=iterator)
        if found is None:
            return
        call, shown = found
        self._reported.add(id(function))
        per = "Arrow batch (10,000 rows by default)" if site.factory == "pandas_udf" else "row"
        self.ctx.report(
            self,
            call,
            f"UDF `{site.name}` loads `{shown}` on every call, once per {per}, where once per partition would do",
            help="load it once per partition: a pandas UDF over `Iterator[pd.Series]` that loads before its loop, "
                 "or a module-level cache filled on first use",
        )

    def _load(self, node, loop: bool, iterator: bool) -> Optional[tuple]:
        """The first loader call under ``node`` that runs on every call, and how to show it."""
        for child in child_nodes(node):
            if isinstance(child, (cst.FunctionDef, cst.ClassDef, cst.Lambda, cst.If)):
                continue  # defined, not run here; an `if` is a lazy cache's guard
            if isinstance(child, cst.Call):
                shown = self._loader(child)
                if shown is not None and (loop or not iterator):
                    return child, shown
            found = self._load(child, loop or isinstance(child, (cst.For, cst.While)), iterator)
            if found is not None:
                return found
        return None

    def _loader(self, call: cst.Call) -> Optional[str]:
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value in _LOADER_METHODS:
            return " ".join(self.ctx.code_for(func).split()) + "(...)"
        qualified = self.ctx.semantic.qualified_name(func)
        if qualified is None:
            return None
        if qualified in _LOADERS or (qualified.startswith(_LOADER_PREFIXES) and qualified.endswith(".load_model")):
            return " ".join(self.ctx.code_for(func).split()) + "(...)"
        return None


def _declares_global(function: cst.FunctionDef) -> bool:
    stack = [function.body]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Global):
            return True
        if not isinstance(node, (cst.FunctionDef, cst.ClassDef)) or node is function.body:
            stack.extend(child_nodes(node))
    return False


def _takes_iterator(function: cst.FunctionDef) -> bool:
    """`def f(batches: Iterator[pd.Series])`: a pandas UDF over the batches of a partition."""
    params = function.params.params
    if not params or params[0].annotation is None:
        return False
    annotation = params[0].annotation.annotation
    base = annotation.value if isinstance(annotation, cst.Subscript) else annotation
    name = base.attr.value if isinstance(base, cst.Attribute) else getattr(base, "value", None)
    return name in ("Iterator", "Iterable")
