"""What `make test` installs is what the README says it installs (issue 19): the virtualenv from
the project's own files, the TypeScript client's toolchain from its own lock file, and Chromium
from the system's packages for the browser tests."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAKEFILE = (ROOT / "Makefile").read_text()
README = " ".join((ROOT / "README.md").read_text().split())


def _rule(target: str) -> tuple[list[str], str]:
    """A rule's prerequisites and recipe."""
    match = re.search(rf"^{re.escape(target)}:([^\n]*)\n((?:\t[^\n]*\n|\n)*)", MAKEFILE, re.M)
    assert match, target
    return match.group(1).split(), match.group(2)


def test_make_test_installs_the_venv_and_chromium_and_nothing_else() -> None:
    assert _rule("test")[0] == ["$(STAMP)", "browser", "$(TS_MODULES)"]
    assert _rule("test-fast")[0] == ["$(STAMP)", "$(TS_MODULES)"]
    _, venv = _rule("$(STAMP)")
    installs = re.findall(r"pip install ([^\n]*)", venv.replace("\\\n", " "))
    assert len(installs) == 1
    words = installs[0].split()
    assert words[words.index("-c") : words.index("-c") + 2] == ["-c", "constraints.txt"]
    editable = [words[i + 1] for i, w in enumerate(words) if w == "-e"]
    adapters = re.search(r"^ADAPTERS := ([^\n]*)", MAKEFILE, re.M)
    assert adapters
    assert [e.strip("'").split("[")[0] for e in editable] == [".", "clients/python"] + [
        f"clients/{name}" for name in adapters.group(1).split()
    ]
    assert editable[:2] == ["'.[dev]'", "'clients/python[mcp]'"]
    _, modules = _rule("$(TS_MODULES)")
    assert re.findall(r"npm (\S+)", modules) == ["ci"]
    _, browser = _rule("browser")
    assert re.findall(r"apt-get install -y -q (\S+)", browser) == ["chromium"] * 2
    assert "pip" not in browser and "playwright install" not in MAKEFILE


def test_the_readme_says_so() -> None:
    for words in [
        "pip installs the service with its `dev` extra, `clients/python` with its `mcp` extra and the four framework adapters",
        "`npm ci` installs the TypeScript toolchain",
        "`make test` also needs Chromium for the browser tests",
        "step installs Debian's package (`apt-get install chromium`",
        "Playwright drives that browser and never downloads one",
        "`make test-fast` skips the browser tests and needs no Chromium",
    ]:
        assert words in README, words


def test_the_browser_tests_look_for_the_chromium_the_makefile_installs() -> None:
    conftest = (ROOT / "tests/browser/conftest.py").read_text()
    assert re.findall(r'shutil\.which\("([^"]+)"\)', conftest) == ["chromium", "chromium-browser"]
    assert "command -v chromium " in MAKEFILE and "command -v chromium-browser " in MAKEFILE
