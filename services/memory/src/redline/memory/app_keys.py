"""Typed app state of the memory service."""

from __future__ import annotations

from aiohttp import web

from redline.memory.alerts.service import AlertService
from redline.memory.ask.service import AskService
from redline.memory.judgments.service import JudgmentService
from redline.memory.knowledge.intake import IntakeService
from redline.memory.knowledge.revisions import RevisionService
from redline.memory.knowledge.service import KnowledgeService
from redline.memory.patterns.service import PatternService
from redline.memory.profiles.service import ProfileService
from redline.memory.settings import MemorySettings
from redline.memory.stats.service import StatsService
from redline.memory.suggest.service import SuggestService
from redline.memory.upkeep.service import UpkeepService
from redline.memory.vectors import VectorStore

SETTINGS = web.AppKey("memory_settings", MemorySettings)
KNOWLEDGE = web.AppKey("memory_knowledge", KnowledgeService)
JUDGMENTS = web.AppKey("memory_judgments", JudgmentService)
PATTERNS = web.AppKey("memory_patterns", PatternService)
REVISIONS = web.AppKey("memory_revisions", RevisionService)
INTAKE = web.AppKey("memory_intake", IntakeService)
ASK = web.AppKey("memory_ask", AskService)
STATS = web.AppKey("memory_stats", StatsService)
PROFILES = web.AppKey("memory_profiles", ProfileService)
SUGGEST = web.AppKey("memory_suggest", SuggestService)
ALERTS = web.AppKey("memory_alerts", AlertService)
UPKEEP = web.AppKey("memory_upkeep", UpkeepService)
VECTORS = web.AppKey("memory_vectors", VectorStore)
