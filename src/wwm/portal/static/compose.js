// The compose form without page loads (progressive enhancement of compose.html: without this
// script every button posts the form and the page comes back at the part changed). Each button
// (choose a server, add, remove, move up or down) sends the same post in the background and the
// form the portal answers replaces this one in place; the keyboard focus goes to the part
// changed, and a polite live region says what happened. A value changed redraws only the tree
// and the document beside the form.
"use strict";

(() => {
  const form = document.getElementById("compose-form");   // (its buttons are named "action": form.action is them)
  const composer = document.getElementById("composer");
  if (!form || !composer || !window.fetch || !window.DOMParser) return;
  composer.classList.add("js");
  const announcer = document.getElementById("compose-announce");
  let queue = Promise.resolve();   // one post at a time, each sent with the form as the last answer left it
  let pending = 0;
  let timer = null;

  const say = (text) => { if (announcer) { announcer.textContent = ""; setTimeout(() => { announcer.textContent = text; }, 50); } };

  const memberLabel = (path) => {
    const found = /\.members\.(\d+)$/.exec(path);
    return found ? `member ${Number(found[1]) + 1}` : path;
  };

  const keepOpen = () => new Set([...composer.querySelectorAll("details[open][id]")].map((d) => d.id));

  const reopen = (open) => {
    for (const id of open) { const d = document.getElementById(id); if (d) d.open = true; }
  };

  const showMessage = (answer) => {
    const main = document.querySelector("main");
    const old = main && main.querySelector(":scope > p.message");
    if (old) old.remove();
    const fresh = answer.querySelector("main > p.message");
    if (main && fresh) main.prepend(document.importNode(fresh, true));
    return fresh ? fresh.textContent : "";
  };

  const replace = (id, answer) => {
    const here = document.getElementById(id);
    const there = answer.getElementById(id);
    if (here && there) here.replaceWith(document.importNode(there, true));
  };

  const focusAfter = (verb, anchor, activeId) => {
    let target = null;
    if (verb === "update" && activeId) target = document.getElementById(activeId);
    const part = anchor && document.getElementById(anchor);
    if (!target && part) {
      if (verb === "add" || verb === "update") target = document.getElementById(`${anchor}-server`);
      else if (verb === "up" || verb === "down") {
        const same = part.querySelector(`:scope > .compose-tools .compose-${verb}`);
        target = same && !same.disabled ? same : part;
      } else if (verb === "remove") target = part.querySelector(":scope > button.add") || part;
      else target = part;
    }
    if (target) target.focus({ preventScroll: false });
  };

  function send(action, whole, focusId) {
    if (whole) clearTimeout(timer);               // the redraw sends every value typed so far
    pending += 1;
    composer.setAttribute("aria-busy", "true");
    const activeId = focusId || (document.activeElement && document.activeElement.id);
    queue = queue.then(() => exchange(action, whole, activeId)).catch(() => fallback(action)).finally(() => {
      pending -= 1;
      if (pending === 0) composer.removeAttribute("aria-busy");
    });
  }

  async function exchange(action, whole, activeId) {
    const open = keepOpen();
    const data = new URLSearchParams();
    for (const [name, value] of new FormData(form)) data.append(name, value);
    data.set("action", action);
    const reply = await fetch(form.getAttribute("action"), { method: "POST", body: data, credentials: "same-origin",
                                             headers: { Accept: "text/html" } });
    const text = await reply.text();
    const answer = new DOMParser().parseFromString(text, "text/html");
    const fresh = answer.getElementById("compose-form");
    if (!fresh) { fallback(action); return; }     // not the compose page (signed out, refused): go there
    const message = showMessage(answer);
    if (whole) {
      form.replaceChildren(...[...fresh.childNodes].map((n) => document.importNode(n, true)));
    }
    for (const id of ["society-tree", "society-state", "society-yaml"]) replace(id, answer);
    reopen(open);
    if (!whole) return;
    const freshComposer = answer.getElementById("composer");
    const anchor = freshComposer ? freshComposer.dataset.focus : "";
    const [verb, , path] = action.split(/(:)/);
    focusAfter(verb, anchor, activeId);
    if (message) return;                          // the alert says it
    if (verb === "add") say(`Added ${memberLabel(anchor.replace(/^at-/, "").replace(/-/g, "."))}; choose its server.`);
    else if (verb === "remove") say(`Removed ${memberLabel(path)}.`);
    else if (verb === "up" || verb === "down") say(`Moved ${verb}: now ${memberLabel(anchor.replace(/^at-/, "").replace(/-/g, "."))}.`);
    else if (verb === "update" && path) say("The form shows the arguments of the server chosen.");
  }

  function fallback(action) {
    const field = document.createElement("input");
    field.type = "hidden"; field.name = "action"; field.value = action;
    form.append(field);
    form.submit();
  }

  form.addEventListener("submit", (event) => {
    const button = event.submitter;
    if (!button || button.name !== "action" || button.value === "save") return;   // saving leaves the page
    event.preventDefault();
    send(button.value, true);
  });

  form.addEventListener("change", (event) => {
    const field = event.target;
    if (field.matches("select.compose-choose")) {
      const path = field.name.replace(/\.server$/, "");
      send(`update:${path}`, true, field.id);
      return;
    }
    if (field.tagName === "SELECT") {             // a choice: its sentence under it
      const chosen = field.parentElement.querySelector(".compose-chosen");
      const option = field.selectedOptions[0];
      if (chosen) chosen.textContent = option && option.value ? option.textContent : "";
    }
    clearTimeout(timer);
    timer = setTimeout(() => send("update", false), 250);   // the tree and document only: typing goes on
  });
})();
