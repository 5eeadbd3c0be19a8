#!/usr/bin/env bash
# verdicts.sh BUNDLE...: every verdict but insufficient_data, one line each (WIDTH characters of summary).
cd "$(dirname "$0")/../../backend" && PYTHONPATH=. "${ROOTLINE:-.venv/bin/rootline}" analyze --json "$@" | python3 ../lab/independent/verdicts.py "${WIDTH:-400}"
