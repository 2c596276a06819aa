import type {
	IDataObject,
	IExecuteFunctions,
	IHttpRequestMethods,
	IN8nHttpFullResponse,
	INode,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { connectionErrorCode, connectionProblem } from './connectionErrors';

export const CREDENTIAL_TYPE = 'productRegistrationApi';

/** A hung service must not hang the workflow. */
const REQUEST_TIMEOUT_MS = 30_000;

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
	const root = `${parsed.origin}${parsed.pathname}`.replace(/\/+$/, '').replace(/\/api$/, '');
	return `${root}/api/${path.replace(/^\/+/, '')}`;
}

/** Turns whatever error body the service sent (JSON, text or an HTML page) into one readable line. */
export function describeErrorBody(body: unknown): string {
	if (body === undefined || body === null || body === '') return '';
	if (typeof body === 'object') {
		const fields = body as IDataObject;
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

/** Replaces every occurrence of the token, so no message built from a service answer can carry it. */
function withoutToken(text: string, token: string): string {
	return token === '' ? text : text.split(token).join('[access token]');
}

function describeConnectionFailure(code: string | undefined, origin: string): string {
	switch (code) {
		case 'ECONNREFUSED':
		case 'ENOTFOUND':
		case 'EAI_AGAIN':
			return `Could not connect to the service at ${origin}: ${connectionProblem(code)}. Check the Base URL in the credential and that the service is running.`;
		case 'ECONNABORTED':
		case 'ETIMEDOUT':
		case 'UND_ERR_HEADERS_TIMEOUT':
			return `The service at ${origin} did not answer within ${REQUEST_TIMEOUT_MS / 1000} seconds.`;
		default:
			return `The connection to the service at ${origin} failed: ${connectionProblem(code)}.`;
	}
}

/**
 * The only way the node talks to the service: builds the URL, authenticates with the credential, sends and
 * receives JSON, and turns every failure into an n8n error for the given item — with the service's own message
 * and HTTP status, and never the token.
 */
export async function serviceRequest(
	this: IExecuteFunctions,
	request: ServiceRequest,
	itemIndex: number,
): Promise<ServiceResponse> {
	const node = this.getNode();
	const credentials = (await this.getCredentials(
		CREDENTIAL_TYPE,
		itemIndex,
	)) as unknown as ProductRegistrationCredentials;
	const token = String(credentials.accessToken ?? '');

	const url = buildServiceUrl(node, credentials.baseUrl, request.path, itemIndex);
	const origin = new URL(url).origin;
	const endpoint = `${request.method} /api/${request.path}`;

	let response: IN8nHttpFullResponse;
	try {
		response = (await this.helpers.httpRequestWithAuthentication.call(this, CREDENTIAL_TYPE, {
			method: request.method,
			url,
			qs: request.qs,
			body: request.body,
			json: true,
			timeout: REQUEST_TIMEOUT_MS,
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			// A redirect could carry the Authorization header to another host; the service has no reason to send one.
			disableFollowRedirect: true,
		})) as IN8nHttpFullResponse;
	} catch (error) {
		const message = describeConnectionFailure(connectionErrorCode(error), origin);
		throw new NodeApiError(node, { message } as JsonObject, {
			message,
			description: `Request: ${endpoint}`,
			itemIndex,
		});
	}

	const { statusCode } = response;
	if (statusCode >= 200 && statusCode < 300) {
		return { statusCode, body: statusCode === 204 ? undefined : response.body };
	}

	const serviceMessage = withoutToken(describeErrorBody(response.body), token);
	const httpCode = String(statusCode);
	let message: string;
	let description = `Request: ${endpoint}`;
	if (statusCode === 401 || statusCode === 403) {
		message = `The service rejected the access token (HTTP ${statusCode})${serviceMessage ? `: ${serviceMessage}` : ''}`;
		description = `${TOKEN_HELP} ${description}`;
	} else if (statusCode >= 300 && statusCode < 400) {
		const location = String(response.headers?.location ?? '');
		message = `The service answered with a redirect (HTTP ${statusCode}${location ? ` to ${location}` : ''}), which the node does not follow so that the access token stays with the service`;
		description = `Check the Base URL in the credential: it should be the service's final address. ${description}`;
	} else {
		message = `The service answered HTTP ${statusCode}${serviceMessage ? `: ${serviceMessage}` : ''}`;
	}
	throw new NodeApiError(node, { message, httpCode } as JsonObject, {
		message,
		description,
		httpCode,
		itemIndex,
	});
}
