"""The product package holds the product and nothing else."""

import re
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


# The packages of news_crawler/ in layers, top to bottom; "" is the leaves, the modules at the
# package's root. A package imports only the packages of the layers below its own, never one
# beside it; ARCHITECTURE.md opens with the same list.
LAYERS: list[set[str]] = [
    {"cli"},
    {"ops"},
    {"spiders", "pipelines"},
    {"middlewares"},
    {"frontier"},
    {"crawl"},
    {"dedup", "outcomes"},
    {"connection", "extraction"},
    {""},
]


def package_of(module: str) -> str:
    """``news_crawler.crawl.pool`` -> ``crawl``; a module at the root -> ``""``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and (PACKAGE / parts[1]).is_dir()) else ""


def imports_against_the_layers(graph: dict[str, set[str]]) -> list[str]:
    """Every import of ``graph`` that does not run down the layers (or stay in its package),
    and every package no layer holds, one line each."""
    layer = {package: depth for depth, packages in enumerate(LAYERS) for package in packages}
    wrong = sorted(f"{p or 'the root'} is in no layer" for p in {package_of(m) for m in graph} - set(layer))
    for module, targets in sorted(graph.items()):
        source = package_of(module)
        for target in sorted(targets):
            into = package_of(target)
            if into == source == "" or into == source:
                continue
            if layer.get(into, -1) <= layer.get(source, len(LAYERS)):
                wrong.append(f"{module} -> {target}: {source or 'the root'} may not import {into or 'the root'}")
    return wrong


def test_no_module_imports_itself_through_others():
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


def test_every_package_imports_only_the_layers_below_it():
    assert imports_against_the_layers(imports_of_the_package()) == []


def test_the_layer_check_finds_an_import_up_beside_or_out_of_the_layers():
    graph = imports_of_the_package()
    for module, target in (
        ("news_crawler.crawl.counts", "news_crawler.spiders.news"),  # up
        ("news_crawler.pipelines.feed", "news_crawler.spiders.news"),  # beside
        ("news_crawler.fields", "news_crawler.crawl.counts"),  # a leaf importing a package
    ):
        planted = {m: set(ts) for m, ts in graph.items()}
        planted[module].add(target)
        assert imports_against_the_layers(planted) == [
            f"{module} -> {target}: " + (f"{package_of(module) or 'the root'} may not import {package_of(target)}")
        ]
    assert imports_against_the_layers(graph | {"news_crawler.newpackage.x": set()}) == ["newpackage is in no layer"]


def test_architecture_opens_with_the_layers():
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    section = text.split("## The layers", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line[:1].isdigit()]
    shown = [set(re.findall(r"`(\w+)/`", row.split(":", 1)[0])) or {""} for row in rows]
    assert shown == LAYERS


def test_news_dedup_and_the_settings_it_reads_start_without_scrapy():
    """``news-dedup`` never crawls: importing Scrapy was a third of its start."""
    code = (
        "import sys, news_crawler.cli.dedup, news_crawler.cli.check, news_crawler.settings; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('scrapy', 'twisted')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout[:300]
