import { describe, expect, it } from 'vitest';
import { toPostgresPlaceholders } from '../../lib/store/postgres/placeholders.js';

describe('toPostgresPlaceholders', () => {
  it('numbers ? placeholders in order', () => {
    expect(toPostgresPlaceholders('SELECT * FROM t WHERE a = ? AND b IN (?, ?) LIMIT ?')).toBe('SELECT * FROM t WHERE a = $1 AND b IN ($2, $3) LIMIT $4');
  });

  it('leaves a ? inside string literals, quoted identifiers and comments alone', () => {
    expect(toPostgresPlaceholders("SELECT '?', 'it''s ?', \"odd?name\" FROM t WHERE a = ? -- why?\n AND b = ? /* c? */")).toBe(
      "SELECT '?', 'it''s ?', \"odd?name\" FROM t WHERE a = $1 -- why?\n AND b = $2 /* c? */",
    );
  });

  it("knows E'' strings escape quotes with a backslash, and dollar-quoted strings", () => {
    expect(toPostgresPlaceholders("SELECT E'\\'?', $$ ? $$, $tag$ ' ? $tag$, ?")).toBe("SELECT E'\\'?', $$ ? $$, $tag$ ' ? $tag$, $1");
    // A plain string ending in e is not an E'' string: the backslash is an ordinary character there.
    expect(toPostgresPlaceholders("SELECT name FROM t WHERE x LIKE ? ESCAPE '\\' AND y = ?")).toBe("SELECT name FROM t WHERE x LIKE $1 ESCAPE '\\' AND y = $2");
  });

  it('leaves SQL without placeholders unchanged and refuses numbered ones', () => {
    expect(toPostgresPlaceholders("SELECT 1 FROM t WHERE s = 'open'")).toBe("SELECT 1 FROM t WHERE s = 'open'");
    expect(() => toPostgresPlaceholders('SELECT ?1')).toThrow(/not portable/);
  });
});
