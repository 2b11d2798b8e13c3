import type { components } from '@octokit/openapi-webhooks-types';

/** GitHub's description of every webhook payload, as `@octokit/openapi-webhooks-types` generates it from its OpenAPI. */
type Schemas = components['schemas'];

/** A label as GitHub's `issues` events describe it (`issues.opened`). */
type Label = NonNullable<Schemas['webhook-issues-opened']['issue']['labels']>[number];

/** A deployment's payload as GitHub's REST description of a deployment has it: an object of anything, or a string. */
type DeploymentPayload = components['schemas']['webhook-deployment-created']['deployment']['payload'] | Record<string, unknown>;
type WithDeploymentPayload<T extends { deployment: object }> = Omit<T, 'deployment'> & { deployment: Omit<T['deployment'], 'payload'> & { payload: DeploymentPayload } };
type WithIssueLabels<T extends { issue: object }> = Omit<T, 'issue'> & { issue: Omit<T['issue'], 'labels'> & { labels?: Label[] } };
type WithPullLabels<T extends { pull_request: object }> = Omit<T, 'pull_request'> & { pull_request: Omit<T['pull_request'], 'labels'> & { labels: Label[] } };

/**
 * The schema a payload is checked against: GitHub's own, but for defects of its description:
 * - `issues.closed` gives the items of `issue.labels` no properties, which the generated types make
 *   `Record<string, never>`: only an issue without labels would compile, though GitHub sends whole labels there, as in
 *   every other `issues` event. There, labels are checked as `issues.opened` describes them.
 * - `issues.labeled` and `pull_request.labeled` (12.2.0) require `archived_at` and `archived_by` of every label of the
 *   issue or pull request, which every other `issues` and `pull_request` event refuses as unknown: the same labels
 *   cannot be both. There, they are checked as `issues.opened` describes an issue's (its `pull_request` events disagree among
 *   themselves too: `opened` requires `archived_by` alone); the label the
 *   event is about (`label`, GitHub's `webhooks_label` in every event) has both fields.
 * - `deployment` and `deployment_status` say so of `deployment.payload`, which GitHub sends as it was given (an
 *   object or a string, as its REST description says). There, the payload is checked as the REST description has it.
 */
export type Schema<K extends keyof Schemas> = K extends 'webhook-issues-closed' | 'webhook-issues-labeled'
  ? WithIssueLabels<Schemas[K]>
  : K extends 'webhook-pull-request-labeled'
    ? WithPullLabels<Schemas[K]>
    : K extends 'webhook-deployment-created' | 'webhook-deployment-status-created'
      ? WithDeploymentPayload<Schemas[K]>
      : Schemas[K];
