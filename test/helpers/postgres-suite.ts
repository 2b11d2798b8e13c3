import { startPostgres, type PostgresServer } from './postgres.js';

/**
 * vitest globalSetup of the PostgreSQL pass (`npm run test:postgres`, vitest.postgres.config.ts): one PostgreSQL server
 * for the run; `startHost` then gives every host a database of its own on it (see `hostDatabase` in host.ts).
 */
let server: PostgresServer | undefined;

export async function setup(): Promise<void> {
  server = await startPostgres({ settings: { max_connections: '300', fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' } });
  process.env.REPOHOST_TEST_POSTGRES_URL = server.url;
}

export async function teardown(): Promise<void> {
  await server?.stop();
}
