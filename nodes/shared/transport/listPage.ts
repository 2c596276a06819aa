import type { IDataObject } from 'n8n-workflow';

import type { ListRequest } from './listAnswer';
import { askList, MIN_PAGE_SIZE, PAGE_SIZE } from './listAnswer';
import { WITHOUT_ITEM } from './serviceRequest';
import type { ServiceContext } from './session';

/** Where a person scrolling through a list has reached. */
export interface ListPosition {
	/** How many records the service has listed before the next page. */
	offset: number;
	/** How many records the service gives a page, as its first page showed: it counts its pages by them. */
	pageSize: number;
	/** The id of the first record the list's first page held: a page further on that holds it starts the list over. */
	listStart?: string;
}

/**
 * One page of a list, for a person scrolling through it (the editor's From List): its records, and where the next
 * page starts when the service holds more. The first page asks for PAGE_SIZE; the service may give fewer (its most,
 * or the same number whatever is asked), and counts its pages by what it gives, so later pages ask for that many.
 * A page further on that holds the list's first record is the list's start again: the service ignores `page`, so
 * what its first page showed is all it shows, and that page adds nothing. A bare array is the whole list, or the
 * first PAGE_SIZE of it.
 */
export async function readListPage(
	this: ServiceContext,
	list: ListRequest,
	position: ListPosition = { offset: 0, pageSize: PAGE_SIZE },
): Promise<{ records: IDataObject[]; next?: ListPosition }> {
	const { offset, pageSize, listStart } = position;
	const { page } = await askList(this, list, WITHOUT_ITEM, { page: Math.floor(offset / pageSize) + 1, limit: pageSize });
	if (page === undefined || page.bare || page.records.length === 0) return { records: page?.records ?? [] };
	const ids = page.records.map(list.identify);
	if (offset > 0 && listStart !== undefined && ids.includes(listStart)) return { records: [] };
	const given = page.records.length;
	const reached = offset + given;
	const more = page.total !== undefined ? reached < page.total : given >= Math.min(pageSize, MIN_PAGE_SIZE);
	// The first page shows the size the service gives; a later page shorter than it is the list's end.
	const next = {
		offset: reached,
		pageSize: offset === 0 ? given : pageSize,
		listStart: offset === 0 ? ids.find((id) => id !== undefined) : listStart,
	};
	return { records: page.records, next: more && (offset === 0 || given >= pageSize) ? next : undefined };
}
