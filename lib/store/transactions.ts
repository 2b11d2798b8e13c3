import type { ReadTx, Row, SqlParam, WriteTx } from './interface.js';
import type { LogRecord } from './write-log.js';
import type { StatementRunner } from './sqlite.js';

/** The statements of one `read` work on sql.js; refused once the work has ended (a work that outlived its turn). */
export class ReadTransaction implements ReadTx {
  private open = true;

  constructor(
    protected readonly runner: () => StatementRunner,
    private readonly kind: 'read' | 'write' = 'read',
  ) {}

  async all<T = Row>(sql: string, params: readonly SqlParam[] = []): Promise<T[]> {
    this.check();
    return this.runner().all<T>(sql, params);
  }

  async get<T = Row>(sql: string, params: readonly SqlParam[] = []): Promise<T | undefined> {
    return (await this.all<T>(sql, params))[0];
  }

  end(): void {
    this.open = false;
  }

  protected check(): void {
    if (!this.open) throw new Error(`a ${this.kind} transaction was used after it ended`);
  }
}

/** The statements of one `write` work: what changes data is kept for the write log. */
export class WriteTransaction extends ReadTransaction implements WriteTx {
  readonly statements: LogRecord['statements'] = [];
  readonly afterDurable: Array<() => void> = [];

  constructor(runner: StatementRunner) {
    super(() => runner, 'write');
  }

  async run<T = Row>(sql: string, params: readonly SqlParam[] = []): Promise<{ rows: T[]; changes: number }> {
    this.check();
    const result = this.runner().run<T>(sql, params);
    this.statements.push([sql, [...params]]);
    return result;
  }

  onDurable(callback: () => void): void {
    this.afterDurable.push(callback);
  }
}
