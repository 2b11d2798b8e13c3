/**
 * The progressive-enhancement script of every page (served as /assets/site.js; pages work without it):
 * copy buttons, Escape closing menus, and the highlighted line range of a file view (`#L10` or `#L10-L20`, shift-click on a
 * line number extends the range).
 */
export const SITE_JS = `(() => {
  'use strict';
  document.addEventListener('click', (event) => {
    const button = event.target.closest && event.target.closest('button[data-copy]');
    if (!button) return;
    const source = document.getElementById(button.getAttribute('data-copy'));
    if (!source || !navigator.clipboard) return;
    navigator.clipboard.writeText(source.textContent.trim()).then(() => {
      const label = button.textContent;
      button.textContent = 'Copied';
      setTimeout(() => { button.textContent = label; }, 1500);
    }, () => {});
  });

  // Escape closes the open menu (a <details> disclosure: user menu, branch/tag switcher) and returns focus to it.
  document.addEventListener('keydown', (event) => {
    if (event.key !== 'Escape') return;
    for (const menu of document.querySelectorAll('details.menu[open], details.switcher[open]')) {
      const hadFocus = menu.contains(document.activeElement);
      menu.removeAttribute('open');
      const summary = menu.querySelector('summary');
      if (hadFocus && summary) summary.focus();
    }
  });

  const RANGE = /^#L(\\d+)(?:-L(\\d+))?$/;
  function highlight() {
    for (const row of document.querySelectorAll('tr.highlighted')) row.classList.remove('highlighted');
    const match = RANGE.exec(location.hash);
    if (!match) return;
    let from = Number(match[1]);
    let to = Number(match[2] || match[1]);
    if (to < from) [from, to] = [to, from];
    // Rows are numbered in order: a range is a bounded walk, never a scan of a huge file.
    let first = null;
    for (let line = from; line <= to && line - from < 100000; line++) {
      const row = document.getElementById('L' + line);
      if (!row) break;
      row.classList.add('highlighted');
      first = first || row;
    }
    if (first) first.scrollIntoView({ block: 'center' });
  }
  let anchor = null;
  document.addEventListener('click', (event) => {
    const link = event.target.closest && event.target.closest('a.line-link');
    if (!link) return;
    const line = Number(link.getAttribute('data-line'));
    if (event.shiftKey && anchor !== null) {
      event.preventDefault();
      const [from, to] = anchor < line ? [anchor, line] : [line, anchor];
      history.replaceState(null, '', '#L' + from + '-L' + to);
      highlight();
    } else {
      anchor = line;
    }
  });
  // Headings of rendered Markdown carry GitHub's prefixed ids: '#endpoints' scrolls to 'user-content-endpoints'.
  function toHeading() {
    const name = decodeURIComponent(location.hash.slice(1));
    if (!name || document.getElementById(name)) return;
    const heading = document.getElementById('user-content-' + name);
    if (heading) heading.scrollIntoView();
  }
  const onHash = () => {
    highlight();
    toHeading();
  };
  window.addEventListener('hashchange', onHash);
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', onHash);
  else onHash();
})();
`;
