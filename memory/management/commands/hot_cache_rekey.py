"""Recompute every hot document's Redis key name (after SECRET_KEY was rotated)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from memory.services.hot_keys import hot_cache_keys_rekey


class Command(BaseCommand):
    help = "Recompute the Redis key name of every hot document (run after rotating SECRET_KEY)."

    def handle(self, *args: Any, **options: Any) -> None:
        changed = hot_cache_keys_rekey()
        self.stdout.write(f"{changed} hot document keys recomputed")
