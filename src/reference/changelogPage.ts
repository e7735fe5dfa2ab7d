import { CHANGELOG_LINK, readChangelog } from './apiDescription.ts';

/** Where the changelog has its own page, linked from the top of /docs. */
export const CHANGELOG_PATH = CHANGELOG_LINK;

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The anchor of a version's heading: `[3.3.0] - 2026-…` → `v3.3.0`, `[Unreleased]` → `unreleased`. */
export function versionAnchor(label: string): string {
  return /^\d/.test(label) ? `v${label}` : label.toLowerCase();
}

/** `code`, [text](url) and [label] (a reference defined at the end of the file), escaped. */
function inline(text: string, references: Map<string, string>): string {
  return text
    .split(/(`[^`]*`)/)
    .map((part) => {
      if (part.startsWith('`') && part.endsWith('`') && part.length > 1) return `<code>${escapeHtml(part.slice(1, -1))}</code>`;
      return escapeHtml(part)
        .replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (_m, label: string, url: string) => `<a href="${url}">${label}</a>`)
        .replace(/\[([^\]]+)\](?!\()/g, (whole, label: string) => {
          const url = references.get(label);
          return url ? `<a href="${escapeHtml(url)}">${label}</a>` : whole;
        });
    })
    .join('');
}

/**
 * The changelog (Keep a Changelog markdown: headings, paragraphs, `-` lists with indented
 * continuation lines, inline code and links) as its own HTML page. Only what this file uses is
 * understood; anything else is shown as text, escaped.
 */
export function changelogHtml(markdown = readChangelog()): string {
  const references = new Map<string, string>();
  const lines: string[] = [];
  for (const line of markdown.split('\n')) {
    const reference = /^\[([^\]]+)\]:\s+(\S+)$/.exec(line);
    if (reference) references.set(reference[1], reference[2]);
    else lines.push(line);
  }
  const out: string[] = [];
  let paragraph: string[] = [];
  let item: string[] | undefined;
  let inList = false;
  const flushItem = () => {
    if (item) out.push(`<li>${inline(item.join(' '), references)}</li>`);
    item = undefined;
  };
  const flush = () => {
    flushItem();
    if (inList) out.push('</ul>');
    inList = false;
    if (paragraph.length) out.push(`<p>${inline(paragraph.join(' '), references)}</p>`);
    paragraph = [];
  };
  for (const line of lines) {
    const heading = /^(#{1,4}) (.*)$/.exec(line);
    if (heading) {
      flush();
      const level = heading[1].length;
      const version = /^\[([^\]]+)\]/.exec(heading[2]);
      const id = version ? ` id="${escapeHtml(versionAnchor(version[1]))}"` : '';
      out.push(`<h${level}${id}>${inline(heading[2], references)}</h${level}>`);
    } else if (line.startsWith('- ')) {
      if (paragraph.length) flush();
      flushItem();
      if (!inList) out.push('<ul>');
      inList = true;
      item = [line.slice(2)];
    } else if (line.trim() === '') flush();
    else if (item && line.startsWith('  ')) item.push(line.trim());
    else paragraph.push(line);
  }
  flush();
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Changelog — Accounts &amp; Payments API v3</title>
<style>body{font-family:sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;line-height:1.5;color:#3b4151}code{background:#f0f0f0;padding:0 .2em;border-radius:3px}h2{border-bottom:1px solid #ddd;margin-top:2rem}</style>
</head>
<body>
<nav><a href="/docs">← API reference</a></nav>
${out.join('\n')}
</body>
</html>
`;
}
