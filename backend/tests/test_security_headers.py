"""Every response carries CSP, X-Frame-Options, nosniff and Referrer-Policy; the built web
app needs nothing the policy refuses."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from rootline.security_headers import APP_POLICY, CONSOLE_POLICY
from rootline.settings import DEFAULT_FRONTEND_DIR, Settings

COMMON = {
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
}


@pytest.fixture()
def site(settings: Settings, tmp_path: Path) -> Iterator[TestClient]:
    from rootline.app import create_app

    dist = tmp_path / "dist"
    (dist / "assets").mkdir(parents=True)
    (dist / "index.html").write_text('<script type="module" src="/assets/app.js"></script>')
    (dist / "assets" / "app.js").write_text("console.log('app')")
    app = create_app(settings.model_copy(update={"frontend_dir": dist}))
    with TestClient(app) as client:
        yield client
    app.state.engine.dispose()


@pytest.mark.parametrize(
    "path",
    ["/", "/incidents/some-id", "/assets/app.js", "/api/health", "/api/nope", "/openapi.json"],
)
def test_every_response_carries_the_headers(site: TestClient, path: str) -> None:
    response = site.get(path)
    assert {k: response.headers.get(k) for k in COMMON} == COMMON, path
    assert response.headers["content-security-policy"] == APP_POLICY


def test_the_policy_allows_only_the_apps_own_scripts_and_no_framing(site: TestClient) -> None:
    header = site.get("/").headers["content-security-policy"]
    policy = dict(part.partition(" ")[::2] for part in header.split("; "))
    assert policy["script-src"] == "'self'"
    assert policy["default-src"] == "'self'"
    assert policy["connect-src"] == "'self'"
    assert policy["frame-ancestors"] == "'none'"
    assert policy["object-src"] == "'none'"


@pytest.mark.parametrize("path", ["/docs", "/redoc"])
def test_the_api_console_gets_its_own_policy(site: TestClient, path: str) -> None:
    response = site.get(path)
    assert response.status_code == 200
    assert response.headers["content-security-policy"] == CONSOLE_POLICY
    sources = re.findall(r'(?:src|href)="(https://[^/"]+)', response.text)
    assert sources, "FastAPI's console page loads its scripts from a CDN"
    for origin in set(sources):
        assert origin in CONSOLE_POLICY, origin


def test_the_built_web_app_has_no_inline_script() -> None:
    # 'self' without 'unsafe-inline' refuses inline scripts: the built index.html must have none.
    index = DEFAULT_FRONTEND_DIR / "index.html"
    if not index.is_file():
        pytest.skip("the web app is not built (make build)")
    html = index.read_text()
    scripts = re.findall(r"<script\b([^>]*)>(.*?)</script>", html, flags=re.S)
    assert scripts
    for attributes, body in scripts:
        assert body.strip() == "" and re.search(r'\bsrc="/', attributes), attributes
    assert not re.search(r'(?:src|href)="(?:https?:)?//', html), "an outside origin in index.html"
