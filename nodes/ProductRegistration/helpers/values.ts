import type { IDataObject } from 'n8n-workflow';
import { jsonParse } from 'n8n-workflow';

import { isEmail } from '../../shared/registrations';

/**
 * A value a user mapped that cannot be sent as it is. The message says what is wrong with the value only; the
 * operation adds which field of which item it came from.
 */
export class InvalidValueError extends Error {}

/** Quotes a user's value in a message, shortened so a huge cell cannot flood the error. */
export function quote(value: unknown): string {
	const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
	return JSON.stringify(text.length > 60 ? `${text.slice(0, 57)}...` : text);
}

/** Text from a mapped value: strings are trimmed, numbers and booleans written out; `undefined` when blank. */
export function optionalText(value: unknown): string | undefined {
	if (value === undefined || value === null) return undefined;
	if (typeof value === 'string') return value.trim() === '' ? undefined : value.trim();
	if (typeof value === 'number' || typeof value === 'boolean') return String(value);
	throw new InvalidValueError(`must be text, not ${Array.isArray(value) ? 'a list' : 'an object'}: ${quote(value)}`);
}

export function requiredText(value: unknown): string {
	const text = optionalText(value);
	if (text === undefined) throw new InvalidValueError('is empty');
	return text;
}

/**
 * Text that becomes one segment of a URL path (a registration ID, a serial number). Any character can be
 * percent-encoded except a segment of only dots: URL parsing reads "." and ".." as folder steps, even encoded.
 */
export function pathSegmentText(value: unknown): string {
	const text = requiredText(value);
	if (/^\.+$/.test(text))
		throw new InvalidValueError(`cannot be sent in a URL path: ${quote(text)} is read as a folder step`);
	return text;
}

export function optionalEmail(value: unknown): string | undefined {
	const text = optionalText(value);
	if (text !== undefined && !isEmail(text)) throw new InvalidValueError(`is not an email address: ${quote(text)}`);
	return text;
}

/** true or false, also from the "true"/"false" text a sheet cell holds. */
export function booleanValue(value: unknown): boolean {
	if (typeof value === 'boolean') return value;
	if (typeof value === 'string' && /^(true|false)$/i.test(value.trim())) return value.trim().toLowerCase() === 'true';
	throw new InvalidValueError(`must be true or false, not ${quote(value)}`);
}

/**
 * A whole number from `min` to `max` (no upper bound when `max` is left out), also from the text a sheet cell holds.
 * The one reader of every whole-number parameter and option.
 */
export function wholeNumber(min: number, max = Infinity): (value: unknown) => number {
	const range = max === Infinity ? `of ${min} or more` : `from ${min} to ${max}`;
	return (value) => {
		const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
		if (typeof number !== 'number' || !Number.isInteger(number) || number < min || number > max) {
			throw new InvalidValueError(
				`must be a whole number ${range}, not ${typeof value === 'number' ? value : quote(value)}`,
			);
		}
		return number;
	};
}

/**
 * A list of texts from what sheets and CRMs hold: "A1, A2" (commas, semicolons or new lines), an array, or one
 * value. Blank entries are dropped; `undefined` when nothing is left.
 */
export function optionalTextList(value: unknown): string[] | undefined {
	if (value === undefined || value === null) return undefined;
	const parts = Array.isArray(value) ? value : typeof value === 'string' ? value.split(/[,;\n]/) : [value];
	const list = parts
		.map((part) => {
			if (part !== null && typeof part === 'object') {
				throw new InvalidValueError(`must be a list of texts, but holds ${quote(part)}`);
			}
			return optionalText(part);
		})
		.filter((part): part is string => part !== undefined);
	return list.length === 0 ? undefined : list;
}

function isRealDate(isoDate: string): boolean {
	const parsed = new Date(`${isoDate}T00:00:00Z`);
	return !Number.isNaN(parsed.getTime()) && parsed.toISOString().startsWith(isoDate);
}

/**
 * A calendar date as the service wants it (YYYY-MM-DD) from `2024-03-01`, an ISO timestamp (its date as written,
 * whatever its time zone), a Luxon DateTime or a JS Date from an expression. Other shapes (03/01/2024) are refused
 * rather than guessed, since day and month order differ between countries.
 */
export function optionalCalendarDate(value: unknown): string | undefined {
	if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) return undefined;
	let isoDate: string | undefined;
	if (value instanceof Date) {
		isoDate = Number.isNaN(value.getTime()) ? undefined : value.toISOString().slice(0, 10);
	} else if (typeof value === 'object' && typeof (value as { toISODate?: unknown }).toISODate === 'function') {
		isoDate = ((value as { toISODate: () => string | null }).toISODate() ?? undefined) as string | undefined;
	} else if (typeof value === 'string') {
		isoDate = /^(\d{4}-\d{2}-\d{2})(?:$|[T ]\d{2}:\d{2})/.exec(value.trim())?.[1];
	}
	if (isoDate === undefined || !isRealDate(isoDate)) {
		throw new InvalidValueError(`is not a date: ${quote(value)}. Use YYYY-MM-DD, e.g. 2024-03-01`);
	}
	return isoDate;
}

/** A JSON object given as an object (from an expression) or as JSON text; `undefined` when blank. */
export function optionalJsonObject(value: unknown): IDataObject | undefined {
	const parsed = parseJsonParameter(value);
	if (parsed === undefined) return undefined;
	if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
		throw new InvalidValueError(`must be a JSON object like {"greetings": "hi"}, not ${quote(value)}`);
	}
	return parsed as IDataObject;
}

/** A JSON array given as an array or as JSON text; `undefined` when blank. */
export function optionalJsonArray(value: unknown): unknown[] | undefined {
	const parsed = parseJsonParameter(value);
	if (parsed === undefined) return undefined;
	if (!Array.isArray(parsed)) throw new InvalidValueError(`must be a JSON array, not ${quote(value)}`);
	return parsed;
}

const NOT_JSON = Symbol('not JSON');

function parseJsonParameter(value: unknown): unknown {
	if (value === undefined || value === null) return undefined;
	if (typeof value !== 'string') return value;
	if (value.trim() === '') return undefined;
	const parsed = jsonParse<unknown>(value, { fallbackValue: NOT_JSON });
	if (parsed === NOT_JSON) throw new InvalidValueError(`is not valid JSON: ${quote(value)}`);
	return parsed;
}

/** A resource locator's saved value: `{ __rl: true, mode, value }`. */
export function isResourceLocator(value: unknown): value is { __rl: true; mode: string; value: unknown } {
	return value !== null && typeof value === 'object' && (value as { __rl?: unknown }).__rl === true;
}

/**
 * The value a resource locator holds, from inside a collection (where n8n hands over the locator as saved); a plain
 * value, saved before the parameter became a locator, is that value.
 */
export function locatorValue(value: unknown): unknown {
	return isResourceLocator(value) ? value.value : value;
}
