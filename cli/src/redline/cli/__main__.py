"""The `redline` command: `redline up`, `redline workspace create --email …`."""

from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="redline", description="Redline collaboration backend")
    commands = parser.add_subparsers(dest="command", required=True)
    up = commands.add_parser("up", help="run every service on one port (starts local servers)")
    up.add_argument(
        "--split",
        action="store_true",
        help="each service in a process of its own behind a gateway, as deployed",
    )
    workspace = commands.add_parser("workspace", help="manage workspaces")
    workspace_commands = workspace.add_subparsers(dest="action", required=True)
    create = workspace_commands.add_parser("create", help="create a workspace, print its JSON")
    create.add_argument("--email", required=True, help="the owner's email")
    create.add_argument("--name", help="the workspace's name")
    args = parser.parse_args(argv)

    if args.command == "up":
        from redline.cli.up import run_up

        return run_up(split=args.split)
    from redline.cli.workspace import main_create

    return main_create(args.email, args.name)


if __name__ == "__main__":
    sys.exit(main())
