"""The README's table of ``ROOTLINE_`` environment variables, generated from ``Settings``.

``python -m rootline.settings_doc`` rewrites the table in place (between the two markers);
a test fails when the table differs from what it would write.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

from pydantic import SecretStr
from pydantic_core import PydanticUndefined

from rootline.settings import Settings

README = Path(__file__).resolve().parents[2] / "README.md"
START = "<!-- settings-table:start (python -m rootline.settings_doc) -->"
END = "<!-- settings-table:end -->"
PREFIX = str(Settings.model_config.get("env_prefix", ""))


def env_name(field: str) -> str:
    return f"{PREFIX}{field}".upper()


def _default(value: Any) -> str:
    if value is None or value is PydanticUndefined:
        return "(none)"
    if isinstance(value, SecretStr):
        return "(secret)"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, Path):
        value = value.as_posix()
    return f"`{value}`"


def _cell(text: str) -> str:
    # Words holding <placeholders> go in code spans, or Markdown would take them for HTML tags.
    text = re.sub(r"[^\s`]*<[^>\s]+>[^\s`]*?(?=[.,;:)]?(?:\s|$))", lambda m: f"`{m[0]}`", text)
    return text.replace("|", "\\|").replace("\n", " ")


def rows() -> list[tuple[str, str, str]]:
    """(variable, default, meaning) for every setting, in declaration order."""
    return [
        (env_name(name), _default(field.default), field.description or "")
        for name, field in Settings.model_fields.items()
    ]


def markdown_table() -> str:
    lines = ["| variable | default | meaning |", "|---|---|---|"]
    lines += [f"| `{n}` | {_cell(d)} | {_cell(m)} |" for n, d, m in rows()]
    return "\n".join(lines)


def render(readme_text: str) -> str:
    """The README with the table between the markers replaced by a fresh one."""
    head, found, rest = readme_text.partition(START)
    if not found or END not in rest:
        raise ValueError(f"README lacks the markers {START!r} ... {END!r}")
    _old, _, tail = rest.partition(END)
    return f"{head}{START}\n{markdown_table()}\n{END}{tail}"


def main() -> int:
    text = README.read_text(encoding="utf-8")
    fresh = render(text)
    if fresh != text:
        README.write_text(fresh, encoding="utf-8")
        print(f"updated the settings table in {README}")
    else:
        print("the settings table is up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
