/**
 * Text shown literally in Markdown (a CI job summary, a PR comment): model and target names
 * come from files anyone can write. Line breaks become spaces (no new block can start), and
 * everything that could make markup is backslash-escaped (CommonMark allows it before any ASCII
 * punctuation): raw HTML (`<` before a tag or comment), links and images (`](`, `][`),
 * emphasis, code, table cells, @-mentions, and block markers at the start (`#`, `>`, lists).
 * Plain text such as `score < 0.30` or `swe-bench` stays readable in the raw file.
 */
export function escapeMarkdown(text: string): string {
  return text
    .replace(/[\r\n\u2028\u2029]+/g, ' ')
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .replace(/[\\`*_|~@]/g, '\\$&')
    .replace(/\](?=[([])/g, ']\\')
    .replace(/<(?=[A-Za-z/!?])/g, '\\<')
    // An ordered-list marker needs a space after it: "0.474" in a score cell is a number, not a list.
    .replace(/^(\s*)([#>+=[-]|\d+[.)](?=\s|$))/, '$1\\$2');
}
