import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { runsAsTool } from '../input/asTool';
import { compactRegistration } from '../../shared/registrations';
import { runParameters } from '../input/runParameters';
import type { Answers } from './operation';
import { RecordList } from './operation';
import { COMPACT_ANSWER, MOST_LISTED_FOR_MODEL } from './toolFields';

/**
 * What the node answers with, where it answers with registrations (Get Many, Create, Create or Update, Update, Change
 * Status: `answers: 'registrations'`): each registration whole, as the service gives it, or compact
 * (compactRegistration: ID, product, customer, serial numbers, purchase date, status, form, and what the node says of
 * it). One switch decides it — Simplify for a person, the tool's Output (toolAnswer) for a model — and one function
 * makes the compact shape.
 */

/** Since version 1.1; a node of version 1 answers whole, as workflows saved before 0.6 expect. */
const SIMPLIFY_SINCE = 1.1;

/**
 * Simplify, as n8n's guidelines name and word it (on by default). A model gets the tool's Output instead; n8n releases
 * that do not know `@tool` show both, and the tool follows Output.
 */
export const simplifyProperty: INodeProperties = {
	displayName: 'Simplify',
	name: 'simplify',
	type: 'boolean',
	noDataExpression: true,
	default: true,
	description: 'Whether to return a simplified version of the response instead of the raw data',
	displayOptions: { show: { '@version': [{ _cnd: { gte: SIMPLIFY_SINCE } }] }, hide: { '@tool': [true] } },
};

/** Whether this run answers with compact registrations: the tool's Output for a model, else Simplify; once a run. */
function answersCompact(context: IExecuteFunctions): boolean {
	const parameters = runParameters(context);
	if (runsAsTool(context.getNode())) return parameters.get('toolAnswer', 0, COMPACT_ANSWER) === COMPACT_ANSWER;
	return context.getNode().typeVersion >= SIMPLIFY_SINCE && parameters.get('simplify', 0, true) === true;
}

/**
 * The output items' JSON of one result: each registration whole or compact (above). The plain node gives a list one
 * item per record. A model (the node used as a tool) reads every answer into its context: it gets a list as one
 * answer that says how many of how many it shows.
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
	const compact = answers === 'registrations' && answersCompact(context);
	const shaped = (record: IDataObject) => (compact ? compactRegistration(record) : record);
	if (!runsAsTool(context.getNode())) {
		return (result) => (result instanceof RecordList ? result.records.map(shaped) : [shaped(result)]);
	}
	return (result) => {
		if (!(result instanceof RecordList)) return [shaped(result)];
		const what = answers ?? 'records';
		return [{ summary: listSummary(result, what), [what]: result.records.map(shaped) }];
	};
}
