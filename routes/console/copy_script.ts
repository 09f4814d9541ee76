/**
 * The only script of the console, a convenience: shows the copy buttons (hidden without JS, where
 * the text stays selectable) and copies the text of the element a button names.
 */
export const COPY_SCRIPT = `
for (const button of document.querySelectorAll("button[data-copy]")) {
  button.hidden = false;
  button.addEventListener("click", () => {
    const text = document.getElementById(button.dataset.copy)?.textContent ?? "";
    navigator.clipboard?.writeText(text).then(
      () => { button.textContent = "Copied"; },
      () => { button.textContent = "Select the text to copy"; },
    );
  });
}
`;
