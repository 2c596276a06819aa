import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { batchDescription, resultPerEntry } from '../helpers/batching';
import { serviceRequest } from '../transport/serviceRequest';

/** The API takes many records in one POST (its maximum is not documented); 100 keeps each request modest. */
export const DEFAULT_BATCH_SIZE = 100;
export const MAX_BATCH_SIZE = 1000;

/** The `options.batchSize` parameter of a batched create. */
export function batchSizeOption(records: string): INodeProperties {
	return {
		displayName: 'Batch Size',
		name: 'batchSize',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: MAX_BATCH_SIZE },
		default: DEFAULT_BATCH_SIZE,
		description: `How many ${records} to send in one request. Input items are sent in batches of this size; a batch the service refuses fails only its own items.`,
	};
}

/**
 * The `sendBatch` of a batched create: one POST to `path` with the entries under `listKey`, one result per entry
 * (see resultPerEntry). Never repeated unless the service cannot have acted on it, since it creates `record`s.
 */
export function batchSender(path: string, listKey: string, record: string) {
	return async function sendBatch(
		this: IExecuteFunctions,
		entries: IDataObject[],
		itemIndexes: number[],
	): Promise<IDataObject[]> {
		const { body } = await serviceRequest.call(
			this,
			{ method: 'POST', path, body: { [listKey]: entries }, creates: batchDescription(record, itemIndexes) },
			itemIndexes[0],
		);
		return resultPerEntry(body, listKey, entries);
	};
}
