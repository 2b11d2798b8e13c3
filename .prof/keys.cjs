const { utils } = require('ssh2');
let bad = 0; let n = 0;
const one = () => new Promise((res) => utils.generateKeyPair('ed25519', (e, k) => { n++; const p = utils.parseKey(k.private); if (p instanceof Error) { bad++; console.log('bad', p.message); } res(); }));
(async () => { for (let i = 0; i < 3000; i++) await one(); console.log('ed25519', n, 'bad', bad); })();
