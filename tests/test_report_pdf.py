"""The shared printable-form base: Unicode names print, and the same form is the same bytes."""

from __future__ import annotations

import pytest

pypdf = pytest.importorskip("pypdf")

from tabulate.report.pdf import Form, write_form


def _form() -> Form:
    form = Form("Test form", subtitle="31 KAR 4:230 Section 2")
    form.fields([("Race", "County Judge/Executive")])
    form.table(["Option", "Votes"], [["José Núñez", 17], ["Write-in", 0]])
    form.signature_block(["Counter 1"])
    return form


def test_a_form_prints_names_as_written_and_its_numbers_can_be_read_back(tmp_path):
    path = write_form(_form(), tmp_path / "f.pdf")
    text = pypdf.PdfReader(path).pages[0].extract_text()
    assert "José Núñez" in text and "17" in text and "31 KAR 4:230" in text


def test_the_same_form_is_the_same_bytes_when_source_date_epoch_is_set(monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    assert _form().to_bytes() == _form().to_bytes()
