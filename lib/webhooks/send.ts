import { promises as dns, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isLocalAddress } from '../net/address-guard.js';

/** Most response body bytes kept in a delivery's history. */
export const MAX_RESPONSE_BODY = 64 * 1024;

export interface OutgoingRequest {
  url: string;
  headers: Record<string, string>;
  body: Buffer;
}

export interface SendOptions {
  timeoutMs: number;
  /** Let targets on loopback, private and link-local addresses through (test harnesses). */
  allowLocal: boolean;
  signal?: AbortSignal;
}

/** What one attempt got: a status (any, redirects included: they are not followed) or an error. */
export interface SendResult {
  statusCode: number | null;
  headers: Record<string, string> | null;
  body: string | null;
  error: string | null;
  durationMs: number;
}

/** Why a target may not be reached; thrown before any byte leaves. */
class RefusedTarget extends Error {}

/**
 * Resolves the host now and refuses it unless every address is public, then hands the connection exactly the address
 * checked: the guard holds for the address actually connected to, not for an earlier DNS answer.
 */
async function checkedAddress(hostname: string, allowLocal: boolean): Promise<LookupAddress> {
  const host = hostname.replace(/^\[|\]$/g, '');
  const family = isIP(host);
  const addresses: LookupAddress[] = family ? [{ address: host, family }] : await dns.lookup(host, { all: true, verbatim: true });
  if (addresses.length === 0) throw new Error(`${host} cannot be resolved`);
  if (!allowLocal) {
    const local = addresses.find((entry) => isLocalAddress(entry.address));
    if (local) throw new RefusedTarget(`refused: ${host} points to a local or private address (${local.address})`);
  }
  return addresses[0]!;
}

function flatHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  // Built from entries: the receiver names the headers, '__proto__' included.
  const flat: Array<[string, string]> = [];
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) flat.push([name, Array.isArray(value) ? value.join(', ') : value]);
  return Object.fromEntries(flat);
}

/** Posts one webhook request: no redirects followed, a time limit over the whole exchange, the body kept up to 64 KiB. */
export async function postWebhook(outgoing: OutgoingRequest, options: SendOptions): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const failed = (error: unknown): SendResult => ({ statusCode: null, headers: null, body: null, error: (error as Error).message || String(error), durationMs: elapsed() });
  let target: LookupAddress;
  let url: URL;
  try {
    url = new URL(outgoing.url);
  } catch {
    return failed(new Error('the hook URL is not a valid URL'));
  }
  try {
    target = await checkedAddress(url.hostname, options.allowLocal);
  } catch (error) {
    return failed(error instanceof RefusedTarget ? error : new Error(`${url.hostname} cannot be resolved`));
  }
  const pinned: LookupFunction = (_host, lookupOptions, callback) => {
    if (lookupOptions.all) callback(null, [target]);
    else callback(null, target.address, target.family);
  };
  return new Promise<SendResult>((resolve) => {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const request = send(url, {
      method: 'POST',
      headers: { ...outgoing.headers, 'Content-Length': String(outgoing.body.length) },
      lookup: pinned,
      agent: false,
      signal: options.signal,
    });
    const timer = setTimeout(() => request.destroy(new Error(`timed out after ${options.timeoutMs} ms`)), options.timeoutMs);
    const done = (result: SendResult) => {
      clearTimeout(timer);
      resolve(result);
    };
    request.once('error', (error) => done(failed(error)));
    request.once('response', (response) => {
      const chunks: Buffer[] = [];
      let kept = 0;
      response.on('data', (chunk: Buffer) => {
        if (kept >= MAX_RESPONSE_BODY) return;
        const part = chunk.subarray(0, MAX_RESPONSE_BODY - kept);
        chunks.push(part);
        kept += part.length;
        // Enough kept: the rest is not read (the connection is not reused).
        if (kept >= MAX_RESPONSE_BODY) response.destroy();
      });
      const finish = () =>
        done({
          statusCode: response.statusCode ?? null,
          headers: flatHeaders(response.headers),
          body: Buffer.concat(chunks).toString('utf8'),
          error: null,
          durationMs: elapsed(),
        });
      response.once('end', finish);
      response.once('close', finish);
      response.once('error', (error) => (kept >= MAX_RESPONSE_BODY ? finish() : done(failed(error))));
    });
    request.end(outgoing.body);
  });
}
