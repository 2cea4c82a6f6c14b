# The package version, sent in User-Agent (pyproject.toml reads it from here).
VERSION = "0.1.0"
