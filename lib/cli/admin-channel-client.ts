import { RepoHostError, type ErrorKind } from '../errors.js';
import type { ChannelInfo } from '../admin/channel-file.js';
import { ADMIN_OPERATION_NAMES, type AdminResponse, type AsyncAdminOperations } from '../admin/protocol.js';

/** The server could not be reached at the address of its channel file (it may have just stopped). */
export class ChannelUnreachableError extends Error {}

/** Admin operations carried out by the running server that owns the database. */
export function remoteAdmin(channel: ChannelInfo): AsyncAdminOperations {
  const call = async (op: string, args: unknown[]): Promise<unknown> => {
    let response: Response;
    try {
      response = await fetch(channel.url, {
        method: 'POST',
        headers: { authorization: `Bearer ${channel.secret}`, 'content-type': 'application/json' },
        body: JSON.stringify({ op, args }),
      });
    } catch (error) {
      throw new ChannelUnreachableError(`the server (pid ${channel.pid}) does not answer on its admin channel: ${(error as Error).message}`);
    }
    const body = (await response.json().catch(() => undefined)) as AdminResponse | undefined;
    if (!body) throw new Error(`the server answered its admin channel with HTTP ${response.status}`);
    if (body.ok) return body.result;
    throw body.kind ? new RepoHostError(body.kind as ErrorKind, body.message) : new Error(body.message);
  };
  return Object.fromEntries(
    ADMIN_OPERATION_NAMES.map((name) => [name, (...args: unknown[]) => call(name, args)]),
  ) as unknown as AsyncAdminOperations;
}
