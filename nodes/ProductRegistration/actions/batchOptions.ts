import type { INodeProperties } from 'n8n-workflow';

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
