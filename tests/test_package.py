"""The product package holds the product and nothing else."""

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "news_crawler"


def test_the_wheel_holds_the_product_and_nothing_of_the_mirror_or_demos(tmp_path):
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "--disable-pip-version-check",
            "-w",
            str(tmp_path),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (wheel,) = tmp_path.glob("news_crawler-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    top = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert top == {"news_crawler"}, top
    assert not [n for n in names if "mirror" in n or "demo" in n]
    for needed in (
        "news_crawler/index/decide.lua",
        "news_crawler/fingerprint/stop_words.txt",
        "news_crawler/cli/dedup.py",
        "news_crawler/sites.toml",
    ):
        assert needed in names


def test_the_image_copies_only_the_product():
    copies = [line.split()[1] for line in (ROOT / "Dockerfile").read_text().splitlines() if line.startswith("COPY")]
    assert "news_mirror" not in " ".join(copies) and "news_crawler" in copies


def test_the_product_imports_nothing_of_the_mirror():
    for path in PACKAGE.rglob("*.py"):
        assert "news_mirror" not in path.read_text(encoding="utf-8"), path
