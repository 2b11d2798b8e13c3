/**
 * Rewrites SQLite's positional `?` parameters to PostgreSQL's `$1..$n`, in order. A `?` inside a string literal
 * (`'...'`, `E'...'`), a quoted identifier (`"..."`), a dollar-quoted string or a comment is text, not a parameter,
 * and is left alone. Numbered SQLite parameters (`?1`) are not part of the common subset: they are refused.
 */
export function toPostgresPlaceholders(sql: string): string {
  let out = '';
  let n = 0;
  let i = 0;
  while (i < sql.length) {
    const char = sql[i]!;
    const next = sql[i + 1];
    let end = i + 1;
    if (char === "'" || char === '"') {
      // Quotes inside are doubled ('it''s'); a backslash escape (E'\'') only matters in E'' strings.
      const escapes = char === "'" && /[eE]$/.test(sql.slice(0, i)) && !/[A-Za-z0-9_]$/.test(sql.slice(0, i - 1));
      end = i + 1;
      while (end < sql.length) {
        if (escapes && sql[end] === '\\') end += 2;
        else if (sql[end] === char && sql[end + 1] === char) end += 2;
        else if (sql[end] === char) break;
        else end += 1;
      }
      end = Math.min(end + 1, sql.length);
    } else if (char === '-' && next === '-') {
      const newline = sql.indexOf('\n', i);
      end = newline === -1 ? sql.length : newline;
    } else if (char === '/' && next === '*') {
      const close = sql.indexOf('*/', i + 2);
      end = close === -1 ? sql.length : close + 2;
    } else if (char === '$' && !/[A-Za-z0-9_]/.test(sql[i - 1] ?? '')) {
      const tag = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(sql.slice(i))?.[0];
      if (tag) {
        const close = sql.indexOf(tag, i + tag.length);
        end = close === -1 ? sql.length : close + tag.length;
      }
    } else if (char === '?') {
      if (next !== undefined && /[0-9]/.test(next)) throw new Error(`numbered parameter ?${next}… is not portable: use plain ? placeholders`);
      n += 1;
      out += `$${n}`;
      i += 1;
      continue;
    }
    out += sql.slice(i, end);
    i = end;
  }
  return out;
}
