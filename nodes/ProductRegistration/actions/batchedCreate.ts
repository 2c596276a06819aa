import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { batchDescription, resultPerEntry } from '../helpers/batching';
import type { FieldNames, MatchedFields } from '../helpers/fieldMatching';
import { describeNames, fieldMatcher } from '../helpers/fieldMatching';
import type { ItemInput } from '../input/itemInput';
import { requestFor } from '../input/runOptions';
import { serviceRequest } from '../../shared/transport/serviceRequest';
import type { BatchSender } from './operation';
import { shownWhen } from './shownWhen';

/** What the two creates (registrations, serial numbers) share: the mapping mode, Map Automatically, the batch sender. */

/** How a create takes its values: from the parameters below, or from the item's own fields (Map Automatically). */
export const DEFINE_BELOW = 'defineBelow';
export const MAP_AUTOMATICALLY = 'autoMapInputData';

/**
 * The `dataMode` parameter of a batched create, and a notice saying how Map Automatically matches fields. `record` is
 * what one item creates, in the singular ("registration").
 */
export function dataModeProperties(record: string, fieldList: string): INodeProperties[] {
	return [
		{
			displayName: 'Mapping Mode',
			name: 'dataMode',
			type: 'options',
			noDataExpression: true,
			options: [
				{
					name: 'Define Below',
					value: DEFINE_BELOW,
					description: 'Set each field below, typed or mapped from the input',
				},
				{
					name: 'Map Automatically',
					value: MAP_AUTOMATICALLY,
					description: `Send the input item's own fields, matched to the ${record}'s fields by name`,
				},
			],
			default: DEFINE_BELOW,
		},
		{
			displayName: `Each input item's fields are matched by name, ignoring case, spaces, underscores and dashes: ${fieldList}`,
			name: 'autoMapNotice',
			type: 'notice',
			default: '',
			displayOptions: { show: { dataMode: [MAP_AUTOMATICALLY] } },
		},
	];
}

/** Parameters of Define Below: hidden in Map Automatically. */
export function onlyWhenDefinedBelow(properties: INodeProperties[]): INodeProperties[] {
	return shownWhen({ dataMode: [DEFINE_BELOW] }, properties);
}

/** Options of Map Automatically (inside a collection, so the mode is read from the node's top level). */
export function onlyWhenMappedAutomatically(properties: INodeProperties[]): INodeProperties[] {
	return shownWhen({ '/dataMode': [MAP_AUTOMATICALLY] }, properties);
}

/** Map Automatically for one kind of record: its field names (with aliases) and their labels in messages. */
export interface AutoMapping {
	names: FieldNames;
	labels: Record<string, string>;
	required: string[];
	match: (item: IDataObject) => MatchedFields;
}

export function autoMapping(names: FieldNames, labels: Record<string, string>, required: string[]): AutoMapping {
	return { names, labels, required, match: fieldMatcher(names) };
}

/**
 * The fields of an item for Map Automatically, matched by name. A field named by two keys is refused, naming both;
 * a required field that is missing is refused, naming the field names looked for.
 */
export function inputFields(input: ItemInput, mapping: AutoMapping): MatchedFields {
	const fields = mapping.match(input.context.getInputData()[input.itemIndex]?.json ?? {});
	if (fields.conflict) {
		const { field, keys } = fields.conflict;
		throw input.error(
			`The item has two fields for the '${mapping.labels[field]}', '${keys[0]}' and '${keys[1]}': Map Automatically cannot tell which to send. Rename or remove one`,
		);
	}
	for (const field of mapping.required) {
		if (fields.matched[field] === undefined) {
			throw input.error(
				`The item has no field for the '${mapping.labels[field]}': Map Automatically looks for a field named ${describeNames(mapping.labels[field], field, mapping.names[field])}`,
			);
		}
	}
	return fields;
}

/**
 * The `sendBatch` of a batched create: one POST to `path` with the entries under `listKey`, one result per entry
 * (see resultPerEntry). Never repeated unless the service cannot have acted on it, since it creates `record`s.
 */
export function batchSender(path: string, listKey: string, record: string): BatchSender {
	return async function sendBatch(
		this: IExecuteFunctions,
		entries: IDataObject[],
		itemIndexes: number[],
	): Promise<IDataObject[]> {
		const { body } = await serviceRequest.call(
			this,
			{ method: 'POST', path, body: { [listKey]: entries }, creates: batchDescription(record, itemIndexes) },
			requestFor(this, itemIndexes[0]),
		);
		return resultPerEntry(body, listKey, entries);
	};
}
