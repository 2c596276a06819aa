import type { IHttpRequestMethods, IN8nHttpFullResponse, NodeApiError } from 'n8n-workflow';

import { bounded, describeErrorBody } from './quotedAnswer';
import { connectionErrorCode, connectionProblem } from './connectionErrors';

/**
 * What an answer of the service means, and whether and when to try again. Pure: no request is sent from here.
 */

/** A Retry-After longer than this is cut to it: a workflow should not sit idle for an hour. */
export const RETRY_AFTER_CAP_MS = 60_000;
/** The longest wait between two attempts that the node chooses itself. */
export const BACKOFF_CAP_MS = 30_000;

const TOKEN_HELP =
	'Generate a new token in the shop admin under Apps > the product-registration app > Settings > General > API Access Token, then update the "Product Registration API" credential.';

/** What the outcome of an attempt depends on, of its request. */
export interface AttemptedRequest {
	method: IHttpRequestMethods;
	/** The record the path names, e.g. `registration "R1"`, so that a 404 says which one is missing. */
	record?: string;
	/** The endpoint is not on every service (GET /api/forms): a 404 is the answer that it is absent, not an error. */
	mayBeAbsent?: boolean;
}

/**
 * An attempt that failed in a way that may pass: the request may be sent again (retried). Whether it may be, for a
 * request that creates something, depends on whether the service may have acted on it.
 */
export interface FailedAttempt {
	/** What went wrong, in words, e.g. "the service answered HTTP 503: Service Unavailable". */
	problem: string;
	/** False only when the service cannot have acted on the request: it refused it for the rate, or it never connected. */
	serviceMayHaveActed: boolean;
	httpCode?: string;
	/** What the user can check when sending again did not help. */
	help?: string;
	/** The service refused the request and said so (429, or 503 with Retry-After): it waits at the service's pace. */
	refusal?: RefusalReason;
}

/** Why the service refused a request, and how long it asked to wait (Retry-After) when it said. */
export interface RefusalReason {
	/** Its rate (429), or unavailable for as long as it said (503 with Retry-After). */
	why: 'rate' | 'unavailable';
	retryAfterMs: number | undefined;
}

/** In this API every POST creates something (records, a status change): it must never be created twice. */
export function createsSomething(request: { method: IHttpRequestMethods }): boolean {
	return request.method === 'POST';
}

/** Builds the error for a request that failed for good; `ErrorType` picks a NodeApiError of a particular kind. */
export type FailFunction = (
	message: string,
	httpCode?: string,
	help?: string,
	ErrorType?: typeof NodeApiError,
) => NodeApiError;

/**
 * Milliseconds to wait as a Retry-After header asks (seconds, or an HTTP date, which begins with its day's name: RFC
 * 9110), capped; undefined when absent or neither. `now` is the answer's own `Date` where it has one: the date is in
 * the service's clock.
 */
export function retryAfterMs(header: unknown, now = Date.now()): number | undefined {
	const value = Array.isArray(header) ? header[0] : header;
	if (typeof value !== 'string' && typeof value !== 'number') return undefined;
	const text = String(value).trim();
	let waitMs: number;
	if (/^\d+(\.\d+)?$/.test(text)) waitMs = Number(text) * 1000;
	else {
		const date = /^[A-Za-z]{3}/.test(text) ? Date.parse(text) : NaN;
		if (Number.isNaN(date)) return undefined;
		waitMs = date - now;
	}
	return Math.min(Math.max(0, waitMs), RETRY_AFTER_CAP_MS);
}

/** When the service answered, by its own clock (its `Date` header), in ms since the epoch; undefined without one. */
export function answerDate(response: IN8nHttpFullResponse): number | undefined {
	const date = Date.parse(String(response.headers?.date ?? ''));
	return Number.isNaN(date) ? undefined : date;
}

/** Exponential backoff with jitter: half the step fixed, half random, so many workers do not retry in step. */
export function backoffMs(retryDelayMs: number, retry: number, random = Math.random): number {
	const step = Math.min(retryDelayMs * 2 ** (retry - 1), BACKOFF_CAP_MS);
	return Math.round(step / 2 + random() * (step / 2));
}

/**
 * A request that got no answer: refused or unresolved means nothing reached the service; a deadline that passed or a
 * broken connection may have let it act.
 */
export function outcomeOfNoAnswer(error: unknown, timedOut: boolean, origin: string, timeoutMs: number): FailedAttempt {
	const code = connectionErrorCode(error);
	const slow = timedOut || code === 'ECONNABORTED' || code === 'ETIMEDOUT' || code === 'UND_ERR_HEADERS_TIMEOUT';
	return {
		problem: slow
			? `the service at ${origin} did not answer within ${timeoutMs / 1000} seconds`
			: `could not reach the service at ${origin}: ${connectionProblem(code)}`,
		serviceMayHaveActed: slow || !(code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN'),
		help: slow
			? 'Raise Options > Timeout if the service is just slow.'
			: 'Check the Base URL in the credential and that the service is running.',
	};
}

/**
 * Sorts an answer into a result, a failed attempt that may pass (and so may be retried), or a definite error
 * (thrown). `earlierAttemptMayHaveActed` says whether an earlier attempt of this request may have reached the service.
 */
export function outcomeOfAnswer(
	response: IN8nHttpFullResponse,
	request: AttemptedRequest,
	earlierAttemptMayHaveActed: boolean,
	token: string,
	fail: FailFunction,
): { statusCode: number; body: unknown } | FailedAttempt {
	const { statusCode } = response;
	const httpCode = String(statusCode);
	const unreadable = typeof response.body === 'string' && response.body.trim() !== '';
	if (statusCode >= 200 && statusCode < 300 && !unreadable) {
		return { statusCode, body: statusCode === 204 ? undefined : response.body };
	}
	const contentLength = Number(response.headers?.['content-length']);
	const serviceMessage = describeErrorBody(response.body, token, contentLength >= 0 ? contentLength : undefined);
	const saying = serviceMessage ? `: ${serviceMessage}` : '';

	if (statusCode >= 200 && statusCode < 300) {
		const contentType = String(response.headers?.['content-type'] ?? 'no content type');
		return {
			problem: `the service answered HTTP ${statusCode} with something that is not JSON (${contentType}: ${JSON.stringify(serviceMessage.slice(0, 80))})`,
			serviceMayHaveActed: true,
			httpCode,
		};
	}
	const retryAfter = retryAfterMs(response.headers?.['retry-after'], answerDate(response) ?? Date.now());
	if (statusCode === 429) {
		return {
			problem: `the service is limiting the rate of requests (HTTP 429)${saying}`,
			serviceMayHaveActed: false,
			httpCode,
			refusal: { why: 'rate', retryAfterMs: retryAfter },
		};
	}
	// A 503 that says how long to wait refuses as a 429 does; without Retry-After it is a passing error, as 502 and 504
	// are (docs/reliability.md).
	if (statusCode === 503 && retryAfter !== undefined) {
		return {
			problem: `the service answered HTTP ${statusCode}${saying}`,
			serviceMayHaveActed: true,
			httpCode,
			refusal: { why: 'unavailable', retryAfterMs: retryAfter },
		};
	}
	// A 500 to a create may come after the records were stored: its outcome is unknown, not a plain refusal.
	if (
		statusCode === 502 ||
		statusCode === 503 ||
		statusCode === 504 ||
		(statusCode >= 500 && createsSomething(request))
	) {
		return { problem: `the service answered HTTP ${statusCode}${saying}`, serviceMayHaveActed: true, httpCode };
	}
	if (statusCode === 404 && request.mayBeAbsent) return { statusCode, body: undefined };
	if (statusCode === 404 && request.method === 'DELETE' && earlierAttemptMayHaveActed) {
		// An earlier attempt's answer was lost; the record being gone now means that attempt deleted it.
		return { statusCode, body: undefined };
	}
	if (statusCode === 401 || statusCode === 403) {
		throw fail(`The service rejected the access token (HTTP ${statusCode})${saying}`, httpCode, TOKEN_HELP);
	}
	if (statusCode === 404 && request.record !== undefined) {
		throw fail(
			`The service has no ${request.record} (HTTP 404${saying})`,
			httpCode,
			'Check the ID, e.g. with Get Many.',
		);
	}
	if (statusCode >= 300 && statusCode < 400) {
		const location = bounded(String(response.headers?.location ?? ''), token, undefined);
		throw fail(
			`The service answered with a redirect (HTTP ${statusCode}${location ? ` to ${location}` : ''}), which the node does not follow so that the access token stays with the service`,
			httpCode,
			"Check the Base URL in the credential: it should be the service's final address.",
		);
	}
	throw fail(`The service answered HTTP ${statusCode}${saying}`, httpCode);
}

export function isFailedAttempt(
	outcome: { statusCode: number; body: unknown } | FailedAttempt,
): outcome is FailedAttempt {
	return 'problem' in outcome;
}
