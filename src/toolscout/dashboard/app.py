"""The dashboard's web app: the page, and the JSON API it calls.

| method and path        | what it does                                              |
|:-----------------------|:----------------------------------------------------------|
| `GET /`                | the page                                                  |
| `GET /api/state`       | settings, catalog size, config file, gateway attached     |
| `GET /api/tools`       | every tool: token cost, lint, pinned                      |
| `PATCH /api/settings`  | change settings (`{"max_results": 8}`)                    |
| `POST /api/pins`       | pin or unpin a tool (`{"tool_id": ..., "pinned": true}`)  |
| `GET /api/search?q=`   | what a search returns now, and what it leaves out, why    |
| `GET /api/tokens`      | tokens per request, whole catalog against tool search     |
| `POST /api/check`      | Recall@k and MRR of labelled queries (`{"text": ...}`)    |
| `GET /api/save`        | the file "save" would write, and the diff (`?in_place=1`) |
| `POST /api/save`       | write it (`{"in_place": true}`: into a host's own file)   |
| `GET /api/gateway`     | the attached gateway's upstreams and sessions             |

Errors are `{"error": "..."}` with status 400 (a mistake), 401 (no token) or 404. Changes
must be sent as JSON, which a page of another site cannot make a browser send here without
asking first. Beyond loopback, every request needs the token: `Authorization: Bearer ...`,
or once `/?token=...`, which sets a cookie.
"""

from __future__ import annotations

import hmac
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from toolscout.errors import ConfigError, DashboardError, require_extra

with require_extra("dashboard", feature="toolscout.dashboard"):
    import anyio.to_thread
    from pydantic import BaseModel
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles
    from starlette.types import ASGIApp, Receive, Scope, Send

from toolscout.dashboard.dashboard import Dashboard
from toolscout.serving import LoopbackOnly, is_loopback

_STATIC = ("toolscout.dashboard", "static")
_COOKIE = "toolscout_dashboard"
_ResultT = TypeVar("_ResultT")


def dashboard_app(
    dashboard: Dashboard, *, host: str = "127.0.0.1", token: str | None = None
) -> ASGIApp:
    """The page and its API for `dashboard`, to serve on `host`.

    Args:
        dashboard: The state the page shows and edits.
        host: The address it is served on: on loopback, requests must name a loopback host
            and come from no page or a loopback one (`toolscout.serving.LoopbackOnly`), so
            that another site's page cannot reach it, through DNS rebinding or otherwise.
        token: Required of every request when given; see `check_exposure`.
    """
    routes = [
        Route("/", _page, methods=["GET"]),
        Route("/api/state", _endpoint(lambda request: dashboard.state()), methods=["GET"]),
        Route("/api/tools", _endpoint(lambda request: dashboard.tools()), methods=["GET"]),
        Route("/api/settings", _json_endpoint(dashboard.update), methods=["PATCH"]),
        Route("/api/pins", _json_endpoint(lambda body: _pin(dashboard, body)), methods=["POST"]),
        Route(
            "/api/search",
            _endpoint(lambda request: dashboard.search(request.query_params.get("q", ""))),
            methods=["GET"],
        ),
        Route("/api/tokens", _endpoint(lambda request: dashboard.tokens()), methods=["GET"]),
        Route(
            "/api/check",
            _json_endpoint(lambda body: dashboard.check(_text(body, "text"))),
            methods=["POST"],
        ),
        Route(
            "/api/save",
            _endpoint(
                lambda request: dashboard.save_preview(
                    in_place=request.query_params.get("in_place") in ("1", "true")
                )
            ),
            methods=["GET"],
        ),
        Route(
            "/api/save",
            _json_endpoint(lambda body: dashboard.save(in_place=body.get("in_place") is True)),
            methods=["POST"],
        ),
        Route("/api/gateway", _endpoint(lambda request: dashboard.gateway()), methods=["GET"]),
        Mount("/static", StaticFiles(packages=[_STATIC]), name="static"),
    ]
    app: ASGIApp = Starlette(
        routes=routes, exception_handlers={DashboardError: _mistake, 404: _not_found}
    )
    if is_loopback(host):
        app = LoopbackOnly(app)
    if token:
        app = _TokenRequired(app, token)
    return app


def check_exposure(host: str, token: str | None) -> None:
    """Refuse to serve the dashboard beyond loopback without a token: it can change and save
    the configuration.

    Raises:
        ConfigError: `host` is not a loopback address and there is no token.
    """
    if not token and not is_loopback(host):
        raise ConfigError(
            f"the dashboard would be reachable from other machines on {host} without a token; "
            "set TOOLSCOUT_DASHBOARD_TOKEN (or --token-env NAME) to require one, or serve on "
            "127.0.0.1"
        )


async def _page(request: Request) -> Response:
    from importlib.resources import files

    page = files(_STATIC[0]).joinpath(_STATIC[1], "index.html").read_text(encoding="utf-8")
    return HTMLResponse(page, headers={"Cache-Control": "no-store"})


def _endpoint(answer: Callable[[Request], BaseModel | Sequence[BaseModel]]) -> Any:
    async def endpoint(request: Request) -> Response:
        result = await _in_thread(answer, request)
        return _json(result)

    return endpoint


def _json_endpoint(answer: Callable[[dict[str, Any]], BaseModel]) -> Any:
    """An endpoint taking a JSON object: only JSON, so a plain cross-site form cannot post."""

    async def endpoint(request: Request) -> Response:
        if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
            raise DashboardError("send the request body as JSON (Content-Type: application/json)")
        try:
            body = await request.json()
        except ValueError:
            raise DashboardError("the request body is not valid JSON") from None
        if not isinstance(body, dict):
            raise DashboardError("the request body must be a JSON object")
        return _json(await _in_thread(answer, body))

    return endpoint


async def _in_thread(function: Callable[[Any], _ResultT], argument: Any) -> _ResultT:
    # Searching and estimating are CPU work: off the event loop, which may serve a gateway.
    return await anyio.to_thread.run_sync(function, argument)


def _json(result: BaseModel | Sequence[BaseModel]) -> JSONResponse:
    if isinstance(result, BaseModel):
        return JSONResponse(result.model_dump(mode="json"))
    return JSONResponse([item.model_dump(mode="json") for item in result])


def _pin(dashboard: Dashboard, body: dict[str, Any]) -> BaseModel:
    pinned = body.get("pinned")
    if not isinstance(pinned, bool):
        raise DashboardError("pinned must be true or false")
    return dashboard.set_pinned(_text(body, "tool_id"), pinned)


def _text(body: dict[str, Any], key: str) -> str:
    value = body.get(key)
    if not isinstance(value, str):
        raise DashboardError(f"{key} must be text")
    return value


async def _mistake(request: Request, error: Exception) -> Response:
    return JSONResponse({"error": str(error)}, status_code=400)


async def _not_found(request: Request, error: Exception) -> Response:
    return JSONResponse({"error": f"no such page: {request.url.path}"}, status_code=404)


class _TokenRequired:
    """Lets through requests that carry the token (header or cookie); `/?token=` sets the
    cookie, so that the link printed at start-up opens the page."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self._app = app
        self._token = token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        request = Request(scope)
        offered = request.query_params.get("token")
        if offered is not None and request.url.path == "/" and self._accepts(offered):
            response: Response = RedirectResponse("/", status_code=303)
            response.set_cookie(_COOKIE, offered, httponly=True, samesite="strict")
            await response(scope, receive, send)
            return
        header = request.headers.get("authorization", "")
        bearer = header[7:] if header.lower().startswith("bearer ") else ""
        if self._accepts(bearer) or self._accepts(request.cookies.get(_COOKIE, "")):
            await self._app(scope, receive, send)
            return
        response = JSONResponse(
            {"error": "this dashboard requires its token: open the link it printed at start"},
            status_code=401,
        )
        await response(scope, receive, send)

    def _accepts(self, offered: str) -> bool:
        return bool(offered) and hmac.compare_digest(offered.encode(), self._token.encode())
