/** Which rows of a list one page holds: list queries take it as `LIMIT ? OFFSET ?`. */
export interface PageWindow {
  readonly limit: number;
  readonly offset: number;
}

/** What server-rendered pages show of a list until they page themselves. */
export const FIRST_HUNDRED: PageWindow = Object.freeze({ limit: 100, offset: 0 });
