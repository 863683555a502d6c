"""agentdesk map: the map of screens at the terminal — list the phone kinds with a map, show one app's
screens and the ways between them, name a screen, and share a map (export / import). No Qt here."""

from __future__ import annotations

import sys
from pathlib import Path


def add_commands(sub) -> None:
    map_parser = sub.add_parser("map", help="the map of screens earlier runs visited: list, show, name, share")
    actions = map_parser.add_subparsers(dest="map_action", metavar="action")
    actions.add_parser("list", help="each kind of phone with a map, and its size (the default)")
    show = actions.add_parser("show", help="the screens of a map and the known ways between them")
    show.add_argument("--kind", help="the kind of phone (default: the only one, if there is one)")
    show.add_argument("--app", help="only this app's screens (its package)")
    name = actions.add_parser("name", help="give a screen a name of your own (an empty name: the automatic one)")
    name.add_argument("screen", help="the screen's id, as `map show` prints it")
    name.add_argument("name")
    name.add_argument("--kind")
    export = actions.add_parser("export", help="write a kind of phone's map to a zip file, to share it")
    export.add_argument("file")
    export.add_argument("--kind")
    load = actions.add_parser("import", help="add a shared map (zip file) to this machine's map of its kind")
    load.add_argument("file")
    load.add_argument("--as-kind", help="add it to this kind of phone's map instead (a phone of the same make "
                      "under another name)")
    map_parser.set_defaults(func=cmd_map, map_action="list")


def duration(ms: float) -> str:
    return f"{ms:.0f} ms" if ms < 1000 else f"{ms / 1000:.1f} s"


def _kind(chosen: str | None) -> str:
    from app.core.learning.transitions import TransitionStore

    kinds = TransitionStore().kinds()
    if chosen:
        if chosen not in kinds:
            raise SystemExit(f"error: there is no map of {chosen!r}; the maps here: {', '.join(kinds) or 'none yet'}")
        return chosen
    if len(kinds) == 1:
        return kinds[0]
    if not kinds:
        raise SystemExit("error: no map yet: runs record the screens they visit (setting learning.record_screens)")
    raise SystemExit(f"error: there are maps of several kinds of phone; choose one with --kind: {', '.join(kinds)}")


def cmd_map(args) -> int:
    from app.core.learning.map_edits import MapEditError, MapEditsStore
    from app.core.learning.map_sharing import MapFileError, export_map, import_map, kinds_with_counts
    from app.core.learning.screen_graph import ANYWHERE, load_graph
    from app.core.paths import data_dir

    action = args.map_action
    if action == "list":
        listing = kinds_with_counts()
        if not listing:
            print("No map yet: runs record the screens they visit (setting learning.record_screens).")
        for kind, screens, actions in listing:
            print(f"{kind}: {screens} screens, {actions} actions recorded")
        return 0
    if action == "export":
        try:
            from app.core.config import load_settings
            from app.core.paths import settings_path

            never_send = load_settings(settings_path())[0].images.never_send_apps   # their pictures stay home
            path = export_map(_kind(args.kind), Path(args.file), never_send_apps=never_send)
        except FileNotFoundError as exc:
            raise SystemExit(f"error: {exc}") from None
        print(f"Wrote {path}")
        return 0
    if action == "import":
        try:
            print(import_map(Path(args.file), as_kind=args.as_kind))
        except MapFileError as exc:
            raise SystemExit(f"error: {exc}") from None
        except OSError as exc:          # the data folder cannot be written (read-only, full)
            raise SystemExit(f"error: the map could not be written to {data_dir() / 'graph'}: "
                             f"{exc.strerror or exc}") from None
        return 0
    kind = _kind(args.kind)
    if action == "name":
        try:
            MapEditsStore(data_dir() / "graph").rename(kind, args.screen, args.name)
        except (MapEditError, OSError) as exc:
            raise SystemExit(f"error: {exc}") from None
        print(f"Named {args.screen} “{args.name}”" if args.name.strip()
              else f"{args.screen} has its automatic name again")
        return 0
    graph = load_graph(kind)
    for problem in graph.problems[:10]:
        print(f"warning: {problem}", file=sys.stderr)
    apps = [args.app] if args.app else graph.apps()
    for app in apps:
        print(f"{app} ({graph.versions.get(app) or 'version unknown'})")
        for node in sorted(graph.app_nodes(app), key=lambda n: (not n.entry, graph.place(n.id))):
            marks = "".join((" [entry]" if node.entry else "", " [old version]" if node.stale else ""))
            print(f"  {graph.place(node.id)}{marks} — seen {node.seen} times in {node.runs} runs — {node.id}")
            for edge in graph.outgoing(node.id):
                state = " (faded)" if edge.faded else " (old version)" if edge.stale else ""
                print(f"      {edge.words} → {graph.nodes[edge.to_id].name}: led there {edge.arrivals} of the last "
                      f"{edge.attempts} times, {duration(edge.median_ms)}{state}")
        launches = [e for e in graph.app_edges(app) if e.from_id == ANYWHERE]
        for edge in launches:
            print(f"  opening the app leads to {graph.nodes[edge.to_id].name} ({edge.count} times)")
    return 0
