/**
 * The loopback redirect of an OAuth authorization code flow (RFC 8252 §7.3): a listener on
 * 127.0.0.1 that takes one `GET /callback?code=…&state=…`, checks `state`, answers the browser
 * with a short page and resolves with the code. It listens only while a login waits, and closes
 * after the first answer (or the deadline). The code is never put in a message.
 */
import { createServer, type Server } from 'node:http';
import { McpAuthError } from './errors.js';

/** The path of the redirect url. */
export const LOOPBACK_PATH = '/callback';

/** A free port on 127.0.0.1 (listened on and released). */
export async function freeLoopbackPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A listener waiting for one redirect. */
export interface LoopbackWait {
  /** Resolves with the authorization code; rejects on an error redirect, a wrong state or the deadline. */
  readonly code: Promise<string>;
  close(): Promise<void>;
}

const page = (title: string) => `<!doctype html><meta charset="utf-8"><title>${title}</title><p>${title}. You can close this window.</p>`;

/** Listens on `127.0.0.1:port` for the redirect that carries `state`. */
export async function waitForRedirect(options: { readonly server: string; readonly port: number; readonly state: string; readonly timeoutMs: number }): Promise<LoopbackWait> {
  const { server: name, port, state, timeoutMs } = options;
  let settle!: { resolve: (code: string) => void; reject: (err: Error) => void };
  const code = new Promise<string>((resolve, reject) => (settle = { resolve, reject }));
  code.catch(() => {});
  let done = false;
  const finish = (err: Error | undefined, value?: string) => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    if (err) settle.reject(err);
    else settle.resolve(value!);
  };
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`);
    if (req.method !== 'GET' || url.pathname !== LOOPBACK_PATH) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    // A redirect for another login (an old tab) is not ours: answer it, keep waiting.
    if (url.searchParams.get('state') !== state) {
      res.writeHead(400, { 'content-type': 'text/html' }).end(page('This sign-in link is stale or not for this login'));
      return;
    }
    const error = url.searchParams.get('error');
    const got = url.searchParams.get('code');
    if (error || !got) {
      res.writeHead(400, { 'content-type': 'text/html' }).end(page('Sign-in failed'));
      // The error code is the server's word from a fixed list; its description is cut and quoted.
      const description = (url.searchParams.get('error_description') ?? '').slice(0, 200);
      finish(new McpAuthError(name, `the authorization server refused the login (${(error ?? 'no code').slice(0, 60)}${description ? `: ${JSON.stringify(description)}` : ''})`));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html' }).end(page('Signed in'));
    finish(undefined, got);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(new McpAuthError(name, `cannot listen for the login redirect on 127.0.0.1:${port} (${err.code ?? err.message}); free the port, set oauth.redirectPort, or run "ptc mcp logout ${name}" to register again`)),
    );
    server.listen(port, '127.0.0.1', resolve);
  });
  const timer = setTimeout(() => finish(new McpAuthError(name, `no login redirect arrived within ${Math.round(timeoutMs / 1000)} s`)), timeoutMs);
  timer.unref();
  const close = () =>
    new Promise<void>((resolve) => {
      finish(new McpAuthError(name, 'the login was abandoned'));
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return { code, close };
}
