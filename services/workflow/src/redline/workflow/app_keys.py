"""Typed app state of the workflow service."""

from __future__ import annotations

from aiohttp import web

from redline.workflow.callbacks.links import CallbackLinks
from redline.workflow.definitions.service import DefinitionService
from redline.workflow.engine.engine import Engine
from redline.workflow.executions.service import ExecutionService
from redline.workflow.settings import WorkflowSettings
from redline.workflow.slack.service import SlackCredentials
from redline.workflow.steps.service import StepService
from redline.workflow.triggers.schedule import ScheduleRunner
from redline.workflow.triggers.service import TriggerService

SETTINGS = web.AppKey("workflow_settings", WorkflowSettings)
ENGINE = web.AppKey("workflow_engine", Engine)
DEFINITIONS = web.AppKey("workflow_definitions", DefinitionService)
EXECUTIONS = web.AppKey("workflow_executions", ExecutionService)
STEPS = web.AppKey("workflow_steps", StepService)
CALLBACKS = web.AppKey("workflow_callbacks", CallbackLinks)
TRIGGERS = web.AppKey("workflow_triggers", TriggerService)
SCHEDULES = web.AppKey("workflow_schedules", ScheduleRunner)
SLACK = web.AppKey("workflow_slack", SlackCredentials)
