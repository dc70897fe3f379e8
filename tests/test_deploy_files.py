"""The deploy files are checked, not run (no Docker engine or init system runs here):

- the image: its build steps (deploy/Dockerfile) run on a copy of exactly the files
  .dockerignore lets into the build context, with the image's environment;
- docker-compose.yml: parses; every command of a Handover service is an entry point the image
  has; every variable it sets is one Handover reads; dependencies and health checks hold;
- the systemd units: parse as INI with the sections and keys a unit needs, their ExecStart
  binaries and commands exist; `systemd-analyze verify` passes where systemd is installed.

docs/deploy.md lists these checks; keep the two in step.
"""

from __future__ import annotations

import configparser
import os
import posixpath
import re
import secrets
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pathspec
import pytest
import yaml
from django.apps import apps
from django.core.management import get_commands
from django.urls import Resolver404, resolve

ROOT = Path(__file__).resolve().parent.parent
DEPLOY = ROOT / "deploy"
# `make` puts the virtualenv inside the checkout: its packages are not the checkout's code.
VENV = Path(sys.prefix).resolve()


def _in_checkout(path: str) -> bool:
    resolved = str(Path(path).resolve())
    return resolved.startswith(str(ROOT)) and not resolved.startswith(str(VENV))


UNITS = sorted((DEPLOY / "systemd").glob("*.service"))
VENV_BIN = Path(sys.executable).parent
IMAGE_APP = "/app"  # the Dockerfile's WORKDIR
LOCAL_APPS = {"tenants", "webhooks", "schemas", "memory", "extraction", "console", "api"}


# --- .dockerignore, matched as Docker does ------------------------------------------------------


def dockerignore_spec(text: str) -> pathspec.PathSpec:
    """Docker's rules on top of git's wildmatch (pathspec): a pattern is relative to the context
    root (never "anywhere", unlike .gitignore: `**/` says that), is cleaned like a path, and
    excludes a directory's contents with it; `!` lets a path back in; the last match wins."""
    lines = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        negate = line.startswith("!")
        pattern = posixpath.normpath(line.removeprefix("!").strip()).lstrip("/")
        lines.append(("!" if negate else "") + "/" + pattern)
    return pathspec.PathSpec.from_lines("gitignore", lines)


def admitted(root: Path, spec: pathspec.PathSpec) -> Iterator[str]:
    """The files of ``root`` that the build context holds (paths relative to it)."""
    # Without a `!` nothing under an excluded directory comes back: skip walking it (.venv).
    prune = not any(getattr(p, "include", None) is False for p in spec.patterns)
    for directory, dirs, files in os.walk(root):
        rel = Path(directory).relative_to(root).as_posix()
        rel = "" if rel == "." else rel + "/"
        if prune:
            dirs[:] = [d for d in dirs if not spec.match_file(rel + d)]
        for name in files:
            if not spec.match_file(rel + name):
                yield rel + name


@pytest.mark.parametrize(
    ("path", "excluded"),
    [
        ("var", True),
        ("var/pgdata/base/1", True),  # a directory's contents go with it
        ("memory/var/x.py", False),  # anchored at the root, unlike .gitignore
        ("memory/__pycache__/models.cpython-312.pyc", True),  # `**/` is any depth
        ("__pycache__/x.pyc", True),  # ... the root included
        ("deploy/.env", True),
        ("deploy/Dockerfile", True),
        ("README.md", False),
        ("memory/models.py", False),
        ("docs/screenshots/timeline.png", True),
    ],
)
def test_dockerignore_matches_as_docker_does(path: str, excluded: bool) -> None:
    spec = dockerignore_spec((ROOT / ".dockerignore").read_text())
    assert spec.match_file(path) is excluded


def test_dockerignore_matcher_negation_and_cleaning() -> None:
    spec = dockerignore_spec("# comment\n\n/docs/\n!docs/keep.md\n*.log\n./build//out\n")
    assert spec.match_file("docs/a.md") and not spec.match_file("docs/keep.md")
    assert spec.match_file("x.log") and not spec.match_file("sub/x.log")
    assert spec.match_file("build/out/file")


# --- The image ---------------------------------------------------------------------------------


def dockerfile_instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) in order, continuation lines joined, comments dropped."""
    text = (DEPLOY / "Dockerfile").read_text()
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("#")]
    joined = re.sub(r"\\\n", " ", "\n".join(lines))
    return [
        (line.split(None, 1)[0].upper(), line.split(None, 1)[1].strip())
        for line in joined.splitlines()
        if line.strip()
    ]


def image_environment() -> dict[str, str]:
    env: dict[str, str] = {}
    for instruction, args in dockerfile_instructions():
        if instruction == "ENV":
            env.update(part.split("=", 1) for part in shlex.split(args))  # type: ignore[misc]
    return env


def test_the_dockerfile_copies_the_whole_context_not_a_list() -> None:
    copies = [args for instruction, args in dockerfile_instructions() if instruction == "COPY"]
    assert copies == [". ."], "copy the project (COPY . .); .dockerignore says what stays out"


def test_every_app_is_in_the_build_context_and_the_installed_packages() -> None:
    spec = dockerignore_spec((ROOT / ".dockerignore").read_text())
    ours = {a.name.split(".")[0] for a in apps.get_app_configs() if _in_checkout(a.path)}
    assert ours == LOCAL_APPS
    include = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    patterns = include["packages"]["find"]["include"]
    for package in sorted(ours | {"core", "config"}):
        assert not spec.match_file(f"{package}/__init__.py"), f"{package} is not in the image"
        assert any(re.fullmatch(p.replace("*", ".*"), package) for p in patterns), package
    for needed in ("manage.py", "pyproject.toml", "constraints.txt", "README.md", "templates"):
        assert not spec.match_file(needed), needed


def _image_copy(tmp_path: Path) -> Path:
    app = tmp_path / "app"
    spec = dockerignore_spec((ROOT / ".dockerignore").read_text())
    files = list(admitted(ROOT, spec))
    assert "manage.py" in files and "clients/python/pyproject.toml" in files
    assert not [f for f in files if f.startswith(("tests/", ".venv/", "var/", "docs/"))]
    for rel in files:
        target = app / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, target)
    return app


def _run_in_image(app: Path, argv: list[str], extra: dict[str, str]) -> str:
    """``python …`` as the image runs it: only the copied files and the installed packages.
    `pip install . ./clients/python` is stood in for by PYTHONPATH; ``-S`` leaves out the
    site-packages' .pth files, whose editable installs would point back at this checkout."""
    site = sysconfig.get_paths()["purelib"]
    env = {
        "PATH": os.environ["PATH"],
        "PYTHONPATH": os.pathsep.join([str(app), str(app / "clients/python"), site]),
        **{k: v.replace(IMAGE_APP, str(app)) for k, v in image_environment().items()},
        **extra,
    }
    assert argv[0] == "python", argv
    result = subprocess.run(
        [sys.executable, "-S", *argv[1:]], cwd=app, env=env, capture_output=True, text=True,
        timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, (argv, result.stdout, result.stderr)
    return result.stdout + result.stderr


def _build_steps() -> list[tuple[dict[str, str], list[str]]]:
    """The RUN steps of the Dockerfile as (assignments, argv)."""
    steps = []
    for instruction, args in dockerfile_instructions():
        if instruction != "RUN":
            continue
        for step in args.split("&&"):
            words = shlex.split(step)
            assignments = {}
            while words and re.fullmatch(r"[A-Z_]+=.*", words[0]):
                name, value = words.pop(0).split("=", 1)
                assignments[name] = value
            steps.append((assignments, words))
    return steps


@pytest.mark.slow
def test_the_image_build_steps_pass_on_exactly_the_build_context(tmp_path: Path) -> None:
    app = _image_copy(tmp_path)
    ran = []
    for assignments, argv in _build_steps():
        if argv[:2] == ["pip", "install"]:
            # Stood in for by PYTHONPATH (the packages are this venv's, pinned alike).
            assert {"-c", "constraints.txt", "."} <= set(argv), argv
            assert "./clients/python[mcp]" in argv, argv
        elif argv[0] == "python":
            _run_in_image(app, argv, assignments)
            ran.append(argv[2])
        elif argv[0] in {"useradd", "chown"}:
            continue  # the image's user: nothing to reproduce here
        elif argv[0] == "mkdir":
            (app / Path(argv[-1]).relative_to(IMAGE_APP)).mkdir(parents=True, exist_ok=True)
        else:
            pytest.fail(f"a build step this test does not reproduce: {argv}")
    assert ran == ["collectstatic"]
    static = app / "var" / "static"
    assert (static / "admin" / "css" / "base.css").is_file()
    assert (
        static / "drf_spectacular_sidecar" / "swagger-ui-dist" / "swagger-ui-bundle.js"
    ).is_file()
    # The deployment check with the image's environment and production's settings; it reads the
    # PostgreSQL version (generated columns), so it gets a server, as compose gives the image.
    production = {"SECRET_KEY": secrets.token_urlsafe(50), "HTTPS": "true", "ALLOWED_HOSTS": "memory.example.com",
                  "DATABASE_URL": os.environ["DATABASE_URL"], "REDIS_URL": os.environ["REDIS_URL"]}  # fmt: skip
    out = _run_in_image(
        app, ["python", "manage.py", "check", "--deploy", "--fail-level", "WARNING"], production
    )
    assert "no issues" in out
    # The image's command: gunicorn imports this module (and no code outside the copy).
    [cmd] = [args for instruction, args in dockerfile_instructions() if instruction == "CMD"]
    module = yaml.safe_load(cmd)[1]
    probe = (
        f"import {module}, sys; "
        "bad = [m.__file__ for m in list(sys.modules.values()) "
        f"if getattr(m, '__file__', None) and m.__file__.startswith({str(ROOT)!r}) "
        f"and not m.__file__.startswith({str(VENV)!r})]; "
        "sys.exit(f'outside the image: {bad}' if bad else 0)"
    )
    _run_in_image(app, ["python", "-c", probe], production)


# --- Entry points: what a compose service or a unit runs must exist in the image ---------------


def entry_point_problems(argv: list[str]) -> list[str]:
    if not argv:
        return ["an empty command"]
    program = Path(argv[0]).name
    if program == "sh" and argv[1:2] == ["-c"]:
        problems = []
        for part in re.split(r"&&|;|&", argv[2]):
            words = shlex.split(part)
            problems += entry_point_problems(words[1:] if words[:1] == ["exec"] else words)
        return problems
    if not (VENV_BIN / program).exists():
        return [f"{program}: not a program the install provides"]
    if program == "python":
        if argv[1] != "manage.py":
            return [f"python {argv[1]}: only manage.py commands are expected"]
        return [] if argv[2] in get_commands() else [f"manage.py {argv[2]}: no such command"]
    if program == "gunicorn":
        module, _, attr = argv[1].partition(":")
        found = getattr(__import__(module, fromlist=["_"]), attr or "application", None)
        return [] if callable(found) else [f"gunicorn {argv[1]}: no WSGI application"]
    if program == "celery":
        from celery.bin.celery import celery as cli

        app_at = argv.index("-A") + 1
        problems = [] if argv[app_at] == "config" else [f"celery -A {argv[app_at]}"]
        command = argv[app_at + 1]
        return problems + (
            [] if command in cli.commands else [f"celery {command}: no such command"]
        )
    return [f"{program}: not an entry point this test knows"]


def _read_variables() -> set[str]:
    """What Handover reads: every variable .env.example lists (a NAME_FILE is NAME)."""
    text = (ROOT / ".env.example").read_text()
    return set(re.findall(r"^#? ?([A-Z][A-Z0-9_]+)=", text, flags=re.MULTILINE))


def _known(name: str, known: set[str]) -> bool:
    return name in known or name.removesuffix("_FILE") in known


# --- docker-compose.yml ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    return yaml.safe_load((DEPLOY / "docker-compose.yml").read_text())


def _handover_services(compose: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {n: s for n, s in compose["services"].items() if s.get("image") == "handover"}


def test_compose_handover_services_run_entry_points_of_the_image(compose: dict[str, Any]) -> None:
    [cmd] = [args for instruction, args in dockerfile_instructions() if instruction == "CMD"]
    services = _handover_services(compose)
    assert set(services) == {"migrate", "api", "worker", "beat"}
    for name, service in services.items():
        command: list[str] = service.get("command") or yaml.safe_load(cmd)  # none: the CMD
        assert entry_point_problems(command) == [], name


def test_compose_variables_are_read_by_handover(compose: dict[str, Any]) -> None:
    known = _read_variables()
    for name, service in _handover_services(compose).items():
        unknown = [v for v in service["environment"] if not _known(v, known)]
        assert unknown == [], (name, unknown)


def test_compose_dependencies_and_health_checks_hold(compose: dict[str, Any]) -> None:
    services = compose["services"]
    for name, service in services.items():
        for dependency, rule in service.get("depends_on", {}).items():
            assert dependency in services, (name, dependency)
            if rule["condition"] == "service_healthy":
                assert "healthcheck" in services[dependency], (name, dependency)
            if rule["condition"] == "service_completed_successfully":
                assert services[dependency].get("restart") in (None, "no"), dependency
    # The API's health check asks for a route that exists, on the port the image exposes.
    check = " ".join(services["api"]["healthcheck"]["test"])
    [(port, path)] = re.findall(r"http://127\.0\.0\.1:(\d+)(/\w+)", check)
    exposes = [a for i, a in dockerfile_instructions() if i == "EXPOSE"]
    assert exposes == [port] and services["api"]["ports"] == [f"{port}:{port}"]
    try:
        resolve(path)
    except Resolver404:
        pytest.fail(f"the API's health check asks for {path}, which is no route")


# --- systemd units ---------------------------------------------------------------------------


def _unit(path: Path) -> configparser.RawConfigParser:
    # systemd's syntax is INI with repeatable keys and backslash continuation lines.
    parser = configparser.RawConfigParser(strict=False, delimiters=("=",), comment_prefixes="#;")
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read_string(path.read_text().replace("\\\n", " "), source=str(path))
    return parser


@pytest.mark.parametrize("path", UNITS, ids=lambda p: p.name)
def test_systemd_unit_parses_and_runs_an_installed_entry_point(path: Path) -> None:
    unit = _unit(path)
    assert unit.sections() == ["Unit", "Service", "Install"]
    assert unit["Unit"]["Description"]
    service = unit["Service"]
    assert service["Type"] == "simple" and service["User"] == service["Group"] == "handover"
    assert service["WorkingDirectory"] == "/opt/handover"  # where manage.py is
    assert service["EnvironmentFile"] == "/etc/handover/handover.env"
    assert unit["Install"]["WantedBy"] == "multi-user.target"
    argv = shlex.split(service["ExecStart"])
    assert argv[0].startswith("/opt/handover/.venv/bin/"), argv[0]
    assert entry_point_problems(argv) == [], path.name


def test_systemd_environment_file_names_only_variables_handover_reads() -> None:
    known = _read_variables()
    text = (DEPLOY / "systemd" / "handover.env.example").read_text()
    names = re.findall(r"^([A-Z][A-Z0-9_]+)=", text, flags=re.MULTILINE)
    assert names and [n for n in names if not _known(n, known)] == []


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd is not installed")
def test_systemd_analyze_verify_passes_without_a_warning(tmp_path: Path) -> None:
    # A root of its own: the units where systemd looks for them, the programs they start (empty
    # stand-ins) and this machine's unit files for the targets they name.
    for program in ["gunicorn", "celery", "python"]:
        stand_in = tmp_path / "opt/handover/.venv/bin" / program
        stand_in.parent.mkdir(parents=True, exist_ok=True)
        stand_in.write_text("#!/bin/sh\n")
        stand_in.chmod(0o755)
    (tmp_path / "bin").mkdir()
    shutil.copy2("/bin/kill", tmp_path / "bin" / "kill")
    shutil.copytree("/usr/lib/systemd/system", tmp_path / "usr/lib/systemd/system", symlinks=True)
    units = tmp_path / "etc/systemd/system"
    units.mkdir(parents=True)
    for path in UNITS:
        shutil.copy2(path, units / path.name)
    result = subprocess.run(
        ["systemd-analyze", "verify", "--man=no", f"--root={tmp_path}",
         *[f"/etc/systemd/system/{p.name}" for p in UNITS]],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert result.returncode == 0 and result.stderr == "", result.stderr
