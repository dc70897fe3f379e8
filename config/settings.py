"""Django settings. Every value read from the environment goes through ``core.env``."""

from __future__ import annotations

import datetime
from urllib.parse import urlsplit

from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP
from psycopg.conninfo import conninfo_to_dict

from core import env, outbound

BASE_DIR = env.BASE_DIR

DEBUG = env.boolean("DJANGO_DEBUG", False)
SECRET_KEY = env.string("SECRET_KEY", required=not DEBUG) or "insecure-dev-only-secret-key"
if not DEBUG and len(SECRET_KEY) < 32:
    raise ImproperlyConfigured("SECRET_KEY must be at least 32 characters when DEBUG is off")
ALLOWED_HOSTS = env.string_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost"])
CSRF_TRUSTED_ORIGINS = env.string_list("CSRF_TRUSTED_ORIGINS", ["http://127.0.0.1:8000"])

# Served over HTTPS (directly or behind a proxy that sets X-Forwarded-Proto): secure cookies,
# redirects and HSTS. Off for `make run` on loopback; `manage.py check --deploy` is clean with it.
HTTPS = env.boolean("HTTPS", False)
SECURE_SSL_REDIRECT = HTTPS
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = HTTPS
SECURE_HSTS_SECONDS = env.integer("SECURE_HSTS_SECONDS", 31_536_000 if HTTPS else 0, minimum=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = HTTPS
SECURE_HSTS_PRELOAD = env.boolean("SECURE_HSTS_PRELOAD", HTTPS)
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if HTTPS else None
# Health checks come from load balancers over plain HTTP inside the network.
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$", r"^metrics$"]
SESSION_COOKIE_HTTPONLY = True
X_FRAME_OPTIONS = "DENY"

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.postgres",
    "rest_framework",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    # Ours, bottom of the dependency order first.
    "tenants",
    "webhooks",
    "schemas",
    "memory",
    "extraction",
    "console",
    "api",
    # Last: its signals watch the admin login (docs/security.md).
    "axes",
]

MIDDLEWARE = [
    "api.middleware.TenantScopeMiddleware",
    "api.middleware.RequestContextMiddleware",
    "api.middleware.ServerTimingMiddleware",
    "api.middleware.BodySizeLimitMiddleware",
    "api.middleware.StorableTextMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    # The call path's lean lane (ADR 0030): session start, append and context answered here,
    # after the request id, metrics, log, timing and security headers, before the rest.
    "api.callpath.CallPathMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last, as its docs say: answers a locked-out login attempt with 429.
    "axes.middleware.AxesMiddleware",
]

# Content-Security-Policy on every response (the admin, the API docs, the API): scripts and
# everything else only from this origin, never framed, no plugins. Inline styles stay allowed:
# Django's admin and Swagger UI set style attributes; no page of ours runs an inline script.
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF],
    "style-src": [CSP.SELF, CSP.UNSAFE_INLINE],
    "img-src": [CSP.SELF, "data:"],
    "connect-src": [CSP.SELF],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.SELF],
    "form-action": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
}

# The admin login is throttled (django-axes): after AXES_FAILURE_LIMIT wrong passwords for one
# username, or from one client address, that username / address is locked out for
# AXES_COOLOFF_MINUTES; every attempt is recorded (the admin's Axes pages). Unlock early with
# `manage.py axes_reset_username <name>` or `axes_reset_ip <address>` (docs/security.md).
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = env.integer("AXES_FAILURE_LIMIT", 5, minimum=1)
AXES_COOLOFF_TIME = datetime.timedelta(minutes=env.integer("AXES_COOLOFF_MINUTES", 15, minimum=1))
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]
AXES_RESET_ON_SUCCESS = True
AXES_ENABLE_ACCESS_FAILURE_LOG = True
# Never the password: axes would otherwise keep the POST data of failed attempts.
AXES_SENSITIVE_PARAMETERS = ["password", "csrfmiddlewaretoken"]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]


# --- PostgreSQL -----------------------------------------------------------------------------

DATABASE_URL = env.url(
    "DATABASE_URL", env.embedded_database_url(), schemes=("postgres", "postgresql")
)


_PREPARE_THRESHOLD = env.integer("DATABASE_PREPARE_THRESHOLD", 5, minimum=0)
_DATABASE_OPTIONS = {"connect_timeout": 5, "server_side_binding": True}


def _database(url: str) -> dict[str, object]:
    try:
        params = conninfo_to_dict(url)
    except Exception as exc:
        raise ImproperlyConfigured(f"DATABASE_URL cannot be parsed: {exc}") from None
    name = params.pop("dbname", None) or urlsplit(url).path.lstrip("/")
    if not name:
        raise ImproperlyConfigured("DATABASE_URL names no database")
    return {
        # Django's PostgreSQL backend with a cheaper health check (config/db/base.py).
        "ENGINE": "config.db",
        "NAME": name,
        "USER": params.pop("user", ""),
        "PASSWORD": params.pop("password", ""),
        "HOST": params.pop("host", ""),
        "PORT": params.pop("port", ""),
        # Persistent connections: a new connection costs ~2 ms, the hot read ~0.2 ms.
        "CONN_MAX_AGE": env.integer("DATABASE_CONN_MAX_AGE", 300, minimum=0),
        # Checks a reused connection with a round trip at the start of each request: costs
        # ~0.1 ms, saves the first request after a PostgreSQL restart from failing.
        "CONN_HEALTH_CHECKS": env.boolean("DATABASE_HEALTH_CHECKS", True),
        # Server-side binding; psycopg prepares a statement once it has run this many times on a
        # connection, so the call path skips PostgreSQL's parse and plan (ADR 0030). Django turns
        # preparing off unless asked; 0 turns it off (a pooler that cannot keep them).
        "OPTIONS": {**_DATABASE_OPTIONS, "prepare_threshold": _PREPARE_THRESHOLD or None, **params},
        "TEST": {"NAME": env.string("DATABASE_TEST_NAME", "test_handover")},
    }


DATABASES = {"default": _database(DATABASE_URL)}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"


# --- Redis: cache, locks; Celery's broker unless told otherwise ------------------------------

REDIS_URL = env.url("REDIS_URL", env.embedded_redis_url(), schemes=("redis", "rediss", "unix"))
# REDIS_URL names one node of a Redis Cluster; its keys are hash-tagged per user (ADR 0028).
REDIS_CLUSTER = env.boolean("REDIS_CLUSTER", False)
CACHES = {
    "default": {
        "BACKEND": "django_redis.cache.RedisCache",
        "LOCATION": REDIS_URL,
        "KEY_PREFIX": env.string("CACHE_KEY_PREFIX", "hv"),
        "OPTIONS": {
            "CLIENT_CLASS": "django_redis.client.DefaultClient",
            "SOCKET_CONNECT_TIMEOUT": 1,
            "SOCKET_TIMEOUT": 1,
            **(
                {"CONNECTION_FACTORY": "core.redis_cluster.ClusterConnectionFactory"}
                if REDIS_CLUSTER
                else {}
            ),
        },
    }
}
if REDIS_CLUSTER and env.string("CELERY_BROKER_URL") is None:
    raise ImproperlyConfigured(
        "REDIS_CLUSTER=true needs CELERY_BROKER_URL: Celery's broker cannot be a Redis Cluster"
    )


def _broker_from_redis(url: str) -> str:
    # kombu spells a Unix socket "redis+socket://"; redis-py and django-redis spell it "unix://".
    if url.startswith("unix://"):
        return "redis+socket://" + url.removeprefix("unix://")
    return url


CELERY_BROKER_URL = env.url(
    "CELERY_BROKER_URL",
    _broker_from_redis(REDIS_URL),
    schemes=("redis", "rediss", "redis+socket", "amqp", "amqps", "pyamqp"),
)
CELERY_TASK_ALWAYS_EAGER = env.boolean("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_TASK_DEFAULT_QUEUE = env.string("CELERY_QUEUE", "handover")
# Per-user queues for the write lane (core/routing.py): <CELERY_QUEUE>.0 … .N-1; 1: none.
CELERY_USER_QUEUES = env.integer("CELERY_USER_QUEUES", 1, minimum=1)
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
# With acks_late on Redis a task unacknowledged for this long is delivered again; it must be
# longer than the longest task. A worker that starts re-sends sooner the runs a killed worker
# left (extraction_runs_recover, ADR 0021).
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 3600}
# Workers log through LOGGING below (JSON, with task and request ids), not Celery's own setup.
CELERY_WORKER_HIJACK_ROOT_LOGGER = False

# Every periodic job, in one place (docs/gdpr.md). `make run` runs beat inside its worker (-B);
# in production run exactly one `celery -A config beat` next to the workers.
LIFECYCLE_SWEEP_SECONDS = env.integer("LIFECYCLE_SWEEP_SECONDS", 3600, minimum=60)
CELERY_BEAT_SCHEDULE = {
    "retention": {"task": "memory.retention_sweep", "schedule": LIFECYCLE_SWEEP_SECONDS},
    "tier-down": {"task": "memory.tier_down_sweep", "schedule": LIFECYCLE_SWEEP_SECONDS},
    # Extraction runs a dead worker left behind (a starting worker also picks them up).
    "extraction-recover": {"task": "extraction.recover_sweep", "schedule": 300},
    # Webhook retries due later than a delayed message should wait, and lost messages.
    "webhooks-sweep": {"task": "webhooks.sweep", "schedule": 60},
}
# Rows one step of an erase or a retention sweep deletes per table, in one transaction.
LIFECYCLE_BATCH_ROWS = env.integer("LIFECYCLE_BATCH_ROWS", 1000, minimum=1)

# Enqueueing happens on the request path (after an append commits): with the broker down it
# gives up after one quick retry instead of Celery's default ~0.6 s, and the level-triggered
# scheduler tries again on the next append (ADR 0021).
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 1,
    "interval_start": 0,
    "interval_step": 0.05,
    "interval_max": 0.05,
}


# --- Auth, i18n, static -----------------------------------------------------------------------

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True
STATIC_URL = "static/"
STATIC_ROOT = env.var_dir() / "static"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}


# --- The API ----------------------------------------------------------------------------------

# A batch of 500 turns of ~1 KB each fits; anything larger is refused before it is parsed.
API_MAX_BODY_BYTES = env.integer("API_MAX_BODY_BYTES", 2 * 1024 * 1024, minimum=1024)
DATA_UPLOAD_MAX_MEMORY_SIZE = API_MAX_BODY_BYTES

# Requests per minute per API key (0: no limit; 30,000 = 500/s, far above one agent's needs,
# low enough to stop a runaway loop); over it, 429 rate_limited with Retry-After.
API_KEY_RATE_PER_MINUTE = env.integer("API_KEY_RATE_PER_MINUTE", 30_000, minimum=0)
# Seconds each API process keeps a key's principal read from Redis (0: none; ADR 0030).
API_KEY_LOCAL_CACHE_SECONDS = env.integer("API_KEY_LOCAL_CACHE_SECONDS", 2, minimum=0)

# Session start, append and context through the lean lane (api.callpath, ADR 0030); false sends
# every request through the full stack (DRF), as a way back and for comparing the two.
API_LEAN_CALL_PATH = env.boolean("API_LEAN_CALL_PATH", True)

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["tenants.authentication.ApiKeyAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["api.permissions.HasApiKey"],
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_SCHEMA_CLASS": "api.schema.AutoSchema",
    "EXCEPTION_HANDLER": "api.exceptions.exception_handler",
    "DEFAULT_THROTTLE_CLASSES": ["api.throttling.ApiKeyRateThrottle"],
    "UNAUTHENTICATED_USER": None,
    "DEFAULT_PAGINATION_CLASS": None,
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Handover API",
    "DESCRIPTION": "Memory for LLM agents: session start in one read, bi-temporal facts, search.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    "SCHEMA_PATH_PREFIX": r"/v1",
    # The docs page works offline and runs no third-party code from elsewhere: Swagger UI comes
    # from the drf-spectacular-sidecar wheel, served by whitenoise like the admin's files.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # The error envelope on every operation (api.schema.error_responses).
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "api.schema.error_responses",
    ],
}


# --- Model endpoints: the deployment's, never a tenant's (docs/security.md, ADR 0024) ----------

# The connections the openai extractor may call, each with its URL and the name of the
# variable holding its key; an agent picks one by name (extractor_connection). Unset: one,
# "default", from OPENAI_BASE_URL and OPENAI_API_KEY. Private and loopback addresses (a model
# server on this machine) need "allow_private": true on the connection.
try:
    MODEL_CONNECTIONS = outbound.model_connections_parse(
        env.string("MODEL_CONNECTIONS"),
        default_base_url=env.url(
            "OPENAI_BASE_URL", "https://api.openai.com/v1", schemes=("http", "https")
        ),
        default_key_env="OPENAI_API_KEY",
    )
except ValueError as exc:
    raise ImproperlyConfigured(str(exc)) from None


# --- Webhooks: the tenant's endpoints, the deployment's rules (ADR 0031) -----------------------

# Endpoints on loopback or private networks: refused (as for model endpoints) unless this is
# on — for a receiver inside your own network, and the tests' receiver on 127.0.0.1.
WEBHOOK_ALLOW_PRIVATE = env.boolean("WEBHOOK_ALLOW_PRIVATE", False)
# Seconds to wait for a receiver's answer.
WEBHOOK_TIMEOUT = env.integer("WEBHOOK_TIMEOUT", 10, minimum=1)
# Attempts of one delivery, and the backoff between them: 30 s, 1 min, 2 min … capped at 4 h
# (10 attempts span about 4 h 15 min).
WEBHOOK_MAX_ATTEMPTS = env.integer("WEBHOOK_MAX_ATTEMPTS", 10, minimum=1)
WEBHOOK_RETRY_SECONDS = env.integer("WEBHOOK_RETRY_SECONDS", 30, minimum=0)
WEBHOOK_RETRY_MAX_SECONDS = env.integer("WEBHOOK_RETRY_MAX_SECONDS", 4 * 3600, minimum=0)


# --- Observability (docs/observability.md, ADR 0019) -------------------------------------------

# /metrics is open unless this is set; then it wants "Authorization: Bearer <METRICS_TOKEN>".
METRICS_TOKEN = env.string("METRICS_TOKEN")
# Shared by every process of a machine (gunicorn workers, Celery's pool); `make run` sets it.
PROMETHEUS_MULTIPROC_DIR = env.string("PROMETHEUS_MULTIPROC_DIR")
LOG_FORMAT = env.choice("LOG_FORMAT", "json", choices=("json", "plain"))
# One line per request (route, status, duration, request id); the access log without the path.
LOG_REQUESTS = env.boolean("LOG_REQUESTS", True)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {
        "request_id": {"()": "core.logs.RequestIdFilter"},
        "redact_path": {"()": "core.logs.PathRedactFilter"},
    },
    "formatters": {
        "json": {"()": "core.logs.JsonFormatter"},
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": LOG_FORMAT,
            # Django's request loggers put the path (user ids) in their lines: the route instead.
            "filters": ["request_id", "redact_path"],
        }
    },
    "root": {"handlers": ["console"], "level": env.string("LOG_LEVEL", "INFO")},
    # httpx2 logs every request at INFO (the MCP server and the client use it): too chatty.
    "loggers": {
        "httpx2": {"level": "WARNING"},
        # A 4xx is in the request log already; this one would add the path (personal data).
        # On a 500 its line names the route pattern, not the path (core.logs.PathRedactFilter).
        "django.request": {"level": "ERROR"},
    },
}
