/**
 * The SQL of "the repository joined as `r` is one `viewer` may read": public, its own, or one it collaborates on. The
 * one form every list that filters repositories by reader uses; it says in SQL what `accessLevel`
 * (services/permissions.ts) says of one repository, less apps' grants, which no such list reads for. `viewer` is an SQL
 * expression: `?` (bound to the account's id, or 0 for nobody) or a column.
 */
export function readableBy(viewer: string): string {
  return `(r.is_private = 0 OR r.owner_id = ${viewer} OR EXISTS (SELECT 1 FROM collaborators readable_c WHERE readable_c.repo_id = r.id AND readable_c.user_id = ${viewer}))`;
}
