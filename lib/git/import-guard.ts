import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';
import { invalid } from '../errors.js';
import { isLocalAddress } from '../net/address-guard.js';
import { ownValue } from '../own-value.js';


/** A checked import source: the URL to give git and the `-c` options that pin it. */
export interface ImportSource {
  url: string;
  gitConfig: string[];
}

const DEFAULT_PORT: Record<string, string> = { 'http:': '80', 'https:': '443', 'git:': '9418' };

/**
 * Checks a clone_url for import: http, https or git only, no credentials in it, and (unless
 * `allowLocal`) a host that resolves only to public addresses. The address checked is the one git
 * uses: pinned with `http.curloptResolve` for http(s) and written into the URL for git://, so a
 * second DNS answer cannot point git elsewhere. Redirects are never followed.
 */
export async function checkImportSource(raw: string, allowLocal: boolean): Promise<ImportSource> {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw invalid('clone_url is not a valid URL');
  }
  if (!Object.hasOwn(DEFAULT_PORT, url.protocol)) throw invalid('clone_url must be an http, https or git URL');
  if (url.username || url.password) throw invalid('clone_url must not contain credentials');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!host) throw invalid('clone_url has no host');
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = (await dns.lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);
    } catch {
      throw invalid('clone_url host cannot be resolved');
    }
  }
  if (addresses.length === 0) throw invalid('clone_url host cannot be resolved');
  if (!allowLocal && addresses.some(isLocalAddress)) throw invalid('clone_url points to a local or private address');
  const address = addresses[0]!;
  const bracketed = isIP(address) === 6 ? `[${address}]` : address;
  const port = url.port || ownValue(DEFAULT_PORT, url.protocol)!;
  const gitConfig = [
    '-c', 'http.followRedirects=false',
    '-c', 'protocol.allow=never',
    '-c', 'protocol.http.allow=always',
    '-c', 'protocol.https.allow=always',
    '-c', 'protocol.git.allow=always',
    '-c', 'credential.helper=',
    '-c', 'core.askPass=/bin/false',
  ];
  if (url.protocol === 'git:') {
    url.hostname = bracketed;
    return { url: url.href, gitConfig };
  }
  if (!isIP(host)) gitConfig.push('-c', `http.curloptResolve=${host}:${port}:${bracketed}`);
  return { url: url.href, gitConfig };
}
