import type { IDataObject, IHttpRequestMethods, IN8nHttpFullResponse } from 'n8n-workflow';

import type { ServiceContext } from './session';
import { cancelSignal } from './session';

export interface Attempt {
	method: IHttpRequestMethods;
	url: string;
	authorization: string;
	qs?: IDataObject;
	body?: IDataObject;
	/** The whole request — connecting, sending, the headers and the last byte of the answer — must end within this. */
	timeoutMs: number;
}

/**
 * Names this package to the service, so that the shop's logs tell its requests apart. (n8n's 2.x helper would
 * otherwise look its own User-Agent up on every request.)
 */
const USER_AGENT = 'n8n-nodes-product-registration';

export type AttemptResult =
	| { response: IN8nHttpFullResponse }
	| { error: unknown; timedOut: boolean; cancelled: boolean };

/**
 * Sends one attempt of a request to the service, and nothing else: no judging, no retrying. n8n's request helper
 * applies its timeout to an idle socket (any byte resets it), so a trickling answer could hold a run for good; here
 * a deadline for the whole request is combined with the execution's Stop signal and aborts the request, closing its
 * socket, whichever comes first. (n8n's authenticated helper would replace this signal with its own, which is one
 * reason the session sends the Authorization header itself.)
 */
export async function sendAttempt(this: ServiceContext, attempt: Attempt): Promise<AttemptResult> {
	const deadline = AbortSignal.timeout(attempt.timeoutMs);
	const stop = cancelSignal(this);
	try {
		const response = (await this.helpers.httpRequest({
			method: attempt.method,
			url: attempt.url,
			qs: attempt.qs,
			body: attempt.body,
			headers: { Authorization: attempt.authorization, 'User-Agent': USER_AGENT },
			json: true,
			timeout: attempt.timeoutMs,
			abortSignal: stop ? AbortSignal.any([stop, deadline]) : deadline,
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			// A redirect could carry the Authorization header to another host; the service has no reason to send one.
			disableFollowRedirect: true,
		})) as IN8nHttpFullResponse;
		return { response };
	} catch (error) {
		const cancelled = stop?.aborted === true;
		return { error, cancelled, timedOut: !cancelled && deadline.aborted };
	}
}
