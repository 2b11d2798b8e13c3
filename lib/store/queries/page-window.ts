/** Which rows of a list one page holds: list queries take it as `LIMIT ? OFFSET ?`. */
export interface PageWindow {
  readonly limit: number;
  readonly offset: number;
}

/** What server-rendered pages show of a list until they page themselves. */
export const FIRST_HUNDRED: PageWindow = Object.freeze({ limit: 100, offset: 0 });
/** No rows, only the total: what a count of a list asks for. */
export const NO_ITEMS: PageWindow = Object.freeze({ limit: 0, offset: 0 });
