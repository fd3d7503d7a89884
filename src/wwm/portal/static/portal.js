// The portal's only script, served from the package (the Content-Security-Policy allows no
// other): filters that apply on change, and a "Copy" button for the recovery link.
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
});
