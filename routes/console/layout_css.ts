/**
 * The page's width, its section tabs and table of contents, and how the console's tables behave
 * at any width: a table wider than its card scrolls inside it (`.table-wrap`, never the page),
 * with shadows on the edge that has more to see — drawn with backgrounds only (`local` covers that scroll with the content over `scroll` shadows that stay),
 * so the cue shows only when the table overflows and needs no script. At phone width the first
 * column stays in view while the rest scrolls. Pages are as wide as the screen allows, so a wide
 * table (webhook deliveries, requests) uses a desktop screen instead of scrolling in 1,100 px.
 */

/** The shadow's colour: the text colour faded, so it shows on the light and the dark theme. */
const EDGE = "color-mix(in srgb,var(--fg) 28%,transparent)";

export const LAYOUT_CSS = `
main,footer{max-width:min(100%,1680px)}
h1,h2,h3,small{overflow-wrap:anywhere}
nav.tabs{border-bottom:1px solid var(--line);margin:0 0 16px}
nav.tabs ul,nav.toc ul{gap:4px}
nav.tabs a{display:inline-block;padding:6px 12px;border:1px solid transparent;
border-radius:6px 6px 0 0;margin-bottom:-1px}
nav.tabs a[aria-current=page]{border-color:var(--line);border-bottom-color:var(--bg);
background:var(--bg);color:var(--fg)}
nav.toc{margin:0 0 16px}nav.toc a{display:inline-block;padding:2px 10px;border:1px solid var(--line);
border-radius:999px;font-size:.9rem}
.table-wrap{max-width:100%;min-width:0;background:
linear-gradient(to right,var(--card) 30%,transparent) left/2.5rem 100% no-repeat local,
linear-gradient(to left,var(--card) 30%,transparent) right/2.5rem 100% no-repeat local,
radial-gradient(farthest-side at 0 50%,${EDGE},transparent) left/.9rem 100% no-repeat scroll,
radial-gradient(farthest-side at 100% 50%,${EDGE},transparent) right/.9rem 100% no-repeat scroll;
background-color:var(--card)}
@media (max-width:600px){
.table-wrap th:first-child,.table-wrap td:first-child{position:sticky;left:0;z-index:1;
background:var(--card);box-shadow:inset -1px 0 0 var(--line);min-width:7rem;max-width:45vw;
overflow-wrap:anywhere}
}
`;
