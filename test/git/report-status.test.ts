import { describe, expect, it } from 'vitest';
import { ReportStatusReader, type ReceiveReport } from '../../lib/git/push/report-status.js';

// Issue 17: what a push moved is read from receive-pack's own report-status as it streams to the client.

const pkt = (payload: string | Buffer) => {
  const body = typeof payload === 'string' ? Buffer.from(payload) : payload;
  return Buffer.concat([Buffer.from((body.length + 4).toString(16).padStart(4, '0')), body]);
};
const FLUSH = Buffer.from('0000');
const band = (channel: number, payload: Buffer) => pkt(Buffer.concat([Buffer.from([channel]), payload]));

/** Feeds `bytes` in pieces of `size` and returns the reports seen. */
function read(bytes: Buffer, size: number): ReceiveReport[] {
  const reports: ReceiveReport[] = [];
  const reader = new ReportStatusReader((report) => reports.push(report));
  for (let at = 0; at < bytes.length; at += size) reader.push(bytes.subarray(at, at + size));
  return reports;
}

const REPORT = Buffer.concat([pkt('unpack ok\n'), pkt('ok refs/heads/main\n'), pkt('ng refs/heads/locked protected branch\n'), pkt('ok refs/tags/v1\n'), FLUSH]);

describe('report-status (issue 17)', () => {
  it('reads the refs git updated, without side-band, whatever the chunks', () => {
    for (const size of [1, 3, 7, REPORT.length]) {
      const reports = read(REPORT, size);
      expect(reports).toHaveLength(1);
      expect(reports[0]!.unpacked).toBe(true);
      expect([...reports[0]!.updated]).toEqual(['refs/heads/main', 'refs/tags/v1']);
    }
  });

  it('reads it inside side-band channel 1, among progress and split across packets', () => {
    const half = Math.floor(REPORT.length / 2);
    const answer = Buffer.concat([
      band(2, Buffer.from('Resolving deltas: 100% (1/1)\n')),
      band(1, REPORT.subarray(0, half)),
      band(2, Buffer.from('progress\n')),
      band(1, REPORT.subarray(half)),
      FLUSH,
    ]);
    for (const size of [1, 5, answer.length]) {
      const reports = read(answer, size);
      expect(reports).toHaveLength(1);
      expect([...reports[0]!.updated]).toEqual(['refs/heads/main', 'refs/tags/v1']);
    }
  });

  it('reports nothing moved when the pack did not unpack, and no report at all for an answer without one', () => {
    const failed = read(Buffer.concat([pkt('unpack index-pack abnormal exit\n'), pkt('ng refs/heads/main unpacker error\n'), FLUSH]), 4);
    expect(failed).toEqual([{ unpacked: false, updated: new Set() }]);
    expect(read(Buffer.from('garbage that is not pkt-lines'), 4)).toEqual([]);
    expect(read(REPORT.subarray(0, REPORT.length - 4), 4)).toEqual([]);
  });
});
