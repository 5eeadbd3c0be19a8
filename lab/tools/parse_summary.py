"""Summarise `rootline parse --json` output: per file kind/status, series counts, diagnostics.

Usage: rootline parse --json FILE... | python lab/tools/parse_summary.py [SERIES_SUBSTRING...]
Series whose name contains one of the substrings are printed with min/max.
"""

from __future__ import annotations

import json
import sys


def main() -> None:
    wanted = sys.argv[1:]
    results = json.load(sys.stdin)
    if isinstance(results, dict):
        results = [results]
    for result in results:
        series = result.get("series", [])
        events = result.get("events", [])
        diagnostics = result.get("diagnostics", [])
        print(
            f"{result['path']}: kind={result.get('kind')} status={result.get('status')} "
            f"series={len(series)} events={len(events) if isinstance(events, list) else events} "
            f"diagnostics={len(diagnostics)}"
        )
        for diagnostic in diagnostics[:3]:
            print(f"    diag: {diagnostic}")
        for one in series:
            if any(w in one["name"] for w in wanted):
                labels = ",".join(f"{k}={v}" for k, v in one.get("labels", {}).items())
                print(f"    {one['name']}{{{labels}}} n={one['points']} min={one['min']} max={one['max']} {one['unit']}")


if __name__ == "__main__":
    main()
