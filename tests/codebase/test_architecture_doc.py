"""docs/architecture.md lists the layers of the import contract (pyproject.toml, [tool.importlinter]) in the
contract's order: every layer, its names and their separator, and the order inside each package that
has a contract of its own."""
import pathlib
import re
import tomllib

ROOT = pathlib.Path(__file__).resolve().parents[2]
CONTRACTS = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]["contracts"]
DOC = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
MAIN = next(c for c in CONTRACTS if c["id"] == "layers")
PACKAGE_ORDERS = [c for c in CONTRACTS if c["type"] == "layers" and c is not MAIN]


def _entry(layer: str) -> str:
    """A contract layer as the document writes it: names in backticks, joined by the same separator."""
    sep = " : " if ":" in layer else " | "
    return sep.join(f"`{n.strip().strip('()')}`" for n in layer.split(sep.strip()))


def _numbered_layers() -> list[str]:
    """The names part (before the dash) of each item of the numbered list under "## Layers"."""
    section = DOC.split("## Layers", 1)[1].split("\n## ", 1)[0]
    return [m.group(1).strip() for m in re.finditer(r"^\d+\. (.*?) — ", section, re.M)]


def test_the_main_contract_names_the_packages_relative_to_ptclisp():
    assert MAIN.get("containers") == ["ptclisp"]


def test_the_document_lists_every_layer_of_the_contract_in_its_order():
    assert _numbered_layers() == [_entry(layer) for layer in MAIN["layers"]]


def test_the_numbering_has_no_gap():
    section = DOC.split("## Layers", 1)[1].split("\n## ", 1)[0]
    numbers = [int(n) for n in re.findall(r"^(\d+)\. ", section, re.M)]
    assert numbers == list(range(1, len(MAIN["layers"]) + 1))


def test_every_package_order_is_in_the_document_in_the_contracts_order():
    section = DOC.split("## Layers", 1)[1].split("\n## ", 1)[0]
    for contract in PACKAGE_ORDERS:
        (container,) = contract["containers"]
        package = container.removeprefix("ptclisp.")
        line = re.search(rf"^- `{re.escape(package)}`: (.*)\.$", section, re.M)
        assert line, f"docs/architecture.md: no line for the order inside {package}"
        assert line.group(1) == ", ".join(_entry(layer) for layer in contract["layers"]), package


def test_every_package_named_whole_in_a_layer_is_a_folder():
    names = {n.strip().strip("()") for layer in MAIN["layers"] for n in re.split(r"[|:]", layer)}
    packages = {n for n in names if "." not in n and (ROOT / "ptclisp" / n).is_dir()}
    modules = {n for n in names if "." not in n and (ROOT / "ptclisp" / f"{n}.py").is_file()}
    assert names - packages - modules == {n for n in names if "." in n}
