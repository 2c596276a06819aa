import { createHash } from 'node:crypto';

import type { StoredRegistration } from './state.cts';
import { ApiError } from './state.cts';

/**
 * How the sandbox answers a list. The API page leaves the list's shape, paging, order, the record's id key and the
 * form of `createdAt` open; the real service shows one combination (../shared/notes/real-service.md). Each open
 * question is a switch here, and the switches combine, so that tests can hold the node to every reading:
 */
export interface ListDialect {
	/**
	 * The answer's outline: a bare array (the API page's reading), `{ data, total }` (the real service's),
	 * `{ data, meta: { total } }` (an older version of its client reads this), or `{ data }` without any total.
	 */
	shape: 'bare' | 'dataTotal' | 'dataMetaTotal' | 'dataOnly';
	/** `page` (counted from 1) honoured, or ignored: every answer then starts at the list's start. */
	pages: 'honoured' | 'ignored';
	/**
	 * `limit` honoured, cut to `cap` when it asks for more (the real service gives at most 100), or ignored: every
	 * answer then holds `defaultPageSize` records, whatever was asked. Offsets follow the size actually given.
	 */
	limit: 'honoured' | 'capped' | 'ignored';
	cap: number;
	/** Records an answer holds when `limit` is absent (or ignored); a bare array without `limit` holds every match... */
	defaultPageSize: number;
	/** ...unless it too gives a default page without `limit` (the API page reads it as every match; it may not be). */
	bareDefaultPage?: boolean;
	/** By `createdAt`, the newest first (the real service) or the oldest first; or in no order (stable, by a hash). */
	order: 'newestFirst' | 'oldestFirst' | 'none';
	/** The key a record's id is listed under, and whether the id is a number (the API page shows no format). */
	idKey: 'id' | 'regId' | 'registrationId';
	numericIds: boolean;
	/** How `createdAt` is written: ISO with milliseconds, ISO to the second, ISO without a zone, epoch ms, or absent. */
	createdAt: 'isoMilliseconds' | 'isoSeconds' | 'noZone' | 'epochMilliseconds' | 'absent';
	/**
	 * Pages of 100 records or more leave out this many of the newest ones, which smaller pages show (the real
	 * service's public client saw its first page at `limit=100` miss the newest records that `limit=1` showed). Only
	 * where the real service showed it, in pages with a total: there the total tells a client; without one, no
	 * client could tell, so no reading is held to it.
	 */
	largePagesMissNewest: number;
	/**
	 * Registrations of one moment (made by one request, or an import) in the order stored, or ordered anew at each
	 * request, as a list sorted by `createdAt` alone may be (SQL's ORDER BY ... LIMIT/OFFSET, MongoDB's sort on a
	 * non-unique field). Only where the list is sorted by `createdAt`.
	 */
	ties?: 'stable' | 'reordered';
}

/** The real service, as its public client reads it: pages of at most 100 (20 unless asked), wrapped, newest first. */
export const REAL_SERVICE: Readonly<ListDialect> = {
	shape: 'dataTotal',
	pages: 'honoured',
	limit: 'capped',
	cap: 100,
	defaultPageSize: 20,
	order: 'newestFirst',
	idKey: 'id',
	numericIds: false,
	createdAt: 'isoMilliseconds',
	largePagesMissNewest: 0,
};

/** The API page's reading: a bare array of every match, cut by `limit`, no pages. */
export const API_PAGE: Readonly<ListDialect> = {
	...REAL_SERVICE,
	shape: 'bare',
	pages: 'ignored',
	limit: 'honoured',
};

function positiveWhole(value: string | undefined, name: string): number | undefined {
	if (value === undefined) return undefined;
	const number = Number(value);
	if (!Number.isInteger(number) || number < 1) throw new ApiError(400, `${name} must be a positive whole number`);
	return number;
}

function writtenCreatedAt(createdAt: string, form: ListDialect['createdAt']): string | number | undefined {
	switch (form) {
		case 'isoMilliseconds':
			return createdAt;
		case 'isoSeconds':
			return `${createdAt.slice(0, 19)}Z`;
		case 'noZone':
			return createdAt.slice(0, 19);
		case 'epochMilliseconds':
			return Date.parse(createdAt);
		case 'absent':
			return undefined;
	}
}

/** A registration as the service lists it in this dialect (the real service's fields: `type`, `fieldData`). */
export function listedRegistration(registration: StoredRegistration, dialect: ListDialect): Record<string, unknown> {
	const number = Number(registration.id.replace(/\D/g, ''));
	return {
		[dialect.idKey]: dialect.numericIds ? number : registration.id,
		productName: registration.productName,
		customerEmail: registration.customerEmail,
		customerName: registration.customerName,
		serialNumbers: registration.serialNumbers,
		purchaseDate: registration.purchaseDate,
		createdAt: writtenCreatedAt(registration.createdAt, dialect.createdAt),
		status: registration.status,
		type: registration.formSlug,
		fieldData: registration.fields,
	};
}

/** A fixed place for a record in a list of no order: where it lands does not depend on when it was made. */
function scatter(id: string): string {
	return createHash('sha1').update(id).digest('hex');
}

/**
 * The matching registrations in the dialect's order; `insertedLastFirst` is the order they were stored in, reversed.
 * `reorderTies` (the request's number) orders those of one moment anew, the same way for the same number.
 */
function inOrder(
	insertedLastFirst: StoredRegistration[],
	order: ListDialect['order'],
	reorderTies?: number,
): StoredRegistration[] {
	if (order === 'none') {
		return insertedLastFirst
			.map((registration) => ({ registration, place: scatter(registration.id) }))
			.sort((a, b) => a.place.localeCompare(b.place))
			.map(({ registration }) => registration);
	}
	// Stored in the order they were made (nothing listed late): already the newest first. (ISO times of one form
	// compare as text as they do as times.)
	const stored = insertedLastFirst.every(
		(registration, index) => index === 0 || registration.createdAt <= insertedLastFirst[index - 1].createdAt,
	);
	const newestFirst = stored
		? insertedLastFirst
		: insertedLastFirst
				.map((registration, position) => ({ registration, position, time: Date.parse(registration.createdAt) }))
				.sort((a, b) => b.time - a.time || a.position - b.position)
				.map(({ registration }) => registration);
	const ordered = order === 'newestFirst' ? newestFirst : [...newestFirst].reverse();
	if (reorderTies === undefined) return ordered;
	// Each registration placed by the first of its moment (they lie together), then by a scatter that the request picks.
	let momentStart = 0;
	return ordered
		.map((registration, position) => {
			if (position > 0 && registration.createdAt !== ordered[position - 1].createdAt) momentStart = position;
			return { registration, momentStart, place: scatter(`${reorderTies}:${registration.id}`) };
		})
		.sort((a, b) => a.momentStart - b.momentStart || a.place.localeCompare(b.place))
		.map(({ registration }) => registration);
}

/**
 * One answer to a list request in this dialect; `insertedLastFirst` holds every match, the last stored first.
 * `requestNumber` tells requests apart, for a dialect that orders each moment's registrations anew at each.
 */
export function listAnswer(
	insertedLastFirst: StoredRegistration[],
	query: Record<string, string>,
	dialect: ListDialect,
	requestNumber = 0,
): unknown {
	const asked = positiveWhole(query.limit, 'limit');
	const page = positiveWhole(query.page, 'page') ?? 1;
	let size: number;
	if (asked === undefined || dialect.limit === 'ignored')
		size = dialect.shape === 'bare' && !dialect.bareDefaultPage ? insertedLastFirst.length : dialect.defaultPageSize;
	else size = dialect.limit === 'capped' ? Math.min(asked, dialect.cap) : asked;
	const reorderTies = dialect.ties === 'reordered' && dialect.order !== 'none' ? requestNumber : undefined;
	const ordered = inOrder(insertedLastFirst, dialect.order, reorderTies);
	const withTotal = dialect.shape === 'dataTotal' || dialect.shape === 'dataMetaTotal';
	const leavesOut = size >= 100 && withTotal && dialect.largePagesMissNewest > 0;
	const newestLeftOut = new Set(
		leavesOut ? inOrder(insertedLastFirst, 'newestFirst').slice(0, dialect.largePagesMissNewest) : [],
	);
	const listed = leavesOut ? ordered.filter((registration) => !newestLeftOut.has(registration)) : ordered;
	const start = dialect.pages === 'honoured' ? (page - 1) * size : 0;
	const data = listed.slice(start, start + size).map((registration) => listedRegistration(registration, dialect));
	const total = insertedLastFirst.length;
	switch (dialect.shape) {
		case 'bare':
			return data;
		case 'dataTotal':
			return { data, total };
		case 'dataMetaTotal':
			return { data, meta: { total } };
		case 'dataOnly':
			return { data };
	}
}
