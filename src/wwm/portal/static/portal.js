// The portal's shared script, served from the package (the Content-Security-Policy allows no
// inline script): filters that apply on change, a "Copy" button for the recovery link, and a
// "Copy link" button beside every permanent link (on a touch screen, the system's Share sheet) (.copy-link, hidden until this script shows
// it: without script the link itself is there to copy), and a keyboard stop on any table or
// block of code that scrolls sideways with nothing in it to focus (so that its arrow keys can
// scroll it: a .table-wrap in the page's own markup does this without script). Every page
// works without it.
function reachScrollers() {
  const focusable = "a[href], button, input, select, textarea, [tabindex]";
  for (const el of document.querySelectorAll("main table, main pre, main .table-wrap")) {
    if (el.hasAttribute("tabindex") || el.scrollWidth <= el.clientWidth + 1 || el.querySelector(focusable)) continue;
    el.setAttribute("tabindex", "0");
    if (!el.hasAttribute("aria-label") && el.tagName !== "TABLE") {
      el.setAttribute("role", "region");
      el.setAttribute("aria-label", el.id ? el.id.replace(/[-_]/g, " ") : "scrolling text");
    }
  }
}

document.addEventListener("DOMContentLoaded", () => {
  reachScrollers();
  let resized = null;
  window.addEventListener("resize", () => { clearTimeout(resized); resized = setTimeout(reachScrollers, 200); });
  for (const select of document.querySelectorAll("select.auto-submit")) {
    select.addEventListener("change", () => select.form.submit());
  }
  for (const button of document.querySelectorAll("button.copy")) {
    button.addEventListener("click", () => {
      const field = document.getElementById(button.dataset.copy);
      if (field) { field.select(); navigator.clipboard?.writeText(field.value); }
    });
  }
  for (const button of document.querySelectorAll("button.copy-link")) {
    const url = new URL(button.dataset.href || "", document.baseURI).href;
    button.hidden = false;
    button.addEventListener("click", async () => {
      let said = "Copied";
      try {
        if (navigator.share && matchMedia("(pointer: coarse)").matches) {
          await navigator.share({ url, title: document.title });
          said = "Shared";
        } else {
          await navigator.clipboard.writeText(url);
        }
      } catch (err) {
        said = "Select the link to copy it";
      }
      let note = button.nextElementSibling;
      if (!note || !note.classList.contains("copied")) {
        note = document.createElement("span");
        note.className = "copied";
        note.setAttribute("role", "status");
        button.after(note);
      }
      note.textContent = said;
    });
  }
});
