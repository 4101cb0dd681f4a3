"""The explorer's page in a real headless Chromium (Debian's chromium and chromium-driver, driven
by Selenium): choose a benchmark with the picker, take three actions, check the tree and the
rewards shown, go back one state and branch from it; a shared link that opens a state 13
actions deep, whose tree shows every level with its labels in full (zoomed, collapsed); the
diff against the parent and the ranking of every action; a command line replayed; the database
view. Screenshots are kept under tests/artifacts/ (the test prints their paths), each beside
the structure measured in the browser when it was taken (panels shown, each tree label's
text, whether it is cut or outside the tree's visible box), which the tests compare."""

import difflib
import json
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
from selenium.webdriver.common.keys import Keys  # noqa: E402
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
    nodes = browser.find_elements(By.CSS_SELECTOR, "#tree .node")
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


# What the page shows, measured in the browser: which panels are displayed, and per tree row
# its id, depth, guide cells, label and reward texts, and whether the label is cut (its
# content wider than its box) or lies outside the tree's visible box (scrolled away).
STRUCTURE = """
const tree = document.getElementById("tree");
const box = tree.getBoundingClientRect();
const right = box.left + tree.clientLeft + tree.clientWidth;
const bottom = box.top + tree.clientTop + tree.clientHeight;
const rows = [...tree.querySelectorAll(".node")].map((row) => {
  const label = row.querySelector(".label");
  const r = label.getBoundingClientRect();
  return {
    id: Number(row.dataset.id),
    depth: Number(row.dataset.depth),
    guides: [...row.querySelectorAll(".guide")].map((g) => g.classList[1]),
    label: label.textContent,
    reward: row.querySelector(".reward").textContent,
    hidden: row.querySelector(".hidden-count")?.textContent ?? null,
    cut: label.scrollWidth > label.clientWidth || r.width < 1,
    inside: r.left >= box.left && r.right <= right + 0.5
      && r.top >= box.top && r.bottom <= bottom + 0.5,
    font: parseFloat(getComputedStyle(label).fontSize),
  };
});
const panels = {};
for (const id of ["tree-panel", "state-panel", "ranking-panel", "text-panel", "text", "diff",
                  "reward-chart", "autophase-chart", "instcount-chart", "share-url", "replay"]) {
  const e = document.getElementById(id);
  panels[id] = Boolean(e && e.offsetParent !== null && e.getBoundingClientRect().width > 0);
}
return {rows, panels, treeScrolls: tree.scrollWidth > tree.clientWidth};
"""


def structure(browser) -> dict:
    return browser.execute_script(STRUCTURE)


def screenshot(browser, name):
    """Saves a screenshot and, beside it, the page's structure then (``NAME.json``), which it
    returns for the test to compare."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / name
    assert browser.save_screenshot(str(path))
    measured = structure(browser)
    path.with_suffix(".json").write_text(json.dumps(measured, indent=1))
    print(f"screenshot: {path}")
    return measured


def choose_benchmark(browser, query, uri):
    """Types ``query`` into the picker and chooses ``uri`` from its matches."""
    field = browser.find_element(By.ID, "benchmark")
    field.clear()
    field.send_keys(query)
    option = f'#benchmark-list li[data-uri="{uri}"]'
    WebDriverWait(browser, 60).until(
        lambda b: (
            b.find_elements(By.CSS_SELECTOR, option)
            and b.find_element(By.ID, "benchmark-list").is_displayed()
        )
    )
    browser.find_element(By.CSS_SELECTOR, option).click()
    assert field.get_attribute("value") == uri
    assert not browser.find_element(By.ID, "benchmark-list").is_displayed()


def test_three_actions_then_back_and_branch(server, browser):
    flags = ["-mem2reg", "-gvn", "-simplifycfg"]
    expected = episode(flags)
    browser.get(server.url + "/")
    idle(browser)
    choose_benchmark(browser, "crc", CRC32)
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
    browser.find_element(By.CSS_SELECTOR, '#tree .node[data-id="1"] .label').click()
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
    browser.find_element(By.CSS_SELECTOR, '#tree .node[data-id="2"] .label').click()
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
        uri = browser.find_element(By.ID, "benchmark")
        uri.clear()
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


# An episode 13 actions deep: more levels than the old tree showed with their labels.
DEEP = [
    "-mem2reg",
    "-instcombine",
    "-simplifycfg",
    "-gvn",
    "-sroa",
    "-early-cse",
    "-licm",
    "-loop-rotate",
    "-dse",
    "-adce",
    "-jump-threading",
    "-reassociate",
    "-sccp",
]


def step(browser, flag):
    Select(browser.find_element(By.ID, "action")).select_by_visible_text(flag)
    browser.find_element(By.ID, "step").click()
    idle(browser)


def select_state(browser, node):
    browser.find_element(By.CSS_SELECTOR, f'#tree .node[data-id="{node}"] .label').click()
    idle(browser)


def test_a_shared_link_opens_a_deep_tree_with_every_label_in_full(server, browser):
    """A link names a benchmark, a reward and the actions: the page opens at that state. Its
    13 levels and a branch are all shown at once, every label whole; rewards of a count are
    integers; the tree zooms and collapses."""
    link = f"{server.url}/#benchmark={CRC32}&reward=IrInstructionCount&actions={','.join(DEEP)}"
    browser.get(link)
    idle(browser)
    expected = episode(DEEP, reward="IrInstructionCount")
    chain = [(0, None, "")] + [(k, k - 1, flag) for k, flag in enumerate(DEEP, start=1)]
    assert tree(browser) == (chain, [13])
    assert shown(browser, "text") == expected[13]["ir"]
    assert Select(browser.find_element(By.ID, "reward")).first_selected_option.text == (
        "IrInstructionCount"
    )
    # The state's own link is the one opened: the page's URL and the field to copy.
    assert browser.current_url == link
    assert browser.find_element(By.ID, "share-url").get_attribute("value") == link
    # Instruction counts are integers: "+429", not "+429.0000".
    rewards = [int(state["reward"]) for state in expected[1:]]
    assert all(state["reward"] == int(state["reward"]) for state in expected[1:])
    assert shown(browser, "cumulative-reward") == str(sum(rewards))
    assert shown(browser, "reward-value") == f"{rewards[-1]:+d}"

    # A branch of three from state 3: -gvn (the chain above), -gvn-hoist then -instsimplify,
    # and -dce.
    select_state(browser, 3)
    step(browser, "-gvn-hoist")
    step(browser, "-instsimplify")
    select_state(browser, 3)
    step(browser, "-dce")
    assert browser.current_url.endswith("&actions=-mem2reg,-instcombine,-simplifycfg,-dce")
    measured = screenshot(browser, "explorer_deep_tree.png")
    assert all(measured["panels"][p] for p in ("tree-panel", "state-panel", "ranking-panel"))
    rows = measured["rows"]
    labels = ["start"] + DEEP + ["-gvn-hoist", "-instsimplify", "-dce"]
    assert [(r["id"], r["label"]) for r in rows] == list(enumerate(labels))
    assert [r["depth"] for r in rows] == list(range(14)) + [4, 5, 4]
    # One column for the chain, one more for the branch, with its guides: ├ for the first two
    # children, └ for the last, │ down the first two children's chains.
    assert [r["guides"] for r in rows] == (
        [[]] * 4 + [["tee"]] + [["pipe"]] * 9 + [["tee"], ["pipe"], ["elbow"]]
    )
    # Every label whole and in view, at once: no label cut, none scrolled away.
    assert [r["label"] for r in rows if r["cut"] or not r["inside"]] == []
    assert not measured["treeScrolls"]
    assert [r["reward"] for r in rows[1:14]] == [f"{r:+d}" for r in rewards]

    # Zoomed in to 130% and out to 70%: the labels grow and shrink, always whole.
    for button, clicks, zoom in [("tree-zoom-in", 3, 1.3), ("tree-zoom-out", 6, 0.7)]:
        for _ in range(clicks):
            browser.find_element(By.ID, button).click()
        assert shown(browser, "tree-zoom-level") == f"{round(zoom * 100)}%"
        measured = structure(browser)
        (font,) = {r["font"] for r in measured["rows"]}
        assert font == pytest.approx(12 * zoom, abs=0.01)
        assert [r["label"] for r in measured["rows"] if r["cut"] or not r["inside"]] == []
    browser.find_element(By.ID, "tree-zoom-reset").click()
    assert {r["font"] for r in structure(browser)["rows"]} == {12}

    # Collapsing -gvn hides its chain of nine; expanding shows it again.
    toggle = '#tree .node[data-id="4"] .toggle'
    browser.find_element(By.CSS_SELECTOR, toggle).click()
    rows = structure(browser)["rows"]
    assert [r["id"] for r in rows] == [0, 1, 2, 3, 4, 14, 15, 16]
    assert rows[4]["hidden"] == "+9" and tree(browser)[1] == [16]
    browser.find_element(By.CSS_SELECTOR, toggle).click()
    assert len(structure(browser)["rows"]) == 17
    # "Collapse others" folds every state with children off the path to the state shown.
    browser.find_element(By.ID, "tree-focus").click()
    rows = structure(browser)["rows"]
    assert [(r["id"], r["hidden"]) for r in rows] == [
        (0, None),
        (1, None),
        (2, None),
        (3, None),
        (4, "+9"),
        (14, "+1"),
        (16, None),
    ]
    screenshot(browser, "explorer_deep_tree_collapsed.png")
    browser.find_element(By.ID, "tree-expand").click()
    assert len(structure(browser)["rows"]) == 17

    # Another link pasted into the same tab opens its state in a new session.
    session = shown(browser, "status")
    browser.execute_script(
        "location.hash = arguments[0]",
        f"#benchmark={CRC32}&reward=IrInstructionCountOz&actions=-mem2reg,-gvn",
    )
    WebDriverWait(browser, 60).until(lambda b: shown(b, "status") != session)
    idle(browser)
    assert tree(browser) == ([(0, None, ""), (1, 0, "-mem2reg"), (2, 1, "-gvn")], [2])
    two = episode(["-mem2reg", "-gvn"])
    assert shown(browser, "cumulative-reward") == f"{two[1]['reward'] + two[2]['reward']:.4f}"
    assert console_errors(browser) == []


def test_diff_against_the_parent_and_every_action_ranked(server, browser):
    browser.get(server.url + "/")
    idle(browser)
    choose_benchmark(browser, "crc32", CRC32)
    browser.find_element(By.ID, "start").click()
    idle(browser)
    step(browser, "-mem2reg")
    # The diff of -mem2reg's IR against the start state's, line by line.
    browser.find_element(By.ID, "diff-tab").click()
    idle(browser)
    expected = episode(["-mem2reg"])
    lines = list(
        difflib.unified_diff(
            expected[0]["ir"].splitlines(),
            expected[1]["ir"].splitlines(),
            "state 0",
            "state 1 (-mem2reg)",
            lineterm="",
        )
    )
    added = sum(1 for line in lines[2:] if line.startswith("+"))
    removed = sum(1 for line in lines[2:] if line.startswith("-"))
    assert shown(browser, "diff") == "\n".join(lines)
    assert shown(browser, "diff-summary") == (
        f"state #0 → #1 (-mem2reg): +{added} −{removed} lines"
    )
    assert len(browser.find_elements(By.CSS_SELECTOR, "#diff .line.add")) == added
    assert len(browser.find_elements(By.CSS_SELECTOR, "#diff .line.del")) == removed
    assert len(browser.find_elements(By.CSS_SELECTOR, "#diff .line.hunk")) == sum(
        1 for line in lines if line.startswith("@@")
    )

    # Every action ranked from here: the rewards of one try_actions, best first.
    browser.find_element(By.ID, "rank").click()
    idle(browser)
    with compiler_gym.make("llvm-v0", benchmark=CRC32, reward_space=REWARD) as env:
        env.reset()
        env.step(env.action_space["-mem2reg"])
        flags = env.action_space.flags
        rewards = env.try_actions(list(range(len(flags))))
    assert all(r == r for r in rewards)  # no action fails on crc32: none is NaN
    rows = browser.find_elements(By.CSS_SELECTOR, "#ranking tbody tr")
    shown_rows = [
        (r.get_attribute("data-action"), r.get_attribute("data-reward"), r.text.split())
        for r in rows
    ]
    order = sorted(range(len(flags)), key=lambda a: (-rewards[a], a))
    assert [action for action, _, _ in shown_rows] == [flags[a] for a in order]
    for (action, reward, cells), a in zip(shown_rows, order, strict=True):
        assert float(reward) == pytest.approx(rewards[a], abs=1e-12)
        assert cells[1:] == [action, f"{rewards[a]:+.4f}"]
    better = int((rewards > 0).sum())
    worse = int((rewards < 0).sum())
    assert shown(browser, "ranking-summary") == (
        f"121 actions: {better} better, {len(flags) - better - worse} the same, "
        f"{worse} worse, 0 failed"
    )
    assert browser.find_element(By.ID, "rank").get_property("disabled") is True
    measured = screenshot(browser, "explorer_diff_and_ranking.png")
    assert {k: measured["panels"][k] for k in ("ranking-panel", "diff", "text")} == {
        "ranking-panel": True,
        "diff": True,
        "text": False,
    }

    # A row of the ranking takes its action: the best, here, with the reward it was ranked by.
    rows[0].click()
    idle(browser)
    best = flags[order[0]]
    assert tree(browser) == ([(0, None, ""), (1, 0, "-mem2reg"), (2, 1, best)], [2])
    assert float(
        browser.find_element(By.ID, "reward-value").get_attribute("data-value")
    ) == pytest.approx(rewards[order[0]])
    assert shown(browser, "diff-summary").startswith(f"state #1 → #2 ({best}): ")
    assert browser.find_elements(By.CSS_SELECTOR, "#ranking tbody tr") == []
    assert browser.find_element(By.ID, "rank").get_property("disabled") is False
    # Back at state 1, its ranking is kept, with the state its best action made.
    select_state(browser, 1)
    first = browser.find_element(By.CSS_SELECTOR, "#ranking tbody tr")
    assert first.get_attribute("data-action") == best and "taken" in first.get_attribute("class")
    browser.find_element(By.ID, "text-tab").click()
    idle(browser)
    assert shown(browser, "text") == expected[1]["ir"]
    assert not browser.find_element(By.ID, "diff").is_displayed()
    assert console_errors(browser) == []


def test_a_command_line_pasted_is_replayed(server, browser):
    browser.get(server.url + "/")
    idle(browser)
    field = browser.find_element(By.ID, "replay")
    field.send_keys("opt-19 -passes='function(mem2reg),gvn' in.bc -o out.bc")
    browser.find_element(By.ID, "replay-start").click()
    idle(browser)
    qsort = "benchmark://builtin-v0/qsort"  # the benchmark chosen: the default
    assert tree(browser) == ([(0, None, ""), (1, 0, "-mem2reg"), (2, 1, "-gvn")], [2])
    assert shown(browser, "replay-note") == "ignored: opt-19 in.bc -o out.bc"
    assert shown(browser, "text") == episode(["-mem2reg", "-gvn"], benchmark=qsort)[2]["ir"]
    # A state CSV row brings its benchmark (Enter replays too).
    field.clear()
    field.send_keys(f"{CRC32},,0,opt -sroa input.bc -o output.bc" + Keys.ENTER)
    idle(browser)
    assert browser.find_element(By.ID, "benchmark").get_attribute("value") == CRC32
    assert tree(browser) == ([(0, None, ""), (1, 0, "-sroa")], [1])
    assert shown(browser, "text") == episode(["-sroa"])[1]["ir"]
    # A typo is refused with the closest action; the session shown stays.
    field.clear()
    field.send_keys("-mem2rg")
    browser.find_element(By.ID, "replay-start").click()
    WebDriverWait(browser, 60).until(
        lambda b: b.find_element(By.TAG_NAME, "body").get_attribute("data-busy") == "false"
    )
    assert shown(browser, "error") == "'-mem2rg' is not an action; did you mean '-mem2reg'?"
    assert tree(browser) == ([(0, None, ""), (1, 0, "-sroa")], [1])
    errors = console_errors(browser)
    assert len(errors) == 1 and "400" in errors[0]


def test_rewards_read_by_kind_and_deep_trees_lay_out(server, browser):
    """format.js and tree.js as the page imports them: each reward kind's text, and the rows
    of a chain 5,000 states deep (one column, no recursion) with a branch."""
    browser.get(server.url + "/")
    idle(browser)
    formats = browser.execute_async_script(
        """
        const done = arguments[arguments.length - 1];
        import("/static/format.js").then(({ formatReward }) => done([
          formatReward(1328, "bytes"), formatReward(-7, "count"), formatReward(0, "count"),
          formatReward(2.5, "count"), formatReward(1328, "count", { signed: false }),
          formatReward(0.02217742, "ratio"), formatReward(-0.5, "ratio", { signed: false }),
          formatReward(-0.00125, "seconds"), formatReward(2.345, "seconds"),
          formatReward(3.2e-7, "seconds"), formatReward(0, "seconds"),
          formatReward(18.6716765, "float"), formatReward(0.1, undefined),
          formatReward(null, "count"),
        ]));
        """
    )
    assert formats == [
        "+1328",
        "-7",
        "+0",
        "+2.5000",
        "1328",
        "+0.0222",
        "-0.5000",
        "-1.25 ms",
        "+2.35 s",
        "+320 ns",
        "+0 s",
        "+18.672",
        "+0.1000",
        "–",
    ]
    rows = browser.execute_async_script(
        """
        const done = arguments[arguments.length - 1];
        import("/static/tree.js").then(({ treeRows }) => {
          const nodes = [];
          for (let i = 0; i < 5000; i++) nodes.push({ id: i, parent: i ? i - 1 : null });
          nodes.push({ id: 5000, parent: 2 });  // a second child of state 2
          const rows = treeRows(nodes);
          const folded = treeRows(nodes, new Set([3]));
          done({
            count: rows.length,
            first: rows.slice(0, 5).map((r) => [r.id, r.depth, r.columns.join(" ")]),
            last: rows.slice(-2).map((r) => [r.id, r.depth, r.columns.join(" ")]),
            folded: folded.map((r) => [r.id, r.hidden]),
          });
        });
        """
    )
    assert rows == {
        "count": 5001,
        "first": [[0, 0, ""], [1, 1, ""], [2, 2, ""], [3, 3, "tee"], [4, 4, "pipe"]],
        "last": [[4999, 4999, "pipe"], [5000, 3, "elbow"]],
        "folded": [[0, 0], [1, 0], [2, 0], [3, 4996], [5000, 0]],
    }


def test_starts_and_rankings_that_outlast_the_request_are_polled(browser):
    """With no time at all for a request (--max-request-seconds 0), every start and ranking
    answers 202 with a job: the page asks the job's URL until it has the answer, and shows the
    session and the ranking as it would have."""
    with ExplorerServer("--max-request-seconds", "0") as slow:
        browser.get(f"{slow.url}/#benchmark={CRC32}&reward={REWARD}&actions=-mem2reg")
        idle(browser)
        assert tree(browser) == ([(0, None, ""), (1, 0, "-mem2reg")], [1])
        browser.find_element(By.ID, "rank").click()
        idle(browser)
        assert len(browser.find_elements(By.CSS_SELECTOR, "#ranking tbody tr")) == 121
        polled = browser.execute_script(
            "return performance.getEntriesByType('resource').map((e) => e.name)"
            ".filter((n) => n.includes('/api/v4/job/')).length"
        )
        assert polled >= 2  # the start's job and the ranking's
        assert console_errors(browser) == []
