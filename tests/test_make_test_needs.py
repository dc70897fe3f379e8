"""What `make test` installs is what the README says it installs (issue 19): the virtualenv from
the project's own files, and Chromium from the system's packages for the browser tests."""

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
    assert _rule("test")[0] == ["$(STAMP)", "browser"]
    assert _rule("test-fast")[0] == ["$(STAMP)"]
    _, venv = _rule("$(STAMP)")
    installs = re.findall(r"pip install ([^\n]*)", venv.replace("\\\n", " "))
    assert len(installs) == 1
    words = installs[0].split()
    assert words[words.index("-c") : words.index("-c") + 2] == ["-c", "constraints.txt"]
    assert [w for w in words if w.startswith("'")] == ["'.[dev]'", "'clients/python[mcp]'"]
    _, browser = _rule("browser")
    assert re.findall(r"apt-get install -y -q (\S+)", browser) == ["chromium"] * 2
    assert "pip" not in browser and "playwright install" not in MAKEFILE


def test_the_readme_says_so() -> None:
    for words in [
        "pip installs the service with its `dev` extra and `clients/python` with its `mcp` extra",
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
