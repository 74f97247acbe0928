#!/usr/bin/env bash
# Rebuild leaderboard/site/static/vendor/plotly-custom.min.js from the pinned npm packages.
# Needs node (20 or later) and npm with access to the npm registry; installs into a scratch
# folder, so no node_modules ever lands in the repository. The site build and the tests
# only use the committed bundle.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
out="${1:-$repo/leaderboard/site/static/vendor/plotly-custom.min.js}"
work="$(mktemp -d "${TMPDIR:-/tmp}/bloombench-plotly-XXXXXX")"
trap 'rm -rf "$work"' EXIT

cp "$here/package.json" "$here/package-lock.json" "$here/entry.js" "$here/build.mjs" "$work/"
cd "$work"
npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
mkdir -p "$(dirname "$out")"
node build.mjs "$work/plotly-custom.min.js"
mv "$work/plotly-custom.min.js" "$out"
echo "wrote $out ($(wc -c <"$out") bytes)"
