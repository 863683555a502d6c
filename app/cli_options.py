"""Options several `agentdesk` commands share, so each is spelled one way everywhere."""

from __future__ import annotations

import argparse
import sys


class _OldSerial(argparse.Action):
    """`--serial S`, the old spelling of `--device S`: still works, says the new one once."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        print(f"note: {option_string} is now called --device (the old name still works for now)", file=sys.stderr)
        setattr(namespace, self.dest, values)


def add_device_option(parser: argparse.ArgumentParser, help_text: str, *, old_serial: bool = False,
                      default: str | None = None, target=None) -> argparse.Action:
    """`--device SERIAL`, the phone a command works with. With `old_serial`, `--serial` is kept as a hidden alias
    (the same value), for scripts written before the command took `--device`. `target` is where the option goes
    (a mutually exclusive group); the hidden alias always goes to `parser`."""
    action = (target or parser).add_argument("--device", metavar="SERIAL", default=default, help=help_text)
    if old_serial:
        parser.add_argument("--serial", dest="device", action=_OldSerial, help=argparse.SUPPRESS)
    return action


def add_model_options(parser: argparse.ArgumentParser | argparse._ArgumentGroup, scope: str = "this run") -> None:
    """`--preset`, `--base-url`, `--model` and `--api-key-env`: the model `scope` uses instead of Settings' one."""
    parser.add_argument("--preset", metavar="NAME", help=f"a provider preset for {scope} (OpenAI, Anthropic, Gemini, "
                        "OpenRouter, Groq, DashScope, Ollama, \"LM Studio\", vLLM, llama.cpp, …): its base URL, "
                        "model, timeout and retries; --base-url and --model still win")
    parser.add_argument("--base-url", metavar="URL", help=f"an OpenAI-compatible endpoint for {scope} (overrides "
                        "settings)")
    parser.add_argument("--model", metavar="M", help="the model name (overrides settings)")
    parser.add_argument("--api-key-env", metavar="NAME", help=f"read the API key for {scope} from the environment "
                        "variable NAME (wins over the stored key, as OPENAI_API_KEY does)")
