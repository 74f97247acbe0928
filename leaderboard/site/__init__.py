"""The static leaderboard site: `bloombench build` renders every valid submission into HTML.

Modules: ``data`` (load, score and tabulate entries), ``figures`` (one function per chart),
``pages`` (each page's context), ``build`` (render, write, swap in), ``i18n`` (English and
Arabic strings), ``commands`` (the CLI command). Templates live in the repository's
top-level ``templates/``; ``static/`` holds site.js and site.css.
"""

from .build import build_site

__all__ = ["build_site"]
