import type { AdminOperations } from './operations.js';

/** The admin operations callable through the admin channel (an allow-list: nothing else is dispatched). */
export const ADMIN_OPERATION_NAMES = [
  'createUser',
  'listUsers',
  'setPassword',
  'verifyEmail',
  'createToken',
  'listTokens',
  'revokeToken',
  'addSshKey',
  'listSshKeys',
  'createRepo',
  'seedRepo',
  'createApp',
  'installApp',
] as const satisfies ReadonlyArray<keyof AdminOperations>;

export type AdminOperationName = (typeof ADMIN_OPERATION_NAMES)[number];

/** AdminOperations with every result as a promise: the same shape whether run here or by a server. */
export type AsyncAdminOperations = {
  [K in AdminOperationName]: (...args: Parameters<AdminOperations[K]>) => Promise<Awaited<ReturnType<AdminOperations[K]>>>;
};

export interface AdminRequest {
  op: string;
  args: unknown[];
}

export type AdminResponse = { ok: true; result: unknown } | { ok: false; kind?: string; message: string };

export function isOperationName(name: unknown): name is AdminOperationName {
  return typeof name === 'string' && (ADMIN_OPERATION_NAMES as readonly string[]).includes(name);
}
