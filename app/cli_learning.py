"""agentdesk replay / skills / export: learning from past runs at the terminal. No Qt here.

`replay` runs through `agentdesk run`'s machinery (cli_agent.cmd_replay); `skills` lists, shows,
saves, renames, deletes, imports and exports the skill files of the data folder; `export` turns
a recorded run or a skill into a uiautomator2 script or a YAML flow.
"""

from __future__ import annotations

import sys
from pathlib import Path

from app.cli_options import add_device_option, add_model_options

EXPORT_FORMATS = ("uiautomator2", "yaml")


def add_commands(sub, agent_command) -> None:
    replay = sub.add_parser("replay", help="do a recorded run's actions again on the phone, without the model")
    replay.add_argument("run_dir", metavar="RUN_DIR", help="the run's folder (in the data folder's runs/)")
    replay.add_argument("--device", metavar="SERIAL", help="which phone (default: the first ready one)")
    mode = replay.add_mutually_exclusive_group()
    mode.add_argument("--step", action="store_true", help="review every action (default)")
    mode.add_argument("--auto", action="store_true", help="run on its own; ask only for sensitive actions")
    replay.add_argument("--no-model", action="store_true", help="where a recorded step no longer fits the screen, "
                        "stop instead of letting the model take over")
    add_model_options(replay, "the model that takes over")
    replay.add_argument("--json", action="store_true", help="print the result as JSON (progress goes to stderr)")
    replay.set_defaults(func=lambda a: agent_command("cmd_replay", a), max_steps=None, timeout=None,
                        max_tokens=None, max_cost=None)

    skills = sub.add_parser("skills", help="list, show, save, rename, delete, import and export skills")
    actions = skills.add_subparsers(dest="skills_action", metavar="action")
    actions.add_parser("list", help="every skill, with its trigger and how it went (the default)")
    show = actions.add_parser("show", help="a skill's file as YAML")
    show.add_argument("name")
    save = actions.add_parser("save", help="save a recorded run as a skill")
    save.add_argument("run_dir", metavar="RUN_DIR")
    save.add_argument("--name", help="the skill's name (default: the run's request)")
    general = actions.add_parser("generalise", help="let a skill take other values for some of its recorded ones "
                                 "(without PARAM: list the values it could take)")
    general.add_argument("name")
    general.add_argument("params", metavar="PARAM", nargs="*", help="the values' names, as listed (none left: "
                         "the skill's trigger becomes its request exactly, with --exact)")
    general.add_argument("--exact", action="store_true", help="take no other values: the request exactly")
    rename = actions.add_parser("rename", help="rename a skill")
    rename.add_argument("name")
    rename.add_argument("new_name")
    delete = actions.add_parser("delete", help="delete a skill")
    delete.add_argument("name")
    load = actions.add_parser("import", help="copy a skill file (YAML or JSON) into the skills folder")
    load.add_argument("file")
    write = actions.add_parser("export", help="write a skill to a file (.yaml or .json)")
    write.add_argument("name")
    write.add_argument("file")
    skills.set_defaults(func=cmd_skills, skills_action="list")

    export = sub.add_parser("export", help="a recorded run or a skill as a uiautomator2 script or a YAML flow")
    export.add_argument("run_dir", metavar="RUN_DIR", nargs="?", help="the run's folder")
    export.add_argument("--skill", metavar="NAME", help="export this skill instead of a run")
    export.add_argument("--format", choices=EXPORT_FORMATS, default="uiautomator2")
    add_device_option(export, "the phone the script connects to (default: any phone)", old_serial=True, default="")
    export.add_argument("-o", "--output", metavar="FILE", help="write to FILE (default: print)")
    export.set_defaults(func=cmd_export)


def _table(skills) -> str:
    """One row per skill (its trigger, steps, successes/failures, where it was recorded), and under each row
    the run folders it was learned from."""
    rows = [("name", "trigger", "steps", "succeeded/failed", "recorded on")]
    for skill in skills:
        where = " ".join(str(part) for part in (skill.recorded_on.get("model", ""),
                                                 f"Android {skill.recorded_on['android_version']}"
                                                 if skill.recorded_on.get("android_version") else "") if part)
        state = "" if skill.enabled else " (off)"
        rows.append((skill.name + state, skill.trigger or skill.request, str(len(skill.steps)),
                     f"{skill.history.successes}/{skill.history.failures}", where or "?"))
    widths = [min(44, max(len(row[i]) for row in rows)) for i in range(len(rows[0]))]
    lines = []
    for index, row in enumerate(rows):
        lines.append("  ".join(cell[:44].ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip())
        if index:
            runs = [Path(run).name for run in skills[index - 1].runs]
            lines.append("  learned from " + (f"{len(runs)} run{'s' if len(runs) != 1 else ''}: " + ", ".join(runs)
                                              if runs else "no recorded run (written or imported by hand)"))
    return "\n".join(lines)


def cmd_skills(args) -> int:
    from app.core.learning.recorded_steps import script_from_run
    from app.core.learning.skill_store import SkillStore
    from app.core.learning.skills import SkillError, skill_from_script, skill_to_text

    store = SkillStore()
    action = args.skills_action
    try:
        if action == "list":
            skills, problems = store.load()
            for problem in problems:
                print(f"warning: skipped {problem}", file=sys.stderr)
            if not skills:
                print(f"No skills yet in {store.root}. Every successful run becomes one (settings: "
                      "learning.save_skills), or save a run with `agentdesk skills save RUN_DIR`.")
                return 0
            print(_table(skills))
        elif action == "show":
            skill = store.find(args.name)
            if skill is None:
                print(f"error: there is no skill called {args.name!r} (see `agentdesk skills list`)", file=sys.stderr)
                return 2
            print(skill_to_text(skill, "yaml"), end="")
        elif action == "save":
            skill = skill_from_script(script_from_run(args.run_dir), name=args.name)
            path = store.save(skill)
            print(f"Saved the skill “{skill.name}” for this request exactly as {path}; to let it take other "
                  "values, generalise them in the Skills panel")
        elif action == "generalise":
            return _generalise(store, args)
        elif action == "rename":
            store.rename(args.name, args.new_name)
            print(f"Renamed “{args.name}” to “{args.new_name}”.")
        elif action == "delete":
            store.delete(args.name)
            print(f"Deleted the skill “{args.name}”.")
        elif action == "import":
            skill = store.import_file(Path(args.file))
            print(f"Imported the skill “{skill.name}” ({len(skill.steps)} steps). It asks you before its first "
                  "step, even in auto mode, until you have approved a run of it.")
        elif action == "export":
            store.export(args.name, Path(args.file))
            print(f"Wrote the skill “{args.name}” to {args.file}")
    except (SkillError, FileNotFoundError, NotADirectoryError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


def _generalise(store, args) -> int:
    """`skills generalise NAME [PARAM…]`: the person says which recorded values the skill may take others for."""
    skill = store.find(args.name)
    if skill is None:
        print(f"error: there is no skill called {args.name!r} (see `agentdesk skills list`)", file=sys.stderr)
        return 2
    trigger, values = skill.candidates()
    if not args.params and not args.exact:
        if not values:
            print(f"“{skill.name}” has no value that its request names and its steps use; it stays exact.")
            return 0
        print(f"“{skill.name}” could take other values for: "
              + ", ".join(f"{name} (now {value})" for name, value in values.items())
              + f". Trigger with all of them: “{trigger}”.")
        return 0
    general = skill.generalised(set(args.params))
    path = store.path_of(skill.name)
    store.save(general, "json" if path is not None and path.suffix.lower() == ".json" else "yaml", replace=True)
    print(f"“{skill.name}” now answers “{general.trigger}”. With a new value it asks you before its first step "
          "until you have approved a run of it.")
    return 0


def cmd_export(args) -> int:
    from app.core.learning.export import export_script
    from app.core.learning.recorded_steps import script_from_run
    from app.core.learning.skill_store import SkillStore
    from app.core.learning.skills import SkillError

    if bool(args.run_dir) == bool(args.skill):
        print("error: name a run folder or --skill NAME (one of them)", file=sys.stderr)
        return 2
    try:
        if args.skill:
            skill = SkillStore().find(args.skill)
            if skill is None:
                print(f"error: there is no skill called {args.skill!r}", file=sys.stderr)
                return 2
            script = skill.script()
        else:
            script = script_from_run(args.run_dir)
        text = export_script(script, args.format, serial=args.device)
        if args.output:
            Path(args.output).write_text(text, encoding="utf-8")
            print(f"Wrote {len(script.steps)} steps as {args.format} to {args.output}", file=sys.stderr)
        else:
            sys.stdout.write(text)
    except (SkillError, FileNotFoundError, NotADirectoryError, ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0
