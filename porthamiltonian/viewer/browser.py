"""Pictures of the viewer page taken by headless Chromium, driven through its DevTools protocol.

The animation renderer (`porthamiltonian.diagnostics.animation`) draws every frame with the
same three.js page as the HTML viewer: `HeadlessPage` starts Chromium with
``--remote-debugging-pipe`` (the DevTools protocol over two pipes: no port, no network, no
Python dependency), opens the page at a fixed viewport, and for each frame calls the page's
hook ``PorthamiltonianViewer.show(t)`` (which draws time t, paused) and captures the
viewport as PNG. Rendering is software WebGL (SwiftShader), so the pictures do not depend on
a GPU.

Which Chromium: the program named by the environment variable ``PORTHAMILTONIAN_CHROMIUM``,
else the first of ``chromium``, ``chromium-browser``, ``google-chrome``,
``google-chrome-stable`` on the PATH (`find_chromium`).
"""

from __future__ import annotations

import base64
import io
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from ..errors import ParameterError, PortHamiltonianError

__all__ = ["BrowserError", "HeadlessPage", "find_chromium", "CHROMIUM_NAMES"]

#: the programs `find_chromium` looks for on the PATH, in order
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--enable-unsafe-swiftshader", "--use-angle=swiftshader",
          "--disable-quic", "--no-first-run", "--no-default-browser-check", "--disable-background-networking",
          "--disable-component-update", "--disable-sync", "--disable-extensions", "--mute-audio",
          "--hide-scrollbars", "--remote-debugging-pipe")


class BrowserError(PortHamiltonianError, RuntimeError):
    """Headless Chromium failed: it exited, did not answer in time, or the page reported an
    error (the message says which command, and Chromium's last output)."""


def find_chromium():
    """The Chromium program to run, or None: ``$PORTHAMILTONIAN_CHROMIUM`` when set (it must
    exist: ParameterError otherwise), else the first of `CHROMIUM_NAMES` on the PATH."""
    named = os.environ.get("PORTHAMILTONIAN_CHROMIUM")
    if named:
        path = shutil.which(named)
        if path is None:
            raise ParameterError(f"the environment variable PORTHAMILTONIAN_CHROMIUM={named!r} names no program "
                                 "that can be run (give the path of a Chromium or Chrome executable)")
        return path
    return next((p for p in map(shutil.which, CHROMIUM_NAMES) if p), None)


class HeadlessPage:
    """A viewer page open in headless Chromium at a fixed size, as a context manager.

    Parameters
    ----------
    html : str or path-like
        The viewer's HTML file (`porthamiltonian.viewer.write_html`).
    size : tuple of int
        Viewport ``(width, height)`` [px], device scale 1.
    query : str
        Appended to the file's address after ``?`` (e.g. ``"ui=0&caption=1"``).
    browser : str, optional
        The Chromium program; default `find_chromium`.
    timeout : float
        [s] for Chromium to answer one command (a frame, the page's loading).

    Raises
    ------
    ParameterError
        If no Chromium is found.
    BrowserError
        If Chromium exits, does not answer within `timeout`, or the page does not start.
    """

    def __init__(self, html, size=(1280, 720), query="", *, browser=None, timeout=120.0):
        self.html, self.size, self.query, self.timeout = Path(html), tuple(int(s) for s in size), query, timeout
        self.browser = browser or find_chromium()
        if self.browser is None:
            raise ParameterError(f"no Chromium found (looked for {', '.join(CHROMIUM_NAMES)} on the PATH and the "
                                 "environment variable PORTHAMILTONIAN_CHROMIUM): install one, e.g. `apt-get install "
                                 "chromium`, or name it in PORTHAMILTONIAN_CHROMIUM")
        self._next, self._buffer, self._proc = 0, b"", None

    # ------------------------------------------------------------------ the pipe
    def __enter__(self):
        to_child, from_parent = os.pipe()     # we write commands to from_parent; Chromium reads fd 3
        from_child, to_parent = os.pipe()     # Chromium writes fd 4; we read from_child
        self._profile = tempfile.TemporaryDirectory(prefix="porthamiltonian-chromium-")

        def fds():
            # in the child, before exec: the pipes as fds 3 and 4, inheritable (through copies
            # above 10 first: a pipe may itself be fd 3 or 4); other fds close at exec (PEP 446)
            import fcntl

            high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (to_child, to_parent)]
            for fd, target in zip(high, (3, 4)):
                os.dup2(fd, target)
                os.set_inheritable(target, True)
                os.close(fd)

        cmd = [self.browser, *_FLAGS, f"--user-data-dir={self._profile.name}",
               f"--window-size={self.size[0]},{self.size[1]}", "about:blank"]
        self._log = tempfile.TemporaryFile()
        try:
            self._proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=self._log, stderr=self._log,
                                          preexec_fn=fds, close_fds=False)
        finally:
            os.close(to_child)
            os.close(to_parent)
        self._write, self._read = from_parent, from_child
        try:
            self._open()
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc):
        if self._proc is not None:
            try:
                self._send("Browser.close", wait=False)
            except (BrowserError, OSError):
                pass
            try:
                self._proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
            self._proc = None
        for fd in (self._write, self._read):
            try:
                os.close(fd)
            except OSError:
                pass
        self._log.close()
        self._profile.cleanup()
        return False

    def _output(self):
        self._log.seek(0)
        lines = self._log.read().decode(errors="replace").strip().splitlines()
        return "\n".join(lines[-5:]) or "(no output)"

    def _send(self, method, params=None, *, session=None, wait=True):
        self._next += 1
        msg = {"id": self._next, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        try:
            os.write(self._write, json.dumps(msg).encode() + b"\0")
        except OSError as exc:
            raise BrowserError(f"Chromium ({self.browser}) stopped before {method}: {exc}; its output: "
                               f"{self._output()}") from None
        if not wait:
            return None
        return self._answer(self._next, method)

    def _answer(self, ident, method):
        import select

        deadline = time.monotonic() + self.timeout
        while True:
            while b"\0" in self._buffer:
                raw, self._buffer = self._buffer.split(b"\0", 1)
                msg = json.loads(raw)
                if msg.get("id") == ident:
                    if "error" in msg:
                        raise BrowserError(f"Chromium refused {method}: {msg['error'].get('message')}")
                    return msg.get("result", {})
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._read], [], [], left)[0]:
                raise BrowserError(f"Chromium ({self.browser}) did not answer {method} within {self.timeout:g} s; "
                                   f"its output: {self._output()}")
            chunk = os.read(self._read, 1 << 20)
            if not chunk:
                raise BrowserError(f"Chromium ({self.browser}) exited during {method} (status "
                                   f"{self._proc.poll()}); its output: {self._output()}")
            self._buffer += chunk

    # ------------------------------------------------------------------ the page
    def _open(self):
        target = self._send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self._session = self._send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        width, height = self.size
        self.command("Emulation.setDeviceMetricsOverride",
                     {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
        url = self.html.absolute().as_uri() + (f"?{self.query}" if self.query else "")
        self.command("Page.navigate", {"url": url})
        deadline = time.monotonic() + self.timeout
        while not self.evaluate("!!(window.PorthamiltonianViewer && window.PorthamiltonianViewer.ready)"):
            if time.monotonic() > deadline:
                raise BrowserError(f"the viewer page {str(self.html)!r} did not start within {self.timeout:g} s "
                                   "(no PorthamiltonianViewer.ready): is it a viewer file of this release?")
            time.sleep(0.05)

    def command(self, method, params=None):
        """Send a DevTools command to the page; returns its result (dict)."""
        return self._send(method, params, session=self._session)

    def evaluate(self, expression):
        """The value of a JavaScript expression in the page (JSON-able).

        Raises
        ------
        BrowserError
            If it throws.
        """
        result = self.command("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text")
            raise BrowserError(f"the viewer page threw evaluating {expression!r}: {text}")
        return result["result"].get("value")

    def show(self, t):
        """Draw time `t` [s] (paused); returns the time shown (clamped to the scene's span)."""
        return self.evaluate(f"PorthamiltonianViewer.show({float(t)!r})")

    def screenshot(self):
        """The viewport as a PIL RGB image of `size`."""
        from PIL import Image

        data = self.command("Page.captureScreenshot", {"format": "png"})["data"]
        return Image.open(io.BytesIO(base64.b64decode(data))).convert("RGB")
