// The portal's shared script, served from the package (the Content-Security-Policy allows no
// inline script): filters that apply on change, a "Copy" button for the recovery link, and a
// "Copy link" button beside every permanent link (on a touch screen, the system's Share sheet) (.copy-link, hidden until this script shows
// it: without script the link itself is there to copy). Every page works without it.
document.addEventListener("DOMContentLoaded", () => {
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
