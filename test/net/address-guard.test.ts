import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { isLocalAddress } from '../../lib/net/address-guard.js';
import { expectError, newUser, type TestUser } from '../helpers/api.js';
import { http, startHost } from '../helpers/host.js';

describe('the address guard of outgoing requests (issue 7 point 15)', () => {
  it.each([
    '::127.0.0.1', '::7f00:1', '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:0:127.0.0.1', '::ffff:0:7f00:1',
    '64:ff9b::169.254.169.254', '64:ff9b::a9fe:a9fe', '64:ff9b:1::a9fe:a9fe', '2002:7f00:1::', '2002:a00:1::1',
    '2001:0:7f00:1::', '2001:0:4136:e378:8000:63bf:80ff:fffe', '::ffff:10.0.0.1', '0:0:0:0:0:ffff:c0a8:0101',
    '::1', '::', 'fe80::1%eth0', 'fd00::1', '127.0.0.1', '169.254.169.254', '10.1.2.3', 'not-an-address',
  ])('refuses %s', (address) => {
    expect(isLocalAddress(address)).toBe(true);
  });

  it.each(['8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808', '2002:808:808::1'])('allows the public %s', (address) => {
    expect(isLocalAddress(address)).toBe(false);
  });

  describe('imports through the API', () => {
    let host: RepoHost;
    let alice: TestUser;
    beforeAll(async () => {
      host = await startHost({ allowLocalImport: false });
      alice = await newUser(host, 'alice');
    });
    afterAll(async () => {
      await host?.close();
    });

    it.each(['http://[::7f00:1]:1/x.git', 'http://[::ffff:0:7f00:1]/x.git', 'http://[64:ff9b::a9fe:a9fe]/latest/meta-data', 'http://[2002:7f00:1::]/x.git'])(
      'refuses clone_url %s with 400 and creates nothing',
      async (clone_url) => {
        const result = await http(`${host.url}/new`, { headers: { cookie: `token=${alice.session}` }, form: { name: 'probe', clone_url, no_redirect: '1' } });
        expectError(result, 400, 'local or private address');
        expect((await http(`${host.url}/api/v1/repos/alice/probe`)).status).toBe(404);
      },
    );
  });
});
