"""Checks any portal page's browser test can make of a page (Playwright's async API): no critical
or serious axe-core violation, no sideways scroll, and the site navigation reachable (the bar on
a desk, the "Menu" disclosure on a phone, opened by keyboard, in view after scrolling down).

    problems = await page_problems(page, url, width=PHONE)   # [] when the page is good
    assert problems == [], "\\n".join(problems)
"""

from __future__ import annotations

from typing import Any

PHONE, DESK = 390, 1280          # the widths the portal is checked at (CSS px)
HEIGHT = 800
BAD_IMPACTS = ("critical", "serious")
SCROLL = "[document.documentElement.scrollWidth, window.innerWidth]"
WIDEST = """() => {
  const w = window.innerWidth; let found = null, any = null;
  for (const el of document.querySelectorAll('body *')) {
    const r = el.getBoundingClientRect();
    if (r.right > w + 1 && r.width > 0 && getComputedStyle(el).position !== 'fixed') {
      let p = el.parentElement, clipped = false;
      while (p) {
        const o = getComputedStyle(p).overflowX;
        if (o === 'auto' || o === 'scroll' || o === 'hidden') { clipped = true; break; }
        p = p.parentElement;
      }
      const name = el.tagName.toLowerCase() + (el.className ? '.' + String(el.className).split(' ').join('.') : '');
      if (!clipped && (!found || r.right > found[1])) found = [name, Math.round(r.right)];
      if (!any || r.right > any[1]) any = [name + ' (in a scrolling box)', Math.round(r.right)];
    }
  }
  return found || any;
}"""


async def axe_problems(page: Any) -> list[str]:
    """The page's critical and serious axe-core violations, one line each (rule, impact, where)."""
    from axe_playwright_python.async_playwright import Axe

    results = await Axe().run(page)
    problems = []
    for v in results.response.get("violations", []):
        if v.get("impact") in BAD_IMPACTS:
            where = ", ".join(" ".join(map(str, n.get("target", []))) for n in v.get("nodes", [])[:3])
            problems.append(f"axe {v['id']} ({v['impact']}): {v.get('help', '')} [{len(v.get('nodes', []))}x: {where}]")
    return problems


async def scroll_problems(page: Any) -> list[str]:
    """Sideways scroll: the document wider than the window (and the widest culprit)."""
    scroll_width, inner = await page.evaluate(SCROLL)
    if scroll_width <= inner:
        return []
    culprit = await page.evaluate(WIDEST)
    return [f"the page scrolls sideways: {scroll_width} px wide in a {inner} px window"
            + (f" (widest: {culprit[0]} to {culprit[1]} px)" if culprit else "")]


async def nav_problems(page: Any) -> list[str]:
    """The site navigation reachable: on a desk its bar's links are visible; on a phone the Menu
    disclosure is in view (also after scrolling to the bottom), opens by keyboard (Enter) to
    visible links, and closes again."""
    problems: list[str] = []
    bar = page.locator("nav.site-nav.wide a[href='/servers']")
    if await bar.is_visible():
        return problems
    summary = page.locator("details.site-menu > summary")
    if not await summary.is_visible():
        return ["neither the navigation bar nor the Menu button is visible"]
    await page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    box = await summary.bounding_box()
    if box is None or box["y"] < 0 or box["y"] + box["height"] > (page.viewport_size or {}).get("height", HEIGHT):
        problems.append(f"the Menu button is out of view after scrolling down (at {box})")
    await summary.focus()
    await page.keyboard.press("Enter")
    link = page.locator("nav.site-nav.narrow a[href='/servers']")
    if not await link.is_visible():
        problems.append("Enter on the Menu button does not show the navigation's links")
    else:
        await page.keyboard.press("Tab")
        focused = await page.evaluate("document.activeElement.closest('nav.site-nav.narrow') !== null")
        if not focused:
            problems.append("Tab after opening the Menu does not reach its links")
    await summary.focus()
    await page.keyboard.press("Enter")
    if await link.is_visible():
        problems.append("Enter on the Menu button again does not close it")
    await page.evaluate("window.scrollTo(0, 0)")
    return problems


async def page_problems(page: Any, url: str, *, width: int, axe: bool = True) -> list[str]:
    """Everything wrong with ``url`` at ``width`` px (an empty list: nothing): its HTTP status
    (a 4xx or 5xx is named), sideways scroll, axe-core's critical and serious violations, and
    the navigation's reach. Each problem is prefixed with the width."""
    await page.set_viewport_size({"width": width, "height": HEIGHT})
    response = await page.goto(url)
    problems = []
    if response is not None and response.status >= 500:
        problems.append(f"HTTP {response.status}")
    problems += await scroll_problems(page)
    if axe:
        problems += await axe_problems(page)
    problems += await nav_problems(page)
    return [f"{width} px: {p}" for p in problems]
