import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { ListDialect } from './lists.cts';
import { listAnswer, REAL_SERVICE } from './lists.cts';
import { ObjectStorage } from './objectStorage.cts';
import type { RateLimitSettings, RefusalSettings } from './refusals.cts';
import { asRefusals, mostInASecond, Refusals } from './refusals.cts';
import { ApiError, SandboxState } from './state.cts';

/** What the sandbox recorded of one request, as the service received it. */
export interface RecordedRequest {
	method: string;
	/** Path and query exactly as sent (still URL-encoded). */
	url: string;
	path: string;
	query: Record<string, string>;
	headers: IncomingHttpHeaders;
	body: unknown;
	/** When the service received it (ms since the epoch). */
	receivedAt: number;
	/** Whether the service refused it (see refuse). */
	refused: boolean;
}

/**
 * A fault the sandbox plays instead of (or around) the normal answer:
 * - `status`: answer this status with this body (a string is sent as is, e.g. an HTML page or broken JSON);
 * - `resetBeforeHandling`: drop the connection without acting on the request;
 * - `resetAfterHandling`: act on the request, then drop the connection before answering;
 * - `delayMs`: wait this long before handling (on top of the latency).
 */
export interface Fault {
	status?: number;
	body?: unknown;
	headers?: Record<string, string>;
	resetBeforeHandling?: boolean;
	resetAfterHandling?: boolean;
	delayMs?: number;
}

export interface SandboxOptions {
	token?: string;
	port?: number;
	storagePort?: number;
	/** How long a pre-signed upload address stays valid. */
	uploadUrlTtlSeconds?: number;
}

interface ApiAnswer {
	status: number;
	body?: unknown;
}

const sleep = async (ms: number) => await new Promise((resolve) => setTimeout(resolve, ms));

function readBody(request: IncomingMessage): Promise<string> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		request.on('data', (chunk: Buffer) => chunks.push(chunk));
		request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
		request.on('error', reject);
	});
}

/**
 * An in-memory stand-in for the product-registration service: every endpoint of the API, the token checked in the
 * Authorization header or the body field `accessToken`, and uploads answered with pre-signed PUT addresses of a
 * real object storage. It speaks the real service's dialect by default (paged lists, its forms) and, on demand, any
 * other reading the API page leaves open (lists.cts). Tests and the demo also use it to inject latency and faults.
 */
export class Sandbox {
	/** Every request received, in order (tests assert what the service was sent). */
	readonly requests: RecordedRequest[] = [];

	/** Waited before every request is handled: the round trip of a real service. */
	latencyMs = 0;

	/** Waited after a request is handled, before the answer goes out: a slow service that has already acted. */
	answerDelayMs = 0;

	/** Requests being handled right now, and the most there were at once. */
	inFlight = 0;

	peakInFlight = 0;

	/** Faults played on the next requests, first in first out. */
	readonly faultQueue: Fault[] = [];

	/** Chooses a fault for a request, after the queue is empty (e.g. random faults with a fixed seed). */
	faultPlan: ((request: RecordedRequest) => Fault | undefined) | undefined;

	state: SandboxState = new SandboxState();

	/** How lists are answered (see lists.cts): the real service's reading unless a test picks another. */
	dialect: ListDialect = { ...REAL_SERVICE };

	/** Whether GET /api/forms exists: the real service has it, the API page does not list it (404). */
	listsForms = true;

	/**
	 * How far the clock of the answers' `Date` header is ahead of the clock `createdAt` is written by (negative: behind).
	 * The API page shows neither clock; a service whose web servers and database keep different time shows this.
	 */
	dateHeaderAheadMs = 0;

	/** How the service refuses requests to its API, if it does (see refuse and refusals.ts). */
	refusals: Refusals | undefined;

	/** Told as each list of registrations is answered (its query, the matches), before the answer is made. */
	onListed: ((query: Record<string, string>, matches: number) => void) | undefined;

	/** How long a pre-signed upload address stays valid; negative hands out already expired ones. */
	uploadUrlTtlSeconds: number;

	private constructor(
		private readonly server: Server,
		readonly storage: ObjectStorage,
		/** The shop's access token; a test may hand out a new one, as to another shop. */
		public token: string,
		readonly baseUrl: string,
		private readonly defaultUploadUrlTtlSeconds: number,
	) {
		this.uploadUrlTtlSeconds = defaultUploadUrlTtlSeconds;
	}

	static async start(options: SandboxOptions = {}): Promise<Sandbox> {
		const storage = await ObjectStorage.start(options.storagePort);
		const token = options.token ?? `sandbox-${randomBytes(12).toString('hex')}`;
		const server = createServer();
		await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
		const { port } = server.address() as AddressInfo;
		const sandbox = new Sandbox(server, storage, token, `http://127.0.0.1:${port}`, options.uploadUrlTtlSeconds ?? 900);
		// Nobody knows the port before start() returns, so no request can come before this listener.
		server.on('request', (request, response) => void sandbox.handle(request, response));
		return sandbox;
	}

	/** Forgets all data, recorded requests and faults (between tests). */
	reset(): void {
		this.state = new SandboxState();
		this.requests.length = 0;
		this.storage.reset();
		this.uploadUrlTtlSeconds = this.defaultUploadUrlTtlSeconds;
		this.faultQueue.length = 0;
		this.faultPlan = undefined;
		this.latencyMs = 0;
		this.answerDelayMs = 0;
		this.peakInFlight = 0;
		this.dialect = { ...REAL_SERVICE };
		this.listsForms = true;
		this.dateHeaderAheadMs = 0;
		this.refusals = undefined;
		this.onListed = undefined;
	}

	/**
	 * Refuses requests to the API from now on as the settings say (refusals.cts: a steady bucket, every request for a
	 * while or for good, 429 or 503, each form of Retry-After); `undefined` takes every request again.
	 */
	refuse(settings: RefusalSettings | undefined): void {
		this.refusals = settings && new Refusals(settings);
	}

	/** Limits the API's rate from now on, as the real service does when pushed; `undefined` lifts the limit. */
	limitRate(settings: RateLimitSettings | undefined): void {
		this.refuse(settings && asRefusals(settings));
	}

	/** The most requests the service received within any one second from `since` on (ms since the epoch). */
	mostRequestsInASecond(since = 0): number {
		return mostInASecond(this.requests.map((request) => request.receivedAt).filter((at) => at >= since));
	}

	/** Requests made to one endpoint, e.g. `requestsTo('GET', '/api/registrations')`. */
	requestsTo(method: string, path: string): RecordedRequest[] {
		return this.requests.filter((request) => request.method === method && request.path === path);
	}

	async stop(): Promise<void> {
		this.server.closeAllConnections();
		await new Promise((resolve) => this.server.close(resolve));
		await this.storage.stop();
	}

	private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
		this.inFlight += 1;
		this.peakInFlight = Math.max(this.peakInFlight, this.inFlight);
		try {
			await this.answer(request, response);
		} finally {
			this.inFlight -= 1;
		}
	}

	private async answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
		// Every answer says when, by its web server's clock (which tests may move on, or set apart from createdAt's).
		response.setHeader('date', new Date(this.state.now().getTime() + this.dateHeaderAheadMs).toUTCString());
		const rawBody = await readBody(request);
		const parsedUrl = new URL(request.url ?? '/', 'http://sandbox');
		const recorded: RecordedRequest = {
			method: request.method ?? 'GET',
			url: request.url ?? '/',
			path: parsedUrl.pathname,
			query: Object.fromEntries(parsedUrl.searchParams),
			headers: request.headers,
			body: rawBody,
			receivedAt: Date.now(),
			refused: false,
		};
		let bodyIsJson = true;
		if (rawBody !== '') {
			try {
				recorded.body = JSON.parse(rawBody);
			} catch {
				bodyIsJson = false;
			}
		} else {
			recorded.body = undefined;
		}
		this.requests.push(recorded);

		const refusal = this.refusals?.take(recorded.receivedAt);
		if (refusal !== undefined) {
			recorded.refused = true;
			response.writeHead(refusal.status, { 'content-type': 'application/json', ...refusal.headers });
			response.end(JSON.stringify({ message: refusal.status === 429 ? 'Too many requests' : 'Service Unavailable' }));
			return;
		}

		const fault = this.faultQueue.shift() ?? this.faultPlan?.(recorded);
		const waitMs = this.latencyMs + (fault?.delayMs ?? 0);
		if (waitMs > 0) await sleep(waitMs);
		if (response.destroyed) return;
		if (fault?.resetBeforeHandling) {
			request.socket.destroy();
			return;
		}
		if (fault?.status !== undefined) {
			const isText = typeof fault.body === 'string';
			response.writeHead(fault.status, {
				'content-type': isText ? 'text/html; charset=utf-8' : 'application/json',
				...fault.headers,
			});
			response.end(isText ? (fault.body as string) : JSON.stringify(fault.body ?? { message: 'Injected fault' }));
			return;
		}

		let answer: ApiAnswer;
		try {
			if (!bodyIsJson) throw new ApiError(400, 'The request body is not valid JSON');
			this.authorize(recorded);
			answer = this.route(recorded);
		} catch (error) {
			if (!(error instanceof ApiError)) throw error;
			answer = { status: error.status, body: { message: error.message } };
		}
		if (fault?.resetAfterHandling) {
			request.socket.destroy();
			return;
		}
		if (this.answerDelayMs > 0) await sleep(this.answerDelayMs);
		if (response.destroyed) return;
		if (answer.status === 204 || answer.body === undefined) {
			response.writeHead(answer.status);
			response.end();
			return;
		}
		response.writeHead(answer.status, { 'content-type': 'application/json' });
		response.end(JSON.stringify(answer.body));
	}

	private authorize(request: RecordedRequest): void {
		const header = request.headers.authorization ?? '';
		const bodyToken =
			request.body && typeof request.body === 'object'
				? (request.body as { accessToken?: unknown }).accessToken
				: undefined;
		if (header === `Bearer ${this.token}` || bodyToken === this.token) return;
		throw new ApiError(401, header || bodyToken ? 'Invalid access token' : 'Missing access token');
	}

	private route(request: RecordedRequest): ApiAnswer {
		const { method, path } = request;
		const body = (request.body ?? {}) as Record<string, unknown>;
		const registrationPath = /^\/api\/registrations\/([^/]+)(\/status)?$/.exec(path);
		const serialPath = /^\/api\/serial_numbers\/(.+)$/.exec(path);

		if (path === '/api/registrations' && method === 'POST') {
			return { status: 200, body: this.state.createRegistrations(body.registrations) };
		}
		if (path === '/api/registrations' && method === 'GET') {
			const matches = this.state.matchingRegistrations(request.query);
			this.onListed?.(request.query, matches.length);
			return { status: 200, body: listAnswer(matches, request.query, this.dialect, this.requests.length) };
		}
		if (path === '/api/forms' && method === 'GET' && this.listsForms) {
			return { status: 200, body: { data: this.state.forms } };
		}
		if (registrationPath && !registrationPath[2] && method === 'PUT') {
			return {
				status: 200,
				body: this.state.updateRegistration(decodeURIComponent(registrationPath[1]), body.registration),
			};
		}
		if (registrationPath && registrationPath[2] && method === 'POST') {
			return { status: 200, body: this.state.changeStatus(decodeURIComponent(registrationPath[1]), body) };
		}
		if (registrationPath && !registrationPath[2] && method === 'DELETE') {
			return { status: 200, body: this.state.deleteRegistration(decodeURIComponent(registrationPath[1])) };
		}
		if (path === '/api/serial_numbers' && method === 'POST') {
			return { status: 200, body: this.state.createSerialNumbers(body.serialNumbers) };
		}
		if (path === '/api/serial_number' && method === 'GET') {
			const serial = this.state.randomUnregisteredSerial();
			return serial ? { status: 200, body: serial } : { status: 204 };
		}
		if (serialPath && method === 'GET') {
			// The raw path keeps %2F, so a serial with "/" in it is one segment, as the API defines it.
			const serial = this.state.findSerial(decodeURIComponent(serialPath[1]));
			return serial ? { status: 200, body: serial } : { status: 204 };
		}
		if (path === '/api/upload_file' && method === 'GET') {
			return { status: 200, body: this.signUpload(request.query) };
		}
		throw new ApiError(404, `No endpoint ${method} ${path}`);
	}

	private signUpload(query: Record<string, string>): { signedRequest: string; url: string } {
		const { fileName, fileType, fileSize } = query;
		if (!fileName) throw new ApiError(400, 'fileName is required');
		if (!fileType || !/^[\w.+-]+\/[\w.+-]+$/.test(fileType)) throw new ApiError(400, 'fileType must be a media type');
		if (!/^\d+$/.test(fileSize ?? '')) throw new ApiError(400, 'fileSize must be a number of bytes');
		const key = this.storage.newKey(fileName);
		const expiresAt = new Date(Date.now() + this.uploadUrlTtlSeconds * 1000);
		return { signedRequest: this.storage.signPut(key, fileType, expiresAt), url: this.storage.objectUrl(key) };
	}
}
