"""What every page shares (referee/web/pages.py): its headers, JSON answers, the Host check."""

from __future__ import annotations

import doctest
import json
import math

import pytest

from referee.web import pages


def test_doctests() -> None:
    result = doctest.testmod(pages)
    assert result.attempted > 0 and result.failed == 0


def test_a_json_answer_is_never_cached_and_never_nan() -> None:
    response = pages.json_response({"a": "é"}, 404)
    assert response.status_code == 404
    assert response.headers["cache-control"] == "no-store"
    assert response.headers["x-content-type-options"] == "nosniff"
    assert json.loads(response.body) == {"a": "é"}
    with pytest.raises(ValueError):
        pages.json_response({"a": math.nan})


def test_the_host_check_and_the_policies() -> None:
    assert pages.host_check(None) == []
    assert len(pages.host_check(("127.0.0.1",))) == 1
    assert "frame-ancestors 'none'" in pages.PAGE_CSP and "'unsafe-inline'" not in pages.PAGE_CSP
    assert pages.EVENT_STREAM_HEADERS["X-Accel-Buffering"] == "no"
    assert pages.templates().get_template("error.html") is not None
