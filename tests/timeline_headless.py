"""Loads a `pto run --timeline OUT.json` trace in a headless Chromium: the trace engine of
Chrome DevTools' Performance panel (`devtools://devtools/bundled/devtools_app.html`,
`models/trace/trace.js`, the importer that panel uses for a trace file) parses it, and this
prints what it built, as JSON on stdout:

    {"events": N, "threads": [[pid, tid, name, complete_events], ...], "warnings": [...]}

`tests/timeline.rs` compares that with the trace itself. Only the standard library: the browser
is driven over the DevTools protocol on a pipe (`--remote-debugging-pipe`: fd 3 in, fd 4 out,
NUL-separated JSON). Exit 2 with a message when the browser cannot be started or the page fails.

    python3 tests/timeline_headless.py CHROMIUM TRACE.json
"""

import fcntl
import json
import os
import subprocess
import sys
import tempfile
import time

# Runs in the DevTools page: parse the trace with the Performance panel's model and describe it.
PARSE = """
(async (text) => {
  const T = await import('./models/trace/trace.js');
  const model = T.TraceModel.Model.createWithAllHandlers();
  await model.parse(JSON.parse(text).traceEvents, {metadata: {}, isFreshRecording: false});
  const parsed = model.parsedTrace(0);
  const threads = [];
  for (const [pid, proc] of parsed.data.Renderer.processes) {
    for (const [tid, thread] of proc.threads) {
      threads.push([Number(pid), Number(tid), thread.name || '', thread.entries.length]);
    }
  }
  return JSON.stringify({
    events: parsed.traceEvents.length,
    threads,
    warnings: [...parsed.data.Warnings.perWarning.keys()],
  });
})
"""

TIMEOUT_S = 60


class Browser:
    """A headless Chromium and its DevTools-protocol pipe."""

    def __init__(self, chromium: str):
        # The browser's helper processes may still be writing the profile as it goes: its
        # removal is best effort.
        self.profile = tempfile.TemporaryDirectory(prefix="pto-headless-", ignore_cleanup_errors=True)
        # Every pipe end above fd 10, so that placing the browser's ends on 3 and 4 in the child
        # overwrites none of them.
        to_browser_r, self.to_browser = (high(fd) for fd in os.pipe())
        self.from_browser, from_browser_w = (high(fd) for fd in os.pipe())

        def browser_fds() -> None:  # in the child, before exec
            os.dup2(to_browser_r, 3)
            os.dup2(from_browser_w, 4)

        try:
            self.proc = subprocess.Popen(
                [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
                 f"--user-data-dir={self.profile.name}", "about:blank"],
                preexec_fn=browser_fds, pass_fds=(3, 4), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        except OSError as e:
            fail(f"cannot start {chromium}: {e}")
        os.close(to_browser_r)
        os.close(from_browser_w)
        self.buffer = b""
        self.next_id = 0

    def call(self, method: str, params: dict, session: str | None = None) -> dict:
        """Sends one command and returns its result (messages in between are events: dropped)."""
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params}
        if session:
            msg["sessionId"] = session
        os.write(self.to_browser, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + TIMEOUT_S
        while time.monotonic() < deadline:
            while b"\0" not in self.buffer:
                chunk = os.read(self.from_browser, 1 << 16)
                if not chunk:
                    fail(f"the browser closed its pipe during {method}")
                self.buffer += chunk
            raw, self.buffer = self.buffer.split(b"\0", 1)
            reply = json.loads(raw)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    fail(f"{method}: {reply['error']}")
                return reply["result"]
        fail(f"no reply to {method} in {TIMEOUT_S} s")
        return {}

    def close(self) -> None:
        """Asks the browser to quit (it ends its helper processes), else kills it."""
        try:
            os.write(self.to_browser, json.dumps({"id": self.next_id + 1, "method": "Browser.close"}).encode() + b"\0")
            self.proc.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()
        self.profile.cleanup()


def high(fd: int) -> int:
    """`fd` moved to a descriptor number of at least 10 (not inherited)."""
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return moved


def fail(why: str) -> None:
    print(f"timeline_headless: {why}", file=sys.stderr)
    sys.exit(2)


def main() -> None:
    if len(sys.argv) != 3:
        fail("usage: timeline_headless.py CHROMIUM TRACE.json")
    chromium, trace_path = sys.argv[1], sys.argv[2]
    with open(trace_path, encoding="utf-8") as f:
        text = f.read()
    browser = Browser(chromium)
    try:
        target = browser.call("Target.createTarget", {"url": "devtools://devtools/bundled/devtools_app.html"})
        session = browser.call("Target.attachToTarget", {"targetId": target["targetId"], "flatten": True})["sessionId"]
        deadline = time.monotonic() + TIMEOUT_S
        while True:
            state = browser.call("Runtime.evaluate", {"expression": "document.readyState", "returnByValue": True}, session)
            if state["result"].get("value") == "complete":
                break
            if time.monotonic() > deadline:
                fail("the DevTools page did not load")
            time.sleep(0.1)
        result = browser.call(
            "Runtime.evaluate",
            {"expression": f"({PARSE})({json.dumps(text)})", "awaitPromise": True, "returnByValue": True},
            session)
        if "exceptionDetails" in result:
            fail(f"the trace engine threw: {result['exceptionDetails'].get('exception', {}).get('description')}")
        print(result["result"]["value"])
    finally:
        browser.close()


if __name__ == "__main__":
    main()
