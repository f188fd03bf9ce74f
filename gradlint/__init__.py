"""gradlint: a static linter for PyTorch gradient pitfalls."""

from gradlint import dataclass_code

dataclass_code.install()  # until the engine is loaded: dataclass_code.finish()

__version__ = "0.1.0"
