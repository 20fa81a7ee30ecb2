/**
 * A real `redis-server` (Debian's package, installed by scripts/setup.sh) for the tests of the
 * shared stores: one process per caller, on a free loopback port, nothing written to disk
 * (`--save '' --appendonly no`, a temp working dir; `{ appendOnly: true }` keeps every write in an
 * append-only file fsynced before it is acknowledged, so a restart reloads it), stopped by its PID.
 * `{ password }` makes it require one (the URL then carries it). `redis-server --port 0`
 * does not listen at all, so the port is picked here: bind port 0, read the port, close, start.
 *
 * Where the binary is missing, `redisServerMissing` says why and the tests skip with that text.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Why the Redis tests cannot run here, or undefined when `redis-server` is on the PATH. */
export const redisServerMissing: string | undefined = (() => {
  const probe = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  return probe.error === undefined && probe.status === 0 ? undefined : 'redis-server is not installed (scripts/setup.sh installs it as root on Debian: apt-get install -y redis-server); the Redis store tests are skipped';
})();

/** A running server: its URL, and how to stop (or restart, on the same port) it. */
export interface RedisServer {
  readonly url: string;
  readonly port: number;
  readonly pid: number;
  /** Stops the server (SIGKILL when `hard`, else SIGTERM) and waits for it to exit. */
  stop(options?: { readonly hard?: boolean }): Promise<void>;
  /** Starts the server again on the same port after a stop: empty, or with what its append-only file holds. */
  restart(): Promise<void>;
  /** Stops the server and removes its directory. */
  dispose(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Sends PING (after AUTH with a password) until the server answers +PONG, or fails after `timeoutMs`. */
async function waitForPing(port: number, child: ChildProcess, timeoutMs: number, password?: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`redis-server on port ${port} exited with code ${child.exitCode} before answering PING`);
    const answered = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ host: '127.0.0.1', port });
      let text = '';
      socket.setTimeout(500, () => socket.destroy());
      socket.on('connect', () => socket.write(password === undefined ? 'PING\r\n' : `AUTH ${password}\r\nPING\r\n`));
      socket.on('data', (chunk) => {
        text += chunk.toString('latin1');
        if (text.split('\r\n').length > (password === undefined ? 1 : 2)) {
          socket.destroy();
          resolve(text.endsWith('+PONG\r\n'));
        }
      });
      socket.on('error', () => resolve(false));
      socket.on('close', () => resolve(false));
    });
    if (answered) return;
    if (Date.now() > deadline) throw new Error(`redis-server on port ${port} did not answer PING within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Starts a `redis-server` of its own; call `dispose()` when done. */
export async function startRedisServer(options: { readonly appendOnly?: boolean; readonly password?: string } = {}): Promise<RedisServer> {
  if (redisServerMissing !== undefined) throw new Error(redisServerMissing);
  const dir = await mkdtemp(join(tmpdir(), 'ptc-redis-'));
  const port = await freePort();
  let child: ChildProcess | undefined;

  const start = async () => {
    const persistence = options.appendOnly ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no'];
    const auth = options.password !== undefined ? ['--requirepass', options.password] : [];
    const spawned = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...persistence, ...auth, '--dir', dir, '--logfile', ''], { stdio: 'ignore' });
    child = spawned;
    await waitForPing(port, spawned, 10_000, options.password);
  };
  const stop = async ({ hard = false } = {}) => {
    const running = child;
    child = undefined;
    if (running === undefined || running.exitCode !== null || running.pid === undefined) return;
    const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
    process.kill(running.pid, hard ? 'SIGKILL' : 'SIGTERM');
    await exited;
  };

  await start();
  return {
    url: `redis://${options.password !== undefined ? `:${encodeURIComponent(options.password)}@` : ''}127.0.0.1:${port}`,
    port,
    get pid() {
      return child?.pid ?? -1;
    },
    stop,
    restart: start,
    async dispose() {
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
