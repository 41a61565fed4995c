"""cdp_pipe: headless Chromium driven over the DevTools protocol on a pipe,
for the tests that need what only the browser knows - where its layout put
an element, what its console said (web_first_screen_test.sh). Python 3
standard library only.

Chromium's --remote-debugging-pipe reads commands on fd 3 and writes
answers and events on fd 4, one JSON message each, NUL-separated
(chromedevtools.github.io/devtools-protocol). Every wait is bounded by the
timeout given to Browser (seconds); a browser that does not answer raises
TimeoutError, and the process is killed by its PID on close.

    with Browser(chrome, profile_dir, stderr_path) as b:
        page = b.open("http://127.0.0.1:9464/", 1400, 1000)  # loaded
        page.evaluate("document.title")                       # a JSON value
        page.screenshot("shot.png")
        b.console   # console messages, log entries, uncaught exceptions
"""
import base64
import json
import os
import select
import subprocess
import time


class Page:
    def __init__(self, browser, session):
        self.b, self.session = browser, session

    def call(self, method, params=None):
        return self.b.call(method, params, self.session)

    def evaluate(self, expression):
        """The value of a JavaScript expression (a promise is awaited)."""
        r = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                           "awaitPromise": True})
        if "exceptionDetails" in r:
            raise RuntimeError("evaluate: %s" % r["exceptionDetails"].get("text"))
        return r["result"].get("value")

    def screenshot(self, path):
        data = self.call("Page.captureScreenshot", {"format": "png"})["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))


class Browser:
    def __init__(self, chrome, profile, errfile, extra=(), timeout=30):
        self.timeout, self.console, self._buf, self._id = timeout, [], b"", 0
        r_cmd, self._w = os.pipe()   # we write commands -> chromium fd 3
        self._r, w_res = os.pipe()   # chromium fd 4 -> we read

        def child():
            os.dup2(r_cmd, 3)
            os.dup2(w_res, 4)
        self._err = open(errfile, "w")
        self.proc = subprocess.Popen(
            [chrome, "--headless=new", "--disable-gpu", "--no-sandbox", "--no-first-run",
             "--user-data-dir=" + profile, "--remote-debugging-pipe"] + list(extra) +
            ["about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self._err,
            pass_fds=(3, 4), preexec_fn=child)
        os.close(r_cmd)
        os.close(w_res)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _note(self, m):
        """Keeps what a page told its console."""
        method = m.get("method")
        if method == "Runtime.consoleAPICalled":
            self.console.append("console.%s: %s" % (m["params"]["type"], " ".join(
                str(a.get("value", a.get("description", ""))) for a in m["params"]["args"])))
        elif method == "Runtime.exceptionThrown":
            d = m["params"]["exceptionDetails"]
            self.console.append("uncaught: %s" % d.get("exception", {}).get("description",
                                                                             d.get("text")))
        elif method == "Log.entryAdded":
            e = m["params"]["entry"]
            self.console.append("log.%s: %s" % (e["level"], e["text"]))

    def recv(self, pred):
        """The first message pred accepts; events seen on the way are noted."""
        deadline = time.time() + self.timeout
        while time.time() < deadline:
            while b"\0" in self._buf:
                raw, self._buf = self._buf.split(b"\0", 1)
                m = json.loads(raw)
                self._note(m)
                if pred(m):
                    return m
            rd, _, _ = select.select([self._r], [], [], 0.5)
            if rd:
                chunk = os.read(self._r, 1 << 16)
                if not chunk:
                    break
                self._buf += chunk
        raise TimeoutError("no answer from chromium")

    def call(self, method, params=None, session=None):
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self._w, json.dumps(msg).encode() + b"\0")
        i = self._id
        m = self.recv(lambda m: m.get("id") == i)
        if "error" in m:
            raise RuntimeError("%s: %s" % (method, m["error"]))
        return m["result"]

    def open(self, url, width, height):
        """The browser's page, its viewport width x height CSS px, at url,
        after its load event (console and exceptions recorded from here)."""
        tid = [t for t in self.call("Target.getTargets")["targetInfos"]
               if t["type"] == "page"][0]["targetId"]
        sid = self.call("Target.attachToTarget", {"targetId": tid, "flatten": True})["sessionId"]
        page = Page(self, sid)
        for domain in ("Page", "Runtime", "Log"):
            page.call(domain + ".enable")
        page.call("Emulation.setDeviceMetricsOverride", {"width": width, "height": height,
                                                         "deviceScaleFactor": 1,
                                                         "mobile": False})
        page.call("Page.navigate", {"url": url})
        self.recv(lambda m: m.get("method") == "Page.loadEventFired" and
                  m.get("sessionId") == sid)
        return page

    def close(self):
        try:
            self.call("Browser.close")
        except (TimeoutError, RuntimeError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for fd in (self._w, self._r):
            try:
                os.close(fd)
            except OSError:
                pass
        self._err.close()
