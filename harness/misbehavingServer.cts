import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A real HTTP server on 127.0.0.1 that fails the ways services fail over time, or at length:
 * - `trickle`: sends the headers at once, then one byte a second, forever;
 * - `silent`: takes the request and never answers;
 * - `halfBody`: announces a body, sends half of it and keeps the socket open;
 * - `slowReader`: a storage that accepts an upload's headers, then reads one byte a second and never answers;
 * - `flood`: answers every request with HTTP 500 and a 10 MB JSON error, `{"error": "xxxx…"}`.
 * It counts its open connections, so a test can prove the client closed every one (a server that stops reading
 * cannot see the client go: count the client's side with `connectionsTo(port)` then).
 */
export type Misbehaviour = 'trickle' | 'silent' | 'halfBody' | 'slowReader' | 'flood';

let flood: string | undefined;

export interface MisbehavingServer {
	url: string;
	port: number;
	/** `METHOD /path` of every request whose headers arrived. */
	requests: string[];
	openConnections(): number;
	stop(): Promise<void>;
}

const EVERY_SECOND = 1000;

function misbehave(mode: Misbehaviour, request: IncomingMessage, response: ServerResponse): void {
	const timers: NodeJS.Timeout[] = [];
	request.socket.once('close', () => timers.forEach(clearInterval));
	if (mode === 'slowReader') {
		request.pause();
		timers.push(setInterval(() => request.read(1), EVERY_SECOND));
		return;
	}
	request.resume();
	if (mode === 'silent') return;
	if (mode === 'flood') {
		flood ??= JSON.stringify({ error: 'x'.repeat(10 * 1024 * 1024) });
		response.writeHead(500, { 'content-type': 'application/json', 'content-length': String(flood.length) });
		response.end(flood);
		return;
	}
	if (mode === 'trickle') {
		response.writeHead(200, { 'content-type': 'application/json' });
		response.write('[');
		timers.push(setInterval(() => response.write(' '), EVERY_SECOND));
		return;
	}
	response.writeHead(200, { 'content-type': 'application/json', 'content-length': '200' });
	response.write('{"registrations": [{"id": "R1"}');
}

export async function startMisbehavingServer(mode: Misbehaviour): Promise<MisbehavingServer> {
	const requests: string[] = [];
	const sockets = new Set<Socket>();
	const server: Server = createServer((request, response) => {
		requests.push(`${request.method} ${request.url}`);
		misbehave(mode, request, response);
	});
	server.on('connection', (socket) => {
		sockets.add(socket);
		socket.once('close', () => sockets.delete(socket));
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}`,
		port,
		requests,
		openConnections: () => sockets.size,
		stop: async () => {
			server.closeAllConnections();
			await new Promise((resolve) => server.close(resolve));
		},
	};
}
