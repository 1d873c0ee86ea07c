"""Typed app state of the notify service."""

from __future__ import annotations

from aiohttp import web

from redline.notify.activities.service import ActivityService
from redline.notify.deliveries.service import DeliveryService
from redline.notify.key_config import KeyConfigs
from redline.notify.notifications.service import NotificationService
from redline.notify.notifications.user_config import UserConfigService
from redline.notify.settings import NotifySettings

SETTINGS = web.AppKey("notify_settings", NotifySettings)
KEY_CONFIGS = web.AppKey("notify_key_configs", KeyConfigs)
DELIVERIES = web.AppKey("notify_deliveries", DeliveryService)
ACTIVITIES = web.AppKey("notify_activities", ActivityService)
NOTIFICATIONS = web.AppKey("notify_notifications", NotificationService)
USER_CONFIGS = web.AppKey("notify_user_configs", UserConfigService)
