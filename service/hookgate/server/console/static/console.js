// A diagnostic links to its line:col: activating it (click or Enter) puts the editor's caret there.
document.addEventListener("click", (event) => {
  const link = event.target.closest("a[data-line]");
  const editor = document.getElementById("content");
  if (!link || !editor) return;
  event.preventDefault();
  const lines = editor.value.split("\n");
  const line = Math.min(Number(link.dataset.line), lines.length);
  let offset = 0;
  for (let i = 0; i < line - 1; i++) offset += lines[i].length + 1;
  offset += Math.min(Math.max(Number(link.dataset.col) - 1, 0), lines[line - 1].length);
  editor.focus();
  editor.setSelectionRange(offset, offset);
});

// The worker pool's refusal (429: its per-token or queue limit) and a run stopped at a limit
// (422) are messages for the panel that asked; htmx swaps only 2xx answers unless told.
document.addEventListener("htmx:beforeSwap", (event) => {
  if (event.detail.xhr.status === 429 || event.detail.xhr.status === 422) {
    event.detail.shouldSwap = true;
    event.detail.isError = false;
  }
});
