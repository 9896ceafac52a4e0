"""parse / text round trips, verify, lower, ops, memory_map and the Jupyter display."""

import re
from pathlib import Path

import pytest

import pto
from conftest import EXAMPLES

EXAMPLE_FILES = sorted(EXAMPLES.glob("*.pto")) + sorted((EXAMPLES / "seeds").glob("*.pto"))


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: p.name)
def test_examples_round_trip(path: Path) -> None:
    m = pto.parse(path)
    text = m.text()
    again = pto.parse(text, name="printed")
    assert again.text() == text, "printing is a fixed point"
    assert again.ops == m.ops
    assert again.level == m.level


def test_parse_path_string_and_text() -> None:
    by_path = pto.parse(str(EXAMPLES / "softmax.as.pto"))
    by_text = pto.parse((EXAMPLES / "softmax.as.pto").read_text())
    assert by_path.name.endswith("softmax.as.pto") and by_text.name == "<string>"
    assert by_path.text() == by_text.text()
    assert by_path.level == 1
    assert by_path.ops == ["pto.trowmax", "pto.trowexpandsub", "pto.texp", "pto.trowsum", "pto.trowexpanddiv"]


def test_text_forms() -> None:
    m = pto.parse(EXAMPLES / "softmax.as.pto")
    ssa = m.text(form="ssa")
    assert "%m = pto.trowmax %x : (!pto.tile<16x64xf32>) -> !pto.tile<16x1xf32, blayout=col_major>" in ssa
    assert pto.parse(ssa).text(form="as") == m.text(form="as")
    assert '"pto.tadd"' in pto.parse(EXAMPLES / "vadd.pto").text(generic=True)
    with pytest.raises(ValueError, match="unknown form"):
        m.text(form="bogus")  # type: ignore[arg-type]


def test_levels_and_lower() -> None:
    m = pto.parse(EXAMPLES / "vadd.pto")
    assert m.level == 2
    low = pto.lower(m, "a2a3")
    assert isinstance(low, pto.Module) and low.level == 3
    assert "pto.alloc_tile addr = " in low.text()
    legal = pto.lower(m, "a2a3", stop_after="legalize")
    assert legal.level == 2
    plan = pto.lower(m, "a5", emit="json")
    assert plan["target"] == "a5"
    assert {t["tile"] for t in plan["memory"]} == {"%ta", "%tb", "%tc"}
    assert all(t["bytes"] == 32 * 32 * 4 for t in plan["memory"])
    vec = pto.lower(pto.parse(EXAMPLES / "softmax.as.pto"), "a2a3", emit="vector")
    assert "// pto.trowmax at 6:1: " in vec and "vcadd.f32" in vec
    with pytest.raises(ValueError, match="unknown pass"):
        pto.lower(m, "a2a3", stop_after="nope")
    with pytest.raises(ValueError, match="unknown target"):
        pto.lower(m, "a9")  # type: ignore[arg-type]


def test_verify_returns_notes_and_raises_on_errors() -> None:
    assert pto.verify(pto.parse(EXAMPLES / "vadd.pto"), "a5") == []
    i8 = pto.parse(".arg %a : !pto.tile<4x32xi8>\n%c = tadd %a, %a : !pto.tile<4x32xi8>\n")
    assert pto.verify(i8) == [] and pto.verify(i8, "a5") == []
    with pytest.raises(pto.LegalityError) as e:
        pto.verify(i8, "a2a3")
    assert e.value.classes[0] == "LEGAL_UNSUPPORTED_TUPLE"
    assert "tuple (i8, vec, ND (row_major/none_box), 4x32) is not supported on a2a3" in str(e.value)


def test_ops_table() -> None:
    table = pto.ops()
    names = {o["name"] for o in table}
    assert len(table) == len(names) > 250
    tadd = next(o for o in table if o["name"] == "pto.tadd")
    assert tadd["pattern"] == "src0:tile, src1:tile -> dst:tile"
    assert tadd["isa_page"] == "docs/isa/TADD.md"
    table[0]["name"] = "changed"
    assert pto.ops()[0]["name"] != "changed", "callers get copies"


def test_memory_map_svg() -> None:
    svg = pto.memory_map(pto.parse(EXAMPLES / "vadd.pto"), "a2a3")
    assert svg.startswith("<svg") and svg.rstrip().endswith("</svg>")
    for tile in ("%ta", "%tb", "%tc"):
        assert tile in svg


def test_repr_html_shows_text_and_memory_map() -> None:
    m = pto.parse(EXAMPLES / "vadd.pto")
    html = m._repr_html_()
    assert "<svg" in html
    assert "pto.tadd ins(%ta, %tb" in html
    assert "Level 2" in html
    # A module that does not lower shows its text and the error instead of a map.
    bad = pto.parse(EXAMPLES / "colargmax.dps.pto")._repr_html_()
    assert "<svg" not in bad and "LEGAL_TMP_TOO_SMALL" in bad and "pto.tcolargmax" in bad
    assert re.search(r"<pto.Module '.*vadd.pto': Level 2, 19 ops>", repr(m))


def test_a_path_that_names_no_file_is_a_clear_error() -> None:
    for path in ("examples/nope.pto", str(EXAMPLES / "nope.pto"), "nope.pto"):
        with pytest.raises(FileNotFoundError, match="no such file .pto.parse takes a path"):
            pto.parse(path)
    # Program text is still program text, however short.
    assert pto.parse(".arg %a : !pto.tile<16x16xf32>").level == 1


def test_dir_shows_the_public_api_only() -> None:
    names = dir(pto)
    assert names == sorted(pto.__all__)
    assert not {"np", "npt", "Any", "Dict"} & set(names)
