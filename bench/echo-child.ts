/**
 * The other end of the bench's bare round trips (isolate.bench.ts): echoes every Node IPC message
 * and every byte on its pipe (fd 3 in, fd 4 out) straight back, doing nothing else.
 */
import net from 'node:net';

const input = new net.Socket({ fd: 3, readable: true, writable: false });
const output = new net.Socket({ fd: 4, readable: false, writable: true });
input.on('data', (chunk: Buffer) => output.write(chunk));
input.on('end', () => process.exit(0));
process.on('message', (message) => process.send?.(message));
process.on('disconnect', () => process.exit(0));
