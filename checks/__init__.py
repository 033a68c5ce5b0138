"""sparkcheck's rules, one module each, grouped by what they read."""
