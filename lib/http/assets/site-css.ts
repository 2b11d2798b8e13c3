/**
 * The stylesheet of every page (served as /assets/site.css). Colours are custom properties: GitHub's light palette, and
 * its dark one when the reader's system prefers dark (prefers-color-scheme); both keep WCAG AA contrast.
 */
export const SITE_CSS = `:root{color-scheme:light dark;--bg:#fff;--fg:#1f2328;--border:#d0d7de;--muted:#57606a;--subtle:#f6f8fa;--accent:#0550ae;--accent-bg:#ddf4ff;--danger:#a40e26;--danger-border:#cf222e;--success:#116329;--success-border:#1a7f37;--highlight:#fff8c5;--add-bg:#dafbe1;--del-bg:#ffebe9;--neutral-bg:#eaeef2;--purple:#6639ba;--string:#0a3069;--orange:#953800;--pending:#7d4e00;--bullet:#6c5300}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--border:#30363d;--muted:#8d96a0;--subtle:#161b22;--accent:#4493f8;--accent-bg:#121d2f;--danger:#ff7b72;--danger-border:#f85149;--success:#3fb950;--success-border:#2ea043;--highlight:#3b3212;--add-bg:#12261e;--del-bg:#2d1519;--neutral-bg:#21262d;--purple:#d2a8ff;--string:#a5d6ff;--orange:#ffa657;--pending:#d29922;--bullet:#e3b341}
.hljs{color:var(--fg);background:transparent}.hljs-subst,.hljs-emphasis,.hljs-strong{color:var(--fg)}
.hljs-selector-attr,.hljs-selector-class,.hljs-selector-id{color:var(--accent)}.hljs-meta .hljs-keyword{color:var(--danger)}.hljs-meta .hljs-string{color:var(--string)}
.hljs-title.class_.inherited__{color:var(--purple)}.hljs-addition{background-color:var(--add-bg)}.hljs-deletion{background-color:var(--del-bg)}}
html{background:var(--bg)}
*,*::before,*::after{box-sizing:border-box}
body{font-family:system-ui,sans-serif;max-width:64rem;margin:0 auto;padding:0 1rem 2rem;color:var(--fg);line-height:1.45}
a{color:var(--accent)}h1,h2,h3,p,li{overflow-wrap:anywhere}
header.top{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;border-bottom:1px solid var(--border);padding:.6rem 0;margin-bottom:1rem}
header.top .spacer{flex:1}header.top nav{display:flex;gap:.75rem;align-items:center;flex-wrap:wrap}
.menu{position:relative}.menu summary{cursor:pointer;font-weight:600;padding:.25rem .5rem;border:1px solid var(--border);border-radius:6px;list-style:none}
.menu summary::after{content:" \\25BE"}
.menu-items{position:absolute;right:0;z-index:10;background:var(--bg);border:1px solid var(--border);border-radius:6px;box-shadow:0 4px 12px rgba(0,0,0,.12);list-style:none;margin:.3rem 0 0;padding:.3rem 0;min-width:12rem}
.menu-items li a,.menu-items li button{display:block;width:100%;text-align:left;padding:.4rem .8rem;background:none;border:0;font:inherit;color:var(--fg);text-decoration:none;cursor:pointer}
.menu-items li a:hover,.menu-items li button:hover,.menu-items li a:focus,.menu-items li button:focus{background:var(--subtle)}
.menu-items form{margin:0}
form.card{display:grid;gap:.6rem;max-width:24rem}form.inline{display:inline}
label{display:grid;gap:.2rem;font-weight:600}input,select,textarea{font:inherit;font-weight:400;padding:.35rem;max-width:100%;min-width:0}
button,.button{font:inherit;padding:.3rem .8rem;cursor:pointer;border:1px solid var(--border);border-radius:6px;background:var(--subtle);color:var(--fg);text-decoration:none;display:inline-block}
.error{color:var(--danger);border:1px solid var(--danger-border);padding:.5rem}.notice{border:1px solid var(--success-border);padding:.5rem}
code{background:var(--subtle);padding:.1rem .3rem;overflow-wrap:anywhere}
pre{background:var(--subtle);padding:.75rem;white-space:pre-wrap;overflow-wrap:anywhere}
pre code{padding:0;background:none}
a code{text-decoration:inherit}
.skip-link{position:absolute;left:.5rem;top:-3rem;z-index:100;background:var(--bg);color:var(--accent);padding:.4rem .8rem;border:2px solid var(--accent);border-radius:6px}
.skip-link:focus{top:.5rem}
main:focus{outline:none}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid var(--border);padding:.3rem;text-align:left;vertical-align:top}
.badge{display:inline-block;font-size:.75rem;font-weight:600;border:1px solid var(--muted);color:var(--muted);border-radius:2em;padding:0 .5em;vertical-align:middle}
.topics{list-style:none;display:flex;flex-wrap:wrap;gap:.3rem;padding:0;margin:.3rem 0 .8rem}.topics li{font-size:.75rem;font-weight:600;color:var(--accent);background:var(--accent-bg);border-radius:2em;padding:.1em .7em}
.muted{color:var(--muted)}.sr-only{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.repo-head h1{font-size:1.35rem;margin:.2rem 0;overflow-wrap:anywhere}
.tabs{display:flex;gap:.25rem;overflow-x:auto;border-bottom:1px solid var(--border);margin:.5rem 0 1rem;padding:0;list-style:none}
.tabs a{display:block;padding:.45rem .75rem;text-decoration:none;color:var(--fg);border-bottom:2px solid transparent;white-space:nowrap}
.tabs a[aria-current]{border-bottom-color:#fd8c73;font-weight:600}
.toolbar{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;margin:.5rem 0}
.toolbar .spacer{flex:1}
.clone{display:flex;gap:.4rem;align-items:center;flex-wrap:wrap;max-width:100%}
.switcher{position:relative}.switcher summary{cursor:pointer;list-style:none;border:1px solid var(--border);border-radius:6px;padding:.3rem .7rem;background:var(--subtle)}
.switcher .menu-items{left:0;right:auto;max-height:20rem;overflow:auto}
.switcher .menu-items ul{list-style:none;margin:0;padding:0}
.switcher .menu-items li a{display:block;padding:.3rem .8rem;overflow-wrap:anywhere}
table.branches td{overflow-wrap:anywhere}
.switcher form.ref-create{display:grid;gap:.3rem;padding:.4rem .8rem;border-top:1px solid var(--border);margin-top:.3rem}.switcher form.ref-create .actions{margin:0}
.switcher h2{font-size:.8rem;margin:.3rem .8rem;color:var(--muted)}
.breadcrumbs{font-size:1.05rem;overflow-wrap:anywhere;margin:.5rem 0}
.listing td.name{width:35%;overflow-wrap:anywhere}.listing td.msg{overflow-wrap:anywhere}.listing td.when{white-space:nowrap;text-align:right}
.listing .kind{vertical-align:-.15em;margin-right:.3em;color:var(--muted)}
.readme{border:1px solid var(--border);border-radius:6px;padding:0 1rem 1rem;margin-top:1rem;overflow-wrap:anywhere}
.readme img,.markdown img{max-width:100%}
.file{border:1px solid var(--border);border-radius:6px;margin:1rem 0;overflow:hidden}
.file-head{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;background:var(--subtle);padding:.4rem .75rem;border-bottom:1px solid var(--border);overflow-wrap:anywhere}
.file-head .spacer{flex:1}
.code-scroll{overflow-x:auto}
table.code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.85rem;border:0;width:100%}
table.code td{border:0;padding:0 .5rem;white-space:pre;line-height:1.5}
table.code td.num{width:1%;text-align:right;color:var(--muted);user-select:none;min-width:3rem}
table.code td.num a{color:var(--muted);text-decoration:none}
table.code tr:target td,table.code tr.highlighted td{background:var(--highlight)}
table.blame td.blame-commit{white-space:normal;width:16rem;max-width:40vw;border-top:1px solid var(--border);font-family:system-ui,sans-serif;font-size:.8rem;overflow-wrap:anywhere;vertical-align:top;padding:.2rem .5rem}table.blame td.blame-commit .muted{display:block}.blame-prior{text-decoration:none}
.diff-file summary{cursor:pointer;display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;background:var(--subtle);padding:.4rem .75rem;overflow-wrap:anywhere}
.diff-file{border:1px solid var(--border);border-radius:6px;margin:1rem 0;overflow:hidden}
table.code tr.add td{background:var(--add-bg)}table.code tr.del td{background:var(--del-bg)}
table.code.split td:not(.num){width:50%}table.code.split td.add{background:var(--add-bg)}table.code.split td.del{background:var(--del-bg)}table.code.split td.empty{background:var(--subtle)}
.diff-layout{margin:.3rem 0}.diff-layout .view-part{margin-left:1rem}.diff-expand{margin:.4rem .75rem}
table.code tr.hunk td{background:var(--accent-bg);color:var(--muted)}
.hljs-keyword,.hljs-doctag,.hljs-template-tag,.hljs-template-variable,.hljs-type,.hljs-variable.language_,.hljs-deletion{color:var(--danger)}
.hljs-title,.hljs-title.class_,.hljs-title.function_{color:var(--purple)}.hljs-attr,.hljs-attribute,.hljs-literal,.hljs-meta,.hljs-number,.hljs-operator,.hljs-variable,.hljs-section{color:var(--accent)}
.hljs-string,.hljs-regexp{color:var(--string)}.hljs-built_in,.hljs-symbol{color:var(--orange)}.hljs-comment,.hljs-code,.hljs-formula{color:var(--muted)}
.hljs-name,.hljs-quote,.hljs-selector-tag,.hljs-selector-pseudo,.hljs-addition{color:var(--success)}.hljs-bullet{color:var(--bullet)}
.added{color:var(--success);font-weight:600}.removed{color:var(--danger);font-weight:600}
.status-success{color:var(--success)}.status-failure{color:var(--danger)}.status-pending{color:var(--pending)}
.pager{display:flex;gap:1rem;margin:1rem 0}
.commit-list li{padding:.4rem 0;border-bottom:1px solid var(--border);list-style:none}.commit-list{padding:0}
.commit-list .sha{font-family:ui-monospace,monospace}
.repos{padding:0}.repos li{list-style:none;padding:.5rem 0;border-bottom:1px solid var(--border);overflow-wrap:anywhere}
.search.inline{display:inline-block;margin:0 .5rem 0 0}.search-file h3{font-size:.95rem;margin:1rem 0 .3rem;overflow-wrap:anywhere}.search-file table.code{border:1px solid var(--border)}.search-file table.code td.line{white-space:pre-wrap;overflow-wrap:anywhere}
.keys{padding:0}.keys li{list-style:none;padding:.5rem 0;border-bottom:1px solid var(--border);overflow-wrap:anywhere}.keys code{word-break:break-all}
.profile{display:flex;gap:1rem;align-items:center;flex-wrap:wrap}
img.preview{max-width:100%;height:auto;display:block;margin:1rem auto}
@media (max-width:40rem){body{padding:0 .6rem 2rem}.wide-only{display:none}.listing td.when{display:none}.listing td.name{width:auto}
table.code{font-size:.8rem}
table.branches thead{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
table.branches,table.branches tbody,table.branches tr,table.branches td{display:block;width:auto}
table.branches tr{border-bottom:1px solid var(--border);padding:.3rem 0}table.branches td{border:0;padding:.1rem .3rem}}`;
