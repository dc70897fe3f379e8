"""``Handover`` (sync) and ``AsyncHandover``: the same methods, one blocking, one awaitable.

They live in ``_sync`` and ``_async`` on a shared ``_base``, and build every request with
``_calls``; this module keeps the import path ``handover_client.client`` working.
"""

from handover_client._async import AsyncHandover
from handover_client._base import DEFAULT_BASE_URL, DEFAULT_TIMEOUT
from handover_client._sync import Handover

__all__ = ["DEFAULT_BASE_URL", "DEFAULT_TIMEOUT", "AsyncHandover", "Handover"]
