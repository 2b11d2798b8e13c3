// Serve a persistent forge from your own code (what `repohost serve` does, minus the command line).
// Run after `npm install`: node examples/serve-from-code.mjs   then open the printed URL.
import { createRepoHost } from 'repohost';

const host = await createRepoHost({ port: Number(process.env.PORT ?? 3000), dbPath: './example-data/repohost.db' });
// Signal handlers before the URL is printed: whoever reads it may stop us at once.
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, async () => {
    await host.close(); // finishes in-flight requests, flushes the database, releases its lock
    process.exit(0);
  });
}
console.log(`repohost listening on ${host.url}`);
