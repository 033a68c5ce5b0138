"""What a chain of `withColumn` calls costs the driver, against one `withColumns` (SPK401's preview judgement).

Run by hand:  .venv/bin/python bench/withcolumn_chain.py

Builds a 40-column frame on a local Spark (one core), adds n columns with n chained `withColumn` calls or with
one `withColumns`, and times building the frame and optimising its plan (no job runs: analysis and
optimisation are the driver's cost a chain adds). The first size is run twice: its first round warms the JVM.
"""

import time

from pyspark.sql import SparkSession
from pyspark.sql import functions as F


def main() -> None:
    spark = SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false").getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    base = spark.range(1000).select(*[F.col("id").alias(f"c{i}") for i in range(40)])

    def chain(n):
        df = base
        for i in range(n):
            df = df.withColumn(f"n{i}", F.col(f"c{i % 40}").cast("double") * 2)
        return df

    def once(n):
        return base.withColumns({f"n{i}": F.col(f"c{i % 40}").cast("double") * 2 for i in range(n)})

    print(f"pyspark {spark.version}, local[1]: build + optimise, seconds")
    for n in (10, 10, 11, 100, 300):
        took = {}
        for make in (chain, once):
            start = time.perf_counter()
            make(n)._jdf.queryExecution().optimizedPlan()
            took[make.__name__] = time.perf_counter() - start
        print(f"  n = {n:3}: {n} withColumn calls {took['chain']:6.2f} s, one withColumns {took['once']:6.2f} s")
    spark.stop()


if __name__ == "__main__":
    main()
