"""gradlint: a static linter for PyTorch gradient pitfalls."""

__version__ = "0.1.0"
