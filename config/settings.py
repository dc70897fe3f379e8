"""Django settings. Every value read from the environment goes through ``config.env``."""

from __future__ import annotations

from urllib.parse import urlsplit

from django.core.exceptions import ImproperlyConfigured
from psycopg.conninfo import conninfo_to_dict

from config import env

BASE_DIR = env.BASE_DIR

DEBUG = env.boolean("DJANGO_DEBUG", False)
SECRET_KEY = env.string("SECRET_KEY", required=not DEBUG) or "insecure-dev-only-secret-key"
if not DEBUG and len(SECRET_KEY) < 32:
    raise ImproperlyConfigured("SECRET_KEY must be at least 32 characters when DEBUG is off")
ALLOWED_HOSTS = env.string_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost"])
CSRF_TRUSTED_ORIGINS = env.string_list("CSRF_TRUSTED_ORIGINS", ["http://127.0.0.1:8000"])

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
    # Ours, bottom of the dependency order first.
    "tenants",
    "schemas",
    "memory",
    "extraction",
    "console",
    "api",
]

MIDDLEWARE = [
    "api.middleware.ServerTimingMiddleware",
    "api.middleware.BodySizeLimitMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

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


def _database(url: str) -> dict[str, object]:
    try:
        params = conninfo_to_dict(url)
    except Exception as exc:
        raise ImproperlyConfigured(f"DATABASE_URL cannot be parsed: {exc}") from None
    name = params.pop("dbname", None) or urlsplit(url).path.lstrip("/")
    if not name:
        raise ImproperlyConfigured("DATABASE_URL names no database")
    return {
        "ENGINE": "django.db.backends.postgresql",
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
        # Server-side binding lets psycopg prepare a statement after it has run 5 times on a
        # connection: the call path then skips PostgreSQL's parse and plan (bench/latency.py).
        "OPTIONS": {"connect_timeout": 5, "server_side_binding": True, **params},
        "TEST": {"NAME": env.string("DATABASE_TEST_NAME", "test_handover")},
    }


DATABASES = {"default": _database(DATABASE_URL)}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"


# --- Redis: cache, locks; Celery's broker unless told otherwise ------------------------------

REDIS_URL = env.url("REDIS_URL", env.embedded_redis_url(), schemes=("redis", "rediss", "unix"))
CACHES = {
    "default": {
        "BACKEND": "django_redis.cache.RedisCache",
        "LOCATION": REDIS_URL,
        "KEY_PREFIX": env.string("CACHE_KEY_PREFIX", "hv"),
        "OPTIONS": {
            "CLIENT_CLASS": "django_redis.client.DefaultClient",
            "SOCKET_CONNECT_TIMEOUT": 1,
            "SOCKET_TIMEOUT": 1,
        },
    }
}


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

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["tenants.authentication.ApiKeyAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["api.permissions.HasApiKey"],
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "api.exceptions.exception_handler",
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
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env.string("LOG_LEVEL", "INFO")},
}
