import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { runsAsTool } from '../input/asTool';
import { compactRegistration } from '../../shared/registrations';
import { runParameters } from '../input/runParameters';
import type { Answers } from './operation';
import { RecordList } from './operation';
import { COMPACT_ANSWER, MOST_LISTED_FOR_MODEL } from './toolFields';

/**
 * The output items' JSON of one result. The plain node gives a result as it is, a list one item per record. A model
 * (the node used as a tool) reads every answer into its context: it gets registrations compact unless the tool's
 * Answer says whole, and a list as one answer that says how many of how many it shows.
 */
export type AnswerItems = (result: IDataObject | RecordList) => IDataObject[];

/** How a list's answer says what it shows, e.g. "Showing 50 of 130 registrations. A larger Limit ..." */
function listSummary(list: RecordList, what: string): string {
	const shown = list.records.length;
	const counted = (count: number) => `${count} ${count === 1 ? what.replace(/s$/, '') : what}`;
	const more =
		shown < MOST_LISTED_FOR_MODEL
			? `A larger Limit (at most ${MOST_LISTED_FOR_MODEL}) shows more.`
			: `${MOST_LISTED_FOR_MODEL} is the most one answer shows.`;
	let words: string;
	if (shown === 0) words = `No ${what} found.`;
	else if (list.total !== undefined && list.total > shown)
		words = `Showing ${shown} of ${counted(list.total)}. ${more}`;
	else if (list.more) words = `Showing the first ${counted(shown)}; there are more. ${more}`;
	else words = `Found ${counted(shown)}, all shown.`;
	return list.gap === undefined ? words : `${words} The list may be incomplete: ${list.gap}.`;
}

export function answerItems(context: IExecuteFunctions, answers: Answers | undefined): AnswerItems {
	if (!runsAsTool(context.getNode())) {
		return (result) => (result instanceof RecordList ? result.records : [result]);
	}
	const compact =
		answers === 'registrations' && runParameters(context).get('toolAnswer', 0, COMPACT_ANSWER) === COMPACT_ANSWER;
	const forModel = (record: IDataObject) => (compact ? compactRegistration(record) : record);
	return (result) => {
		if (!(result instanceof RecordList)) return [forModel(result)];
		const what = answers ?? 'records';
		return [{ summary: listSummary(result, what), [what]: result.records.map(forModel) }];
	};
}
