import type { GitHubApp } from './app-shapes.js';
import type { CheckAnnotationRow, CheckPullRow, CheckRunRow, CheckSuite } from '../store/queries/checks.js';
import type { RepositoryRow } from '../store/queries/repositories.js';
import { GITHUB_API_PREFIX, nodeId } from './api-ids.js';
import { githubTime } from './time.js';

/** GitHub's `pull-request-minimal`: an open pull request whose head is the check's commit. */
export interface GitHubPullMinimal {
  id: number;
  number: number;
  url: string;
  head: { ref: string; sha: string; repo: { id: number; url: string; name: string } };
  base: { ref: string; sha: string; repo: { id: number; url: string; name: string } };
}

export interface GitHubCheckRun {
  id: number;
  head_sha: string;
  node_id: string;
  external_id: string | null;
  url: string;
  html_url: string;
  details_url: string;
  status: string;
  conclusion: string | null;
  started_at: string | null;
  completed_at: string | null;
  output: { title: string | null; summary: string | null; text: string | null; annotations_count: number; annotations_url: string };
  name: string;
  check_suite: { id: number };
  /** The app whose installation made the run; null for a run made with a personal token (GitHub has none such). */
  app: GitHubApp | null;
  pull_requests: GitHubPullMinimal[];
}

/** A commit as `check_suite` webhooks name their head (GitHub's `simple-commit`). */
export interface GitHubHeadCommit {
  id: string;
  tree_id: string;
  message: string;
  timestamp: string;
  author: { name: string; email: string };
  committer: { name: string; email: string };
}

export interface GitHubCheckSuite {
  id: number;
  node_id: string;
  head_branch: string | null;
  head_sha: string;
  status: string;
  conclusion: string | null;
  url: string;
  before: string | null;
  after: string | null;
  pull_requests: GitHubPullMinimal[];
  app: GitHubApp | null;
  created_at: string;
  updated_at: string;
  latest_check_runs_count: number;
  check_runs_url: string;
  rerequestable: boolean;
  runs_rerequestable: boolean;
}

/**
 * GitHub's check run, suite and annotation objects. A run made through an app's installation names the app; one made
 * with a personal token (which GitHub refuses, and repohost allows) has a null `app`. Suites are one per commit, not
 * one per app as on GitHub: their `app` is null.
 */
export class CheckShapes {
  constructor(private readonly baseUrl: () => string) {}

  private api(repo: RepositoryRow, path: string): string {
    return `${this.baseUrl()}${GITHUB_API_PREFIX}/repos/${repo.owner_name}/${repo.name}${path}`;
  }

  private pulls(repo: RepositoryRow, sha: string, pulls: readonly CheckPullRow[]): GitHubPullMinimal[] {
    const repoRef = { id: repo.id, url: this.api(repo, ''), name: repo.name };
    return pulls
      .filter((pull) => pull.head_sha === sha)
      .map((pull) => ({ id: pull.id, number: pull.number, url: this.api(repo, `/pulls/${pull.number}`), head: { ref: pull.head, sha: pull.head_sha, repo: repoRef }, base: { ref: pull.base, sha: pull.base_sha, repo: repoRef } }));
  }

  run(repo: RepositoryRow, run: CheckRunRow, pulls: readonly CheckPullRow[], app: GitHubApp | null = null): GitHubCheckRun {
    const url = this.api(repo, `/check-runs/${run.id}`);
    const htmlUrl = `${this.baseUrl()}/${repo.owner_name}/${repo.name}/runs/${run.id}`;
    return {
      id: run.id,
      head_sha: run.head_sha,
      node_id: nodeId('CheckRun', run.id),
      external_id: run.external_id ?? '',
      url,
      html_url: htmlUrl,
      // GitHub's default: the app's page; a run without an app points at itself.
      details_url: run.details_url ?? app?.external_url ?? htmlUrl,
      status: run.status,
      conclusion: run.conclusion,
      started_at: githubTime(run.started_at),
      completed_at: githubTime(run.completed_at),
      output: { title: run.output_title, summary: run.output_summary, text: run.output_text, annotations_count: run.annotations_count, annotations_url: `${url}/annotations` },
      name: run.name,
      check_suite: { id: run.suite_id },
      app,
      pull_requests: this.pulls(repo, run.head_sha, pulls),
    };
  }

  /** The suite as a `check_run` webhook carries it (GitHub's `simple-check-suite`: the suite without its counts and links). */
  simpleSuite(repo: RepositoryRow, suite: CheckSuite, pulls: readonly CheckPullRow[], app: GitHubApp | null) {
    const { latest_check_runs_count: _count, check_runs_url: _runs, rerequestable: _rerequestable, runs_rerequestable: _runsRerequestable, ...simple } = this.suite(repo, suite, pulls, app);
    return simple;
  }

  /** The suite as `check_suite` webhooks carry it: with its app, the commit, and for a push what it moved from and to. */
  webhookSuite(repo: RepositoryRow, suite: CheckSuite, pulls: readonly CheckPullRow[], app: GitHubApp | null, headCommit: GitHubHeadCommit, moved?: { before: string; after: string }) {
    return { ...this.suite(repo, suite, pulls, app), before: moved?.before ?? null, after: moved?.after ?? null, head_commit: headCommit };
  }

  suite(repo: RepositoryRow, suite: CheckSuite, pulls: readonly CheckPullRow[], app: GitHubApp | null = null): GitHubCheckSuite {
    const url = this.api(repo, `/check-suites/${suite.id}`);
    return {
      id: suite.id,
      node_id: nodeId('CheckSuite', suite.id),
      head_branch: suite.head_branch,
      head_sha: suite.head_sha,
      status: suite.status,
      conclusion: suite.conclusion,
      url,
      before: null,
      after: null,
      pull_requests: this.pulls(repo, suite.head_sha, pulls),
      app,
      created_at: githubTime(suite.created_at),
      updated_at: githubTime(suite.updated_at),
      latest_check_runs_count: suite.runs,
      check_runs_url: `${url}/check-runs`,
      // An app's suite and runs may be asked for again (`…/rerequest`); a suite of runs made with tokens has no app to ask.
      rerequestable: app !== null,
      runs_rerequestable: app !== null,
    };
  }

  annotation(repo: RepositoryRow, sha: string, annotation: CheckAnnotationRow) {
    return {
      path: annotation.path,
      blob_href: `${this.baseUrl()}/${repo.owner_name}/${repo.name}/src/commit/${sha}/${annotation.path}`,
      start_line: annotation.start_line,
      end_line: annotation.end_line,
      start_column: annotation.start_column,
      end_column: annotation.end_column,
      annotation_level: annotation.annotation_level,
      title: annotation.title,
      message: annotation.message,
      raw_details: annotation.raw_details,
    };
  }
}
