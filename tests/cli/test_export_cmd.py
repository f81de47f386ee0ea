"""``rpcspy export --format html``."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from rpcspy.cli import main
from tests.render.html_data import frame_lines, items
from tests.render.sample import write_sample

MISUSE = Path(__file__).resolve().parents[2] / "recordings" / "pi-0.73.1-misuse.jsonl"


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_sample(tmp_path_factory.mktemp("export") / "sample.jsonl")


def test_writes_a_page(sample: Path, tmp_path: Path) -> None:
    out = tmp_path / "page.html"
    res = CliRunner().invoke(main, ["export", str(sample), "--format", "html", "-o", str(out)])
    assert res.exit_code == 0, res.output
    html = out.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and [r[13] for r in items(html) if r[13]] == ["info", "warning", "error"]
    assert not (tmp_path / "page.html.part").exists()
    assert f"wrote {out}" in res.output


def test_default_name_and_stdout(sample: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    with runner.isolated_filesystem(temp_dir=tmp_path):
        res = runner.invoke(main, ["export", str(sample)])
        assert res.exit_code == 0, res.output
        assert os.path.exists("sample.html")
    res = runner.invoke(main, ["export", str(sample), "-o", "-", "--type", "prompt"])
    assert res.exit_code == 0 and "</html>" in res.output
    assert [r[3] for r in items(res.output)] == ["command", "response"]
    assert [line.split(" ")[0] for line in frame_lines(res.output)] == ["4", "5"]  # only the frames that pass


def test_missing_directories_are_created(sample: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    with runner.isolated_filesystem(temp_dir=tmp_path):
        res = runner.invoke(main, ["export", str(sample), "-o", "no/dir/x.html"])
        assert res.exit_code == 0, res.output
        assert Path("no/dir/x.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_unwritable_output(sample: Path, tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    res = CliRunner().invoke(main, ["export", str(sample), "-o", str(tmp_path / "file" / "x.html")])
    assert res.exit_code == 4 and "cannot write" in res.output and "Not a directory" in res.output
    assert list(tmp_path.iterdir()) == [tmp_path / "file"]


@pytest.mark.skipif(not MISUSE.exists(), reason="recordings/ is not in this checkout")
def test_with_findings_keeps_a_frame_whose_finding_comes_after_a_later_frame() -> None:
    """misuse.prompt_while_streaming (finding #26) is about prompt #24 but written after frame #25."""
    res = CliRunner().invoke(main, ["export", str(MISUSE), "--with-findings", "-o", "-"])
    assert res.exit_code == 0, res.output
    assert [r[0] for r in items(res.output)] == [2, 5, 8, 10, 12, 24, 26]
    assert "misuse.prompt_while_streaming" in res.output


def test_an_existing_page_is_kept_unless_overwrite(sample: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The default name (chosen by rpcspy, not the user) and -o FILE alike: exit 2, the file untouched."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sample.html").write_text("my notes")
    res = CliRunner().invoke(main, ["export", str(sample)])
    assert res.exit_code == 2 and "sample.html exists (--overwrite replaces it)" in res.stderr
    assert (tmp_path / "sample.html").read_text() == "my notes"
    res = CliRunner().invoke(main, ["export", str(sample), "--overwrite"])
    assert res.exit_code == 0 and (tmp_path / "sample.html").read_text().startswith("<!DOCTYPE html>")


@pytest.mark.parametrize("args", [["schema", "-o"], ["fixture", "REC", "-o"]])
def test_the_other_whole_outputs_follow_the_same_rule(sample: Path, tmp_path: Path, args: list[str]) -> None:
    out = tmp_path / "out"
    out.write_text("keep")
    argv = [str(sample) if a == "REC" else a for a in args] + [str(out)]
    res = CliRunner().invoke(main, argv)
    assert res.exit_code == 2 and "exists (--overwrite replaces it)" in res.stderr and out.read_text() == "keep"
    assert CliRunner().invoke(main, [*argv, "--overwrite"]).exit_code == 0 and out.read_text() != "keep"
