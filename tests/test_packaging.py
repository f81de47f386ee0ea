"""pyproject.toml: the MIT licence as an SPDX string with its file (no setuptools deprecation at install)."""

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_license_is_an_spdx_string_with_its_file() -> None:
    doc = tomllib.loads((ROOT / "pyproject.toml").read_text())
    project = doc["project"]
    # a TOML table (`{ text = "MIT" }`) makes setuptools >= 77 warn at every `pip install .`
    assert project["license"] == "MIT"
    assert project["license-files"] == ["LICENSE"]
    assert not any(c.startswith("License ::") for c in project.get("classifiers", []))
    assert "setuptools>=77" in doc["build-system"]["requires"]  # the first to read an SPDX string
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License") and "WITHOUT WARRANTY OF ANY KIND" in text
