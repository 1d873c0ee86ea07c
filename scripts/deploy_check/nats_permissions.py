"""What each service does on NATS, read from its code, against what its user may do there.

A service's NATS footprint is found in its own sources and in the `redline.runtime` modules it
imports (plus `app`, `auth` and `access`, which every service runs): the subjects it calls
(`rpc.call`) and answers (`rpc.serve`), its plain subscriptions (`<nc>.subscribe`,
`DroppedOnAnnouncements`), and the durable
consumers it runs (`DurableConsumer`, `BatchConsumer`, `consuming`,
`following_directory_deletions`), and it receives replies on inboxes of its own (`inbox_prefix`),
where no other service may subscribe. Subjects and names are resolved from string literals, module
constants, `redline.proto.subjects` and, in the runtime's modules, `f"{service}-..."`. The
runtime's generic clients ask identity about keys, access and disabled organizations; identity
answers those itself in process, so its own subjects are not required of it. Every service also
ensures the EVENTS stream and publishes `evt.<service>.*`.

This complements the split test run, which runs the services under `users.conf` and catches what
the tests reach; this check also sees code paths no test takes.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import redline.proto.subjects as subjects
from redline.bus import inbox_prefix
from redline.runtime.routing import SERVICES

from .manifests import users_conf
from .report import Report
from .workspace import ROOT, Json

_RUNTIME = ROOT / "libs/runtime/src/redline/runtime"
_ALWAYS_WIRED = ("app", "auth", "access")
_CONSUMER_CLASSES = {"DurableConsumer", "BatchConsumer"}
# Classes that subscribe to the subjects their second argument names.
_SUBSCRIBING_CLASSES = {"DroppedOnAnnouncements"}
# The runtime's cleanup contexts that run a durable consumer named by their first argument.
_CONSUMER_CONTEXTS = {"consuming", "following_directory_deletions"}
_QUOTED = re.compile(r'"([^"]+)"')


@dataclass
class Footprint:
    calls: set[str] = field(default_factory=set)
    serves: set[str] = field(default_factory=set)
    subscribes: set[str] = field(default_factory=set)
    consumers: set[str] = field(default_factory=set)
    unresolved: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Permissions:
    publish: tuple[str, ...]
    subscribe: tuple[str, ...]
    allow_responses: bool


def parse_users(users_conf: str) -> dict[str, Permissions]:
    """Each user's allowed subjects in a users.conf as k8s/base/infra/nats writes it."""
    text = "\n".join(line.split("#", 1)[0] for line in users_conf.splitlines())
    found: dict[str, Permissions] = {}
    blocks = re.split(r"^\s*user:\s*", text, flags=re.MULTILINE)[1:]
    for block in blocks:
        name = block.split(None, 1)[0]
        found[name] = Permissions(
            publish=_allowed(block, "publish"),
            subscribe=_allowed(block, "subscribe"),
            allow_responses=re.search(r"allow_responses:\s*true", block) is not None,
        )
    return found


def _allowed(block: str, direction: str) -> tuple[str, ...]:
    match = re.search(direction + r":\s*\{\s*allow:\s*\[(?P<list>[^\]]*)\]", block)
    return tuple(_QUOTED.findall(match["list"])) if match else ()


def covers(allowed: str, subject: str) -> bool:
    """Whether the NATS subject pattern `allowed` admits `subject` (itself maybe a pattern)."""
    want, have = allowed.split("."), subject.split(".")
    for i, part in enumerate(want):
        if part == ">":
            return len(have) > i
        if i >= len(have) or have[i] == ">":
            return False
        if part not in ("*", have[i]):
            return False
    return len(have) == len(want)


def footprint(service: str) -> Footprint:
    found = Footprint()
    sources = ROOT / "services" / service / "src"
    runtime_modules = set(_ALWAYS_WIRED)
    for path in sorted(sources.rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        runtime_modules |= _runtime_imports(tree)
        _scan(tree, path, service, found, runtime=False)
    for module in sorted(runtime_modules):
        path = _RUNTIME / f"{module}.py"
        if path.exists():
            _scan(ast.parse(path.read_text(), str(path)), path, service, found, runtime=True)
    return found


def _runtime_imports(tree: ast.Module) -> set[str]:
    modules: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module.startswith("redline.runtime."):
                modules.add(node.module.split(".")[2])
            elif node.module == "redline.runtime":
                modules |= {alias.name for alias in node.names}
    return modules


def _scan(tree: ast.Module, path: Path, service: str, found: Footprint, *, runtime: bool) -> None:
    constants = _module_constants(tree)
    where = path.relative_to(ROOT)
    rpc_names = sorted(
        {
            value
            for node in ast.walk(tree)
            if isinstance(node, ast.Name) and node.id.startswith("RPC_")
            for value in [getattr(subjects, node.id, None)]
            if isinstance(value, str)
        }
    )

    def resolve(node: ast.expr) -> list[str] | None:
        return _resolve(node, constants, service if runtime else None)

    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        kind, argument = _nats_use(node)
        if kind is None or argument is None:
            continue
        values = resolve(argument)
        if values is None and kind == "calls" and not runtime:
            # A client class given its subject by its subclasses: the RPCs its module names.
            values = rpc_names or None
        if values is None:
            # The runtime's generic helpers pass names through parameters; their callers are
            # read instead.
            if not runtime:
                found.unresolved.append(f"{where}:{node.lineno}: {ast.unparse(argument)}")
            continue
        if kind == "calls" and runtime:
            values = [v for v in values if not v.startswith(f"rpc.{service}.")]
        getattr(found, kind).update(values)


def _nats_use(node: ast.Call) -> tuple[str | None, ast.expr | None]:
    """What a call does on NATS, and the argument naming its subject or consumer."""
    func = node.func
    args = node.args
    if isinstance(func, ast.Attribute):
        if isinstance(func.value, ast.Name) and func.value.id == "rpc" and len(args) > 1:
            if func.attr == "call":
                return "calls", args[1]
            if func.attr == "serve":
                return "serves", args[1]
        if func.attr == "subscribe" and _is_connection(func.value) and args:
            return "subscribes", args[0]
    if isinstance(func, ast.Name):
        if func.id in _SUBSCRIBING_CLASSES and len(args) > 1:
            return "subscribes", args[1]
        if func.id in _CONSUMER_CLASSES and len(args) > 1:
            return "consumers", args[1]
        if func.id in _CONSUMER_CONTEXTS and args:
            return "consumers", args[0]
    return None, None


def _is_connection(node: ast.expr) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr in {"nc", "_nc"}) or (
        isinstance(node, ast.Name) and node.id == "nc"
    )


def _module_constants(tree: ast.Module) -> dict[str, list[str]]:
    """The module's names bound to a string, or to a tuple or list of them (each item a string
    or a name this function or `redline.proto.subjects` resolves)."""
    constants: dict[str, list[str]] = {}
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.Constant | ast.Tuple | ast.List)
        ):
            values = _resolve(node.value, constants, None)
            if values is not None:
                constants[node.targets[0].id] = values
    return constants


def _resolve(
    node: ast.expr, constants: dict[str, list[str]], service: str | None
) -> list[str] | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.Tuple | ast.List):
        found: list[str] = []
        for item in node.elts:
            values = _resolve(item, constants, service)
            if values is None:
                return None
            found += values
        return found
    if isinstance(node, ast.Name):
        if node.id in constants:
            return constants[node.id]
        if node.id == "service" and service is not None:
            return [service]
        value = getattr(subjects, node.id, None)
        if isinstance(value, str):
            return [value]
        if isinstance(value, tuple | list) and all(isinstance(v, str) for v in value):
            return list(value)
        return None
    if isinstance(node, ast.JoinedStr):
        text = ""
        for part in node.values:
            if isinstance(part, ast.Constant):
                text += str(part.value)
            elif isinstance(part, ast.FormattedValue):
                inner = _resolve(part.value, constants, service)
                if inner is None or len(inner) != 1:
                    return None
                text += inner[0]
        return [text]
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "personal_data_export_subject"
        and node.args
    ):
        # identity gathers exports from every participating service.
        owners = _resolve(node.args[0], constants, service) or list(SERVICES)
        return [subjects.personal_data_export_subject(owner) for owner in owners]
    return None


def missing(service: str, use: Footprint, allowed: Permissions) -> Iterator[str]:
    """What `service` does on NATS that `allowed` does not let it."""

    def publishes(subject: str) -> bool:
        return any(covers(a, subject) for a in allowed.publish)

    def subscribes(subject: str) -> bool:
        return any(covers(a, subject) for a in allowed.subscribe)

    needed = {
        f"evt.{service}.event": "publish its events",
        f"$JS.API.STREAM.CREATE.{subjects.STREAM}": "create the stream",
        f"$JS.API.STREAM.UPDATE.{subjects.STREAM}": "update the stream",
    }
    needed |= dict.fromkeys(use.calls, "call it")
    for name in use.consumers:
        api = f"$JS.API.CONSUMER.%s.{subjects.STREAM}.{name}"
        needed[api % "CREATE"] = f"create consumer {name}"
        needed[api % "CREATE" + ".evt.x"] = f"create consumer {name} with one filter"
        needed[api % "MSG.NEXT"] = f"pull from consumer {name}"
        needed[f"$JS.ACK.{subjects.STREAM}.{name}.1.1.1.1.1.1"] = f"ack consumer {name}"
    for subject, why in sorted(needed.items()):
        if not publishes(subject):
            yield f"{service} may not publish {subject} ({why})"
    for subject in sorted(use.serves | use.subscribes):
        if not subscribes(subject):
            yield f"{service} may not subscribe to {subject}"
    own_inbox = inbox_prefix(service) + ".>"
    if not subscribes(own_inbox):
        yield f"{service} may not subscribe to its inboxes {own_inbox}"
    yield from _foreign_inboxes(service, allowed)
    if use.serves and not allowed.allow_responses:
        yield f"{service} answers {', '.join(sorted(use.serves))} without allow_responses"
    for place in use.unresolved:
        yield f"{service}: cannot tell which subject or consumer {place} names"


def _foreign_inboxes(service: str, allowed: Permissions) -> Iterator[str]:
    """Inboxes `service` may read that are not its own: another service's replies, or those of
    a connection on NATS's default prefix."""
    others = [inbox_prefix(o) for o in SERVICES if o != service]
    for pattern in allowed.subscribe:
        for inbox in others:
            if covers(pattern, inbox + ".x") or covers(inbox + ".>", pattern):
                yield f"{service} may read {inbox}.>, another service's inboxes ({pattern})"
        if covers(pattern, "_INBOX.x"):
            yield f"{service} may read _INBOX.>, NATS's default inboxes ({pattern})"


def check_nats_permissions(report: Report, documents: list[Json]) -> None:
    """Every service's user may do on NATS what the service's code does there."""
    users = parse_users(users_conf(documents))
    problems: list[str] = []
    counted = 0
    for service in SERVICES:
        use = footprint(service)
        counted += len(use.calls) + len(use.serves) + len(use.subscribes) + len(use.consumers)
        if service not in users:
            problems.append(f"{service}: no NATS user in users.conf")
            continue
        problems += missing(service, use, users[service])
    report.check(
        "NATS permissions cover what the code uses, dev",
        problems,
        f"{counted} subjects and consumers of {len(SERVICES)} services",
    )
