import type { IDataObject } from 'n8n-workflow';

import type { ListRequest } from './transport/lists/listRequest';

/**
 * The registrations list, as both nodes read it: the one request for it, and what is read of a registration it
 * lists. The list answer's item shape is not documented: the fields are read under the names the API takes on
 * creation, and whatever is missing stays undefined. Each key that decides what the nodes do — the id, the email,
 * `createdAt` — is read by one function here, and nowhere else.
 */

/** GET /api/registrations with these filters (`email`, `formSlug`, ...); `what` names it in messages. */
export function registrationsList(filters: IDataObject, what = 'registrations'): ListRequest {
	return {
		path: 'registrations',
		qs: filters,
		resourceKey: 'registrations',
		what,
		identify: registrationIdOf,
		momentOf: createdAtOf,
	};
}

export interface ListedRegistration {
	id?: string;
	productName?: string;
	customerEmail?: string;
	customerName?: string;
	purchaseDate?: string;
	serialNumbers?: string[];
}

function text(value: unknown): string | undefined {
	if (typeof value === 'number') return String(value);
	return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/** Serial numbers as a list of texts, from a list or comma-separated text; undefined when the record has none. */
function texts(value: unknown): string[] | undefined {
	const parts = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : [];
	const list = parts.map(text).filter((part): part is string => part !== undefined);
	return list.length === 0 ? undefined : list;
}

/** The registration's id, under whichever key the service lists it (`id`, `regId`, `registrationId`), as text. */
export function registrationIdOf(record: IDataObject): string | undefined {
	return text(record.id) ?? text(record.regId) ?? text(record.registrationId);
}

/**
 * What tells a registration from the others: its id or — for a service that lists none — what it was made with
 * (when, by whom, what), so that one seen twice is known as the same.
 */
export function registrationIdentity(record: IDataObject): string | undefined {
	const id = registrationIdOf(record);
	if (id !== undefined) return id;
	const createdAt = createdAtOf(record);
	if (createdAt === undefined) return undefined;
	return JSON.stringify([createdAt, customerEmailOf(record)?.toLowerCase(), record.productName, record.serialNumbers]);
}

/** Deliberately loose: catches the usual spreadsheet mistakes (blank, missing @, spaces) without rejecting real addresses. */
export function isEmail(value: string): boolean {
	return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value);
}

/** The customer email as listed (email addresses are compared without case). */
export function customerEmailOf(record: IDataObject): string | undefined {
	return text(record.customerEmail);
}

/**
 * When the registration was made, in ms since the epoch, and whether the service said in which zone: from ISO text
 * (one without a zone read as UTC, so that every record is read alike) or epoch milliseconds (a number or digits; a
 * number too small for milliseconds is seconds).
 */
export function readCreatedAt(record: IDataObject): { time: number; zoned: boolean } | undefined {
	const value = record.createdAt;
	const digits = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value;
	if (typeof digits === 'number') {
		return Number.isFinite(digits) ? { time: digits < 1e11 ? digits * 1000 : digits, zoned: true } : undefined;
	}
	if (typeof digits !== 'string' || digits.trim() === '') return undefined;
	const written = digits.trim();
	const withoutZone = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?$/.test(written);
	const time = Date.parse(
		withoutZone ? `${written.replace(' ', 'T')}${written.length > 10 ? '' : 'T00:00'}Z` : written,
	);
	return Number.isNaN(time) ? undefined : { time, zoned: !withoutZone };
}

/** When the registration was made, in ms since the epoch (see readCreatedAt). */
export function createdAtOf(record: IDataObject): number | undefined {
	return readCreatedAt(record)?.time;
}

export function readListedRegistration(record: IDataObject): ListedRegistration {
	return {
		id: registrationIdOf(record),
		productName: text(record.productName),
		customerEmail: customerEmailOf(record),
		customerName: text(record.customerName),
		purchaseDate: text(record.purchaseDate),
		serialNumbers: texts(record.serialNumbers),
	};
}

/**
 * A registration compact, as Simplify gives it to a person and the tool's Output to a model: its id, product,
 * customer, serial numbers, purchase date, status and form (its slug, which the service lists as `type`, or
 * `formSlug`), and what the node says of it (`outcome` under If Already Registered, and `repeatsItem` for an item that
 * repeats an earlier one); whatever the record lacks is left out. At most 10 fields, as n8n's guidelines ask.
 */
export function compactRegistration(record: IDataObject): IDataObject {
	const { id, productName, customerName, customerEmail, serialNumbers, purchaseDate } = readListedRegistration(record);
	const compact: IDataObject = {
		id,
		productName,
		customerName,
		customerEmail,
		serialNumbers,
		purchaseDate,
		status: text(record.status),
		form: text(record.type) ?? text(record.formSlug),
		outcome: text(record.outcome),
		repeatsItem: typeof record.repeatsItem === 'number' ? record.repeatsItem : undefined,
	};
	return Object.fromEntries(Object.entries(compact).filter(([, value]) => value !== undefined));
}

/** A product name compared as people mean it: case, surrounding spaces and inner runs of spaces ignored. */
export function comparableProductName(name: string): string {
	return name.trim().replace(/\s+/g, ' ').toLowerCase();
}

/**
 * Whether two registrations are the same one, by the rule of If Already Registered: the same product name and — when
 * both have serial numbers — at least one serial number in common. (The email is matched by the lookup.)
 */
export function sameRegistration(
	a: { productName?: string; serialNumbers?: string[] },
	b: { productName?: string; serialNumbers?: string[] },
): boolean {
	if (a.productName === undefined || b.productName === undefined) return false;
	if (comparableProductName(a.productName) !== comparableProductName(b.productName)) return false;
	if (!a.serialNumbers?.length || !b.serialNumbers?.length) return true;
	const theirs = new Set(b.serialNumbers);
	return a.serialNumbers.some((serial) => theirs.has(serial));
}
