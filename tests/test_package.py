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
        "news_crawler/dedup/index/decide.lua",
        "news_crawler/dedup/fingerprint/stop_words.txt",
        "news_crawler/cli/dedup.py",
        "news_crawler/spiders/sites.toml",
        "news_crawler/frontier/leasing/pop.lua",
    ):
        assert needed in names


def test_the_image_copies_only_the_product():
    copies = [line.split()[1] for line in (ROOT / "Dockerfile").read_text().splitlines() if line.startswith("COPY")]
    assert "news_mirror" not in " ".join(copies) and "news_crawler" in copies


def test_the_product_imports_nothing_of_the_mirror():
    for path in PACKAGE.rglob("*.py"):
        assert "news_mirror" not in path.read_text(encoding="utf-8"), path


def imports_of_the_package() -> dict[str, set[str]]:
    """Each module of the package and the modules of it that it imports (lazily too)."""
    import ast

    modules = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path

    def module_of(name: str) -> str:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name

    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                targets = [f"{node.module}.{a.name}" for a in node.names]
            else:
                continue
            graph[name] |= {module_of(t) for t in targets if t.startswith("news_crawler")} - {name, "news_crawler"}
    return graph


def test_no_module_imports_itself_through_others_and_only_the_cli_imports_the_cli():
    graph = imports_of_the_package()
    done: set[str] = set()

    def circle_from(name: str, path: list[str]) -> list[str] | None:
        if name in path:
            return path[path.index(name) :] + [name]
        if name in done:
            return None
        for target in sorted(graph[name]):
            found = circle_from(target, path + [name])
            if found:
                return found
        done.add(name)
        return None

    for name in sorted(graph):
        assert circle_from(name, []) is None, " -> ".join(circle_from(name, []) or [])
    into_cli = [(m, t) for m, ts in graph.items() for t in ts if t.startswith("news_crawler.cli") and ".cli" not in m]
    assert not into_cli


def test_news_dedup_and_the_settings_it_reads_start_without_scrapy():
    """``news-dedup`` never crawls: importing Scrapy was a third of its start."""
    code = (
        "import sys, news_crawler.cli.dedup, news_crawler.cli.check, news_crawler.settings; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('scrapy', 'twisted')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout[:300]
