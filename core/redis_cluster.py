"""django-redis on a Redis Cluster (``REDIS_CLUSTER=true``): ``REDIS_URL`` names one node and
redis-py's ``RedisCluster`` discovers the rest and follows the slots as they move.

What the service sends works there because of how its keys are named: a hot document's two
keys share the hash tag ``{tenant:agent:user}`` (memory/hot/cache.py), so the compare-and-set
script and the MGET of session start touch one slot; every other command names one key, and a
DEL of many keys is split by slot by redis-py. Celery's broker cannot be a cluster (kombu has
no cluster transport): with ``REDIS_CLUSTER`` the broker is ``CELERY_BROKER_URL``, a plain
Redis or RabbitMQ.
"""

from __future__ import annotations

from typing import Any, ClassVar

from django_redis.pool import ConnectionFactory
from redis.cluster import RedisCluster


class ClusterConnectionFactory(ConnectionFactory):
    # One client per URL and process: it holds a pool per node and the slot map.
    _clusters: ClassVar[dict[str, RedisCluster]] = {}

    def connect(self, url: str) -> Any:
        client = self._clusters.get(url)
        if client is None:
            params = self.make_connection_params(url)
            params.pop("parser_class", None)  # RedisCluster builds its own connections
            client = RedisCluster.from_url(params.pop("url"), **params)
            self._clusters[url] = client
        return client

    def disconnect(self, connection: Any) -> None:
        connection.close()

    @classmethod
    def forget(cls) -> None:
        """Close and drop every cluster client (tests switch clusters in one process)."""
        for client in cls._clusters.values():
            client.close()
        cls._clusters.clear()
