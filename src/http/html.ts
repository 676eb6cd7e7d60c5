/**
 * The one place that turns text into HTML: escaping and the document shell (with its inline
 * stylesheet) shared by every page paytx serves to a browser. Values on those pages come from API
 * input (descriptors, names, redirect URLs), so everything goes through `escapeHtml`.
 */

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
}

/** Safe in element content and in double- or single-quoted attribute values. */
export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (ch) => HTML_ESCAPES[ch])
}

const STYLESHEET = `
  :root { color-scheme: light; --ink: #1c2430; --muted: #5b6676; --line: #dde2ea; --bg: #f3f5f9;
    --accent: #2453d6; --accent-ink: #fff; --danger: #b42318; --ok: #067647; --warn: #b54708; }
  * { box-sizing: border-box; }
  body { margin: 0; background: var(--bg); color: var(--ink);
    font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
  main { max-width: 34rem; margin: 2.5rem auto; padding: 0 1rem; }
  .brand { font-size: .8rem; letter-spacing: .08em; text-transform: uppercase; color: var(--muted); margin: 0 0 .5rem; }
  .panel { background: #fff; border: 1px solid var(--line); border-radius: 12px; padding: 1.5rem;
    box-shadow: 0 1px 2px rgba(16, 24, 40, .05); }
  h1 { font-size: 1.35rem; margin: 0 0 .25rem; }
  h2 { font-size: 1rem; margin: 1.5rem 0 .5rem; }
  p { margin: .5rem 0; }
  .lead { color: var(--muted); margin-top: 0; }
  .amount { font-size: 2rem; font-weight: 650; margin: 1rem 0 .25rem; font-variant-numeric: tabular-nums; }
  dl.summary { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; margin: 1rem 0;
    font-size: .9rem; }
  dl.summary dt { color: var(--muted); }
  dl.summary dd { margin: 0; overflow-wrap: anywhere; }
  code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .85em; }
  .status { display: inline-block; padding: 0 .5rem; border-radius: 999px; background: #eef2ff;
    color: var(--accent); font-size: .8rem; font-weight: 600; }
  .error { border: 1px solid #fecdca; background: #fef3f2; color: var(--danger); border-radius: 8px;
    padding: .75rem 1rem; margin: 1rem 0; }
  form { margin: 0; }
  fieldset { border: 0; padding: 0; margin: 1rem 0; }
  legend { font-weight: 600; margin-bottom: .5rem; padding: 0; }
  label { display: block; font-weight: 600; margin: 1rem 0 .25rem; }
  input[type=text], input[type=password] { font: inherit; padding: .6rem .75rem; border: 1px solid #b9c2d0;
    border-radius: 8px; width: 8rem; letter-spacing: .2em; }
  input:focus-visible, button:focus-visible { outline: 3px solid #9db4f5; outline-offset: 2px; }
  .hint { color: var(--muted); font-size: .85rem; font-weight: 400; }
  .actions { display: flex; gap: .75rem; flex-wrap: wrap; margin-top: 1.25rem; }
  button { font: inherit; cursor: pointer; border-radius: 8px; padding: .65rem 1.1rem; border: 1px solid transparent; }
  button.primary { background: var(--accent); color: var(--accent-ink); font-weight: 600; }
  button.primary:hover { background: #1b43b3; }
  button.secondary { background: #fff; color: var(--ink); border-color: #b9c2d0; }
  button.secondary:hover { background: #f6f7f9; }
  ul.outcomes { list-style: none; padding: 0; margin: 1rem 0 0; display: grid; gap: .5rem; }
  ul.outcomes button { width: 100%; text-align: left; background: #fff; border-color: var(--line);
    display: flex; flex-direction: column; gap: .1rem; }
  ul.outcomes button:hover { border-color: var(--accent); background: #f7f9ff; }
  ul.outcomes .label { font-weight: 600; }
  ul.outcomes .success .label { color: var(--ok); }
  ul.outcomes .failure .label { color: var(--danger); }
  ul.outcomes .open .label { color: var(--warn); }
  .card-face { border-radius: 12px; padding: 1rem 1.25rem; color: #fff; margin: 1rem 0;
    background: linear-gradient(135deg, #23395d, #3b5f99); font-variant-numeric: tabular-nums; }
  .card-face .number { font-size: 1.2rem; letter-spacing: .12em; margin: .5rem 0; }
  .card-face .meta { display: flex; justify-content: space-between; font-size: .85rem; opacity: .9; }
  .banks label { display: flex; gap: .75rem; align-items: flex-start; font-weight: 400; margin: 0 0 .5rem;
    padding: .6rem .75rem; border: 1px solid var(--line); border-radius: 8px; cursor: pointer; }
  .banks label:has(input:checked) { border-color: var(--accent); background: #f7f9ff; }
  .banks input { margin-top: .3rem; }
  .banks strong { display: block; }
  table { border-collapse: collapse; width: 100%; font-size: .85rem; }
  th, td { text-align: left; padding: .35rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
  th { color: var(--muted); font-weight: 600; }
  td code, th { white-space: nowrap; }
  td { overflow-wrap: anywhere; }
  @media (max-width: 30rem) { main { margin: 1rem auto; } .panel { padding: 1rem; } }
  footer { color: var(--muted); font-size: .8rem; margin-top: 1rem; text-align: center; }
`

/** A complete HTML document; `body` must already be escaped HTML; `stylesheet` adds to the shared one. */
export function renderHtmlDocument(title: string, body: string, options: {stylesheet?: string; mainClass?: string} = {}): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<style>${STYLESHEET}${options.stylesheet ?? ''}</style>
</head>
<body>
<main${options.mainClass ? ` class="${escapeHtml(options.mainClass)}"` : ''}>
${body}
</main>
</body>
</html>
`
}
