import type { components } from '@octokit/openapi-webhooks-types';

/** GitHub's description of every webhook payload, as `@octokit/openapi-webhooks-types` generates it from its OpenAPI. */
type Schemas = components['schemas'];

/** A label as GitHub's `issues` events describe it (`issues.opened`). */
type Label = NonNullable<Schemas['webhook-issues-opened']['issue']['labels']>[number];

/** A deployment's payload as GitHub's REST description of a deployment has it: an object of anything, or a string. */
type DeploymentPayload = components['schemas']['webhook-deployment-created']['deployment']['payload'] | Record<string, unknown>;
type WithDeploymentPayload<T extends { deployment: object }> = Omit<T, 'deployment'> & { deployment: Omit<T['deployment'], 'payload'> & { payload: DeploymentPayload } };

/**
 * The schema a payload is checked against: GitHub's own, but for two defects of its description, where it gives an
 * object no properties, which the generated types make `Record<string, never>`:
 * - `issues.closed` says so of the items of `issue.labels`: only an issue without labels would compile, though GitHub
 *   sends whole labels there, as in every other `issues` event. There, labels are checked as `issues.opened` describes
 *   them, and everything else as `issues.closed` does.
 * - `deployment` and `deployment_status` say so of `deployment.payload`, which GitHub sends as it was given (an
 *   object or a string, as its REST description says). There, the payload is checked as the REST description has it.
 */
export type Schema<K extends keyof Schemas> = K extends 'webhook-issues-closed'
  ? Omit<Schemas[K], 'issue'> & { issue: Omit<Schemas[K]['issue'], 'labels'> & { labels?: Label[] } }
  : K extends 'webhook-deployment-created' | 'webhook-deployment-status-created'
    ? WithDeploymentPayload<Schemas[K]>
    : Schemas[K];
