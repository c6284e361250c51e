"""axe-core in the browser tests: the vendored engine (tests/browser/vendor/), the rules it runs, the
rules left out with their reasons, and a run that returns the violations that fail a page.

The engine is added to the test's own browser context as an init script (never to the site's pages,
which load only their own files under their Content-Security-Policy), so it is there on every page the
tab opens."""
from pathlib import Path

AXE = Path(__file__).parent / "vendor" / "axe-core" / "axe.min.js"

# WCAG 2.0 and 2.1, levels A and AA, and Deque's best practices (landmarks, heading order, a main
# landmark, one h1): the level the issue asks for, WCAG 2.1 AA.
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]

# A violation of these impacts fails the page; moderate and minor ones are reported by `axe_report`.
FAILING = ("serious", "critical")

# Every rule left out, in this one place, with its reason. Keep it short: a rule goes here only when
# what it flags is intended and explained, never to make a failing page pass.
EXCLUDED_RULES: dict[str, str] = {}


def axe_context(browser, base_url: str, *, width: int, height: int = 900):
    """A browser context at `width` pixels with axe-core added to every page it opens (JavaScript
    on: axe runs in the page; the site's pages themselves need none)."""
    context = browser.new_context(base_url=base_url, viewport={"width": width, "height": height})
    context.add_init_script(path=str(AXE))
    return context


def axe_run(page) -> list[dict]:
    """axe's violations on the page as it is now: [{id, impact, help, nodes: [target, ...]}]."""
    return page.evaluate(
        """async ([tags, excluded]) => {
            const rules = Object.fromEntries(excluded.map(id => [id, {enabled: false}]));
            const result = await axe.run(document, {runOnly: {type: 'tag', values: tags}, rules, resultTypes: ['violations']});
            return result.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
                nodes: v.nodes.map(n => n.target.join(' ') + ' :: ' + n.failureSummary.split('\\n').slice(0, 2).join(' '))}));
        }""",
        [TAGS, list(EXCLUDED_RULES)],
    )


def failing(violations: list[dict]) -> list[str]:
    """The violations that fail a page, one line each with the elements they were found on."""
    lines = []
    for v in violations:
        if v["impact"] in FAILING:
            more = f" … +{len(v['nodes']) - 5}" if len(v["nodes"]) > 5 else ""
            lines.append(f"{v['impact']} {v['id']} ({v['help']}): " + "; ".join(v["nodes"][:5]) + more)
    return lines
