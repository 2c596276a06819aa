import type { IDataObject } from 'n8n-workflow';

import { listFromBody } from '../../shared/transport/answerShapes';

/** Splits a list into consecutive batches of at most `size` entries. */
export function batchesOf<T>(list: T[], size: number): T[][] {
	const batches: T[][] = [];
	for (let start = 0; start < list.length; start += size) batches.push(list.slice(start, start + size));
	return batches;
}

/**
 * One result per entry sent in a batch. The create answers are not specified: when the service lists one created
 * record per entry (under `key`, `data` or `items`, or as a bare array), each entry gets its own; otherwise each
 * entry is reported as it was sent.
 */
export function resultPerEntry(body: unknown, key: string, entries: IDataObject[]): IDataObject[] {
	const answered = listFromBody(body, key);
	return answered.length === entries.length ? answered : entries;
}

/** Names a batch in messages, e.g. "the 100 registrations of items 200 to 299". */
export function batchDescription(record: string, itemIndexes: number[]): string {
	const first = itemIndexes[0];
	const last = itemIndexes[itemIndexes.length - 1];
	return itemIndexes.length === 1
		? `the ${record} of item ${first}`
		: `the ${itemIndexes.length} ${record}s of items ${first} to ${last}`;
}
