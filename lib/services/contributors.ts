import { authorCounts, type AuthorCount } from '../git/history.js';
import { LruCache, remembered } from '../git/lru.js';
import type { GitRepositories } from '../git/repositories.js';
import type { Db } from '../store/interface.js';
import type { RepositoryRow } from '../store/queries/repositories.js';
import { accountsOfAddresses, type UserRow } from '../store/queries/users.js';

/** Histories whose authors are kept counted (by repository and tip: a count never changes for a commit id). */
const COUNTED_HISTORIES = 64;

/** A contributor of a repository: an account, or (asked for) an author address no account stands behind. */
export type Contributor = { user: UserRow; contributions: number } | { user: undefined; name: string; email: string; contributions: number };

/**
 * The contributors of a repository (GitHub's `GET /repos/{owner}/{repo}/contributors`): the authors of the default
 * branch's commits by address, most commits first. An address is an account's when the account confirmed it or it is
 * the host's no-reply address of it, as the commits API names authors (queries/users.ts: accountsOfAddresses). The
 * others are anonymous contributors.
 */
export class ContributorService {
  private readonly counted = new LruCache<string, Promise<AuthorCount[]>>(COUNTED_HISTORIES);

  constructor(
    private readonly store: Db,
    private readonly git: Pick<GitRepositories, 'gitDirOf' | 'cachedRefs'>,
    private readonly noreplyDomain: string,
  ) {}

  /** Most commits first (then by name); anonymous contributors only when asked for; undefined for an empty repository. */
  async list(repo: RepositoryRow, withAnonymous: boolean): Promise<Contributor[] | undefined> {
    const tip = (await this.git.cachedRefs(repo.owner_name, repo.name)).get(`refs/heads/${repo.default_branch}`);
    if (!tip) return undefined;
    const gitDir = await this.git.gitDirOf(repo.owner_name, repo.name);
    const authors = await remembered(this.counted, `${gitDir}\0${tip}`, () => authorCounts(gitDir, tip));
    const accounts = await accountsOfAddresses(this.store, authors.map((author) => author.email), this.noreplyDomain);
    const byAccount = new Map<number, { user: UserRow; contributions: number }>();
    const anonymous: Contributor[] = [];
    for (const author of authors) {
      const user = accounts.get(author.email.toLowerCase());
      if (user) {
        const known = byAccount.get(user.id);
        if (known) known.contributions += author.commits;
        else byAccount.set(user.id, { user, contributions: author.commits });
      } else if (withAnonymous) anonymous.push({ user: undefined, name: author.name, email: author.email, contributions: author.commits });
    }
    const nameOf = (contributor: Contributor) => (contributor.user ? contributor.user.username : contributor.name).toLowerCase();
    return [...byAccount.values(), ...anonymous].sort((a, b) => b.contributions - a.contributions || nameOf(a).localeCompare(nameOf(b)));
  }
}
