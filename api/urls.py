from django.urls import path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from api import observability
from api.v1 import agents, facts, health, runs, search, sessions, turns, users, webhooks

app_name = "api"

urlpatterns = [
    path(
        "v1/schema",
        SpectacularAPIView.as_view(authentication_classes=[], permission_classes=[]),
        name="schema",
    ),
    path(
        "v1/docs",
        # The split view serves its start-up script as a file: no inline script, so the
        # Content-Security-Policy needs no 'unsafe-inline' for scripts.
        SpectacularSwaggerSplitView.as_view(
            url_name="api:schema", authentication_classes=[], permission_classes=[]
        ),
        name="docs",
    ),
    path("v1/agents", agents.AgentListApi.as_view(), name="agent-list"),
    path("v1/agents/<str:slug>", agents.AgentDetailApi.as_view(), name="agent-detail"),
    path("v1/agents/<str:slug>/settings", agents.AgentSettingsApi.as_view(), name="agent-settings"),
    path("v1/agents/<str:slug>/schemas", agents.SchemaListApi.as_view(), name="schema-list"),
    path(
        "v1/agents/<str:slug>/schemas/<int:version>",
        agents.SchemaDetailApi.as_view(),
        name="schema-detail",
    ),
    path(
        "v1/agents/<str:slug>/schemas/<int:version>/activate",
        agents.SchemaActivateApi.as_view(),
        name="schema-activate",
    ),
    path("v1/sessions", sessions.SessionOpenApi.as_view(), name="session-open"),
    path(
        # GET: the history; POST: an append (the name the request metrics have always used)
        "v1/sessions/<uuid:session_id>/turns",
        turns.SessionTurnsApi.as_view(),
        name="turn-append",
    ),
    path("v1/sessions/<uuid:session_id>/turns/last", turns.TurnLastApi.as_view(), name="turn-last"),
    path(
        "v1/sessions/<uuid:session_id>/turns:clear",
        turns.TurnClearApi.as_view(),
        name="turn-clear",
    ),
    path(
        "v1/sessions/<uuid:session_id>/turns:batch",
        sessions.TurnBatchApi.as_view(),
        name="turn-batch",
    ),
    path("v1/context", sessions.ContextPackApi.as_view(), name="context-pack"),
    path("v1/memory/search", search.MemorySearchApi.as_view(), name="memory-search"),
    path("v1/users/<path:user>/facts", facts.FactCreateApi.as_view(), name="fact-create"),
    path("v1/users/<path:user>/entities", facts.EntityListApi.as_view(), name="entity-list"),
    path("v1/users/<path:user>/runs", runs.RunListApi.as_view(), name="run-list"),
    path("v1/users/<path:user>/export", users.UserExportApi.as_view(), name="user-export"),
    # After every /v1/users/<user>/… route: <path:user> would swallow their suffixes.
    path("v1/users/<path:user>", users.UserEraseApi.as_view(), name="user-erase"),
    path("v1/erasures/<str:erasure_id>", users.ErasureDetailApi.as_view(), name="erasure-detail"),
    path("v1/entities/<str:entity_id>", facts.EntityDetailApi.as_view(), name="entity-detail"),
    path(
        "v1/entities/<str:entity_id>/correct",
        facts.EntityCorrectApi.as_view(),
        name="entity-correct",
    ),
    path("v1/entities/<str:entity_id>/pin", facts.EntityPinApi.as_view(), name="entity-pin"),
    path("v1/entities/<str:entity_id>/unpin", facts.EntityUnpinApi.as_view(), name="entity-unpin"),
    path("v1/webhooks", webhooks.WebhookListApi.as_view(), name="webhook-list"),
    path(
        "v1/webhooks/<str:webhook_id>", webhooks.WebhookDetailApi.as_view(), name="webhook-detail"
    ),
    path(
        "v1/webhooks/<str:webhook_id>/rotate-secret",
        webhooks.WebhookRotateApi.as_view(),
        name="webhook-rotate",
    ),
    path(
        "v1/webhooks/<str:webhook_id>/deliveries",
        webhooks.DeliveryListApi.as_view(),
        name="webhook-deliveries",
    ),
    path(
        "v1/webhooks/<str:webhook_id>/deliveries/<str:delivery_id>/replay",
        webhooks.DeliveryReplayApi.as_view(),
        name="webhook-replay",
    ),
    path("healthz", health.HealthzApi.as_view(), name="healthz"),
    path("readyz", health.ReadyzApi.as_view(), name="readyz"),
    path("metrics", observability.metrics_view, name="metrics"),
]
