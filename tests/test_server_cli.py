"""``atout-server``'s command line: every startup mistake is one line on stderr.

The real command runs as a subprocess (``python -m server``) for each mistake
an operator makes; the line must name the setting (flag or ``ATOUT_*``
variable), with no traceback, and exit 2 for a usage mistake, 1 when the
machine refuses (port taken, host not ours, Redis not answering).
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import fields
from importlib.metadata import version
from pathlib import Path

import pytest

from server.base import config
from tests.support.ports import free_port
from tests.support.processes import DEPLOY_MD, TIMEOUT_S, atout_server, one_line
from tests.support.waits import Deadline, patient

ROOT = Path(__file__).resolve().parents[1]


# --- the machine says no: exit 1 -------------------------------------------------------


def test_port_in_use_names_the_port_and_how_to_choose_another(taken_port: int) -> None:
    line = one_line(atout_server("--port", str(taken_port)), 1)
    assert f"port {taken_port} is already in use" in line
    assert "--port" in line and "ATOUT_PORT" in line


def test_port_in_use_from_the_variable_too(taken_port: int) -> None:
    line = one_line(atout_server(ATOUT_PORT=str(taken_port)), 1)
    assert f"port {taken_port} is already in use" in line


def test_the_server_listens_before_it_touches_the_store(taken_port: int) -> None:
    # Redis is unreachable too, but the port is what fails: no table is loaded
    # (and run) by a server that cannot serve it.
    redis = f"redis://127.0.0.1:{free_port()}/0"
    line = one_line(atout_server("--port", str(taken_port), "--redis", redis), 1)
    assert "already in use" in line


def test_a_host_that_is_not_this_machines_is_refused() -> None:
    # 192.0.2.1 is TEST-NET-1 (RFC 5737): no machine has it.
    with socket.socket() as s:
        try:
            s.bind(("192.0.2.1", 0))
        except OSError:
            pass
        else:
            pytest.skip("this machine binds any address (net.ipv4.ip_nonlocal_bind)")
    line = one_line(atout_server("--host", "192.0.2.1", "--port", str(free_port())), 1)
    assert "cannot listen on 192.0.2.1" in line
    assert "--host" in line and "ATOUT_HOST" in line


def test_a_host_name_that_does_not_resolve_is_refused() -> None:
    # .invalid never resolves (RFC 2606).
    line = one_line(atout_server("--host", "no-such-host.invalid"), 1)
    assert "cannot resolve host 'no-such-host.invalid'" in line
    assert "--host" in line


def test_unreachable_redis_names_the_url_and_exits_at_once() -> None:
    port = free_port()  # nothing listens there
    started = time.monotonic()
    result = atout_server(
        "--port", str(free_port()), "--redis", f"redis://:hunter2@127.0.0.1:{port}/3"
    )
    elapsed = time.monotonic() - started
    line = one_line(result, 1)
    assert f"cannot reach Redis at redis://127.0.0.1:{port}/3" in line
    assert "--redis" in line and "ATOUT_REDIS_URL" in line
    assert "without retrying" in line
    assert "hunter2" not in line  # a password never reaches the terminal or a log
    # At once: no retry loop (the connect deadline is 5 s; a retrying server
    # would run until TIMEOUT_S stops it). The seconds are an unhurried
    # machine's: starting Python and the server took 11 s with the cores busy.
    assert elapsed < patient(10)


# --- usage mistakes: exit 2 -------------------------------------------------------------


@pytest.mark.parametrize("bad", ["0", "99999", "-1"])
def test_ports_outside_1_to_65535_are_refused(bad: str) -> None:
    line = one_line(atout_server("--port", bad), 2)
    assert line.startswith(f"atout-server: --port {bad}: ")
    assert "from 1 to 65535" in line
    if bad == "99999":  # docs/DEPLOY.md quotes it as it is
        assert line.removeprefix("atout-server: ") in DEPLOY_MD


@pytest.mark.parametrize("bad", ["abc", "99999"])
def test_the_port_variable_is_refused_like_the_flag(bad: str) -> None:
    line = one_line(atout_server(ATOUT_PORT=bad), 2)
    assert line.startswith(f"atout-server: ATOUT_PORT={bad}: ")
    assert "from 1 to 65535" in line
    if bad == "abc":
        assert line.removeprefix("atout-server: ") in DEPLOY_MD


def test_a_host_that_is_no_address_is_refused() -> None:
    line = one_line(atout_server("--host", "999.1.1.1"), 2)
    assert line.startswith("atout-server: --host 999.1.1.1: not an IPv4 address")
    assert line.removeprefix("atout-server: ") in DEPLOY_MD


def test_a_bad_redis_url_is_refused_before_connecting() -> None:
    line = one_line(atout_server(ATOUT_REDIS_URL="http://:hunter2@example.org"), 2)
    assert line.startswith("atout-server: ATOUT_REDIS_URL=")
    assert "redis://" in line and "hunter2" not in line


def test_an_unknown_flag_is_one_line() -> None:
    line = one_line(atout_server("--prot", "9000"), 2)
    assert line.removeprefix("atout-server: ") in DEPLOY_MD


def test_replay_without_a_file_is_one_line() -> None:
    line = one_line(atout_server("replay"), 2)
    assert "FILE" in line


# --- every setting: the flag and its variable share one parser ----------------------


def _bad_value(name: str) -> str:
    return "999.1.1.1" if name == "host" else "-1"  # -1 suits no other setting either


@pytest.mark.parametrize("name, flag, variable", [s[:3] for s in config.SETTINGS])
def test_every_variable_is_refused_exactly_like_its_flag(
    name: str, flag: str, variable: str
) -> None:
    bad = _bad_value(name)
    with pytest.raises(config.SettingError) as by_flag:
        config.load(argparse.Namespace(**{name: bad}), env={})
    with pytest.raises(config.SettingError) as by_variable:
        config.load(None, env={variable: bad})
    flag_says, variable_says = str(by_flag.value), str(by_variable.value)
    assert flag_says.startswith(f"{flag} {bad}: ")
    assert variable_says.startswith(f"{variable}={bad}: ")
    assert flag_says.removeprefix(f"{flag} {bad}") == variable_says.removeprefix(
        f"{variable}={bad}"
    )
    assert "\n" not in flag_says and "use " in flag_says  # one line, saying what works


@pytest.mark.parametrize("f", fields(config.Settings), ids=lambda f: f.name)
def test_every_default_passes_its_own_parser(f: object) -> None:
    default = f.default  # type: ignore[attr-defined]
    assert f.metadata["parse"](str(default)) == default  # type: ignore[attr-defined]


def test_a_flag_beats_a_variable_which_is_then_not_read() -> None:
    settings = config.load(argparse.Namespace(port="9000"), env={"ATOUT_PORT": "abc"})
    assert settings.port == 9000
    assert config.load(None, env={"ATOUT_PORT": "9001"}).port == 9001
    assert config.load(None, env={}).port == 8765


# --- --version, --help, and atout-server alone ---------------------------------------


def test_version_comes_from_the_package_metadata() -> None:
    result = atout_server("--version")
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"atout-server {version('atout')}\n"


def test_help_lists_the_commands_and_every_setting_with_its_default() -> None:
    result = atout_server("--help")
    assert result.returncode == 0, result.stderr
    text = " ".join(result.stdout.split())  # argparse wraps lines
    assert "serve" in text and "replay" in text
    assert "`atout-server` alone is `atout-server serve`" in text
    for name, flag, variable, default, _ in config.SETTINGS:
        assert f"{flag} " in text
        if flag.startswith("--no-"):  # a switch that turns its setting off
            assert f"[or {variable}=off; default: {variable}=on]" in text, name
        else:
            assert f"[{variable}; default: {config.shown(default)}]" in text


def test_each_option_s_help_says_what_it_does() -> None:
    # issue 34: --no-web's help described the browser client it turns off
    # ("serve the browser client on /; off (--no-web): ..."); each line now
    # says what giving that option does.
    result = atout_server("--help")
    assert result.returncode == 0, result.stderr
    text = " ".join(result.stdout.split())
    assert (
        "--no-web do not serve the browser client: serve the game's WebSocket, /healthz, "
        "/metrics and /leaderboard only [or ATOUT_WEB=off; default: ATOUT_WEB=on]"
    ) in text
    assert "off (--no-web)" not in text
    # Each setting's help is what the server does with the value: it starts
    # with what is done, never with a bare name of the value.
    bare = ("address ", "port ", "Redis URL", "seconds to ", "tables open", "connections at once")
    for name, _, _, _, meaning in config.SETTINGS:
        assert not meaning.startswith(bare), (name, meaning)


def test_atout_server_alone_serves() -> None:
    port = free_port()
    clean = {k: v for k, v in os.environ.items() if not k.startswith("ATOUT_")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "server"],
        cwd=ROOT,
        env={**clean, "ATOUT_PORT": str(port), "ATOUT_LOG_LEVEL": "warning"},
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = Deadline(TIMEOUT_S)
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1) as r:
                    assert r.status == 200
                    break
            except OSError:
                assert proc.poll() is None, proc.communicate()[1]
                assert not deadline.passed(), "the server did not start"
                time.sleep(0.05)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=patient(TIMEOUT_S))
        assert proc.returncode == 0
        assert err == ""  # warning level: a clean start and stop say nothing
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
