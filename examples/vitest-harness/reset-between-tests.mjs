// vitest setup file (runs in each test worker): every test starts from the fixtures.
import { beforeEach, inject } from 'vitest';

const { control } = inject('repohost');

beforeEach(async () => {
  const response = await fetch(`${control}/reset`, { method: 'POST' });
  if (!response.ok) throw new Error(`reset failed: ${response.status} ${await response.text()}`);
});
