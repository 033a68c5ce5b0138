"""Rules that read a run: task, stage and executor figures from an event log (SPK7xx)."""
