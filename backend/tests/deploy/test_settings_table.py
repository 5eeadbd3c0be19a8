"""The README's settings table is the one `python -m rootline.settings_doc` generates."""

from __future__ import annotations

from rootline import settings_doc
from rootline.settings import Settings


def test_the_readme_table_is_up_to_date() -> None:
    """Every setting, its default and its description, as Settings declares them."""
    readme = settings_doc.README.read_text(encoding="utf-8")
    assert settings_doc.render(readme) == readme, (
        "the README settings table is stale: regenerate it with "
        "`cd backend && .venv/bin/python -m rootline.settings_doc`"
    )


def test_every_setting_has_a_description() -> None:
    undocumented = [name for name, f in Settings.model_fields.items() if not f.description]
    assert not undocumented


def test_the_generator_replaces_only_the_table() -> None:
    head, tail = "# Title\n\n## Settings\n\n", "\n\n## Next\nmore text\n"
    stale = f"{head}{settings_doc.START}\n| old | table |\n{settings_doc.END}{tail}"
    rendered = settings_doc.render(stale)
    assert (
        rendered
        == f"{head}{settings_doc.START}\n{settings_doc.markdown_table()}\n{settings_doc.END}{tail}"
    )
    for name in Settings.model_fields:
        assert f"| `{settings_doc.env_name(name)}` |" in rendered
