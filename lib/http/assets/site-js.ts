/**
 * The progressive-enhancement script of every page (served as /assets/site.js; pages work without it):
 * copy buttons, Escape closing menus, Markdown previews, and the highlighted line range of a file view (`#L10` or `#L10-L20`, shift-click on a
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

  // A form that destroys something asks first (a page without this script submits at once).
  document.addEventListener('submit', (event) => {
    const form = event.target.closest && event.target.closest('form[data-confirm]');
    if (form && !window.confirm(form.getAttribute('data-confirm'))) event.preventDefault();
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
  // Markdown text boxes get a Preview: the server renders the text as it will be shown, in its repository's context
  // (no credentials are sent: rendering reads nothing).
  function addPreview(box) {
    const label = box.closest('label') || box;
    const toggle = document.createElement('button');
    toggle.type = 'button';
    toggle.className = 'preview-toggle';
    toggle.textContent = 'Preview';
    toggle.setAttribute('aria-expanded', 'false');
    const shown = document.createElement('div');
    shown.className = 'markdown preview';
    shown.hidden = true;
    toggle.setAttribute('aria-controls', shown.id = 'preview-' + Math.random().toString(36).slice(2));
    label.after(toggle, shown);
    toggle.addEventListener('click', () => {
      if (!shown.hidden) {
        shown.hidden = true;
        toggle.textContent = 'Preview';
        toggle.setAttribute('aria-expanded', 'false');
        return;
      }
      toggle.disabled = true;
      const request = { text: box.value, mode: 'gfm', context: box.getAttribute('data-preview') };
      fetch('/api/v3/markdown', { method: 'POST', credentials: 'omit', headers: { 'content-type': 'application/json' }, body: JSON.stringify(request) })
        .then((res) => (res.ok ? res.text() : Promise.reject(new Error('status ' + res.status))))
        .then((markup) => {
          // The server's renderer escapes what the author wrote, as on every page that shows it.
          shown.innerHTML = markup.trim() || '<p class="muted">Nothing to preview</p>';
        }, () => {
          shown.textContent = 'The preview could not be made; the text is unchanged.';
        })
        .finally(() => {
          shown.hidden = false;
          toggle.disabled = false;
          toggle.textContent = 'Hide preview';
          toggle.setAttribute('aria-expanded', 'true');
        });
    });
  }
  const previews = () => document.querySelectorAll('textarea[data-preview]').forEach(addPreview);
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', previews);
  else previews();
  window.addEventListener('hashchange', onHash);
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', onHash);
  else onHash();
})();
`;
