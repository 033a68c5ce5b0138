"""Rules that read physical plans (explain text)."""
