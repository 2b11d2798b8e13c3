/** The stylesheet of every page (served as /assets/site.css). Colours keep WCAG AA contrast on white. */
export const SITE_CSS = `*,*::before,*::after{box-sizing:border-box}
body{font-family:system-ui,sans-serif;max-width:64rem;margin:0 auto;padding:0 1rem 2rem;color:#1f2328;line-height:1.45}
a{color:#0550ae}h1,h2,h3,p,li{overflow-wrap:anywhere}
header.top{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;border-bottom:1px solid #d0d7de;padding:.6rem 0;margin-bottom:1rem}
header.top .spacer{flex:1}header.top nav{display:flex;gap:.75rem;align-items:center;flex-wrap:wrap}
.menu{position:relative}.menu summary{cursor:pointer;font-weight:600;padding:.25rem .5rem;border:1px solid #d0d7de;border-radius:6px;list-style:none}
.menu summary::after{content:" \\25BE"}
.menu-items{position:absolute;right:0;z-index:10;background:#fff;border:1px solid #d0d7de;border-radius:6px;box-shadow:0 4px 12px rgba(0,0,0,.12);list-style:none;margin:.3rem 0 0;padding:.3rem 0;min-width:12rem}
.menu-items li a,.menu-items li button{display:block;width:100%;text-align:left;padding:.4rem .8rem;background:none;border:0;font:inherit;color:#1f2328;text-decoration:none;cursor:pointer}
.menu-items li a:hover,.menu-items li button:hover,.menu-items li a:focus,.menu-items li button:focus{background:#f6f8fa}
.menu-items form{margin:0}
form.card{display:grid;gap:.6rem;max-width:24rem}form.inline{display:inline}
label{display:grid;gap:.2rem;font-weight:600}input,select,textarea{font:inherit;padding:.35rem;max-width:100%;min-width:0}
button,.button{font:inherit;padding:.3rem .8rem;cursor:pointer;border:1px solid #d0d7de;border-radius:6px;background:#f6f8fa;color:#1f2328;text-decoration:none;display:inline-block}
.error{color:#a40e26;border:1px solid #cf222e;padding:.5rem}.notice{border:1px solid #1a7f37;padding:.5rem}
code{background:#f6f8fa;padding:.1rem .3rem;overflow-wrap:anywhere}
pre{background:#f6f8fa;padding:.75rem;white-space:pre-wrap;overflow-wrap:anywhere}
pre code{padding:0;background:none}
a code{text-decoration:inherit}
.skip-link{position:absolute;left:.5rem;top:-3rem;z-index:100;background:#fff;color:#0550ae;padding:.4rem .8rem;border:2px solid #0550ae;border-radius:6px}
.skip-link:focus{top:.5rem}
main:focus{outline:none}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #d0d7de;padding:.3rem;text-align:left;vertical-align:top}
.badge{display:inline-block;font-size:.75rem;font-weight:600;border:1px solid #57606a;color:#57606a;border-radius:2em;padding:0 .5em;vertical-align:middle}
.muted{color:#57606a}.sr-only{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.repo-head h1{font-size:1.35rem;margin:.2rem 0;overflow-wrap:anywhere}
.tabs{display:flex;gap:.25rem;overflow-x:auto;border-bottom:1px solid #d0d7de;margin:.5rem 0 1rem;padding:0;list-style:none}
.tabs a{display:block;padding:.45rem .75rem;text-decoration:none;color:#1f2328;border-bottom:2px solid transparent;white-space:nowrap}
.tabs a[aria-current]{border-bottom-color:#fd8c73;font-weight:600}
.toolbar{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;margin:.5rem 0}
.toolbar .spacer{flex:1}
.clone{display:flex;gap:.4rem;align-items:center;flex-wrap:wrap;max-width:100%}
.switcher{position:relative}.switcher summary{cursor:pointer;list-style:none;border:1px solid #d0d7de;border-radius:6px;padding:.3rem .7rem;background:#f6f8fa}
.switcher .menu-items{left:0;right:auto;max-height:20rem;overflow:auto}
.switcher .menu-items ul{list-style:none;margin:0;padding:0}
.switcher .menu-items li a{display:block;padding:.3rem .8rem;overflow-wrap:anywhere}
table.branches td{overflow-wrap:anywhere}
.switcher h2{font-size:.8rem;margin:.3rem .8rem;color:#57606a}
.breadcrumbs{font-size:1.05rem;overflow-wrap:anywhere;margin:.5rem 0}
.listing td.name{width:35%;overflow-wrap:anywhere}.listing td.msg{overflow-wrap:anywhere}.listing td.when{white-space:nowrap;text-align:right}
.listing .kind{vertical-align:-.15em;margin-right:.3em;color:#57606a}
.readme{border:1px solid #d0d7de;border-radius:6px;padding:0 1rem 1rem;margin-top:1rem;overflow-wrap:anywhere}
.readme img,.markdown img{max-width:100%}
.file{border:1px solid #d0d7de;border-radius:6px;margin:1rem 0;overflow:hidden}
.file-head{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;background:#f6f8fa;padding:.4rem .75rem;border-bottom:1px solid #d0d7de;overflow-wrap:anywhere}
.file-head .spacer{flex:1}
.code-scroll{overflow-x:auto}
table.code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.85rem;border:0;width:100%}
table.code td{border:0;padding:0 .5rem;white-space:pre;line-height:1.5}
table.code td.num{width:1%;text-align:right;color:#57606a;user-select:none;min-width:3rem}
table.code td.num a{color:#57606a;text-decoration:none}
table.code tr:target td,table.code tr.highlighted td{background:#fff8c5}
table.blame td.blame-commit{white-space:normal;width:16rem;max-width:40vw;border-top:1px solid #d0d7de;font-family:system-ui,sans-serif;font-size:.8rem;overflow-wrap:anywhere;vertical-align:top;padding:.2rem .5rem}table.blame td.blame-commit .muted{display:block}.blame-prior{text-decoration:none}
.diff-file summary{cursor:pointer;display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;background:#f6f8fa;padding:.4rem .75rem;overflow-wrap:anywhere}
.diff-file{border:1px solid #d0d7de;border-radius:6px;margin:1rem 0;overflow:hidden}
table.code tr.add td{background:#dafbe1}table.code tr.del td{background:#ffebe9}
table.code tr.hunk td{background:#ddf4ff;color:#57606a}
.hljs-keyword,.hljs-doctag,.hljs-template-tag,.hljs-template-variable,.hljs-type,.hljs-variable.language_,.hljs-deletion{color:#a40e26}
.hljs-title,.hljs-title.class_,.hljs-title.function_{color:#6639ba}.hljs-attr,.hljs-attribute,.hljs-literal,.hljs-meta,.hljs-number,.hljs-operator,.hljs-variable,.hljs-section{color:#0550ae}
.hljs-string,.hljs-regexp{color:#0a3069}.hljs-built_in,.hljs-symbol{color:#953800}.hljs-comment,.hljs-code,.hljs-formula{color:#57606a}
.hljs-name,.hljs-quote,.hljs-selector-tag,.hljs-selector-pseudo,.hljs-addition{color:#116329}.hljs-bullet{color:#6c5300}
.added{color:#116329;font-weight:600}.removed{color:#a40e26;font-weight:600}
.status-success{color:#116329}.status-failure{color:#a40e26}.status-pending{color:#7d4e00}
.pager{display:flex;gap:1rem;margin:1rem 0}
.commit-list li{padding:.4rem 0;border-bottom:1px solid #d0d7de;list-style:none}.commit-list{padding:0}
.commit-list .sha{font-family:ui-monospace,monospace}
.repos{padding:0}.repos li{list-style:none;padding:.5rem 0;border-bottom:1px solid #d0d7de;overflow-wrap:anywhere}
.search.inline{display:inline-block;margin:0 .5rem 0 0}.search-file h3{font-size:.95rem;margin:1rem 0 .3rem;overflow-wrap:anywhere}.search-file table.code{border:1px solid #d0d7de}.search-file table.code td.line{white-space:pre-wrap;overflow-wrap:anywhere}
.keys{padding:0}.keys li{list-style:none;padding:.5rem 0;border-bottom:1px solid #d0d7de;overflow-wrap:anywhere}.keys code{word-break:break-all}
.profile{display:flex;gap:1rem;align-items:center;flex-wrap:wrap}
img.preview{max-width:100%;height:auto;display:block;margin:1rem auto}
@media (max-width:40rem){body{padding:0 .6rem 2rem}.wide-only{display:none}.listing td.when{display:none}.listing td.name{width:auto}
table.code{font-size:.8rem}
table.branches thead{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
table.branches,table.branches tbody,table.branches tr,table.branches td{display:block;width:auto}
table.branches tr{border-bottom:1px solid #d0d7de;padding:.3rem 0}table.branches td{border:0;padding:.1rem .3rem}}`;
