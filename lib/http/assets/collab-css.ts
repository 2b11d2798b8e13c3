/** Styles of the issue, pull request, settings and account pages (appended to /assets/site.css). */
export const COLLAB_CSS = `
.list-head{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;justify-content:space-between;margin:.5rem 0}
.milestone-progress{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;margin:.3rem 0}.milestone-progress progress{width:12rem;max-width:100%;accent-color:var(--success-border)}
.triage p{margin:.5rem 0}.triage-edit summary,.new-milestone summary{cursor:pointer}
.issue-search{display:flex;gap:.3rem;flex:1 1 16rem;align-items:center;margin:0}.issue-search label{flex:1;display:block}.issue-search input[type=search]{width:100%}
.state-tabs{display:flex;gap:.25rem;list-style:none;margin:0;padding:0}
.state-tabs a{display:block;padding:.3rem .7rem;border:1px solid var(--border);border-radius:6px;text-decoration:none;color:var(--fg)}
.state-tabs a[aria-current]{background:var(--accent-bg);border-color:var(--accent);font-weight:600}
.count{display:inline-block;min-width:1.4em;text-align:center;background:var(--neutral-bg);border-radius:2em;padding:0 .4em;font-size:.85em}
.items{list-style:none;margin:0;padding:0;border:1px solid var(--border);border-radius:6px}
.items .item{padding:.6rem .75rem;border-bottom:1px solid var(--border);overflow-wrap:anywhere}.items .item:last-child{border-bottom:0}
.item-title{font-weight:600;margin-right:.3rem}.items .muted{display:block;font-size:.85rem}
.item-heading{font-size:1.3rem;overflow-wrap:anywhere}
.state{display:inline-block;border-radius:2em;padding:.1rem .6rem;font-size:.8rem;font-weight:600;color:#fff}
.state-open{background:#1a7f37}.state-closed{background:#cf222e}.state-merged{background:#8250df}
.label{display:inline-block;border-radius:2em;padding:0 .55em;font-size:.8rem;font-weight:600;margin:0 .15rem;overflow-wrap:anywhere}
.label-filter{display:flex;flex-wrap:wrap;gap:.3rem;align-items:center;margin:.5rem 0}
.label-filter a{text-decoration:none;border-radius:2em;border:2px solid transparent}.label-filter a.on{border-color:var(--fg)}
.conversation{display:grid;gap:1rem;margin:1rem 0}
.comment{border:1px solid var(--border);border-radius:6px;overflow:hidden}
.comment-head{background:var(--subtle);border-bottom:1px solid var(--border);padding:.4rem .75rem;overflow-wrap:anywhere}
.comment .markdown{padding:0 .75rem;overflow-wrap:anywhere}.comment-edit{padding:0 .75rem .6rem}
.reactions{padding:0 .75rem;margin:.2rem 0 .6rem}.reaction{display:inline-block;border:1px solid var(--border);border-radius:1rem;padding:0 .5rem;margin-right:.25rem}
.timeline-event{margin:0 0 0 1rem;padding:.1rem 0 .1rem .9rem;border-left:2px solid var(--border);overflow-wrap:anywhere}.timeline-event del{color:var(--muted)}.timeline-event ins{text-decoration:none;font-weight:600}
form.card.wide{max-width:48rem}form.card textarea{width:100%}form.card button{justify-self:start}
fieldset{border:1px solid var(--border);border-radius:6px;display:flex;flex-wrap:wrap;gap:.3rem 1rem}
label.check{display:flex;gap:.35rem;align-items:center;font-weight:400}
.label-editor,.merge-box,.checks{margin:1rem 0}
.merge-box{border:1px solid var(--border);border-left:4px solid #8250df;border-radius:6px;padding:.5rem .9rem}
.compare-picker{display:flex;flex-wrap:wrap;gap:.6rem;align-items:end;margin:.5rem 0 1rem}
.settings{display:grid;grid-template-columns:12rem 1fr;gap:1.5rem}
.settings-nav{list-style:none;margin:0;padding:0;border:1px solid var(--border);border-radius:6px}
.settings-nav a{display:block;padding:.45rem .75rem;text-decoration:none;color:var(--fg);border-bottom:1px solid var(--border)}
.settings-nav li:last-child a{border-bottom:0}.settings-nav a[aria-current]{border-left:3px solid #fd8c73;font-weight:600}
.settings-body{min-width:0}.settings-body h2{margin-top:0}
.danger-zone{border:1px solid var(--danger-border);border-radius:6px;padding:.75rem}button.danger{color:var(--danger);border-color:var(--danger-border)}
.preview-toggle{justify-self:start}textarea.code-input{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.85rem;width:100%;white-space:pre;overflow-wrap:normal;overflow-x:auto}.markdown.preview{border:1px dashed var(--border);border-radius:6px;padding:0 .75rem;overflow-wrap:anywhere}
table.code tr.review-row td{white-space:normal;font-family:system-ui,sans-serif;font-size:.9rem;line-height:1.45;padding:.4rem .6rem;background:var(--bg)}
.file-comments{font-size:.9rem;line-height:1.45;padding:.4rem .6rem}
.review-thread{border:1px solid var(--border);border-radius:6px;margin:.3rem 0;padding:.4rem;display:grid;gap:.4rem}.review-thread form.reply{max-width:none}
.file-viewed{margin:.4rem .75rem}
.file-comment-link{display:inline-block;margin:.2rem .75rem;font-size:.9rem}
.review-thread.resolved{display:block}.review-thread.resolved>summary{cursor:pointer;color:var(--muted)}.review-thread.resolved[open]>summary{margin-bottom:.4rem}.review-thread.resolved[open]{display:grid}
form.line-comment{max-width:none;border:1px solid var(--border);border-radius:6px;padding:.5rem}
.review-box{margin:1rem 0}.review-box summary{cursor:pointer;font-weight:600;display:inline-block;border:1px solid var(--border);border-radius:6px;padding:.3rem .8rem;background:var(--subtle)}
.markdown pre:has(> code.language-suggestion)::before{content:"Suggested change";display:block;font-weight:600;font-family:system-ui,sans-serif;margin-bottom:.3rem}
.reviews h3{font-size:1rem}
.actions{display:flex;flex-wrap:wrap;gap:.5rem;margin:1rem 0}
.table-scroll{overflow-x:auto}
.inbox.unread .count{background:var(--accent);color:var(--bg)}
.notifications .item.unread .item-title{font-weight:700}
.notifications .item form{margin-left:.25rem}
@media (max-width:40rem){.settings{grid-template-columns:1fr}}`;
