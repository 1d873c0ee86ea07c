"""The callback endpoint of steps waiting for the far side:
POST /v2/workflow/callbacks/{executionId}/{stepId}, a raw JSON body `{status, output?, error?}`
(no `data` envelope: receivers and agent runners answer as the hosted product's do) and the
step's token in `x-<brand>-callback-token`."""

from __future__ import annotations

import msgspec
from aiohttp import web

from redline.envelope import GATE, decode_document
from redline.envelope.errors import FailedPrecondition, Unauthenticated
from redline.envelope.raw_routes import Content, Parameter, RawRoute, add_raw_routes
from redline.workflow.app_keys import CALLBACKS, ENGINE, SETTINGS
from redline.workflow.callbacks.links import CALLBACK_PATH
from redline.workflow.engine.nodes.agent import agent_callback_outcome
from redline.workflow.engine.nodes.webhook import CallbackBody, callback_outcome
from redline.workflow.engine.runs import finish_callback
from redline.workflow.engine.transition import Transition

MAX_CALLBACK_BODY = 1 << 20


class CallbackAccepted(msgspec.Struct, frozen=True):
    ok: bool
    executionId: str
    stepId: str


async def post_callback(request: web.Request) -> web.Response:
    execution_id = request.match_info["execution_id"]
    step_id = request.match_info["step_id"]
    links = request.app[CALLBACKS]
    token = _presented_token(request)
    async with request.app[GATE].refusals_counted(request):
        if token is None or not links.verify(execution_id, step_id, token):
            raise Unauthenticated("The callback token is missing or wrong.")
    if request.content_length is not None and request.content_length > MAX_CALLBACK_BODY:
        raise web.HTTPRequestEntityTooLarge(
            max_size=MAX_CALLBACK_BODY, actual_size=request.content_length
        )
    body = await request.read()
    if len(body) > MAX_CALLBACK_BODY:
        raise web.HTTPRequestEntityTooLarge(max_size=MAX_CALLBACK_BODY, actual_size=len(body))
    callback = decode_document(body, CallbackBody)

    def rule(t: Transition) -> bool:
        step = t.execution.steps.get(step_id)
        if step is None:
            return False
        if step.node_type == "agent":
            outcome = agent_callback_outcome(callback, step.output, now_ms=t.now)
        else:
            outcome = callback_outcome(callback)
        return finish_callback(t, step, outcome)

    if not await request.app[ENGINE].change(execution_id, None, rule):
        raise FailedPrecondition(f"Step {step_id} is not waiting for a callback.")
    answer = CallbackAccepted(ok=True, executionId=execution_id, stepId=step_id)
    return web.Response(body=msgspec.json.encode(answer), content_type="application/json")


def _presented_token(request: web.Request) -> str | None:
    for brand in request.app[SETTINGS].header_brands:
        value = request.headers.get(f"x-{brand}-callback-token")
        if value:
            return value
    return None


def add_callback_routes(app: web.Application, brand: str) -> None:
    route = RawRoute(
        "POST",
        CALLBACK_PATH,
        post_callback,
        "A waiting step's outcome, posted by its receiver or agent runner",
        answers={200: Content("application/json", CallbackAccepted)},
        parameters=(
            Parameter("execution_id", "path"),
            Parameter("step_id", "path"),
            Parameter(
                f"x-{brand}-callback-token",
                "header",
                description="The token the step's callback link came with",
            ),
        ),
        body=(Content("application/json", CallbackBody),),
        tags=("workflow",),
    )
    add_raw_routes(app, [route])
