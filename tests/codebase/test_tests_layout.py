"""The tests are laid out like the package: every package of ptclisp/ has a directory of tests of its own,
and no two test files share a name (pytest imports them by base name)."""
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKAGES = sorted(p.parent.name for p in (ROOT / "ptclisp").glob("*/__init__.py"))


def test_every_package_has_a_tests_directory_with_a_test():
    assert len(PACKAGES) > 20
    assert [p for p in PACKAGES if not list((ROOT / "tests" / p).glob("test_*.py"))] == []


def test_no_two_test_files_share_a_name():
    names = [p.name for p in (ROOT / "tests").rglob("test_*.py")]
    assert sorted({n for n in names if names.count(n) > 1}) == []
