"""Exports of a postmortem: Markdown (a zip with its charts), standalone HTML, and PDF.

- Markdown: ``postmortem.md`` and ``charts/<checklist id>.svg`` in one zip, the charts
  linked relatively (``![...](charts/small_send_buffer.svg)``), which GitHub and
  Confluence's Markdown import both show.
- HTML: one file, CSS inline, charts inline SVG; Markdown is rendered by markdown-it with
  raw HTML off, so whatever the team (or an artifact) wrote shows as text, never as markup,
  and only http(s), mailto and relative links are kept.
- PDF: that HTML printed by Chromium headless (Debian's ``chromium``, which ``make``
  installs for the browser tests). Chromium over WeasyPrint: no new Python dependency and
  its system libraries, and the PDF draws SVG exactly as the browser shows the page.
"""

from __future__ import annotations

import io
import re
import shutil
import subprocess
import tempfile
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from html import escape
from pathlib import Path

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict

from rootline.errors import ServiceUnavailable

CHART_REF = re.compile(r"\]\(chart:([a-z0-9_]+)\)")
SAFE_LINK = re.compile(r"^(https?:|mailto:|chart:|#|/|\.{0,2}/|[^:]*$)", re.IGNORECASE)
PDF_TIMEOUT_S = 90


@dataclass(frozen=True, slots=True)
class Section:
    key: str
    title: str
    text: str


@dataclass(frozen=True, slots=True)
class Document:
    """What every export renders: the title block, the sections, and the charts by id."""

    title: str
    status: str
    subtitle: str
    sections: Sequence[Section]
    charts: Mapping[str, str]


def markdown_text(document: Document, *, chart_path: str = "charts/{id}.svg") -> str:
    """The whole postmortem as one Markdown file, chart references pointing at files."""
    head = [f"# {document.title}", ""]
    if document.status != "published":
        head += [f"**{document.status.replace('_', ' ').title()}**", ""]
    head += [f"_{document.subtitle}_", ""]
    body = []
    for section in document.sections:
        text = CHART_REF.sub(lambda m: f"]({chart_path.format(id=m.group(1))})", section.text)
        body += [f"## {section.title}", "", text.strip(), ""]
    return "\n".join(head + body)


def markdown_zip(document: Document, *, stem: str) -> bytes:
    """``<stem>/postmortem.md`` with ``<stem>/charts/*.svg`` beside it, as zip bytes."""
    referenced = set(CHART_REF.findall("\n".join(s.text for s in document.sections)))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(f"{stem}/postmortem.md", markdown_text(document))
        for chart_id in sorted(referenced & document.charts.keys()):
            archive.writestr(f"{stem}/charts/{chart_id}.svg", document.charts[chart_id])
    return buffer.getvalue()


def _markdown(charts: Mapping[str, str]) -> MarkdownIt:
    md = MarkdownIt("js-default")
    md.validateLink = lambda url: bool(SAFE_LINK.match(url.strip()))  # type: ignore[method-assign]

    def image(
        self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        token = tokens[idx]
        source = str(token.attrs.get("src", ""))
        caption = escape(self.renderInlineAsText(token.children or [], options, env))
        if source.startswith("chart:"):
            svg = charts.get(source.removeprefix("chart:"))
            if svg is None:
                return f'<span class="missing-chart">[chart {escape(source)} has no data]</span>'
            return f'<figure class="chart">{svg}<figcaption>{caption}</figcaption></figure>'
        # Other images would be fetched from elsewhere when the file is opened: a link instead.
        return f'<a href="{escape(source)}">{caption or escape(source)}</a>'

    md.add_render_rule("image", image)
    return md


def section_html(text: str, charts: Mapping[str, str]) -> str:
    """One section's Markdown as HTML (raw HTML in it shows as text)."""
    html: str = _markdown(charts).render(text)
    return html


CSS = """
:root { color-scheme: light; }
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif;
  color: #1d2329; line-height: 1.5; max-width: 820px; margin: 32px auto; padding: 0 24px;
  font-size: 14px; }
h1 { font-size: 26px; margin: 0 0 4px; }
h2 { font-size: 19px; margin: 28px 0 8px; padding-bottom: 4px; border-bottom: 1px solid #dde1e6; }
h3 { font-size: 15px; margin: 20px 0 6px; }
.subtitle { color: #5f6b7a; margin: 0 0 8px; }
.badge { display: inline-block; font-size: 12px; font-weight: 600; padding: 2px 8px;
  border-radius: 10px; background: #fff3cd; color: #7a5b00; border: 1px solid #f0d58a; }
table { border-collapse: collapse; width: 100%; margin: 8px 0; font-size: 13px; }
th, td { border: 1px solid #dde1e6; padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #f4f6f8; }
td:first-child { white-space: nowrap; }
code { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 12px;
  background: #f4f6f8; padding: 0 3px; border-radius: 3px; }
pre { background: #f4f6f8; padding: 8px; overflow-x: auto; }
figure.chart { margin: 12px 0; break-inside: avoid; }
figure.chart svg { max-width: 100%; height: auto; border: 1px solid #e6e8eb; }
figcaption { font-size: 12px; color: #5f6b7a; }
.missing-chart { color: #8a929c; font-style: italic; }
footer { margin-top: 32px; color: #8a929c; font-size: 12px; }
@media print { body { margin: 0 auto; } h2 { break-after: avoid; } tr { break-inside: avoid; } }
@page { size: A4; margin: 16mm 14mm; }
"""


def html_document(document: Document) -> str:
    """One standalone HTML file: CSS inline, charts inline SVG, nothing fetched."""
    md = _markdown(document.charts)
    badge = (
        ""
        if document.status == "published"
        else f' <span class="badge">{escape(document.status.replace("_", " ").title())}</span>'
    )
    parts = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(document.title)}</title>",
        f"<style>{CSS}</style></head><body>",
        f"<header><h1>{escape(document.title)}{badge}</h1>",
        f'<p class="subtitle">{escape(document.subtitle)}</p></header>',
    ]
    for section in document.sections:
        parts.append(f'<section id="{escape(section.key)}"><h2>{escape(section.title)}</h2>')
        parts.append(md.render(section.text))
        parts.append("</section>")
    parts.append("<footer>Written with Rootline.</footer></body></html>")
    return "\n".join(parts)


def html_to_pdf(html: str, *, chromium: str) -> bytes:
    """Print the HTML to PDF with Chromium headless (503 when Chromium is not installed)."""
    binary = shutil.which(chromium)
    if binary is None:
        raise ServiceUnavailable(
            "pdf_unavailable",
            f"PDF export needs Chromium ({chromium} not found; set ROOTLINE_CHROMIUM or"
            " install it: apt-get install chromium)",
        )
    with tempfile.TemporaryDirectory(prefix="rootline-pdf-") as folder:
        page = Path(folder) / "postmortem.html"
        target = Path(folder) / "postmortem.pdf"
        page.write_text(html, encoding="utf-8")
        command: list[str] = [
            binary,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-extensions",
            "--disable-background-networking",
            # A profile of its own: two exports at once must not share (and lock) one.
            f"--user-data-dir={Path(folder) / 'profile'}",
            "--no-pdf-header-footer",
            f"--print-to-pdf={target}",
            page.as_uri(),
        ]
        try:
            done = subprocess.run(
                command, capture_output=True, timeout=PDF_TIMEOUT_S, check=False, cwd=folder
            )
        except subprocess.TimeoutExpired as exc:
            raise ServiceUnavailable(
                "pdf_failed", f"Chromium did not print the PDF within {PDF_TIMEOUT_S} s"
            ) from exc
        if not target.is_file() or target.stat().st_size == 0:
            detail = done.stderr.decode(errors="replace").strip().splitlines()[-1:]
            raise ServiceUnavailable(
                "pdf_failed", f"Chromium printed no PDF (exit {done.returncode}): {detail}"
            )
        return target.read_bytes()


def content_type(format_: str) -> str:
    return {"md": "application/zip", "html": "text/html; charset=utf-8", "pdf": "application/pdf"}[
        format_
    ]


def extension(format_: str) -> str:
    return {"md": "zip", "html": "html", "pdf": "pdf"}[format_]


def render(document: Document, format_: str, *, stem: str, chromium: str) -> bytes:
    """The export in ``format_`` (md: a zip, html, pdf) as bytes."""
    if format_ == "md":
        return markdown_zip(document, stem=stem)
    html = html_document(document)
    if format_ == "html":
        return html.encode("utf-8")
    return html_to_pdf(html, chromium=chromium)


def slug(text: str) -> str:
    """A file name stem from a title: lower case, words joined by dashes."""
    words = re.findall(r"[a-z0-9]+", text.lower())
    return "-".join(words)[:60].strip("-") or "postmortem"
