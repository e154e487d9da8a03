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
