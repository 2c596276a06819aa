import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

/**
 * The largest body accepted by default. A registration's webhook is a few kilobytes: a customer, the products and their
 * fields, an uploaded file only as its URL (docs/service.md, The webhook).
 */
export const DEFAULT_MAX_BODY_KB = 1024;

export interface WebhookRequest {
	contentType: string;
	/** Declared or measured body size in bytes, when known. */
	size: number | undefined;
	/** The body as n8n's webhook server parsed it. */
	body: unknown;
	/** The raw body, when n8n kept it (used to tell an empty body from one that did not parse). */
	rawBody: string | undefined;
	secretGiven: string | undefined;
}

export interface WebhookSettings {
	secret: string;
	splitIntoItems: boolean;
	maxBodyKb: number;
}

/** Either the items to start the workflow with, or the refusal to answer instead (and start nothing). */
export type WebhookVerdict =
	| { accept: true; items: INodeExecutionData[] }
	| { accept: false; status: number; message: string };

/** The fewest characters a Shared Secret of the credential should have, so that it cannot be guessed. */
export const MIN_SECRET_LENGTH = 16;

/** The characters a URL's query carries as they are (RFC 3986's unreserved), so ?secret= arrives unchanged. */
const URL_SAFE = /^[A-Za-z0-9._~-]+$/;

/**
 * What would keep a secret from working as the credential's Shared Secret, or undefined when nothing would: the app
 * calls the address pasted into its admin and sends nothing else that could carry a secret (docs/service.md, The
 * webhook), so the secret rides in that address's query, where `+`, `&`, `#`, `%` or a space would arrive changed.
 */
export function secretProblem(secret: string): string | undefined {
	if (secret === '') return 'The Shared Secret is empty: make one up, of 16 or more letters and digits';
	if (!URL_SAFE.test(secret))
		return 'The Shared Secret holds characters a URL changes on the way: use only letters, digits, -, _, . and ~';
	if (secret.length < MIN_SECRET_LENGTH)
		return `The Shared Secret is short enough to be guessed: use ${MIN_SECRET_LENGTH} or more characters`;
	return undefined;
}

/** Compares in time independent of where the texts differ, so the secret cannot be guessed from answer times. */
export function sameSecret(given: string, expected: string): boolean {
	let difference = given.length ^ expected.length;
	for (let index = 0; index < expected.length; index++) {
		difference |= (given.charCodeAt(index % Math.max(given.length, 1)) || 0) ^ expected.charCodeAt(index);
	}
	return difference === 0;
}

function isObject(value: unknown): value is IDataObject {
	return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The keys of a product's entry that are the product itself, not fields of the form. */
const PRODUCT_KEYS = new Set(['product', 'purchaseDate', 'serialNumbers', 'extraFields']);

/**
 * A product's extra form fields as an object keyed by field name: from the documented `extraFields` rows
 * (`{ name, type, value }`), or — in the shape captured from live shops — the entry's plain keys besides the product's.
 */
export function fieldsOf(entry: IDataObject): IDataObject {
	if (Array.isArray(entry.extraFields)) {
		const fields: IDataObject = {};
		for (const row of entry.extraFields) {
			if (isObject(row) && typeof row.name === 'string') fields[row.name] = row.value;
		}
		return fields;
	}
	return Object.fromEntries(Object.entries(entry).filter(([key]) => !PRODUCT_KEYS.has(key)));
}

/**
 * The registration itself and the form's slug, from either known outline (docs/service.md, The webhook): the
 * documented one (`items` beside `customer` and `type`), or the one captured from a live shop, wrapped as
 * `{ payload: {...}, freeFormSlug }`.
 */
function unwrap(body: IDataObject): { registration: IDataObject; formSlug?: IDataObject[string] } {
	const { payload, freeFormSlug, ...outside } = body;
	if (!isObject(payload) || 'items' in body) return { registration: body };
	return { registration: { ...outside, ...payload }, formSlug: freeFormSlug };
}

/**
 * Output items for a payload. Split, each registered product becomes an item: its entry as sent, `fields` (its extra
 * fields by name), and what the payload holds beside the products (`customer`, `type`, ...), plus `formSlug` when the
 * body names the form. Any other shape passes through whole, as one item, and so does the payload when not split.
 */
export function payloadItems(payload: unknown, splitIntoItems: boolean): INodeExecutionData[] {
	if (!isObject(payload)) return [{ json: { body: payload as IDataObject[string] } }];
	const { registration, formSlug } = unwrap(payload);
	const { items, ...beside } = registration;
	if (!splitIntoItems || !Array.isArray(items) || items.length === 0) return [{ json: payload }];
	return items.map((entry) => {
		const product = isObject(entry) ? entry : { item: entry as IDataObject[string] };
		const json: IDataObject = { ...product, fields: isObject(entry) ? fieldsOf(entry) : {}, ...beside };
		if (formSlug !== undefined) json.formSlug = formSlug;
		return { json };
	});
}

/** Decides what to do with one webhook call: who may call, what body is acceptable, and what comes out. */
export function checkWebhookCall(request: WebhookRequest, settings: WebhookSettings): WebhookVerdict {
	if (settings.secret !== '' && !sameSecret(request.secretGiven ?? '', settings.secret)) {
		return { accept: false, status: 401, message: 'The secret is missing or wrong' };
	}
	const maxBytes = settings.maxBodyKb * 1024;
	if (request.size !== undefined && request.size > maxBytes) {
		return { accept: false, status: 413, message: `The body is larger than ${settings.maxBodyKb} KB` };
	}
	const isJson = /\bjson\b/i.test(request.contentType);
	// n8n leaves the body empty when JSON did not parse; the raw bytes tell that apart from a real `{}`.
	const raw = (request.rawBody ?? '').trim();
	const parseFailed = isObject(request.body) && Object.keys(request.body).length === 0 && raw !== '' && raw !== '{}';
	if (!isJson || request.body === undefined || parseFailed) {
		return {
			accept: false,
			status: 400,
			message: 'The body must be JSON, sent with Content-Type: application/json',
		};
	}
	return { accept: true, items: payloadItems(request.body, settings.splitIntoItems) };
}
