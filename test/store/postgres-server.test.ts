import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { startPostgres } from '../helpers/postgres.js';

// The throwaway PostgreSQL server of test/helpers/postgres.ts, used by the PostgreSQL check and by engine tests.

function postmasterAlive(socketDir: string): boolean {
  const pidFile = join(socketDir, '..', 'data', 'postmaster.pid');
  if (!existsSync(pidFile)) return false;
  try {
    process.kill(Number(readFileSync(pidFile, 'utf8').split('\n')[0]), 0);
    return true;
  } catch {
    return false;
  }
}

describe('startPostgres', () => {
  it('starts servers side by side on their own ports, each stopped and removed by stop()', async () => {
    const servers = await Promise.all([startPostgres(), startPostgres()]);
    try {
      expect(servers[0]!.port).not.toBe(servers[1]!.port);
      for (const server of servers) {
        const client = new pg.Client({ connectionString: await server.createDatabase() });
        await client.connect();
        try {
          const { rows } = await client.query<{ v: string }>('SELECT current_setting($1) AS v', ['server_version_num']);
          expect(rows[0]!.v.startsWith(server.version)).toBe(true);
        } finally {
          await client.end();
        }
      }
    } finally {
      await Promise.all(servers.map((server) => server.stop()));
    }
    for (const server of servers) {
      expect(existsSync(join(server.socketDir, '..'))).toBe(false);
      await server.stop(); // a second stop is harmless
    }
  });

  it('fails with the server log when the server does not start, leaving nothing behind', async () => {
    const failure = await startPostgres({ settings: { shared_buffers: 'plenty' } }).then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    expect(failure?.message).toMatch(/pg_ctl start failed[\s\S]*server log[\s\S]*shared_buffers/);
    const dir = /-D (\S+)\/data/.exec(failure!.message)?.[1];
    expect(dir).toBeDefined();
    expect(existsSync(dir!)).toBe(false);
    expect(postmasterAlive(join(dir!, 's'))).toBe(false);
  });
});
