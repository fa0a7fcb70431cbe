"""A server that asks its client: tools that sample the client's model, elicit an answer from
its user or list its roots, each returning what the client answered (or the error it got),
and one that gives up on its question, so that a test sees the cancellation reach the client.
Its requests (and its log messages) ride the call's own stream unless told otherwise
(`related: "no"`). `hold`
reports progress, then answers once `release` is called, to keep a call in flight;
`roots_changes` counts the client's `notifications/roots/list_changed`. `report_and_ask`
logs and reports progress before it asks the client's model and after the answer;
`ask_and_hold` holds after the answer (reporting progress) until `release`, and `ask_and_note`
notes what came of its question: `notes` lists what they noted, their cancellation
included. Its prompt
`greeting` asks the user's name. On the 2026-07-28
revision (`--http PORT --modern-only`), which has no requests to the client, it answers
`input_required` instead and reads the client's answer from the call made again."""

from __future__ import annotations

import warnings
from typing import Any

import anyio
import mcp_types as types
from common import serve, text, tool
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError
from mcp.shared.message import ServerMessageMetadata
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

warnings.simplefilter("ignore", MCPDeprecationWarning)

TOOLS = [
    tool(
        "ask_model",
        "Ask the client's model a question.",
        question="The question.",
        related={"type": "string", "enum": ["yes", "no"], "description": "On the call's stream."},
    ),
    tool("ask_model_with_tools", "Ask the client's model, offering it a tool."),
    tool("ask_user", "Ask the client's user for an answer.", question="The question."),
    tool("ask_user_to_visit", "Ask the client's user to open a page."),
    tool("roots", "List the client's roots."),
    tool("ask_and_give_up", "Ask the client's model, and give up after a moment."),
    tool("log", "Log a message about the call.", message="The message."),
    tool("hold", "Answer once release is called."),
    tool("release", "Let the held calls answer."),
    tool("roots_changes", "How many times the client said its roots changed."),
    tool("report_and_ask", "Log and report progress before and after asking the model."),
    tool("ask_and_hold", "Ask the model, then answer once release is called."),
    tool("ask_and_note", "Ask the model, and note what came of it."),
    tool("notes", "What ask_and_hold and ask_and_note noted."),
]
PROMPTS = [types.Prompt(name="greeting", description="Greet the client's user by name.")]
RELEASED = [anyio.Event()]
ROOTS_CHANGES = [0]
NOTES: list[str] = []


def sampling(question: str, **more: Any) -> types.CreateMessageRequest:
    message = types.SamplingMessage(
        role="user", content=types.TextContent(type="text", text=question)
    )
    params = types.CreateMessageRequestParams(messages=[message], max_tokens=50, **more)
    return types.CreateMessageRequest(params=params)


async def ask(
    ctx: Any, request: types.ServerRequest, result: type[Any], related: bool = True
) -> Any:
    """Send the client a request, on the call's stream unless `related` is False; its answer,
    and the progress the client reported on it. On the 2026-07-28 revision: the answer the
    call carries, or `InputRequired` to ask for it."""
    if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
        answered = ((ctx.params or {}).get("inputResponses") or {}).get("answer")
        if answered is None:
            raise InputRequired(types.InputRequiredResult(input_requests={"answer": request}))
        return result.model_validate(answered), []
    progress: list[float] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append(value)

    metadata = ServerMessageMetadata(related_request_id=ctx.request_id) if related else None
    answer = await ctx.session.send_request(
        request, result, metadata=metadata, progress_callback=on_progress
    )
    return answer, progress


class InputRequired(Exception):
    def __init__(self, result: types.InputRequiredResult) -> None:
        self.result = result


def name_form() -> types.ElicitRequest:
    schema = {"type": "object", "properties": {"answer": {"type": "string"}}}
    return types.ElicitRequest(
        params=types.ElicitRequestFormParams(message="your name?", requested_schema=schema)
    )


async def list_prompts(ctx: Any, params: Any) -> types.ListPromptsResult:
    return types.ListPromptsResult(prompts=PROMPTS)


async def get_prompt(ctx: Any, params: types.GetPromptRequestParams) -> Any:
    try:
        answer, _ = await ask(ctx, name_form(), types.ElicitResult)
    except InputRequired as needed:
        return needed.result
    name = (answer.content or {}).get("answer")
    message = types.PromptMessage(
        role="user", content=types.TextContent(type="text", text=f"Hello, {name}.")
    )
    return types.GetPromptResult(messages=[message])


async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
    return types.ListToolsResult(tools=TOOLS)


async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    arguments = params.arguments or {}
    try:
        if params.name == "ask_model":
            related = arguments.get("related", "yes") == "yes"
            answer, progress = await ask(
                ctx, sampling(arguments["question"]), types.CreateMessageResult, related
            )
            assert isinstance(answer.content, types.TextContent)
            suffix = f" (progress {progress})" if progress else ""
            return text(f"{answer.model}: {answer.content.text}{suffix}")
        if params.name == "ask_model_with_tools":
            offered = tool("lookup", "Look something up.", word="The word.")
            answer, _ = await ask(
                ctx, sampling("Use the tool.", tools=[offered]), types.CreateMessageResultWithTools
            )
            return text(f"{answer.model} answered")
        if params.name == "ask_user":
            schema = {"type": "object", "properties": {"answer": {"type": "string"}}}
            form = types.ElicitRequestFormParams(
                message=arguments["question"], requested_schema=schema
            )
            answer, _ = await ask(ctx, types.ElicitRequest(params=form), types.ElicitResult)
            return text(f"{answer.action}: {(answer.content or {}).get('answer')}")
        if params.name == "ask_user_to_visit":
            page = types.ElicitRequestURLParams(
                message="Sign in.", url="https://example.com/sign-in", elicitation_id="sign-in-1"
            )
            answer, _ = await ask(ctx, types.ElicitRequest(params=page), types.ElicitResult)
            await ctx.session.send_elicit_complete("sign-in-1")
            return text(answer.action)
        if params.name == "roots":
            answer, _ = await ask(ctx, types.ListRootsRequest(), types.ListRootsResult)
            return text(", ".join(str(root.uri) for root in answer.roots))
        if params.name == "log":
            await ctx.session.send_log_message(
                "info", arguments["message"], "asking", ctx.request_id
            )
            return text("logged")
        if params.name == "hold":
            await ctx.session.report_progress(0, None, "holding")
            await RELEASED[0].wait()
            return text("released")
        if params.name == "report_and_ask":
            for stage, step in (("before asking", 1), ("after the answer", 2)):
                if step == 2:
                    await ask(ctx, sampling("Go on?"), types.CreateMessageResult)
                await ctx.session.send_log_message("info", stage, "asking", ctx.request_id)
                await ctx.session.report_progress(step, 2, stage)
            return text("reported")
        if params.name == "ask_and_hold":
            try:
                await ask(ctx, sampling("Hold on?"), types.CreateMessageResult)
                await ctx.session.report_progress(0, None, "holding")
                await RELEASED[0].wait()
            except anyio.get_cancelled_exc_class():
                NOTES.append("ask_and_hold was cancelled")
                raise
            return text("released")
        if params.name == "ask_and_note":
            try:
                answer, _ = await ask(ctx, sampling("Anyone?"), types.CreateMessageResult)
            except MCPError as error:
                NOTES.append(f"ask_and_note was refused: {error.message}")
                raise
            NOTES.append(f"ask_and_note was answered: {answer.content.text}")
            return text("noted")
        if params.name == "notes":
            return text("\n".join(NOTES))
        if params.name == "roots_changes":
            return text(str(ROOTS_CHANGES[0]))
        if params.name == "release":
            RELEASED[0].set()
            RELEASED[0] = anyio.Event()
            return text("done")
        if params.name == "ask_and_give_up":
            with anyio.move_on_after(0.5):
                await ask(ctx, sampling("Take your time."), types.CreateMessageResult)
                return text("answered")
            return text("gave up")
    except MCPError as error:
        return text(f"the client refused: {error.message} ({error.code})", error=True)
    except InputRequired as needed:
        return needed.result
    return text(f"unknown tool {params.name}", error=True)


async def roots_changed(ctx: Any, params: Any) -> None:
    ROOTS_CHANGES[0] += 1


if __name__ == "__main__":
    serve(
        Server(
            "asking",
            on_list_tools=list_tools,
            on_call_tool=call_tool,
            on_list_prompts=list_prompts,
            on_get_prompt=get_prompt,
            on_roots_list_changed=roots_changed,
        )
    )
