import type { IDataObject } from 'n8n-workflow';

import { MAX_RECORDS, MIN_PAGE_SIZE, PAGE_SIZE } from './listAnswer';

/**
 * A bare array, the API page's reading of a list: it has no pages, and `limit` cuts it. An answer to a page shorter
 * than a page holds (MIN_PAGE_SIZE) is all there is. Otherwise the answer without `limit` is every match (the API
 * page), where it holds more than the answer to a page; where not, it is the service's default page, and `limit`
 * raised tenfold while answers fill it gives the list. What the answers held together is the list: a registration
 * deleted between two makes neither the whole. `first` is the answer already given to a `limit`, when there is one.
 */
export async function bareListAnswers(
	ask: (limit: number | undefined) => Promise<IDataObject[]>,
	wanted: number,
	first?: { records: IDataObject[]; limit: number },
): Promise<IDataObject[][]> {
	const page = Math.min(wanted, PAGE_SIZE);
	// A smaller first answer that was full is asked again as a page.
	const pageAnswer =
		first === undefined || (first.limit < page && first.records.length >= first.limit)
			? await ask(page)
			: first.records;
	const answers = [...(first === undefined ? [] : [first.records]), pageAnswer];
	if (pageAnswer.length < MIN_PAGE_SIZE || pageAnswer.length >= wanted) return answers;
	const every = await ask(undefined);
	answers.push(every);
	if (every.length > pageAnswer.length || pageAnswer.length < page) return answers;
	for (let limit = page * 10; ; limit *= 10) {
		const asked = Math.min(limit, wanted, MAX_RECORDS);
		const answer = await ask(asked);
		answers.push(answer);
		if (answer.length < asked || asked >= wanted || asked >= MAX_RECORDS) return answers;
	}
}
