"""Progress lines go through `logging`; the command line draws the bar. (Event lines: the
tutorial's test, tests/docs/test_tutorial.py, which has a run with impacts at hand.)"""

import io
import logging

import pytest

import porthamiltonian as ph
from porthamiltonian.integrate.progress import ProgressHandler, progress_logging


@pytest.fixture
def msd():
    bg = ph.BondGraph("msd")
    bg.add(ph.Se("F", 1.0), ph.Junction1("v"), ph.I("m", mass=2.0), ph.C("k", stiffness=3.0), ph.R("b", 0.5))
    for el in ("m", "k", "b"):
        bg.connect("v", el)
    bg.connect("F", "v")
    return ph.compile(bg)


def test_progress_records_go_to_the_applications_logging(msd, caplog):
    with caplog.at_level(logging.INFO, logger="porthamiltonian"):
        ph.simulate(msd, (0.0, 2.0), msd.initial_state({"k.q": 0.2}), progress=True)
    records = [r for r in caplog.records if r.name == "porthamiltonian.integrate.progress"]
    assert records, "no progress record"
    fractions = [r.progress for r in records]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    assert records[-1].getMessage().startswith("[" + "#" * 30 + "] 100.0%  t = 2 / 2 s")


def test_no_progress_no_records(msd, caplog):
    with caplog.at_level(logging.DEBUG, logger="porthamiltonian"):
        ph.simulate(msd, (0.0, 2.0), msd.initial_state({"k.q": 0.2}))
    assert not [r for r in caplog.records if r.name == "porthamiltonian.integrate.progress"]


@pytest.mark.parametrize("tty", [False, True])
def test_handler_draws_a_bar(tty):
    """On a terminal one line redrawn in place, elsewhere one line per 10 %."""
    stream = io.StringIO()
    stream.isatty = lambda: tty
    log = logging.getLogger("porthamiltonian.integrate.progress")
    with progress_logging(True, force=True, stream=stream):
        assert any(isinstance(h, ProgressHandler) for h in log.handlers)
        for k in range(101):
            log.info("p %d", k, extra={"progress": k / 100, "progress_final": k == 100})
    assert not any(isinstance(h, ProgressHandler) for h in log.handlers)   # removed on exit
    out = stream.getvalue()
    if tty:
        assert out.count("\r") == 101 and out.endswith("\rp 100\n") and out.count("\n") == 1
    else:
        assert out.split("\n")[:-1] == [f"p {k}" for k in range(0, 101, 10)]


def test_import_configures_no_logging():
    assert not logging.getLogger("porthamiltonian").handlers
    assert not logging.getLogger("porthamiltonian.integrate.progress").handlers
