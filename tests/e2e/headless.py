"""Headless Chromium for the e2e tests: screenshots, and a minimal DevTools-protocol session.

CI needs the Debian packages ``chromium`` and ``fonts-dejavu-core``; tests using this
module skip with that reason when no Chromium binary is on PATH.
"""

from __future__ import annotations

import itertools
import json
import shutil
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--hide-scrollbars",
    "--force-device-scale-factor=1",
)


def chromium_or_skip() -> str:
    for name in CANDIDATES:
        path = shutil.which(name)
        if path:
            return path
    pytest.skip("headless Chromium not installed (CI: apt-get install -y chromium fonts-dejavu-core)")


def screenshot(target: str, out: Path, width: int = 1200, height: int = 1400, wait_ms: int = 3000) -> Path:
    """Load ``target`` (URL or file path) and save a PNG of the viewport."""
    binary = chromium_or_skip()
    url = target if "://" in target else Path(target).resolve().as_uri()
    with tempfile.TemporaryDirectory(prefix="kgmem-chromium-") as profile:
        subprocess.run(
            [
                binary,
                *FLAGS,
                f"--user-data-dir={profile}",
                f"--window-size={width},{height}",
                f"--virtual-time-budget={wait_ms}",
                f"--screenshot={out}",
                url,
            ],
            check=True,
            capture_output=True,
            timeout=120,
        )
    assert out.is_file() and out.stat().st_size > 0, f"chromium wrote no screenshot for {url}"
    return out


class DevTools:
    """One headless Chromium page driven over the DevTools protocol (websocket, JSON messages)."""

    def __init__(self, width: int = 1400, height: int = 1000) -> None:
        from websockets.sync.client import connect

        binary = chromium_or_skip()
        # Chromium helpers may still write to the profile for a moment after the browser exits.
        self._profile = tempfile.TemporaryDirectory(prefix="kgmem-chromium-", ignore_cleanup_errors=True)
        self._proc = subprocess.Popen(
            [
                binary,
                *FLAGS,
                f"--user-data-dir={self._profile.name}",
                f"--window-size={width},{height}",
                "--remote-debugging-port=0",
                "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        port_file = Path(self._profile.name) / "DevToolsActivePort"
        deadline = time.monotonic() + 30
        while not port_file.is_file() or not port_file.read_text().strip():
            if time.monotonic() > deadline:
                self.close()
                raise RuntimeError("chromium did not open its DevTools port")
            time.sleep(0.1)
        port = int(port_file.read_text().split()[0])
        targets = json.loads(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10).read())
        page = next(t for t in targets if t["type"] == "page")
        self._ws = connect(page["webSocketDebuggerUrl"], max_size=None, open_timeout=20)
        self._ids = itertools.count(1)

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        msg_id = next(self._ids)
        self._ws.send(json.dumps({"id": msg_id, "method": method, "params": params}))
        while True:
            reply = json.loads(self._ws.recv(timeout=60))
            if reply.get("id") == msg_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})

    def eval(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        return result.get("result", {}).get("value")

    def wait_for(self, expression: str, timeout: float = 60.0) -> Any:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = self.eval(expression)
            if value:
                return value
            time.sleep(0.25)
        raise TimeoutError(f"timed out waiting for: {expression}")

    def type_text(self, text: str) -> None:
        self.call("Input.insertText", text=text)

    def press_enter(self) -> None:
        for kind in ("rawKeyDown", "char", "keyUp"):
            self.call(
                "Input.dispatchKeyEvent",
                type=kind,
                key="Enter",
                code="Enter",
                windowsVirtualKeyCode=13,
                text="\r" if kind == "char" else "",
            )

    def screenshot(self, out: Path) -> Path:
        import base64

        out.write_bytes(base64.b64decode(self.call("Page.captureScreenshot", format="png")["data"]))
        return out

    def close(self) -> None:
        try:
            if hasattr(self, "_ws"):
                self._ws.close()
        finally:
            self._proc.terminate()
            try:
                self._proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
            self._profile.cleanup()


def coloured_pixels(png: Path, box: tuple[int, int, int, int], colour: tuple[int, int, int], tol: int = 40) -> int:
    """Pixels inside ``box`` (left, top, right, bottom) within ``tol`` of ``colour``."""
    from PIL import Image

    img = Image.open(png).convert("RGB").crop(box)
    r0, g0, b0 = colour
    return sum(1 for r, g, b in img.getdata() if abs(r - r0) <= tol and abs(g - g0) <= tol and abs(b - b0) <= tol)
