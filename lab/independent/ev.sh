#!/usr/bin/env bash
# ev.sh ID[,ID...] BUNDLE...: the evidence items of those checklist ids (MET marks those past threshold).
ids=$1; shift
cd "$(dirname "$0")/../../backend" && PYTHONPATH=. "${ROOTLINE:-.venv/bin/rootline}" analyze --json "$@" | python3 ../lab/independent/evidence.py "$ids"
