"""An OpenAI Agents SDK agent whose tools sit behind toolscout
(`pip install 'toolscout[openai-agents]'`).

    python examples/openai_agents_agent.py          # the SDK's ScriptedModel: no key, no network
    python examples/openai_agents_agent.py --real   # OpenAI (needs OPENAI_API_KEY)

The settings come from `examples/toolscout.yaml`, the file the CLI and the gateway read too.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from agent_tools import ANSWER, QUESTION, SCRIPT, TOOLS
from agents import Agent, ModelResponse, RunConfig, Runner, Usage
from agents.models.interface import Model
from agents.testing import ModelCall, ModelStep, ScriptedModel, assistant_message, function_call

from toolscout.config import load_config
from toolscout.integrations.openai_agents import ToolScout

CONFIG = Path(__file__).with_name("toolscout.yaml")


def scripted_model() -> ScriptedModel:
    """Plays `SCRIPT`, one call per step, then answers; prints the tools of each request."""

    def step(index: int) -> ModelStep:
        def respond(call: ModelCall) -> ModelResponse:
            if (
                isinstance(call.input, list)
                and call.input[-1].get("type") == "function_call_output"
            ):
                print(f"  -> {call.input[-1]['output']}")
            print("tools sent:", ", ".join(tool.name for tool in call.tools))
            if index == len(SCRIPT):
                output = [assistant_message(ANSWER)]
            else:
                name, arguments = SCRIPT[index]
                print(f"model calls {name}({arguments})")
                output = [function_call(name, arguments, call_id=f"call_{index}")]
            return ModelResponse(output=output, usage=Usage(), response_id=None)

        return ModelStep.respond(respond)

    return ScriptedModel([step(index) for index in range(len(SCRIPT) + 1)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--real", action="store_true", help="use OpenAI instead of a script")
    real = parser.parse_args().real
    if real and not os.environ.get("OPENAI_API_KEY"):
        sys.exit("--real needs OPENAI_API_KEY")
    model: Model | str = "gpt-4.1-mini" if real else scripted_model()

    scout = ToolScout(TOOLS, load_config(CONFIG).tool_search)
    agent = Agent(name="assistant", model=scout.model(model), tools=scout.tools)
    result = Runner.run_sync(agent, QUESTION, run_config=RunConfig(tracing_disabled=not real))
    print("answer:", result.final_output)


if __name__ == "__main__":
    main()
