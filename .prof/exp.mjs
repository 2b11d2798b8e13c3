const { createRepoHost } = await import('/work/main/dist/index.js');
const LONG = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).concat('');
const host = await createRepoHost({ port: 0, bcryptCost: 4, fixtures: { users: [{ username: 'ada', email: 'a@e.com', password: 'password123' }], repositories: [{ owner: 'ada', name: 'spaces', branches: { main: { commits: [{ message: 'S', files: { 'long.txt': LONG.join('\n') } }] }, tidy: { from: 'main', commits: [{ message: 'T', files: { 'long.txt': LONG.map((l, i) => (i === 9 ? 'x' : l)).join('\n') } }] } }, pulls: [{ title: 'T', head: 'tidy', base: 'main' }] }] } });
const t = await (await fetch(`${host.url}/ada/spaces/pulls/1/files?expand=0`)).text();
const m = t.match(/<tbody>[\s\S]*?<\/tbody>/)[0];
console.log(m.replace(/<[^>]+>/g, '|').replace(/\|+/g, '|').slice(0, 600));
await host.close();
