import type {
	IDataObject,
	IExecuteFunctions,
	IHttpRequestMethods,
	ILoadOptionsFunctions,
	IN8nHttpFullResponse,
	INode,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';

import { BASE_URL_SUFFIX } from '../../shared/serviceUrl';
import { executionScoped } from '../helpers/executionScope';
import type { Pace } from '../helpers/pace';
import { connectionErrorCode, connectionProblem } from './connectionErrors';

/**
 * The pace of the current run of the node, when it sends requests concurrently: a 429 slows the whole run down,
 * successes speed it up again.
 */
export const requestPace = executionScoped<Pace>();

export const CREDENTIAL_TYPE = 'productRegistrationApi';

export interface RequestPolicy {
	/** How long to wait for an answer (idle time), in milliseconds. */
	timeoutMs: number;
	/** How often a request that failed for a passing reason is repeated. */
	maxRetries: number;
	/** The first wait before a repeat; it doubles with each further one. */
	retryDelayMs: number;
}

export const DEFAULT_REQUEST_POLICY: RequestPolicy = { timeoutMs: 30_000, maxRetries: 3, retryDelayMs: 1_000 };
export const MAX_RETRIES = 10;
/** A Retry-After longer than this is cut to it: a workflow should not sit idle for an hour. */
const RETRY_AFTER_CAP_MS = 60_000;
const BACKOFF_CAP_MS = 30_000;

const TOKEN_HELP =
	'Generate a new token in the shop admin under Apps > the product-registration app > Settings > General > API Access Token, then update the "Product Registration API" credential.';

interface ProductRegistrationCredentials {
	baseUrl: string;
	accessToken: string;
}

export interface ServiceRequest {
	method: IHttpRequestMethods;
	/** Path below `/api/`, already URL-encoded where it holds user data, e.g. `registrations`. */
	path: string;
	qs?: IDataObject;
	body?: IDataObject;
	/**
	 * What the request creates, e.g. "the 100 registrations of this batch". Such a request is repeated only when
	 * the service cannot have acted on it; otherwise its failure says the outcome is unknown.
	 */
	creates?: string;
	/** The record the path names, e.g. `registration "R1"`, so a 404 can say which one is missing. */
	names?: string;
}

export interface ServiceResponse {
	statusCode: number;
	/** `undefined` for 204 No Content. */
	body: unknown;
}

/**
 * Joins the credential's base URL and an API path. The base URL must be http(s) and must not embed a user name or
 * password (they would travel beside the token and end up in logs); a trailing slash or `/api` is tolerated.
 */
export function buildServiceUrl(node: INode, baseUrl: string, path: string, itemIndex: number): string {
	const refuse = (reason: string) =>
		new NodeOperationError(node, `The Base URL in the Product Registration API credential ${reason}`, {
			itemIndex,
			description: 'Use the address of the product-registration app, e.g. https://registrations.example.com',
		});
	const trimmed = String(baseUrl ?? '').trim();
	let parsed: URL;
	try {
		parsed = new URL(trimmed);
	} catch {
		throw refuse('is not a web address');
	}
	if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
		throw refuse(`must start with https:// or http://, not ${parsed.protocol}//`);
	}
	if (parsed.username !== '' || parsed.password !== '') {
		throw refuse('must not contain a user name or password; the access token is the only credential needed');
	}
	if (parsed.search !== '' || parsed.hash !== '') {
		throw refuse('must not contain a query (?...) or a fragment (#...)');
	}
	const root = `${parsed.origin}${parsed.pathname}`.replace(BASE_URL_SUFFIX, '');
	return `${root}/api/${path.replace(/^\/+/, '')}`;
}

/** Turns whatever error body the service sent (JSON, text or an HTML page) into one readable line. */
export function describeErrorBody(body: unknown): string {
	if (body === undefined || body === null || body === '') return '';
	if (typeof body === 'object') {
		const fields = body as IDataObject;
		if (Object.keys(fields).length === 0) return '';
		for (const key of ['message', 'error', 'errors', 'detail', 'title']) {
			const value = fields[key];
			if (typeof value === 'string' && value.trim() !== '') return value.trim();
			if (Array.isArray(value) && value.length > 0) return value.map(describeErrorBody).join('; ');
			if (value && typeof value === 'object') {
				const nested = describeErrorBody(value);
				if (nested !== '') return nested;
			}
		}
		return JSON.stringify(body).slice(0, 300);
	}
	const text = String(body)
		.replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, ' ')
		.replace(/<[^>]+>/g, ' ')
		.replace(/\s+/g, ' ')
		.trim();
	return text.length > 300 ? `${text.slice(0, 297)}...` : text;
}

/** Milliseconds to wait as a Retry-After header asks (seconds or an HTTP date), capped; undefined when absent. */
export function retryAfterMs(header: unknown, now = Date.now()): number | undefined {
	const value = Array.isArray(header) ? header[0] : header;
	if (typeof value !== 'string' && typeof value !== 'number') return undefined;
	const text = String(value).trim();
	let waitMs: number;
	if (/^\d+(\.\d+)?$/.test(text)) waitMs = Number(text) * 1000;
	else {
		const date = Date.parse(text);
		if (Number.isNaN(date)) return undefined;
		waitMs = date - now;
	}
	return Math.min(Math.max(0, waitMs), RETRY_AFTER_CAP_MS);
}

/** Exponential backoff with jitter: half the step fixed, half random, so many workers do not retry in step. */
export function backoffMs(retryDelayMs: number, retry: number, random = Math.random): number {
	const step = Math.min(retryDelayMs * 2 ** (retry - 1), BACKOFF_CAP_MS);
	return Math.round(step / 2 + random() * (step / 2));
}

/** Replaces every occurrence of the token, so no message built from a service answer can carry it. */
function withoutToken(text: string, token: string): string {
	return token === '' ? text : text.split(token).join('[access token]');
}

/** Why one attempt failed in a way that may pass. */
interface PassingFailure {
	/** What went wrong, in words, e.g. "the service answered HTTP 503: Service Unavailable". */
	problem: string;
	/** True when the service cannot have acted on the request (rate limited, or never connected). */
	notActedOn: boolean;
	httpCode?: string;
	waitMs?: number;
	/** What the user can check when repeating did not help. */
	help?: string;
}

/** A run of the node, or a search the editor makes while the user picks a value (From List). */
export type ServiceContext = IExecuteFunctions | ILoadOptionsFunctions;

function readPolicy(context: ServiceContext, itemIndex: number): RequestPolicy {
	// An editor search has no items and no Options: it uses the defaults.
	if (!('getInputData' in context)) return DEFAULT_REQUEST_POLICY;
	const options = context.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const read = (name: string, label: string, fallback: number, min: number, max: number) => {
		const value = options[name] ?? fallback;
		if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
			throw new NodeOperationError(
				context.getNode(),
				`The ${label} option of item ${itemIndex} must be a whole number from ${min} to ${max}, not ${JSON.stringify(value)}`,
				{ itemIndex },
			);
		}
		return value;
	};
	return {
		maxRetries: read('maxRetries', 'Retries', DEFAULT_REQUEST_POLICY.maxRetries, 0, MAX_RETRIES),
		retryDelayMs: read('retryDelay', 'Retry Wait', DEFAULT_REQUEST_POLICY.retryDelayMs, 0, 600_000),
		timeoutMs: read('timeout', 'Timeout', DEFAULT_REQUEST_POLICY.timeoutMs, 1, 3_600_000),
	};
}

type FailFunction = (message: string, httpCode?: string, help?: string) => NodeApiError;

function isPassingFailure(outcome: ServiceResponse | PassingFailure): outcome is PassingFailure {
	return 'problem' in outcome;
}

/** A connection that failed: refused or unresolved means nothing reached the service; anything else may have. */
function judgeConnectionFailure(error: unknown, origin: string, policy: RequestPolicy): PassingFailure {
	const code = connectionErrorCode(error);
	const timedOut = code === 'ECONNABORTED' || code === 'ETIMEDOUT' || code === 'UND_ERR_HEADERS_TIMEOUT';
	return {
		problem: timedOut
			? `the service at ${origin} did not answer within ${policy.timeoutMs / 1000} seconds`
			: `could not reach the service at ${origin}: ${connectionProblem(code)}`,
		notActedOn: code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN',
		help: timedOut
			? 'Raise Options > Timeout if the service is just slow.'
			: 'Check the Base URL in the credential and that the service is running.',
	};
}

/**
 * Sorts an answer into a result, a failure that may pass (and so may be retried), or a definite error (thrown).
 * `mayHaveActed` says whether an earlier attempt of this request may have reached the service.
 */
function judgeResponse(
	response: IN8nHttpFullResponse,
	request: ServiceRequest,
	mayHaveActed: boolean,
	token: string,
	fail: FailFunction,
): ServiceResponse | PassingFailure {
	const { statusCode } = response;
	const httpCode = String(statusCode);
	const serviceMessage = withoutToken(describeErrorBody(response.body), token);
	const saying = serviceMessage ? `: ${serviceMessage}` : '';
	const unreadable = typeof response.body === 'string' && response.body.trim() !== '';

	if (statusCode >= 200 && statusCode < 300) {
		if (!unreadable) return { statusCode, body: statusCode === 204 ? undefined : response.body };
		const contentType = String(response.headers?.['content-type'] ?? 'no content type');
		return {
			problem: `the service answered HTTP ${statusCode} with something that is not JSON (${contentType}: ${JSON.stringify(serviceMessage.slice(0, 80))})`,
			notActedOn: false,
			httpCode,
		};
	}
	if (statusCode === 429) {
		return {
			problem: `the service is limiting the rate of requests (HTTP 429)${saying}`,
			notActedOn: true,
			httpCode,
			waitMs: retryAfterMs(response.headers?.['retry-after']),
		};
	}
	if (statusCode === 502 || statusCode === 503 || statusCode === 504 || (statusCode >= 500 && request.creates)) {
		return { problem: `the service answered HTTP ${statusCode}${saying}`, notActedOn: false, httpCode };
	}
	if (statusCode === 404 && request.method === 'DELETE' && mayHaveActed) {
		// An earlier attempt's answer was lost; the record being gone now means that attempt deleted it.
		return { statusCode, body: undefined };
	}
	if (statusCode === 401 || statusCode === 403) {
		throw fail(`The service rejected the access token (HTTP ${statusCode})${saying}`, httpCode, TOKEN_HELP);
	}
	if (statusCode === 404 && request.names !== undefined) {
		throw fail(`The service has no ${request.names} (HTTP 404${saying})`, httpCode, 'Check the ID, e.g. with Get Many.');
	}
	if (statusCode >= 300 && statusCode < 400) {
		const location = String(response.headers?.location ?? '');
		throw fail(
			`The service answered with a redirect (HTTP ${statusCode}${location ? ` to ${location}` : ''}), which the node does not follow so that the access token stays with the service`,
			httpCode,
			"Check the Base URL in the credential: it should be the service's final address.",
		);
	}
	throw fail(`The service answered HTTP ${statusCode}${saying}`, httpCode);
}

/**
 * The only way the node talks to the service: builds the URL, authenticates with the credential, sends and
 * receives JSON, repeats what failed for a passing reason without ever risking a duplicate, and turns every
 * failure into an n8n error for the given item — with the service's own message and HTTP status, never the token.
 */
export async function serviceRequest(
	this: ServiceContext,
	request: ServiceRequest,
	itemIndex: number,
): Promise<ServiceResponse> {
	const node = this.getNode();
	const policy = readPolicy(this, itemIndex);
	const credentials = (await this.getCredentials(
		CREDENTIAL_TYPE,
		itemIndex,
	)) as unknown as ProductRegistrationCredentials;
	const token = String(credentials.accessToken ?? '');
	const url = buildServiceUrl(node, credentials.baseUrl, request.path, itemIndex);
	const origin = new URL(url).origin;
	const requestLine = `Request: ${request.method} /api/${request.path}`;
	const fail: FailFunction = (message, httpCode, help) => {
		const safeMessage = withoutToken(message, token);
		return new NodeApiError(node, { message: safeMessage } as JsonObject, {
			message: safeMessage,
			description: help ? `${help} ${requestLine}` : requestLine,
			httpCode,
			itemIndex,
		});
	};

	let mayHaveActed = false;
	for (let attempt = 1; ; attempt++) {
		let answer: IN8nHttpFullResponse | PassingFailure;
		try {
			answer = (await this.helpers.httpRequestWithAuthentication.call(this, CREDENTIAL_TYPE, {
				method: request.method,
				url,
				qs: request.qs,
				body: request.body,
				json: true,
				timeout: policy.timeoutMs,
				returnFullResponse: true,
				ignoreHttpStatusErrors: true,
				// A redirect could carry the Authorization header to another host; the service has no reason to send one.
				disableFollowRedirect: true,
			})) as IN8nHttpFullResponse;
		} catch (error) {
			answer = judgeConnectionFailure(error, origin, policy);
		}
		const outcome: ServiceResponse | PassingFailure =
			'statusCode' in answer ? judgeResponse(answer, request, mayHaveActed, token, fail) : answer;
		if (!isPassingFailure(outcome)) {
			requestPace.peek(this)?.speedUp();
			return outcome;
		}
		if (outcome.httpCode === '429') requestPace.peek(this)?.slowDown();

		if (request.creates !== undefined && !outcome.notActedOn) {
			throw fail(
				`The outcome is unknown: ${outcome.problem}, so the service may or may not have created ${request.creates}. The request was not repeated, so that nothing is created twice.`,
				outcome.httpCode,
				'Check in the shop admin (or with Get Many / Get) what exists before running these items again.',
			);
		}
		if (attempt > policy.maxRetries) {
			const problem = outcome.problem.charAt(0).toUpperCase() + outcome.problem.slice(1);
			throw fail(`${problem}, after ${attempt} ${attempt === 1 ? 'attempt' : 'attempts'}`, outcome.httpCode, outcome.help);
		}
		mayHaveActed ||= !outcome.notActedOn;
		if ('getExecutionCancelSignal' in this && this.getExecutionCancelSignal()?.aborted) {
			throw fail(`The execution was cancelled while ${outcome.problem}`, outcome.httpCode);
		}
		await sleep(outcome.waitMs ?? backoffMs(policy.retryDelayMs, attempt));
	}
}
