import { createHmac } from 'node:crypto';
import type { DeliveryRow, HookRow } from '../store/queries/webhooks.js';
import { VERSION } from '../version.js';
import type { OutgoingRequest } from './send.js';

/** HMAC-SHA256 of the exact body bytes, hex: GitHub's `X-Hub-Signature-256` (after `sha256=`) and Gitea's signature. */
export function signBody(secret: string, body: Buffer): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

/**
 * The request a delivery sends with its hook's current settings: the body as JSON or as GitHub's form
 * (`payload=<json>`), and the headers of GitHub and Gitea both, so consumers of either parse it. An app's delivery
 * targets the app (`integration`), a repository hook's the repository.
 */
export function deliveryRequest(hook: HookRow & { app_id?: number | null }, delivery: DeliveryRow, repoId: number): OutgoingRequest {
  const form = hook.content_type === 'form';
  const body = Buffer.from(form ? new URLSearchParams({ payload: delivery.payload }).toString() : delivery.payload);
  const headers: Record<string, string> = {
    'Content-Type': form ? 'application/x-www-form-urlencoded' : 'application/json',
    // GitHub's prefix, which receivers check ("the User-Agent will have the prefix GitHub-Hookshot/"); the rest says
    // which host sent it.
    'User-Agent': `GitHub-Hookshot/repohost-${VERSION}`,
    'X-GitHub-Event': delivery.event,
    'X-GitHub-Delivery': delivery.guid,
    'X-GitHub-Hook-ID': String(hook.id),
    'X-GitHub-Hook-Installation-Target-Type': hook.app_id ? 'integration' : 'repository',
    'X-GitHub-Hook-Installation-Target-ID': String(hook.app_id ?? repoId),
    'X-Gitea-Event': delivery.event,
    'X-Gitea-Delivery': delivery.guid,
  };
  if (hook.secret) {
    const signature = signBody(hook.secret, body);
    headers['X-Hub-Signature-256'] = `sha256=${signature}`;
    // The SHA-1 signature GitHub still sends beside it, for receivers that check only that one.
    headers['X-Hub-Signature'] = `sha1=${createHmac('sha1', hook.secret).update(body).digest('hex')}`;
    headers['X-Gitea-Signature'] = signature;
  }
  return { url: hook.url, headers, body };
}
