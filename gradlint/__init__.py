"""gradlint: a static linter for PyTorch gradient pitfalls."""

from gradlint import speedups

speedups.before_imports()  # until the engine is loaded: speedups.install

__version__ = "0.1.0"
