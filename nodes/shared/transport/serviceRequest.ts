import type { IDataObject, JsonObject } from 'n8n-workflow';
import { NodeApiError, sleep } from 'n8n-workflow';

import { withoutToken } from './quotedAnswer';
import type { FailedAttempt, FailFunction } from './attemptOutcome';
import { answerDate, backoffMs, isFailedAttempt, outcomeOfAnswer, outcomeOfNoAnswer } from './attemptOutcome';
import { sendAttempt } from './send';
import type { Refused } from './pace/servicePace';
import { servicePace } from './pace/servicePace';
import type { ServiceContext } from './session';
import { cancelSignal, serviceSession, serviceUrl } from './session';

/**
 * The only way the node talks to the service. One request, start to end: the run's session (credential read once),
 * the URL, then attempts — each waiting for the service's pace (pace/servicePace.ts), sent with its own deadline
 * (send.ts), its answer read for its outcome (attemptOutcome.ts) and told to the pace — sent again only after a failure
 * that may pass, and a create never once the service may have acted on it; a request gives up at its bound while the
 * service refuses (the gate says when); Stop cuts waits short. Every failure becomes an n8n error for the item, with the
 * service's own message and HTTP status, never the token.
 */

export interface RequestPolicy {
	/** How long one attempt may take as a whole, in milliseconds. */
	timeoutMs: number;
	/** How often a request that failed for a passing reason is repeated. */
	maxRetries: number;
	/** The first wait before a repeat; it doubles with each further one. */
	retryDelayMs: number;
}

export const DEFAULT_REQUEST_POLICY: RequestPolicy = { timeoutMs: 30_000, maxRetries: 3, retryDelayMs: 1_000 };
export const MAX_RETRIES = 10;

/** The item a request is sent for (its errors name it), and how that item's Options let it be sent. */
export interface RequestFor {
	itemIndex: number;
	policy: RequestPolicy;
}

/** A request outside any item's Options (the editor's From List, a poll): the defaults. */
export const WITHOUT_ITEM: RequestFor = { itemIndex: 0, policy: DEFAULT_REQUEST_POLICY };

interface RequestBase {
	/** Path below `/api/`, already URL-encoded where it holds user data, e.g. `registrations`. */
	path: string;
	qs?: IDataObject;
	body?: IDataObject;
	/** The record the path names, e.g. `registration "R1"`, so that a 404 says which one is missing. */
	record?: string;
	/** The endpoint is not on every service: a 404 answers with that status and no body instead of failing. */
	mayBeAbsent?: boolean;
}

/**
 * A request to the service. A POST creates something, and says what in words ("the 2 registrations of items 0 to 1"):
 * it is sent again only while the service cannot have acted on it, and otherwise fails as an UnknownOutcome naming
 * what may have been created. Reads, updates and deletes may always be sent again.
 */
export type ServiceRequest =
	| (RequestBase & { method: 'POST'; creates: string })
	| (RequestBase & { method: 'GET' | 'PUT' | 'DELETE' });

export interface ServiceResponse {
	statusCode: number;
	/** `undefined` for 204 No Content. */
	body: unknown;
	/** When the service answered, by its own clock (its `Date` header), in ms since the epoch. */
	answeredAt?: number;
}

export async function serviceRequest(
	this: ServiceContext,
	request: ServiceRequest,
	{ itemIndex, policy }: RequestFor,
): Promise<ServiceResponse> {
	const node = this.getNode();
	const session = await serviceSession(this);
	const url = serviceUrl(node, session, request.path, itemIndex);
	const origin = new URL(url).origin;
	const stop = cancelSignal(this);
	const requestLine = `Request: ${request.method} /api/${request.path}`;
	const fail: FailFunction = (message, httpCode, help, ErrorType: typeof NodeApiError = NodeApiError) => {
		const safeMessage = withoutToken(message, session.token);
		return new ErrorType(node, { message: safeMessage } as JsonObject, {
			message: safeMessage,
			description: help ? `${help} ${requestLine}` : requestLine,
			httpCode,
			itemIndex,
		});
	};
	const stopped = (problem: string) => fail(`The execution was stopped ${problem}; the request was not repeated`);

	const pace = servicePace(origin, session.token);
	// While the service refuses and takes nothing, a request may wait as long as its attempts could have taken.
	const patienceMs = (policy.maxRetries + 1) * policy.timeoutMs;
	const since = Date.now();
	let refused: (Refused & { outcome: FailedAttempt }) | undefined;
	let anAttemptMayHaveActed = false;
	for (let failures = 0; ; ) {
		const ticket = await pace.acquire({ stop, since, patienceMs, retryDelayMs: policy.retryDelayMs, refused });
		if (ticket === 'stopped')
			throw stopped(refused ? 'while the service asked to wait' : 'before the request was sent');
		if (ticket === 'outwaited') {
			const problem =
				refused?.outcome.problem ?? 'the service refused the requests sent while this one waited its turn';
			throw fail(
				`${capitalized(problem)}. The service kept refusing for as long as this request may take: (Retries + 1) × Timeout = ${seconds(patienceMs)}`,
				refused?.outcome.httpCode ?? '429',
				'The service is busy: run these items later, or raise Options > Retries or Timeout to give it longer.',
			);
		}
		const sent = await sendAttempt.call(this, {
			method: request.method,
			url,
			qs: request.qs,
			body: request.body,
			authorization: session.authorization,
			timeoutMs: policy.timeoutMs,
		});
		if ('error' in sent && sent.cancelled) throw stopped('while waiting for the service');
		let outcome: ServiceResponse | FailedAttempt | undefined;
		try {
			outcome =
				'response' in sent
					? outcomeOfAnswer(sent.response, request, anAttemptMayHaveActed, session.token, fail)
					: outcomeOfNoAnswer(sent.error, sent.timedOut, origin, policy.timeoutMs);
		} finally {
			// The pace learns of answers only: refused (429, or 503 with Retry-After), or taken (any other).
			const refusal = outcome && isFailedAttempt(outcome) ? outcome.refusal : undefined;
			if (refusal) pace.refused(ticket, refusal.retryAfterMs);
			else if ('response' in sent) pace.answered(ticket);
		}
		if (!isFailedAttempt(outcome))
			return { ...outcome, answeredAt: 'response' in sent ? answerDate(sent.response) : undefined };
		const refusal = outcome.refusal;
		refused = refusal && { at: Date.now(), retryAfterMs: refusal.retryAfterMs, outcome };
		// A refusal for the rate spends none of the request's Retries.
		if (refusal?.why === 'rate') continue;
		failures += 1;
		if (request.method === 'POST' && outcome.serviceMayHaveActed) {
			throw fail(
				`The outcome is unknown: ${outcome.problem}, so the service may or may not have created ${request.creates}. The request was not repeated, so that nothing is created twice.`,
				outcome.httpCode,
				'Check in the shop admin (or with Get Many / Get) what exists before running these items again.',
				UnknownOutcome,
			);
		}
		if (failures > policy.maxRetries) {
			throw fail(
				`${capitalized(outcome.problem)}, after ${failures} ${failures === 1 ? 'attempt' : 'attempts'}`,
				outcome.httpCode,
				outcome.help,
			);
		}
		anAttemptMayHaveActed ||= outcome.serviceMayHaveActed;
		// A refused request waits at the gate as long as the service asked.
		if (refusal) continue;
		if (await untilStop(sleep(backoffMs(policy.retryDelayMs, failures)), stop))
			throw stopped(`while ${outcome.problem}`);
	}
}

/** Waits for `done` unless Stop comes first; says whether Stop came. */
async function untilStop(done: Promise<unknown>, stop: AbortSignal | undefined): Promise<boolean> {
	if (stop === undefined) {
		await done;
		return false;
	}
	if (stop.aborted) return true;
	let onStop: () => void = () => undefined;
	const stopping = new Promise<void>((resolve) => {
		onStop = resolve;
		stop.addEventListener('abort', onStop, { once: true });
	});
	await Promise.race([done, stopping]);
	stop.removeEventListener('abort', onStop);
	return stop.aborted;
}

function seconds(ms: number): string {
	const value = Math.round(ms / 100) / 10;
	return `${value} ${value === 1 ? 'second' : 'seconds'}`;
}

function capitalized(text: string): string {
	return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * A create that failed after the service may have acted on it: it may or may not have created what it was sending.
 * It is never sent again blindly; If Already Registered resolves it by looking the records up.
 */
export class UnknownOutcome extends NodeApiError {
	constructor(...args: ConstructorParameters<typeof NodeApiError>) {
		super(...args);
		// n8n passes an error on with its item and description only when it carries one of its own error names.
		this.name = 'NodeApiError';
	}
}
