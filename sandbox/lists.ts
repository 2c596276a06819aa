import type { StoredRegistration } from './state';
import { ApiError } from './state';

/**
 * How the sandbox answers a list, in either reading of the service:
 * - `paged`, as the real service does (../shared/notes/real-service.md): `{ data, total }`, `page` counted from 1,
 *   20 records a page when `limit` is absent and at most 100, each registration as its public client reads it
 *   (the form's slug as `type`, extra fields under `fieldData`);
 * - `bare`, as the API document reads: an array of every match, cut to `limit` when given; `page` is ignored.
 * Both list the newest first, as the real service does, unless a quirk says otherwise.
 */
export type ListDialect = 'paged' | 'bare';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

function positiveWhole(value: string | undefined, name: string): number | undefined {
	if (value === undefined) return undefined;
	const number = Number(value);
	if (!Number.isInteger(number) || number < 1) throw new ApiError(400, `${name} must be a positive whole number`);
	return number;
}

/** A registration as the real service lists it. */
export function listedRegistration(registration: StoredRegistration): Record<string, unknown> {
	return {
		id: registration.id,
		productName: registration.productName,
		customerEmail: registration.customerEmail,
		customerName: registration.customerName,
		serialNumbers: registration.serialNumbers,
		purchaseDate: registration.purchaseDate,
		createdAt: registration.createdAt,
		status: registration.status,
		type: registration.formSlug,
		fieldData: registration.fields,
	};
}

/** How a paged list is answered beyond the dialect: the quirks a real service shows. */
export interface PageQuirks {
	/** The largest page the service gives, whatever `limit` asks for (the real service's is 100). */
	maxPageSize: number;
	/**
	 * Pages of 100 leave out this many of the newest records, which smaller pages show (the real service's public
	 * client saw its first page at `limit=100` miss the newest records that `limit=1` showed).
	 */
	largePagesMissNewest: number;
	/** Lists the oldest first: the API document promises no order. */
	oldestFirst: boolean;
}

/** A list answered as the real service answers it: pages of at most 100, nothing left out, the newest first. */
export const usualPageQuirks = (): PageQuirks => ({
	maxPageSize: MAX_PAGE_SIZE,
	largePagesMissNewest: 0,
	oldestFirst: false,
});

/** One answer to a list request, `newestFirst` holding every match. */
export function listAnswer<T>(
	newestFirst: T[],
	query: Record<string, string>,
	dialect: ListDialect,
	shape: (record: T) => unknown,
	quirks: PageQuirks = usualPageQuirks(),
): unknown {
	const limit = positiveWhole(query.limit, 'limit');
	const inOrder = (records: T[]) => (quirks.oldestFirst ? [...records].reverse() : records);
	if (dialect === 'bare') {
		const every = inOrder(newestFirst);
		return (limit === undefined ? every : every.slice(0, limit)).map(shape);
	}
	const page = positiveWhole(query.page, 'page') ?? 1;
	const size = Math.min(limit ?? DEFAULT_PAGE_SIZE, quirks.maxPageSize);
	const listed = inOrder(size >= MAX_PAGE_SIZE ? newestFirst.slice(quirks.largePagesMissNewest) : newestFirst);
	return { data: listed.slice((page - 1) * size, page * size).map(shape), total: newestFirst.length };
}
