import type { IDataObject } from 'n8n-workflow';

/**
 * What the node repeats of the service's and the storage's answers. Error messages and descriptions are stored with
 * the execution, shown in the editor and logged, so a proxy's 10 MB error page must not become a 10 MB message: every
 * piece of an answer the node quotes is cut to its first ECHO_LIMIT characters, on a character boundary, with the
 * access token masked, and says how much there was. Large answers are read only as far as a message needs.
 */

/** The most characters of an answer that one message quotes. */
export const ECHO_LIMIT = 1_000;

/** How much of a text answer is read to describe it (HTML is stripped of its tags first). */
const READ_LIMIT = 64 * 1024;

const MESSAGE_KEYS = ['message', 'error', 'errors', 'detail', 'title'];

/** Replaces every occurrence of the token, so no message built from an answer can carry it. */
export function withoutToken(text: string, token: string): string {
	return token === '' ? text : text.split(token).join('[access token]');
}

function size(bytes: number): string {
	if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
	if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KB`;
	return `${bytes} bytes`;
}

/**
 * The text as a message may quote it: the token masked, and at most ECHO_LIMIT characters followed by how much there
 * was (`totalBytes`, the size of what the text was read from, when known). The kept part is copied, so that it does
 * not hold on to the large answer it was cut from.
 */
export function bounded(text: string, token: string, totalBytes: number | undefined): string {
	// A token that starts within the kept part ends within this window, so it is masked before the cut.
	const window = text.slice(0, ECHO_LIMIT + token.length);
	const masked = withoutToken(window, token);
	if (window.length === text.length && masked.length <= ECHO_LIMIT) return copy(masked);
	let end = Math.min(ECHO_LIMIT, masked.length);
	const last = masked.charCodeAt(end - 1);
	// Never half a character: a high surrogate without its pair is left out.
	if (last >= 0xd800 && last <= 0xdbff) end -= 1;
	return `${copy(masked.slice(0, end))}… (${totalBytes === undefined ? 'cut' : `${size(totalBytes)} in all`})`;
}

function copy(text: string): string {
	return Buffer.from(text, 'utf8').toString('utf8');
}

/** Readable words of an HTML page or plain text: scripts, styles and tags removed, white space folded. */
function readableText(text: string): string {
	return text
		.slice(0, READ_LIMIT)
		.replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, ' ')
		.replace(/<[^>]+>/g, ' ')
		.replace(/\s+/g, ' ')
		.trim();
}

/** Compact JSON of a value, written only until it passes `budget` characters: a large answer is not copied whole. */
function jsonPreview(value: unknown, budget: number): string {
	const parts: string[] = [];
	let length = 0;
	const add = (text: string) => {
		parts.push(text);
		length += text.length;
	};
	const write = (item: unknown): void => {
		if (typeof item === 'string') return add(JSON.stringify(item.slice(0, budget)));
		if (item === null || typeof item !== 'object') return add(String(JSON.stringify(item) ?? null));
		const isArray = Array.isArray(item);
		add(isArray ? '[' : '{');
		let first = true;
		for (const key in item) {
			if (length > budget) break;
			if (!first) add(',');
			first = false;
			if (!isArray) add(`${JSON.stringify(key.slice(0, budget))}:`);
			write((item as IDataObject)[key]);
		}
		add(isArray ? ']' : '}');
	};
	write(value);
	return parts.join('');
}

/** The message an error answer carries, however it is shaped; undefined when it names none. */
function messageIn(body: unknown): string | undefined {
	if (typeof body === 'string') return body.trim() === '' ? undefined : body.trim();
	if (Array.isArray(body)) {
		const messages: string[] = [];
		let length = 0;
		for (const entry of body) {
			const message = messageIn(entry);
			if (message === undefined) continue;
			messages.push(message);
			length += message.length;
			if (length > ECHO_LIMIT) break;
		}
		return messages.length === 0 ? undefined : messages.join('; ');
	}
	if (body === null || typeof body !== 'object') return undefined;
	for (const key of MESSAGE_KEYS) {
		const value = (body as IDataObject)[key];
		if (typeof value === 'string' && value.trim() !== '') return value.trim();
		if (value !== null && typeof value === 'object') {
			const nested = messageIn(value);
			if (nested !== undefined) return nested;
		}
	}
	return undefined;
}

/**
 * Whatever error body the service sent — JSON, text or an HTML page — as one readable line, bounded and without the
 * token. `totalBytes` is the answer's size when known (its Content-Length).
 */
export function describeErrorBody(body: unknown, token = '', totalBytes?: number): string {
	if (body === undefined || body === null || body === '') return '';
	if (typeof body === 'string') {
		return bounded(readableText(body), token, totalBytes ?? Buffer.byteLength(body));
	}
	if (typeof body !== 'object' || Object.keys(body).length === 0) return '';
	const message = messageIn(body);
	if (message !== undefined) return bounded(message, token, Buffer.byteLength(message));
	return bounded(jsonPreview(body, ECHO_LIMIT), token, totalBytes);
}

/** The code and message of an S3-style XML error body, e.g. `AccessDenied: Request has expired`, bounded. */
export function describeStorageError(body: unknown): string {
	const whole = typeof body === 'string' ? body : Buffer.isBuffer(body) ? body : '';
	const text = typeof whole === 'string' ? whole.slice(0, READ_LIMIT) : whole.subarray(0, READ_LIMIT).toString('utf8');
	const totalBytes = typeof whole === 'string' ? Buffer.byteLength(whole) : whole.length;
	const code = /<Code>([^<]*)/.exec(text)?.[1];
	const message = /<Message>([^<]*)/.exec(text)?.[1];
	const said = code || message ? [code, message].filter(Boolean).join(': ') : readableText(text);
	return bounded(said, '', totalBytes);
}
