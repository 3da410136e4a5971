// MathJax 3 configuration for pymdownx.arithmatex (generic mode): \( \) inline, \[ \] display
window.MathJax = {
  tex: {
    inlineMath: [["\\(", "\\)"]],
    displayMath: [["\\[", "\\]"]],
    processEscapes: true,
    processEnvironments: true
  },
  options: {
    ignoreHtmlClass: ".*|",
    processHtmlClass: "arithmatex"
  }
};

document$ = window.document$;
if (typeof document$ !== "undefined" && document$.subscribe) {
  document$.subscribe(() => { MathJax.typesetPromise(); });
}
