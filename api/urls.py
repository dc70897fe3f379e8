from django.urls import path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from api.v1 import agents, health

app_name = "api"

urlpatterns = [
    path(
        "v1/schema",
        SpectacularAPIView.as_view(authentication_classes=[], permission_classes=[]),
        name="schema",
    ),
    path(
        "v1/docs",
        SpectacularSwaggerView.as_view(
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
    path("healthz", health.HealthzApi.as_view(), name="healthz"),
    path("readyz", health.ReadyzApi.as_view(), name="readyz"),
]
