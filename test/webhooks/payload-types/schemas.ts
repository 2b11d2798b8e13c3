import type { components } from '@octokit/openapi-webhooks-types';

/** GitHub's description of every webhook payload, as `@octokit/openapi-webhooks-types` generates it from its OpenAPI. */
type Schemas = components['schemas'];

/** A label as GitHub's `issues` events describe it (`issues.opened`). */
type Label = NonNullable<Schemas['webhook-issues-opened']['issue']['labels']>[number];

/**
 * The schema a payload is checked against: GitHub's own, but for one defect of its description. `issues.closed`
 * gives the items of `issue.labels` no properties, which the generated types make `Record<string, never>`: only an
 * issue without labels would compile, though GitHub sends whole labels there, as in every other `issues` event. There,
 * labels are checked as `issues.opened` describes them, and everything else as `issues.closed` does.
 */
export type Schema<K extends keyof Schemas> = K extends 'webhook-issues-closed'
  ? Omit<Schemas[K], 'issue'> & { issue: Omit<Schemas[K]['issue'], 'labels'> & { labels?: Label[] } }
  : Schemas[K];
