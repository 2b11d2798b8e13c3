import { conflict, invalid, notFound } from '../errors.js';
import type { Db } from '../store/interface.js';
import { deleteSessionsOfUser } from '../store/queries/credentials.js';
import { insertUser, listUsers, setEmailVerified, setPasswordHash, userByName, userById, type UserRow } from '../store/queries/users.js';
import { validateUsername } from './names.js';
import { optionalText } from './text-fields.js';
import type { LoginThrottle } from './login-throttle.js';
import type { PasswordHasher } from './password-hasher.js';
import { hashToken } from './secrets.js';

/** The user summary of the API (spec §2). */
export interface UserSummary {
  id: number;
  username: string;
  full_name: string;
  avatar: string;
}

export interface NewUser {
  username: unknown;
  password: unknown;
  email: unknown;
  fullName?: unknown;
  isAdmin?: boolean;
  /** The address is confirmed already (fixtures say so): commits by it are the account's. */
  emailVerified?: boolean;
}

const MIN_PASSWORD = 6;
const MAX_PASSWORD = 72; // bcrypt ignores bytes past 72
const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+$/;

export function validatePassword(password: unknown): string {
  if (typeof password !== 'string' || password.length === 0) throw invalid('password is required');
  if (password.length < MIN_PASSWORD) throw invalid(`password must be at least ${MIN_PASSWORD} characters`);
  if (Buffer.byteLength(password) > MAX_PASSWORD) throw invalid(`password must be at most ${MAX_PASSWORD} bytes`);
  return password;
}

export function validateEmail(email: unknown): string {
  if (typeof email !== 'string' || !EMAIL_PATTERN.test(email) || email.length > 254) throw invalid('email must be a valid address');
  return email;
}

export class UserService {
  constructor(
    private readonly store: Db,
    private readonly hasher: PasswordHasher,
    private readonly throttle: LoginThrottle,
    private readonly bcryptCost: number,
    private readonly avatarUrl: (user: UserRow) => string,
    private readonly now: () => string,
  ) {}

  async register(input: NewUser): Promise<UserRow> {
    const username = validateUsername(input.username);
    const password = validatePassword(input.password);
    const email = validateEmail(input.email);
    const fullName = optionalText('full_name', input.fullName, 100);
    if (await userByName(this.store, username)) throw conflict('username is already taken');
    const passwordHash = await this.hasher.hash(password, this.bcryptCost);
    const now = this.now();
    return await this.store.write(async (tx) => {
      // Checked again inside the transaction: another registration may have won while bcrypt ran.
      if (await userByName(tx, username)) throw conflict('username is already taken');
      const user = await insertUser(tx, { username, email, fullName, passwordHash, isAdmin: input.isAdmin ?? false, now });
      if (!input.emailVerified) return user;
      await setEmailVerified(tx, user.id);
      return { ...user, email_verified: 1 };
    });
  }

  /**
   * Confirms an account's address, offline (the admin command `user verify-email`, fixtures): from then on commits by
   * it are the account's, as GitHub links commits by verified addresses. repohost sends no mail to confirm one.
   */
  async verifyEmail(username: string): Promise<void> {
    const user = await this.requireByName(username);
    await this.store.write(async (tx) => await setEmailVerified(tx, user.id));
  }

  /** Forgets counted failed logins: the accounts were put back to an earlier state (host.restore). */
  forgetFailedLogins(): void {
    this.throttle.clear();
  }

  async byName(username: string): Promise<UserRow | undefined> {
    return await userByName(this.store, username);
  }

  async byId(id: number): Promise<UserRow | undefined> {
    return await userById(this.store, id);
  }

  async requireByName(username: string): Promise<UserRow> {
    // The harness's admin operations take it from JavaScript too, where the types do not hold anyone back.
    if (typeof username !== 'string') throw invalid(`username must be a string, not ${username === null ? 'null' : typeof username}`);
    const user = await this.byName(username);
    if (!user) throw notFound('User not found');
    return user;
  }

  async list(): Promise<UserRow[]> {
    return await listUsers(this.store);
  }

  /**
   * The user when the password is right; undefined otherwise, taking as long either way. Failures are counted per
   * account and per client address: past the limit this throws TooManyAttemptsError (429) before any bcrypt work.
   */
  async authenticate(username: string, password: string, clientAddress: string | undefined): Promise<UserRow | undefined> {
    this.throttle.check(username, clientAddress);
    const user = await this.byName(username);
    const matches = await this.hasher.matches(password, user?.password_hash ?? (await this.hasher.decoy(this.bcryptCost)));
    if (user && matches) return user;
    this.throttle.failed(username, clientAddress);
    return undefined;
  }

  /**
   * Sets a new password and ends the user's other sessions in the same write: whoever knew the old password is
   * signed out. `keepSession` (the session making the change from the browser) stays signed in.
   */
  async setPassword(username: string, password: unknown, keepSession?: string): Promise<void> {
    const user = await this.requireByName(username);
    const passwordHash = await this.hasher.hash(validatePassword(password), this.bcryptCost);
    await this.store.write(async (tx) => {
      await setPasswordHash(tx, user.id, passwordHash);
      await deleteSessionsOfUser(tx, user.id, keepSession === undefined ? undefined : hashToken(keepSession));
    });
  }

  /**
   * A signed-in user changing their password must give the current one (checked, and throttled, as a sign-in); the
   * other sessions end, `keepSession` stays.
   */
  async changePassword(user: UserRow, current: unknown, next: unknown, keepSession: string | undefined, clientAddress: string | undefined): Promise<void> {
    const given = typeof current === 'string' ? current : '';
    if (!given || !(await this.authenticate(user.username, given, clientAddress))) throw invalid('the current password is wrong');
    await this.setPassword(user.username, next, keepSession);
  }

  summary(user: UserRow): UserSummary {
    return { id: user.id, username: user.username, full_name: user.full_name, avatar: this.avatarUrl(user) };
  }
}
