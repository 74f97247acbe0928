"""BloomBench leaderboard: benchmark definition, scoring and the static site."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("bloombench-leaderboard")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0+source"
