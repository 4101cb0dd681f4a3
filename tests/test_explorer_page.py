"""The explorer's page in a real headless Chromium (Debian's chromium and chromium-driver, driven
by Selenium): choose a benchmark, take three actions, check the tree and the rewards shown, go
back one state and branch from it, then the database view. Screenshots are kept under
tests/artifacts/ (the test prints their paths)."""

import shutil
import time
from pathlib import Path

import httpx
import pytest
from test_explorer_api import CRC32, REWARD, ExplorerServer, episode

import compiler_gym
from compiler_gym.wrappers import SynchronousSqliteLogger

pytestmark = pytest.mark.timeout(180)

ARTIFACTS = Path(__file__).parent / "artifacts"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")

if CHROMIUM is None or CHROMEDRIVER is None:
    pytest.skip(
        "Chromium and its driver are not installed (Debian: apt-get install chromium "
        "chromium-driver)",
        allow_module_level=True,
    )
webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    db = tmp_path_factory.mktemp("explorer_page") / "explored.db"
    env = SynchronousSqliteLogger(
        compiler_gym.make("llvm-v0", benchmark=CRC32, reward_space=REWARD), db_path=db
    )
    env.reset()
    env.multistep(["-mem2reg", "-gvn"])
    env.close()
    with ExplorerServer("--db", str(db)) as s:
        yield s


@pytest.fixture(scope="module")
def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"):
        options.add_argument(argument)
    options.add_argument("--window-size=1400,1300")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    # The driver is given: Selenium Manager, which would download one, is never asked.
    driver = webdriver.Chrome(service=webdriver.ChromeService(CHROMEDRIVER), options=options)
    yield driver
    driver.quit()


def idle(browser):
    """Waits until the page has drawn everything it asked the server for."""
    WebDriverWait(browser, 60).until(
        lambda b: b.find_element(By.TAG_NAME, "body").get_attribute("data-busy") == "false"
    )
    error = browser.find_element(By.ID, "error")
    assert not error.is_displayed(), error.text


def tree(browser):
    """The tree shown: (id, parent, action) per node, and the current node's id."""
    nodes = browser.find_elements(By.CSS_SELECTOR, "#tree g.node")
    shape = sorted(
        (
            int(n.get_attribute("data-id")),
            int(n.get_attribute("data-parent")) if n.get_attribute("data-parent") else None,
            n.get_attribute("data-action"),
        )
        for n in nodes
    )
    current = [
        int(n.get_attribute("data-id")) for n in nodes if "current" in n.get_attribute("class")
    ]
    return shape, current


def console_errors(browser):
    """The page's errors in the browser's console since the last call (scripts that failed,
    requests answered with an error)."""
    return [e["message"] for e in browser.get_log("browser") if e["level"] == "SEVERE"]


def shown(browser, element_id):
    return browser.find_element(By.ID, element_id).get_property("textContent")


def screenshot(browser, name):
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / name
    assert browser.save_screenshot(str(path))
    print(f"screenshot: {path}")
    return path


def test_three_actions_then_back_and_branch(server, browser):
    flags = ["-mem2reg", "-gvn", "-simplifycfg"]
    expected = episode(flags)
    browser.get(server.url + "/")
    idle(browser)
    Select(browser.find_element(By.ID, "benchmark")).select_by_value(CRC32)
    assert Select(browser.find_element(By.ID, "reward")).first_selected_option.text == REWARD
    browser.find_element(By.ID, "start").click()
    idle(browser)
    assert tree(browser) == ([(0, None, "")], [0])
    assert shown(browser, "headline") == str(expected[0]["ir_instruction_count"])
    total = 0.0
    for k, flag in enumerate(flags, start=1):
        Select(browser.find_element(By.ID, "action")).select_by_visible_text(flag)
        browser.find_element(By.ID, "step").click()
        idle(browser)
        total += expected[k]["reward"]
        shown_total = browser.find_element(By.ID, "cumulative-reward")
        assert float(shown_total.get_attribute("data-value")) == pytest.approx(total)
        assert shown_total.text == f"{total:.4f}"
    assert tree(browser) == (
        [(0, None, ""), (1, 0, flags[0]), (2, 1, flags[1]), (3, 2, flags[2])],
        [3],
    )
    assert shown(browser, "reward-value") == f"+{expected[3]['reward']:.4f}"
    assert shown(browser, "text") == expected[3]["ir"]
    assert shown(browser, "headline") == str(expected[3]["ir_instruction_count"])
    bars = browser.find_elements(By.CSS_SELECTOR, "#autophase-chart g.bar")
    assert {b.get_attribute("data-name"): int(b.get_attribute("data-value")) for b in bars} == (
        expected[3]["autophase"]
    )
    assert len(browser.find_elements(By.CSS_SELECTOR, "#instcount-chart g.bar")) == 70
    # The reward chart has a point per state of the path.
    assert len(browser.find_elements(By.CSS_SELECTOR, "#reward-chart circle.point")) == 4
    screenshot(browser, "explorer_three_actions.png")

    # Back one state: the tree keeps every state, the state shown is the previous one.
    browser.find_element(By.ID, "back").click()
    idle(browser)
    shape, current = tree(browser)
    assert len(shape) == 4 and current == [2]
    back_total = expected[1]["reward"] + expected[2]["reward"]
    assert shown(browser, "cumulative-reward") == f"{back_total:.4f}"
    assert shown(browser, "text") == expected[2]["ir"]
    screenshot(browser, "explorer_back_one.png")

    # Another action from there: a branch, with the env's reward for it.
    Select(browser.find_element(By.ID, "action")).select_by_visible_text("-sroa")
    browser.find_element(By.ID, "step").click()
    idle(browser)
    branch = episode(["-mem2reg", "-gvn", "-sroa"])
    shape, current = tree(browser)
    assert shape[-1] == (4, 2, "-sroa") and current == [4]
    assert float(
        browser.find_element(By.ID, "cumulative-reward").get_attribute("data-value")
    ) == pytest.approx(back_total + branch[3]["reward"])
    # Clicking a node in the tree goes back to it too.
    browser.find_element(By.CSS_SELECTOR, '#tree g.node[data-id="1"] circle').click()
    idle(browser)
    assert tree(browser)[1] == [1]
    assert shown(browser, "cumulative-reward") == f"{expected[1]['reward']:.4f}"
    assert shown(browser, "text") == expected[1]["ir"]
    assert console_errors(browser) == []


def test_database_view(server, browser):
    browser.get(server.url + "/")
    idle(browser)
    tab = browser.find_element(By.ID, "tab-db")
    assert tab.is_displayed()
    tab.click()
    idle(browser)
    expected = episode(["-mem2reg", "-gvn"])
    assert tree(browser) == ([(0, None, ""), (1, 0, "-mem2reg"), (2, 1, "-gvn")], [0])
    browser.find_element(By.CSS_SELECTOR, '#tree g.node[data-id="2"] circle').click()
    idle(browser)
    total = expected[1]["reward"] + expected[2]["reward"]
    assert shown(browser, "cumulative-reward") == f"{total:.4f}"
    assert shown(browser, "headline") == str(expected[2]["ir_instruction_count"])
    screenshot(browser, "explorer_database.png")
    # From the database's state to a live session that starts there.
    browser.find_element(By.ID, "explore-from").click()
    idle(browser)
    assert tree(browser) == ([(0, None, ""), (1, 0, "-mem2reg"), (2, 1, "-gvn")], [2])
    assert shown(browser, "text") == expected[2]["ir"]
    assert console_errors(browser) == []


def test_page_without_a_database_and_its_errors(browser):
    with ExplorerServer() as bare:
        browser.get(bare.url + "/")
        idle(browser)
        assert not browser.find_element(By.ID, "tab-db").is_displayed()
        assert not browser.find_element(By.ID, "db-controls").is_displayed()
        # A benchmark typed in, not in the list: the server's error is shown, nothing else moves.
        uri = browser.find_element(By.ID, "benchmark-uri")
        uri.send_keys("benchmark://builtin-v0/no-such-program")
        browser.find_element(By.ID, "start").click()
        WebDriverWait(browser, 60).until(
            lambda b: b.find_element(By.TAG_NAME, "body").get_attribute("data-busy") == "false"
        )
        error = browser.find_element(By.ID, "error")
        assert error.is_displayed()
        assert error.text == "Benchmark not found: benchmark://builtin-v0/no-such-program"
        assert tree(browser) == ([], [])
        assert browser.find_element(By.ID, "step").get_property("disabled") is True
        # The request that failed is the console's only error.
        errors = console_errors(browser)
        assert len(errors) == 1 and "404" in errors[0]
        uri.clear()
        uri.send_keys("benchmark://builtin-v0/qsort")
        browser.find_element(By.ID, "start").click()
        idle(browser)
        qsort = episode([], benchmark="benchmark://builtin-v0/qsort")[0]
        assert shown(browser, "headline") == str(qsort["ir_instruction_count"])
        assert tree(browser) == ([(0, None, "")], [0])
        assert console_errors(browser) == []

        # A start that fails keeps the session shown, which goes on stepping: the page stops
        # the old session only once a new one has started.
        session = shown(browser, "status")
        uri.clear()
        uri.send_keys("benchmark://builtin-v0/no-such-program")
        browser.find_element(By.ID, "start").click()
        WebDriverWait(browser, 60).until(
            lambda b: b.find_element(By.TAG_NAME, "body").get_attribute("data-busy") == "false"
        )
        assert browser.find_element(By.ID, "error").is_displayed()
        assert len(console_errors(browser)) == 1  # the 404 of the start
        assert shown(browser, "status") == session
        Select(browser.find_element(By.ID, "action")).select_by_visible_text("-mem2reg")
        browser.find_element(By.ID, "step").click()
        idle(browser)
        assert tree(browser) == ([(0, None, ""), (1, 0, "-mem2reg")], [1])
        mem2reg = episode(["-mem2reg"], benchmark="benchmark://builtin-v0/qsort")[1]
        assert shown(browser, "headline") == str(mem2reg["ir_instruction_count"])

        # A start that succeeds replaces the session, and the old one is stopped.
        uri.clear()
        browser.find_element(By.ID, "start").click()
        idle(browser)
        assert shown(browser, "status") != session and tree(browser) == ([(0, None, "")], [0])
        old = session.removeprefix("session ")
        with httpx.Client(base_url=bare.url, timeout=60) as client:
            deadline = time.monotonic() + 30  # the page does not wait for the stop
            while client.get(f"/api/v4/step/{old}/-mem2reg").status_code != 404:
                assert time.monotonic() < deadline, "the old session was not stopped"
                time.sleep(0.1)
        assert console_errors(browser) == []
