"""`agentdesk bench androidworld`'s options and command (the bench itself is in `bench`)."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from app.cli_options import add_model_options

from .source import EXTRA


def add_options(bench: argparse.ArgumentParser) -> None:
    """The options only `bench androidworld` takes (`--device` and `--json FILE` are the bench's own)."""
    group = bench.add_argument_group(
        "androidworld", "AndroidWorld's own tasks, set up and judged by its own code (needs " + EXTRA + "). "
        "Runs on a private virtual phone, or with --device on an emulator")
    group.add_argument("--androidworld", metavar="PATH", help="an AndroidWorld source checkout (the folder holding "
                       "android_world/); default: the installed android_world package")
    group.add_argument("--tasks", metavar="NAMES", action="append", help="task names or patterns, comma-separated "
                       "(e.g. 'SystemWifi*,SystemBluetoothTurnOn'); default: every task this phone has the apps for")
    group.add_argument("--repeat", type=int, metavar="N", help="instances per task, each with its own parameters "
                       "(default 1)")
    group.add_argument("--random-seed", type=int, metavar="S", help="the random seed the tasks' parameters are "
                       "drawn with (default 30, AndroidWorld's)")
    group.add_argument("--max-steps", type=int, metavar="N", help="steps per task (default: AndroidWorld's budget, "
                       "10 per unit of the task's complexity)")
    group.add_argument("--step", action="store_true", help="approve each action at the keyboard (default: auto)")
    group.add_argument("--wipe-this-phone", metavar="SERIAL", help="run on a phone that is not an emulator, "
                       "erasing what AndroidWorld's set-up erases (the bench lists it first)")
    group.add_argument("--list", action="store_true", help="list AndroidWorld's tasks against the phone (runnable, "
                       "or why not) and stop: nothing is set up or erased")
    group.add_argument("--scripted-model", action="store_true", help="drive the runs with the offline scripted "
                       "model (it knows the system tasks' steps): checks the harness, not an agent")
    add_model_options(group, "these runs")


def _task_patterns(values: list[str] | None) -> tuple[str, ...]:
    return tuple(part.strip() for value in values or [] for part in value.split(",") if part.strip())


def options_from_args(args: argparse.Namespace) -> Any:
    """The bench's options from the command line; ValueError (and RunRefused for a preset) names a bad one."""
    from app.core.runs.service import provider_overrides

    from .bench import DEFAULT_SEED, AndroidWorldOptions

    return AndroidWorldOptions(
        checkout=Path(args.androidworld) if args.androidworld else None, device=args.device,
        wipe_this_phone=args.wipe_this_phone or "", tasks=_task_patterns(args.tasks),
        repeat=args.repeat or args.rounds or 1, seed=DEFAULT_SEED if args.random_seed is None else args.random_seed,
        max_steps=args.max_steps, mode="step" if args.step else "auto",
        provider=provider_overrides(args.preset, args.base_url, args.model), api_key_env=args.api_key_env,
        env_key_to_base_url=bool(args.base_url), list_only=args.list)


def run_command(args: argparse.Namespace) -> int:
    """Exit 0: every episode judged and no false success; 1: a false success (the app claimed a task AndroidWorld
    judged not done); 2: refused (bad option, AndroidWorld missing, not an emulator)."""
    from app.cli_agent import follow_on_console, load_user_settings
    from app.console import ConsoleSupervisor
    from app.core.runs.service import RunRefused

    from .bench import BenchRefused, run_androidworld
    from .report import as_dict, render, summary
    from .source import AndroidWorldUnavailable, load_androidworld

    try:
        options = options_from_args(args)
        registry = load_androidworld(options.checkout)
    except (ValueError, RunRefused, AndroidWorldUnavailable) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    json_to_stdout = args.json == "-"
    out = sys.stderr if json_to_stdout else sys.stdout
    console = ConsoleSupervisor(out=out)
    settings = load_user_settings()
    oracle = None
    if args.scripted_model:
        from app.bench.oracle_model import OracleModel
        from app.bench.tasks_bench import ORACLE_KEY, oracle_settings

        oracle = OracleModel(()).start()
        settings = oracle_settings(oracle.base_url)
        options = options.scripted(ORACLE_KEY)
    try:
        report = asyncio.run(run_androidworld(registry, options, settings, out=out, oracle=oracle,
                                              follow_with=lambda say: lambda handle: follow_on_console(handle,
                                                                                                       console)))
    except BenchRefused as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    finally:
        if oracle is not None:
            oracle.stop()
    print(render(report), file=out)
    if args.json:
        text = json.dumps(as_dict(report), indent=1)
        if json_to_stdout:
            print(text)
        else:
            Path(args.json).write_text(text)
    return 1 if summary(report)["false_successes"] else 0
