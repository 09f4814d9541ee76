/**
 * The console's stylesheet, a module of the project so `deno compile` and Deploy carry it:
 * system fonts, light and dark themes (the `data-theme` the toggle sets, else the system's
 * `prefers-color-scheme`), a layout that folds to one column at phone width, visible focus.
 */

import { priceFormCss } from "./model_price_forms.ts";
import { LAYOUT_CSS } from "./layout_css.ts";

const LIGHT = `--bg:#f7f7f8;--fg:#1b1d21;--muted:#5b616e;--card:#fff;--line:#d6d9de;
--accent:#1f5fbf;--accent-fg:#fff;--ok:#17713a;--bad:#b3261e;--code:#eef0f3;`;
const DARK = `--bg:#121417;--fg:#e8eaed;--muted:#a3a9b4;--card:#1c1f24;--line:#363b43;
--accent:#7fb0ff;--accent-fg:#0b1220;--ok:#6fd08c;--bad:#ff8a80;--code:#262a31;`;

export const CONSOLE_CSS = `
:root{${LIGHT}color-scheme:light dark}
@media (prefers-color-scheme:dark){:root:not([data-theme=light]){${DARK}}}
:root[data-theme=dark]{${DARK}color-scheme:dark}
:root[data-theme=light]{color-scheme:light}
*{box-sizing:border-box}
[hidden]{display:none!important}
body{margin:0;background:var(--bg);color:var(--fg);
font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
a{color:var(--accent)}
:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
.skip{position:absolute;left:-999px}.skip:focus{left:8px;top:8px;background:var(--card);padding:4px}
header{display:flex;flex-wrap:wrap;gap:8px 16px;align-items:center;padding:8px 16px;
background:var(--card);border-bottom:1px solid var(--line)}
header .brand{font-weight:600;margin-right:8px}
nav ul{display:flex;flex-wrap:wrap;gap:4px 12px;list-style:none;margin:0;padding:0}
nav a{text-decoration:none;padding:4px 2px}
nav a[aria-current=page]{font-weight:600;border-bottom:2px solid var(--accent)}
header form{margin:0}.header-end{margin-left:auto;display:flex;gap:8px;flex-wrap:wrap}
.header-search{display:flex;gap:4px}.header-search input[type=search]{width:14rem}
main{max-width:1100px;margin:0 auto;padding:16px}
h1{font-size:1.5rem;margin:8px 0 16px}
.card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:16px;
margin:0 0 16px}
label{display:block;font-weight:500;margin:8px 0 4px}label.inline{display:inline}
input,select,textarea{font:inherit;color:var(--fg);background:var(--bg);border:1px solid var(--line);
border-radius:6px;padding:6px 8px;max-width:100%}
input[type=password],input[type=text],input[type=number],input[type=search]{width:22rem}
button,.button{font:inherit;cursor:pointer;border-radius:6px;padding:6px 14px;
border:1px solid var(--accent);background:var(--accent);color:var(--accent-fg);text-decoration:none;
display:inline-block}
button.quiet{background:transparent;color:var(--accent)}
button.danger{background:var(--bad);border-color:var(--bad);color:#fff}
.panes{display:grid;grid-template-columns:repeat(auto-fit,minmax(18rem,1fr));gap:16px;align-items:start}
.fields{display:grid;grid-template-columns:repeat(auto-fill,minmax(14rem,1fr));gap:0 16px}
.fields input,.fields select{width:100%}
.fields input[type=checkbox],.fields input[type=radio]{width:auto;margin:0 6px 0 0}
fieldset{border:1px solid var(--line);border-radius:6px;margin:8px 0;padding:4px 12px 8px}
label.choice{display:flex;align-items:center;font-weight:400}
.wrap,label.choice>span{min-width:0;overflow-wrap:anywhere}
.channel-form textarea{display:block;width:100%}
.row{display:flex;flex-wrap:wrap;gap:8px;align-items:end}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:6px 8px;border-bottom:1px solid var(--line);vertical-align:top}
.table-wrap{overflow-x:auto}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:var(--code);
border-radius:4px}
code{padding:1px 4px}pre{padding:12px;overflow-x:auto;white-space:pre-wrap;word-break:break-all}
.secret{font-size:1.1rem;user-select:all;word-break:break-all}
.muted{color:var(--muted)}.ok{color:var(--ok)}.bad{color:var(--bad)}
.money{white-space:nowrap;font-variant-numeric:tabular-nums}
.notice{border-left:4px solid var(--accent);padding:8px 12px;background:var(--card)}
.error{border-left:4px solid var(--bad);padding:8px 12px;background:var(--card)}
.badge{border:1px solid var(--line);border-radius:999px;padding:0 8px;font-size:.85rem}
.badge.warn{border-color:var(--bad);color:var(--bad);font-weight:600}
${priceFormCss()}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:4px 16px;margin:0}
dl.facts dt{color:var(--muted)}dl.facts dd{margin:0;min-width:0;overflow-wrap:anywhere}
h2 code{overflow-wrap:anywhere}
img.preview,video.preview{max-width:100%;max-height:20rem;border:1px solid var(--line);border-radius:6px}
details{margin:8px 0}summary{cursor:pointer}
.tiles{display:grid;grid-template-columns:repeat(auto-fill,minmax(12rem,1fr));gap:12px;margin:0 0 16px}
.tile{display:flex;flex-direction:column;border:1px solid var(--line);border-radius:8px;padding:12px;
color:var(--fg);text-decoration:none}.tile:hover{border-color:var(--accent)}
.tile-label{color:var(--muted);font-size:.9rem}.tile-value{font-size:1.4rem;font-weight:600}
.charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(18rem,1fr));gap:16px;
margin:0 0 16px}
figure.chart{margin:0}figure.chart svg{display:block;width:100%;height:8rem;
border:1px solid var(--line);border-radius:6px}
figure.chart .bar{fill:var(--accent)}figure.chart .axis{stroke:var(--line)}
svg.share{display:block;width:100%;min-width:4rem;height:.9rem}svg.share .bar{fill:var(--accent)}
figcaption{font-size:.9rem;margin-top:4px}caption{text-align:left;font-weight:600;padding:4px 0}
footer{max-width:1100px;margin:0 auto;padding:16px;color:var(--muted);font-size:.85rem}
@media (max-width:640px){
input[type=password],input[type=text],input[type=number],input[type=search]{width:100%}
main{padding:8px}.header-end{margin-left:0}
}
${LAYOUT_CSS}`;
