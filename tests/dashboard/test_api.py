"""The dashboard's JSON API, spoken to over HTTP (httpx, through Starlette's test client)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from starlette.testclient import TestClient

from toolscout.dashboard.app import check_exposure, dashboard_app
from toolscout.errors import ConfigError

from .conftest import make_dashboard

LOCAL = "http://127.0.0.1"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(dashboard_app(make_dashboard(tmp_path)), base_url=LOCAL) as client:
        yield client


def test_the_page_and_its_assets_are_served(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200
    assert "toolscout" in page.text and "/static/dashboard.js" in page.text
    assert client.get("/static/dashboard.js").status_code == 200
    assert client.get("/static/dashboard.css").status_code == 200


def test_a_round_of_tuning(client: TestClient, tmp_path: Path) -> None:
    state = client.get("/api/state").json()
    assert state["tools"] == 12 and state["settings"]["engine"] == "auto"
    choice = state["settings"]["engine_choice"]
    assert choice == (
        "engine: hybrid (auto: semantic search is installed, with a multilingual model)"
    )
    changed = client.patch("/api/settings", json={"enabled": True, "max_results": 3})
    assert changed.json()["settings"]["max_results"] == 3 and changed.json()["unsaved"]
    pinned = client.post("/api/pins", json={"tool_id": "email__send_email", "pinned": True})
    assert pinned.json()["settings"]["always_available"] == ["email__send_email"]
    found = client.get("/api/search", params={"q": "weather in Paris"}).json()
    assert found["results"][0]["id"] == "weather__get_current_weather"
    assert len(found["results"]) <= 3
    tokens = client.get("/api/tokens").json()
    assert tokens["enabled"] and tokens["first_request"] < tokens["whole_catalog"]
    check = client.post("/api/check", json={"text": "weather in Paris => get_current_weather"})
    assert check.json()["recall"] == 1.0
    preview = client.get("/api/save").json()
    assert "+  max_results: 3" in preview["diff"]
    saved = client.post("/api/save", json={})
    assert saved.status_code == 200 and saved.json()["diff"] == ""
    assert yaml.safe_load((tmp_path / "toolscout.yaml").read_text())["tool_search"] == {
        "enabled": True,
        "max_results": 3,
        "always_available": ["email__send_email"],
    }


@pytest.mark.parametrize(
    ("method", "path", "body", "message"),
    [
        ("PATCH", "/api/settings", {"max_results": 0}, "max_results"),
        ("PATCH", "/api/settings", {"colour": "blue"}, "cannot change colour"),
        ("POST", "/api/pins", {"tool_id": "x__y", "pinned": True}, "no tool 'x__y'"),
        ("POST", "/api/pins", {"tool_id": "email__send_email"}, "pinned must be true or false"),
        ("POST", "/api/check", {"text": "nonsense"}, "expected `query => tool, tool`"),
        ("POST", "/api/check", {}, "text must be text"),
        ("GET", "/api/search?q=", None, "type what the tool should do"),
        ("GET", "/api/gateway", None, "no gateway attached"),
    ],
)
def test_a_mistake_is_a_400_with_a_readable_error(
    client: TestClient, method: str, path: str, body: object, message: str
) -> None:
    response = client.request(method, path, json=body)
    assert response.status_code == 400
    assert message in response.json()["error"]


def test_changes_must_be_json(client: TestClient) -> None:
    # A cross-site form can post url-encoded text, never JSON without asking first.
    response = client.post("/api/save", data={"x": "1"})
    assert response.status_code == 400
    assert "JSON" in response.json()["error"]
    assert (
        client.post(
            "/api/save", content=b"[1]", headers={"content-type": "application/json"}
        ).status_code
        == 400
    )


def test_an_unknown_path_is_a_404(client: TestClient) -> None:
    response = client.get("/api/nothing")
    assert response.status_code == 404 and "no such page" in response.json()["error"]


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2", "LOCALHOST", "[::1]"])
def test_on_loopback_only_loopback_hosts_and_pages_are_answered(tmp_path: Path, host: str) -> None:
    app = dashboard_app(make_dashboard(tmp_path), host=host.strip("[]"))
    # Another site's page, through DNS rebinding, would send its own host name.
    with TestClient(app, base_url="http://evil.example:8770") as c:
        assert c.get("/api/state").status_code == 421
    with TestClient(app, base_url=f"http://{host}:8770") as c:
        assert c.get("/api/state").status_code == 200
        assert c.get("/api/state", headers={"Origin": f"http://{host}:8770"}).status_code == 200
        # A page of another site that reaches the loopback address itself.
        assert c.get("/api/state", headers={"Origin": "http://evil.example"}).status_code == 403
        assert c.get("/api/state", headers={"Origin": "null"}).status_code == 403


class TestToken:
    TOKEN = "s3cret-token"

    @pytest.fixture
    def guarded(self, tmp_path: Path) -> Iterator[TestClient]:
        app = dashboard_app(make_dashboard(tmp_path), host="0.0.0.0", token=self.TOKEN)
        with TestClient(app, base_url="http://dashboard.lan") as client:
            yield client

    def test_without_the_token_nothing_is_answered(self, guarded: TestClient) -> None:
        for path in ("/", "/api/state", "/static/dashboard.js"):
            response = guarded.get(path)
            assert response.status_code == 401
        assert (
            guarded.get("/api/state", headers={"Authorization": "Bearer wrong"}).status_code == 401
        )

    def test_a_bearer_token_is_accepted(self, guarded: TestClient) -> None:
        headers = {"Authorization": f"Bearer {self.TOKEN}"}
        assert guarded.get("/api/state", headers=headers).status_code == 200

    def test_the_printed_link_sets_a_cookie_for_the_page(self, guarded: TestClient) -> None:
        opened = guarded.get("/", params={"token": self.TOKEN}, follow_redirects=False)
        assert opened.status_code == 303 and opened.headers["location"] == "/"
        assert guarded.get("/").status_code == 200  # the client kept the cookie
        assert guarded.get("/api/state").status_code == 200

    def test_serving_beyond_loopback_needs_a_token(self) -> None:
        with pytest.raises(ConfigError, match="without a token"):
            check_exposure("0.0.0.0", None)
        check_exposure("0.0.0.0", self.TOKEN)
        check_exposure("127.0.0.1", None)
        check_exposure("::1", None)
