"""Typed app state of the memory service."""

from __future__ import annotations

from aiohttp import web

from redline.memory.judgments.service import JudgmentService
from redline.memory.knowledge.service import KnowledgeService
from redline.memory.patterns.service import PatternService
from redline.memory.settings import MemorySettings

SETTINGS = web.AppKey("memory_settings", MemorySettings)
KNOWLEDGE = web.AppKey("memory_knowledge", KnowledgeService)
JUDGMENTS = web.AppKey("memory_judgments", JudgmentService)
PATTERNS = web.AppKey("memory_patterns", PatternService)
