import type { IDataObject } from 'n8n-workflow';

import { MAX_RECORDS, WINDOW } from './listRequest';

/**
 * A bare array, the API page's reading of a list: it has no pages, and `limit` cuts it. `first` is the answer to the
 * read's first `limit`, which held a page's worth (MIN_PAGE_SIZE) and less than wanted. The answer without `limit`
 * is every match (the API page) where it holds more than the answers to a limit did — and more than a window, unless
 * one of them asked for a window: the service's default page is no larger. Else `limit`, raised to a window and then
 * tenfold while answers fill it, gives the list. What the answers held together is the list: a registration deleted
 * between two makes neither the whole.
 */
export async function bareListAnswers(
	ask: (limit: number | undefined) => Promise<IDataObject[]>,
	wanted: number,
	first: { records: IDataObject[]; limit: number },
): Promise<IDataObject[]> {
	const window = Math.min(wanted, WINDOW);
	const answers = [first.records];
	const every = await ask(undefined);
	answers.push(every);
	if (every.length > first.records.length && (every.length > window || first.limit >= window)) return answers.flat();
	// A window that did not fill its limit was the whole list.
	if (first.limit >= window && first.records.length < first.limit) return answers.flat();
	for (let limit = first.limit < window ? window : first.limit * 10; ; limit *= 10) {
		const asked = Math.min(limit, wanted, MAX_RECORDS);
		const answer = await ask(asked);
		answers.push(answer);
		if (answer.length < asked || asked >= wanted || asked >= MAX_RECORDS) return answers.flat();
	}
}
