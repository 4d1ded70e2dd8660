"""The inspector in a real browser: Debian's headless Chromium driven by Selenium through
the system chromedriver, against the real ``waymarks ui`` process over a real home.

Loads the overview, opens an item, runs an explain, supersedes a claim and sees a
conflicting supersede refused with its conflicting ID, confirms a pin; hostile stored text
(script tags, ``javascript:`` links, a right-to-left override, the planner's end markers)
is shown as text and runs nothing: no dialog, no navigation away, no console error. A
refusal answered with 400 (an over-long field) is swapped into the page and seen: htmx 2
swaps no 4xx by default, the inspector's configuration does. The run takes screenshots of
the overview, an item page and an explain page; with ``WAYMARKS_SCREENSHOTS=1`` it saves
them into ``docs/screenshots/`` (shown in docs/web.md), else into a temporary folder, so a
test run leaves the repository as it was.

Chromium comes from the test setup: when it is missing, the session fixture installs
``chromium`` and ``chromium-driver`` with apt-get (as CI runs, as root); only a machine
without apt, or a user other than root where they are missing, skips, and says so.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.install_once import install_once
from tests.web.conftest import HOSTILE

pytestmark = pytest.mark.slow
SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"


@pytest.fixture(scope="session")
def chromium() -> tuple[str, str]:
    """The system Chromium and its driver, installed with apt-get when missing."""
    if not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)):
        apt = shutil.which("apt-get")
        if apt is None:
            pytest.skip("no apt-get on this machine to install Debian's chromium and "
                        "chromium-driver (CI has it)")
        if os.geteuid() != 0:  # apt-get would fail: a failure of the machine, not the code
            pytest.skip("installing Debian's chromium and chromium-driver takes root: "
                        "install them (sudo apt-get install chromium chromium-driver) or "
                        "run the suite as root, as CI does")
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}

        def run_apt() -> None:
            subprocess.run([apt, "update"], check=True, env=env, capture_output=True)
            subprocess.run([apt, "install", "-y", "--no-install-recommends", "chromium",
                            "chromium-driver"], check=True, env=env, capture_output=True)

        install_once(Path(tempfile.gettempdir()) / "waymarks-tests-chromium.lock",
                     lambda: os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER), run_apt)
    return CHROMIUM, CHROMEDRIVER


@pytest.fixture
def server(seeded: dict[str, str], home: Path, project: Path) -> Iterator[str]:
    env = {**os.environ, "WAYMARKS_HOME": str(home), "NO_COLOR": "1"}
    process = subprocess.Popen([sys.executable, "-m", "waymarks.cli.main", "ui", "--port",
                                "0"], cwd=project, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        lines = [process.stdout.readline() for _ in range(2)]
        url = next((line.strip() for line in lines if line.strip().startswith("http://")),
                   None)
        assert url is not None, "".join(lines) + (process.stderr.read() if process.stderr
                                                  else "")
        yield url
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture
def browser(chromium: tuple[str, str]) -> Iterator[Any]:
    yield from _driver(chromium)


@pytest.fixture
def scriptless_browser(chromium: tuple[str, str]) -> Iterator[Any]:
    """Chromium with JavaScript off: every form is the browser's own navigation."""
    yield from _driver(chromium, script=False)


def _driver(chromium: tuple[str, str], script: bool = True) -> Iterator[Any]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = chromium[0]
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                     "--disable-gpu", "--window-size=1400,1000", "--lang=en-US"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    if not script:
        options.add_experimental_option(
            "prefs", {"profile.managed_default_content_settings.javascript": 2})
    driver = webdriver.Chrome(service=Service(executable_path=chromium[1]), options=options)
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()


def _wait(driver: Any, predicate: Callable[[Any], Any], timeout: float = 30) -> Any:
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout).until(predicate)


def _text_of(driver: Any, css: str) -> str:
    from selenium.webdriver.common.by import By

    return str(driver.find_element(By.CSS_SELECTOR, css).text)


def _has(css: str, text: str = "") -> Callable[[Any], bool]:
    from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
    from selenium.webdriver.common.by import By

    def check(driver: Any) -> bool:
        try:
            return text in driver.find_element(By.CSS_SELECTOR, css).text
        except (NoSuchElementException, StaleElementReferenceException):
            return False

    return check


def _no_dialog(driver: Any) -> None:
    from selenium.common.exceptions import NoAlertPresentException

    with pytest.raises(NoAlertPresentException):
        driver.switch_to.alert.text  # noqa: B018 (an alert would be the hostile script)


def _console_errors(driver: Any) -> list[str]:
    return [entry["message"] for entry in driver.get_log("browser")
            if entry.get("level") == "SEVERE"]


def _submit(driver: Any, css: str) -> None:
    from selenium.webdriver.common.by import By

    driver.find_element(By.CSS_SELECTOR, css).click()


def _confirm(driver: Any) -> None:
    _wait(driver, _has("#command-line", "waymarks"))
    _submit(driver, "#confirm-submit")
    _wait(driver, _has("#outcome"))


def _digests(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.glob("*.png"))} if folder.is_dir() else {}


def test_the_inspector_in_a_real_browser(server: str, browser: Any, seeded: dict[str, str],
                                         cli: Callable[..., dict], tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    keep = os.environ.get("WAYMARKS_SCREENSHOTS") == "1"
    shots = SCREENSHOTS if keep else tmp_path / "screenshots"
    committed = _digests(SCREENSHOTS)

    conflicting = cli("memory", "add", "--", "Package export mode defaults to PerEndpoint.")
    other = cli("memory", "add", "--", "Deploys go to staging first.")["id"]
    base = server.split("/?")[0]
    driver = browser

    # the overview: the token is traded for a cookie, hostile text is text and inert
    driver.get(server)
    _wait(driver, _has("#memory h2", "Memory"))
    driver.execute_script("console.error('probe')")  # the console check can see errors
    assert any("probe" in message for message in _console_errors(driver))
    assert driver.current_url == base + "/"  # the token left the address bar
    page_text = driver.find_element(By.TAG_NAME, "body").text
    for name in ("script", "img", "link", "marker"):
        assert HOSTILE[name].split(" ")[0] in page_text, name
    assert "<script>alert('pin')</script>" in page_text
    assert "\\u202egnp.exe\\u202c" in page_text  # the override is shown, not obeyed
    assert not driver.find_elements(By.CSS_SELECTOR, "main script, main img, "
                                                     "main a[href^='javascript']")
    driver.execute_script("window.scrollTo(0, 0)")
    shots.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(shots / "overview.png"))
    _no_dialog(driver)

    # an item: provenance and the supersede chain
    prefix = base.split("/", 3)[3]  # the launch's path, which every link starts with
    driver.find_element(By.CSS_SELECTOR,
                        f"a[href^='/{prefix}/item/memory/{seeded['port2']}']").click()
    _wait(driver, _has("#item-id", seeded["port2"]))
    assert seeded["port"][:8] in _text_of(driver, "#chain")
    driver.save_screenshot(str(shots / "item.png"))

    # explain: blocks, recall, privacy
    driver.find_element(By.ID, "nav-explain").click()
    _wait(driver, _has("#explain-form"))
    driver.find_element(By.NAME, "prompt").send_keys(
        "which host is the staging database on")
    Select(driver.find_element(By.NAME, "provider")).select_by_value("remote")
    _submit(driver, "#explain-submit")
    _wait(driver, _has("#injected", "pins"))
    assert "Always run the tests" in _text_of(driver, "#injected")
    assert seeded["secretish"][:8] in _text_of(driver, "#withheld")  # local-only: withheld
    assert "quokka" not in driver.find_element(By.TAG_NAME, "body").text
    driver.save_screenshot(str(shots / "explain.png"))

    # a supersede, confirmed on the page
    driver.get(f"{base}/item/memory/{seeded['port2']}")
    _wait(driver, _has("#supersede-form"))
    driver.find_element(By.CSS_SELECTOR, "#supersede-form textarea").send_keys(
        "The database port is 6543.")
    _submit(driver, "#supersede-submit")
    _confirm(driver)
    assert "Recorded memory" in _text_of(driver, "#outcome")
    assert cli("memory", "show", seeded["port2"])["item"]["status"] == "superseded"

    # a conflicting supersede: refused, with the conflicting ID linked
    driver.get(f"{base}/item/memory/{other}")
    _wait(driver, _has("#supersede-form"))
    driver.find_element(By.CSS_SELECTOR, "#supersede-form textarea").send_keys(
        "Package export mode defaults to SingleFile.")
    _submit(driver, "#supersede-submit")
    _wait(driver, _has("#outcome"))  # checked before asking: refused without a question
    assert "Refused (conflict)" in _text_of(driver, "#outcome")
    assert not driver.find_elements(By.CSS_SELECTOR, "#confirm-submit")
    assert conflicting["id"] in _text_of(driver, "#conflicts")
    assert cli("memory", "show", other)["item"]["status"] == "active"

    # a refusal answered with 400 is swapped in and seen, not a click that does nothing
    driver.get(f"{base}/item/memory/{other}")
    _wait(driver, _has("#supersede-form"))
    _no_dialog(driver)
    assert _console_errors(driver) == []  # nothing before the refusal
    area = driver.find_element(By.CSS_SELECTOR, "#supersede-form textarea")
    driver.execute_script("arguments[0].value = arguments[1]", area, "y" * 20_001)
    _submit(driver, "#supersede-submit")
    _wait(driver, _has("#problem", "longer than 20,000"))
    assert "Nothing was done" in _text_of(driver, "main h1")
    assert cli("memory", "show", other)["item"]["status"] == "active"
    # the browser notes the 400 itself; nothing else (htmx reports no error of its own)
    assert all("status of 400" in m for m in _console_errors(driver))

    # a pin, confirmed on the page
    driver.get(base + "/")
    _wait(driver, _has("#new-pin"))
    driver.find_element(By.CSS_SELECTOR, "#new-pin summary").click()
    driver.find_element(By.CSS_SELECTOR, "#pin-form textarea").send_keys(
        "Answer in English.")
    _submit(driver, "#pin-submit")
    _confirm(driver)
    assert "Pinned pin" in _text_of(driver, "#outcome")
    assert any(p["text"] == "Answer in English." for p in cli("pins")["items"])
    # the action's POST URL stays out of history: a reload shows a page, and so does
    # Back (both were "Method Not Allowed" once htmx had pushed /confirm and /act)
    assert not re.search(r"/(confirm|act)\b", driver.current_url), driver.current_url
    driver.refresh()
    _wait(driver, _has("#memory h2", "Memory"))
    driver.back()
    _wait(driver, _has("main h1"))
    assert "Method Not Allowed" not in driver.find_element(By.TAG_NAME, "body").text

    # nothing ran: no dialog, never off the inspector, no console error
    driver.get(base + "/")
    _wait(driver, _has("#memory h2", "Memory"))
    _no_dialog(driver)
    assert re.match(re.escape(base) + r"/", driver.current_url)
    assert _console_errors(driver) == []

    # the screenshots: real PNGs; the committed ones rewritten only when asked for
    for name in ("overview.png", "item.png", "explain.png"):
        assert (shots / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", name
    if not keep:
        assert _digests(SCREENSHOTS) == committed


def test_the_page_ui_open_starts_the_browser_with_reaches_the_inspector(
        server: str, browser: Any) -> None:
    """``ui --open`` hands the browser a local page that moves it on to the token's URL
    (a command line shows every user the URL). The token was traded by a redirect, and a
    redirect chain a local file started does not carry the new SameSite=Strict cookie:
    the inspector answered "No token"."""
    from waymarks.web.server import launch_page

    page = launch_page(server)
    try:
        browser.get(page.as_uri())
        _wait(browser, lambda driver: "Waymarks inspector" in driver.title
              and "No token" not in driver.page_source)
        assert browser.current_url.rstrip("/") == server.split("?")[0].rstrip("/")
        assert "token=" not in browser.current_url
    finally:
        page.unlink()


def test_another_local_server_the_browser_visits_never_gets_the_inspectors_cookie(
        server: str, browser: Any) -> None:
    """Cookies ignore ports: with ``Path=/`` the browser sent the inspector's cookie (a
    bearer credential of the launch) to every server on 127.0.0.1 it visited, and one of
    them read the page and pinned text with it (found in a security review). The cookie's
    path is the launch's own now. A real server on another port records what it gets."""
    import http.server
    import threading

    seen: list[str] = []

    class Recording(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            seen.append(self.headers.get("Cookie") or "")
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(b"<title>elsewhere</title>")

        def log_message(self, *_: Any) -> None:
            pass

    other = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Recording)
    threading.Thread(target=other.serve_forever, daemon=True).start()
    try:
        browser.get(server)
        _wait(browser, lambda driver: "Waymarks inspector" in driver.title)
        assert "waymarks_ui_" in str(browser.get_cookies())  # the browser holds it
        port = other.server_address[1]
        for path in ("/", "/s/", "/item/memory/x"):
            browser.get(f"http://127.0.0.1:{port}{path}")
            _wait(browser, lambda driver: "elsewhere" in driver.title)
        assert len(seen) >= 3 and not any("waymarks_ui_" in cookie for cookie in seen), seen
    finally:
        other.shutdown()
        other.server_close()


def test_a_page_without_script_can_still_act(server: str, scriptless_browser: Any,
                                             cli: Callable[..., dict]) -> None:
    """Without htmx (script off, or a click before the deferred script ran) a form is the
    browser's own POST, and under the pages' no-referrer policy Chromium sends it with
    ``Origin: null``: the pin and its confirmation were refused as cross-origin."""
    from selenium.webdriver.common.by import By

    driver = scriptless_browser
    driver.get(server)
    _wait(driver, _has("#memory h2", "Memory"))
    driver.find_element(By.CSS_SELECTOR, "#new-pin summary").click()
    driver.find_element(By.CSS_SELECTOR, "#pin-form textarea").send_keys(
        "Pinned by a browser without script.")
    _submit(driver, "#pin-submit")
    _wait(driver, lambda d: "Cross-origin" in d.page_source or d.find_elements(
        By.CSS_SELECTOR, "#command-line"))
    assert "Cross-origin" not in driver.page_source
    _confirm(driver)
    assert "Pinned pin" in _text_of(driver, "#outcome")
    assert any(p["text"] == "Pinned by a browser without script." for p in cli("pins")["items"])
