/**
 * The launcher process's script (CommonJS, run with `node -e`, so the same text serves the TypeScript sources in
 * tests and dist/). Protocol over the IPC channel, per launch `id`:
 * - in:  `{ type: 'fd', id, fd }` three times (0, 1, 2) with a Unix socket as the message's handle, then
 *        `{ type: 'spawn', id, command, args, cwd, env }`; later maybe `{ type: 'kill', id, signal }`.
 * - out: `{ type: 'spawned', id, pid }` or `{ type: 'error', id, message, code }`, then `{ type: 'exit', id, code, signal }`.
 * The sockets become the child's stdin, stdout and stderr; the launcher closes its own copies at once, so the host
 * and git talk directly and nothing of the output passes through here. It ends when the host goes away.
 */
export const LAUNCHER_SOURCE = `
process.title = 'repohost-git-launcher';
const { spawn } = require('node:child_process');
const stdio = new Map();
const children = new Map();
const send = (message) => { if (process.connected) process.send(message); };
process.on('disconnect', () => process.exit(0));
process.on('message', (message, handle) => {
  if (message.type === 'fd') {
    const fds = stdio.get(message.id) || [];
    fds[message.fd] = handle;
    stdio.set(message.id, fds);
  } else if (message.type === 'spawn') {
    const fds = stdio.get(message.id) || [];
    stdio.delete(message.id);
    let child;
    try {
      child = spawn(message.command, message.args, { cwd: message.cwd, env: message.env, stdio: [fds[0], fds[1], fds[2]], windowsHide: true });
    } catch (error) {
      send({ type: 'error', id: message.id, message: String(error && error.message), code: error && error.code });
      send({ type: 'exit', id: message.id, code: null, signal: null });
      return;
    } finally {
      for (const socket of fds) if (socket) socket.destroy();
    }
    children.set(message.id, child);
    let started = false;
    const exited = (code, signal) => {
      if (!children.has(message.id)) return;
      children.delete(message.id);
      send({ type: 'exit', id: message.id, code, signal });
    };
    child.once('spawn', () => {
      started = true;
      send({ type: 'spawned', id: message.id, pid: child.pid });
    });
    child.once('error', (error) => {
      send({ type: 'error', id: message.id, message: String(error && error.message), code: error && error.code });
      // A command that could not start never exits.
      if (!started) exited(null, null);
    });
    child.once('exit', exited);
  } else if (message.type === 'kill') {
    const child = children.get(message.id);
    if (child) child.kill(message.signal);
  }
});
send({ type: 'ready' });
`;
