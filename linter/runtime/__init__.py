"""The runtime side of sparkcheck: physical plans, event logs and runs.

- `plans.py`: the plan-rule engine (SPK6xx) over explain text, event logs and recorded Connect plans.
- `runs.py`: the run-rule engine (SPK7xx, and SPK8xx over a run's Spark Properties) over an Application.
- `output.py`: what the runtime commands print (summaries, findings, the HTML report).
- `commands.py`: `sparkcheck plan`, `diagnose` and `capture`.
- `capture_hook/`: the sitecustomize `capture` puts on the job's PYTHONPATH.

Imports run one way: linter/cli.py and commands.py -> output.py -> runs.py -> plans.py
-> linter/sources -> linter/diagnostics; the helpers every command shares live in linter/command.py.
"""
