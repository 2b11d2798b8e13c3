import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request, type Dispatcher } from 'undici';
import { createRepoHost, type RepoHost, type RepoHostOptions } from '../../lib/index.js';

/**
 * Starts a real host on a free port with a fast bcrypt cost; close it in afterAll/afterEach. In the PostgreSQL pass
 * (`npm run test:postgres`) a host not given a database file of its own gets a fresh PostgreSQL database instead.
 */
export async function startHost(options: RepoHostOptions = {}): Promise<RepoHost> {
  const server = process.env.REPOHOST_TEST_POSTGRES_URL;
  if (!server || options.dbPath !== undefined || options.databaseUrl !== undefined) {
    return await createRepoHost({ port: 0, dbPath: ':memory:', bcryptCost: 4, allowLocalImport: true, ...options });
  }
  const database = await freshPostgresDatabase(server);
  const data = options.dataDir === undefined ? await tempDir('repohost-pg-data-') : undefined;
  try {
    const host = await createRepoHost({ port: 0, bcryptCost: 4, allowLocalImport: true, ...options, databaseUrl: database.url, dataDir: options.dataDir ?? data!.path });
    const close = host.close.bind(host);
    let closing: Promise<void> | undefined;
    host.close = () =>
      (closing ??= (async () => {
        try {
          await close();
        } finally {
          await database.drop();
          await data?.cleanup();
        }
      })());
    return host;
  } catch (error) {
    await database.drop();
    await data?.cleanup();
    throw error;
  }
}

let databases = 0;

/** An empty database on the pass's PostgreSQL server, dropped by `drop()`. */
async function freshPostgresDatabase(serverUrl: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const { default: pg } = await import('pg');
  const name = `host_${process.pid}_${++databases}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

/** A fresh temporary folder, removed by the returned cleanup. */
export async function tempDir(prefix = 'repohost-test-'): Promise<{ path: string; cleanup: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  return { path, cleanup: () => rm(path, { recursive: true, force: true }) };
}

export interface HttpResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: any;
}

/** Sends a request with undici and reads the whole body. */
export async function http(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string | Buffer; form?: Record<string, string>; json?: unknown; dispatcher?: Dispatcher } = {},
): Promise<HttpResult> {
  const headers = { ...init.headers };
  let body = init.body;
  if (init.form) {
    body = new URLSearchParams(init.form).toString();
    headers['content-type'] = 'application/x-www-form-urlencoded';
  } else if (init.json !== undefined) {
    body = JSON.stringify(init.json);
    headers['content-type'] = 'application/json';
  }
  const response = await request(url, { method: (init.method ?? (body === undefined ? 'GET' : 'POST')) as 'GET', headers, body, dispatcher: init.dispatcher });
  const text = await response.body.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.statusCode, headers: response.headers, text, json };
}

/** Registers a user through the spec's form endpoint and returns its session token. */
export async function register(host: RepoHost, username: string, password = 'password123'): Promise<string> {
  const result = await http(`${host.url}/register`, { form: { username, password, email: `${username}@example.com`, no_redirect: '1' } });
  if (result.status !== 200) throw new Error(`register ${username}: ${result.status} ${result.text}`);
  const cookie = [result.headers['set-cookie']].flat().find((value) => value?.startsWith('token='));
  const token = cookie ? /^token=([^;]+)/.exec(cookie)?.[1] : undefined;
  if (!token) throw new Error(`register ${username}: no session cookie`);
  return token;
}

/** Creates a repository through `/new` as the session's user. */
export async function createRepo(host: RepoHost, session: string, name: string, visibility: 'public' | 'private' = 'public'): Promise<void> {
  const result = await http(`${host.url}/new`, {
    headers: { cookie: `token=${session}` },
    form: { name, description: `${name} description`, clone_url: '', repo_visibility: visibility, no_redirect: '1' },
  });
  if (result.status !== 200 || result.text !== 'ok') throw new Error(`create ${name}: ${result.status} ${result.text}`);
}

/** Mints an API token through the spec's settings form and returns the plain token from the redirect. */
export async function createApiToken(host: RepoHost, session: string, username: string, name = 'ci'): Promise<string> {
  const result = await http(`${host.url}/${username}/settings/api-tokens`, { headers: { cookie: `token=${session}` }, form: { name } });
  const location = String(result.headers.location ?? '');
  const token = /new_token=([^&]+)/.exec(location)?.[1];
  if (!token) throw new Error(`token: ${result.status} ${location}`);
  return token;
}

export const cookie = (session: string) => ({ cookie: `token=${session}` });
export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
