"""`agentdesk bench` refuses bad options with a message instead of measuring anything."""

from __future__ import annotations

from app.cli import main


def test_a_latency_scale_of_zero_is_refused(capsys):
    assert main(["bench", "perception", "--latency-scale", "0"]) == 2
    assert "latency scale must be above 0" in capsys.readouterr().err


def test_zero_rounds_are_refused(capsys):
    assert main(["bench", "agent", "--rounds", "0"]) == 2
    assert "--rounds must be at least 1" in capsys.readouterr().err


def test_an_unknown_phone_profile_is_refused(capsys):
    assert main(["bench", "perception", "--profile", "android2"]) == 2
    assert "unknown phone profile 'android2'" in capsys.readouterr().err
